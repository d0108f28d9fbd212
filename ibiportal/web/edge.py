"""Text checked once, at the edge: every query string, form and JSON body, before any view.

A lone surrogate (``"\\udfff"`` is valid JSON but no Unicode text) cannot be encoded as UTF-8:
stored, it broke every page that showed it. A control character has no place in an identifier,
a title or a URL (CR/LF in a ``Location`` was a 500, a tab one a browser drops was an open
redirect). An over-long value only costs. And a JSON body is parsed within bounds: Python's
parser recurses per nesting level and ``int()`` refuses more than 4,300 digits, both 500s.

The rules (400 naming the field and the character; 413 for a JSON body over its size):

* no value or name holds a lone surrogate, nor a control character (Unicode category Cc), except
  tab, CR and LF in the multi-line fields of :data:`MULTILINE_FIELDS` and the pasted fields of
  :data:`PASTED_FIELDS`;
* a value is at most :data:`MAX_TEXT_CHARS` characters, except in the multi-line fields and the
  fields of :data:`LONG_FIELDS` (which the request's size bounds);
* a JSON body is at most :data:`MAX_JSON_BYTES` bytes, nests at most :data:`MAX_JSON_DEPTH`
  arrays and objects, and its numbers have at most :data:`MAX_NUMBER_DIGITS` digits.

Raw bodies (files) are not text and are not looked at.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections import deque
from collections.abc import Iterable
from typing import Any

from flask import Flask, current_app, request
from flask_babel import format_decimal
from werkzeug.exceptions import RequestEntityTooLarge

from .i18n import gettext
from ..errors import ParseError
from ..i18n import N_, Recorded

MAX_TEXT_CHARS = 4096
"""A single-line value: an IBI, a URL (browsers keep about 2,000 characters), a title, a name."""
MULTILINE_FIELDS = frozenset({"text", "identifiers", "creators", "query"})
"""Text areas (reference lists, identifier lists, one creator a line, query pairs; also under a form's
prefix, ``download-text``) and their JSON twins."""
PASTED_FIELDS = {"identifiers.home": frozenset({"q"}), "api.classify_text": frozenset({"q"})}
"""Single-line fields a person pastes whatever they hold into, by endpoint (the home box and
``/api/v1/classify``, whose OpenAPI description promises an answer for any text): a reference
copied from a PDF comes over two lines, so tab, CR and LF are allowed, within :data:`MAX_TEXT_CHARS`
(the recogniser reads line breaks: joined inside a link, a space between words)."""
LONG_FIELDS = frozenset({"resolutions"})
"""Single-line form fields as long as the list they go with: the resolutions Check references posts
back with its downloads (JSON, one per entry, up to 5,000 entries of a few hundred characters)."""
FILE_PART = "file"
"""A form's part of this name carries a file's bytes, even sent without a file name (when werkzeug
keeps it as a field): any byte may be in a file, which the view reading it judges as a file."""
MAX_JSON_BYTES = 1024 * 1024
MAX_JSON_DEPTH = 32
MAX_NUMBER_DIGITS = 32
FORM_MIMETYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
RAW_BODY_ENDPOINTS = frozenset({"admin_items.upload_form", "api.import_items"})
"""Forms holding a file up to ``IBIPORTAL_MAX_FILE_BYTES`` (an upload, an item package): the view reads
them under that limit."""

_PLAIN_QUERY = re.compile(rb"[^\x20-\x24\x26-\x7e]")  # anything but printable ASCII without '%'
_LINE_BREAKS = frozenset("\t\r\n")
_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')  # strings skipped whole, brackets


def text_fault(value: str, field: str, multiline: bool = False, long: bool = False,
               line_breaks: bool = False) -> ParseError | None:
    """What is wrong with ``value`` as the text of ``field``, or ``None``; the position is 1-based.
    A multi-line or ``long`` field is not held to :data:`MAX_TEXT_CHARS`; a multi-line field, or one
    that allows ``line_breaks``, takes tab, CR and LF."""
    if not (multiline or long) and len(value) > MAX_TEXT_CHARS:
        return ParseError(N_("%(field)s is %(length)s characters long; at most %(max_text_chars)s are read", field=field, length=len(value), max_text_chars=MAX_TEXT_CHARS),
                          position=MAX_TEXT_CHARS + 1, field=field)
    if value.isprintable():  # the common case, in C: no control character, no surrogate
        return None
    for index, char in enumerate(value):
        category = unicodedata.category(char)
        if category == "Cs":
            return ParseError(N_("%(field)s holds U+%(value)04X, half of a surrogate pair, which is not text: send valid Unicode (UTF-8)", field=field, value=ord(char)), position=index + 1, field=field)
        if category == "Cc" and not ((multiline or line_breaks) and char in _LINE_BREAKS):
            allowed = " (only tab, CR and LF are, in this multi-line field)" if multiline or line_breaks else ""
            return ParseError(N_("%(field)s holds the control character U+%(value)04X, which is not allowed%(allowed)s", field=field, value=ord(char), allowed=allowed),
                              position=index + 1, field=field)
    return None


def is_multiline(name: str) -> bool:
    """A multi-line field, also under a form's prefix (``download-text``)."""
    return name.rpartition("-")[2] in MULTILINE_FIELDS


