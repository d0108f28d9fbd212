"""The ``<nome>=<valor>`` pairs of a request URL (file 003, §6.1, Table 6.1).

A request is ``http://<address>/<service IBI>?name=value&name=value…``; pairs may come in
any order. Values are ASCII with the special characters of Table 6.1 percent-encoded:

=========  ========
character  encoding
=========  ========
space      ``%20``
``%``      ``%25``
``&``      ``%26``
``+``      ``%2B``
``=``      ``%3D``
``?``      ``%3F``
=========  ========

Non-ASCII characters are ``%hh`` of their ISO-8859-1 code (§6.1 "codificar no sistema
hexadecimal caracteres que não sejam ASCII"), in lower case as ``Relat%f3rio`` in Example 8.9.
This module also encodes, in lower case, the few ASCII characters that cannot stand in a URL
query at all (control characters, ``#`` which would start a fragment, and
``" < > \\ ^ ` { | }``); none occurs in the standard's examples. When decoding, ``+`` is a
space (that is why Table 6.1 escapes it: ``GetLastEdition+GetMetadata`` is the verb list
``GetLastEdition GetMetadata``).

Text values are ISO-8859-1 strings: ``decode_query_value(encode_query_value(t)) == t`` for every ``t``
whose characters are at most U+00FF, and every byte sequence survives as its Latin-1 text.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Message
from ibiportal.protocol.percent import escapes

TABLE_6_1_ESCAPES = {" ": "%20", "%": "%25", "&": "%26", "+": "%2B", "=": "%3D", "?": "%3F"}
_NOT_IN_URL = set('#"<>\\^`{|}')
_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
#: What a request may not contain unencoded: space, control characters, non-ASCII (one regex
#: search instead of a loop over every character: the resolver parses one query per message).
_MUST_BE_ENCODED = re.compile(r"[^\x21-\x7e]")


#: What :func:`encode_query_value` leaves as it is: printable ASCII but Table 6.1's specials
#: and the characters a URL query cannot hold. A name or value made of these alone (most of a
#: message) is returned unchanged after one regex match, not walked a character at a time: a
#: resolution encodes a few dozen of them (``benchmarks/uncached.py``).
_UNCHANGED = re.compile(r"[!$'()*,\-./0-9:;@A-Z\[\]_a-z~]*")


def encode_query_value(text: str) -> str:
    """Encode a name or value for a request URL (Table 6.1).

    A character beyond ISO-8859-1 is written as its UTF-8 bytes (:mod:`ibiportal.protocol.percent`).
    """
    if _UNCHANGED.fullmatch(text):
        return text
    out: list[str] = []
    for char in text:
        code = ord(char)
        if char in TABLE_6_1_ESCAPES:
            out.append(TABLE_6_1_ESCAPES[char])
        elif code > 0x7F:
            out.append(escapes(char))
        elif code < 0x21 or code == 0x7F or char in _NOT_IN_URL:
            out.append(f"%{code:02x}")
        else:
            out.append(char)
    return "".join(out)


def decode_query_value(encoded: str, position: int = 1) -> str:
    """Decode a name or value of a request URL: ``%hh`` (either case) and ``+`` → space.

    ``position`` is where ``encoded`` starts in its query, for error positions. A ``%`` not
    followed by two hexadecimal digits is a :class:`ParseError`.
    """
    if "%" not in encoded and "+" not in encoded:
        return encoded  # nothing to decode: most names and many values
    bad = _PERCENT.search(encoded)
    if bad:
        shown = encoded[bad.start():bad.start() + 3]
        raise ParseError(
            N_("malformed percent escape %(shown)r: '%%' must be followed by two hexadecimal digits (Table 6.1 writes a literal '%%' as %%25)", shown=shown),
            position=position + bad.start(),
        )
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda match: chr(int(match[1], 16)), encoded.replace("+", " "))


class QueryPair(NamedTuple):
    """One decoded ``name=value`` pair, with the 1-based positions of its parts in the query."""

    name: str
    value: str
    position: int
    value_position: int
    encoded_value: str


def build_query(pairs: Iterable[tuple[str, str]]) -> str:
    """``name=value&…`` from ``(name, text)`` pairs, each side encoded by :func:`encode_query_value`."""
    return "&".join(f"{encode_query_value(name)}={encode_query_value(value)}" for name, value in pairs)


def _must_be_encoded(char: str, from_bytes: bool) -> Message:
    """Why ``char`` cannot stand as it is in a request (Table 6.1)."""
    code = ord(char)
    if char == " ":
        return N_("a space must be written %(escape)s in a request (Table 6.1)", escape="%20")
    if code < 0x20 or code == 0x7F:
        return N_("the control character 0x%(code)02X must be percent-encoded in a request (Table 6.1)", code=code)
    if from_bytes:
        return N_("the non-ASCII byte %(char)r must be percent-encoded in a request (Table 6.1)", char=char)
    return N_("the non-ASCII character %(char)r must be percent-encoded in a request (Table 6.1)", char=char)


def parse_query(query: str | bytes) -> tuple[QueryPair, ...]:
    """Split and decode a query string (without its ``?``), keeping order and duplicates.

    Raises :class:`ParseError` for characters that must have been encoded (space, control,
    non-ASCII), an empty pair (``&&``, a leading or trailing ``&``), a pair without ``=``,
    an empty name, or a malformed ``%`` escape. The empty query has no pairs.
    """
    text = query.decode("latin-1") if isinstance(query, bytes) else query
    bad = _MUST_BE_ENCODED.search(text)
    if bad:
        raise ParseError(_must_be_encoded(bad[0], isinstance(query, bytes)), position=bad.start() + 1)
    if not text:
        return ()
    pairs: list[QueryPair] = []
    start = 0
    for segment in text.split("&"):
        position = start + 1
        start += len(segment) + 1
        if not segment:
            raise ParseError(N_("empty pair: '&' must separate two name=value pairs"), position=position)
        name, equals, encoded = segment.partition("=")
        if not equals:
            raise ParseError(N_("pair %(segment)r has no '=' (§6.1: <nome>=<valor>)", segment=segment[:40]), position=position)
        if not name:
            raise ParseError(N_("pair with an empty name before '='"), position=position)
        value_position = position + len(name) + 1
        pairs.append(
            QueryPair(
                decode_query_value(name, position),
                decode_query_value(encoded, value_position),
                position,
                value_position,
                encoded,
            )
        )
    return tuple(pairs)