def check_pairs(pairs: Iterable[tuple[str | None, str]], pasted: frozenset[str] = frozenset()) -> None:
    """Names and values of a query string or a form, each value judged as its name's field
    (``pasted``: the fields that take line breaks, :data:`PASTED_FIELDS`)."""
    for name, value in pairs:
        if name is None:  # a multipart part whose Content-Disposition names no field
            raise ParseError(N_('a part of the form has no name: every part needs Content-Disposition: form-data; name="…"'), field="form")
        fault = text_fault(name, "query") or text_fault(value, name, multiline=is_multiline(name),
                                                        long=name in LONG_FIELDS, line_breaks=name in pasted)
        if fault is not None:
            raise fault


def passes_undecoded(query: bytes) -> bool:
    """Whether a query string is sure to pass without being decoded: printable ASCII without ``%``,
    at most :data:`MAX_TEXT_CHARS` long (no value can then hold a control character or be too long)."""
    return len(query) <= MAX_TEXT_CHARS and _PLAIN_QUERY.search(query) is None


def check_request() -> None:
    """Before every view: the query string, then a posted form (a PUT's body is a file, whatever its
    type; bodies of other types are the views')."""
    if not passes_undecoded(request.query_string):
        check_pairs(request.args.items(multi=True), PASTED_FIELDS.get(request.endpoint, frozenset()))
    if request.method == "POST" and request.mimetype in FORM_MIMETYPES and request.endpoint not in RAW_BODY_ENDPOINTS:
        _count_fields()
        check_pairs((name, value) for name, value in request.form.items(multi=True) if name != FILE_PART)


def _count_fields() -> None:
    """A URL-encoded form has at most ``MAX_FORM_PARTS`` fields, as a multipart one has parts
    (werkzeug counts those itself). Werkzeug splits a URL-encoded body into pairs whole, however
    many: an 8 MB form of empty fields was nearly three million pairs, 5 s of CPU for one
    anonymous request. Counting its separators first costs a scan of bytes already in memory."""
    if request.mimetype != "application/x-www-form-urlencoded":
        return
    fields = request.get_data(cache=True).count(b"&") + 1  # the form is parsed from this cached copy
    limit = current_app.config["MAX_FORM_PARTS"]
    if fields > limit:
        raise RequestEntityTooLarge(gettext("The form has %(count)s fields; the portal reads at most %(limit)s.",
                                            count=format_decimal(fields), limit=format_decimal(limit)))


def read_json(raw: bytes) -> Any:
    """A JSON body parsed within the bounds of the module docstring; its strings checked as text."""
    if len(raw) > MAX_JSON_BYTES:
        raise RequestEntityTooLarge(gettext("The JSON body is %(size)s bytes; the portal reads at most %(limit)s KiB of JSON.",
                                            size=format_decimal(len(raw)), limit=format_decimal(MAX_JSON_BYTES // 1024)))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        raise ParseError(N_("the body has the byte 0x%(value)02X, which is not UTF-8", value=bad.object[bad.start]),
                         position=bad.start + 1, field="body") from bad
    _check_depth(text)

    def number(kind):
        def parse(digits: str):
            if sum(c.isdigit() for c in digits) > MAX_NUMBER_DIGITS:
                raise ParseError(N_("the body has a number of %(length)s characters; numbers have at most %(max_number_digits)s digits", length=len(digits), max_number_digits=MAX_NUMBER_DIGITS), position=text.find(digits) + 1, field="body")
            return kind(digits)
        return parse

    try:
        body = json.loads(text, parse_int=number(int), parse_float=number(float))
    except json.JSONDecodeError as exc:
        raise ParseError(N_("the body is not valid JSON: %(msg)s", msg=Recorded(exc.msg)), position=exc.pos + 1, field="body") from exc
    _check_strings(body)
    return body


def _check_depth(text: str) -> None:
    depth = 0
    for token in _JSON_TOKENS.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise ParseError(N_("the body nests arrays and objects more than %(max_json_depth)s deep", max_json_depth=MAX_JSON_DEPTH),
                                 position=token.start() + 1, field="body")
        elif bracket in "]}":
            depth -= 1


def _check_strings(body: Any) -> None:
    """Every key and string of ``body``, named by its path (``creators[1]``); the multi-line
    fields are the top-level members of :data:`MULTILINE_FIELDS` and the strings under them."""
    waiting: deque[tuple[Any, str, bool]] = deque([(body, "body", False)])  # the first fault in reading order
    while waiting:
        value, path, multiline = waiting.popleft()
        if isinstance(value, str):
            fault = text_fault(value, path, multiline)
        elif isinstance(value, dict):
            fault = None
            for key, member in value.items():
                fault = fault or text_fault(key, path)
                name = key if path == "body" else f"{path}.{key}"
                waiting.append((member, name, multiline or (path == "body" and key in MULTILINE_FIELDS)))
        elif isinstance(value, list):
            fault = None
            waiting.extend((member, f"{path}[{index}]", multiline) for index, member in enumerate(value))
        else:
            fault = None
        if fault is not None:
            raise fault


def init_app(app: Flask) -> None:
    app.before_request(check_request)
