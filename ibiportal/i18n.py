"""Translatable messages for the packages that must not import Flask (ibi/, protocol/, resolver/,
archive/, application/ and the other core modules).

The core says what went wrong in English; the web layer shows it in the reader's language. So
the core marks each message with :func:`N_` (:func:`NP_` when its words follow a number) and
gives its variable parts as named values::

    raise ParseError(N_("the identifier is %(length)d characters long; at most %(limit)d are allowed",
                        length=len(text), limit=255), position=256)

``N_`` is the no-op marker pybabel extracts (``bin/translations``): it returns a :class:`Message`,
a ``str`` holding the English text (so logs, the CLI, comparisons and JSON see plain English), that
also keeps its template and values; the web layer translates it when it renders it
(``ibiportal.web.i18n.translate``, the ``translate`` filter), the values slotted into the
translated template. Values may be messages themselves (translated too). Placeholders are
``%(name)s``-style, as everywhere in the catalog (``%%`` for a literal ``%`` when there are values).
A message built by concatenation or an f-string is plain text again, and stays English. A value
may also be a tuple of values (messages or not): it is written as its items joined by ``; ``.

A message that is stored (a trace, a diagnosis) keeps its template and values beside its English
text (:func:`to_record`, :func:`from_record`), so that a page shows it later in its reader's
language; text stored before that, or never a message, stays the English it was.

A quantity in a message is given as :func:`number` (``5,000`` in English, ``5.000`` in
Portuguese), and text that no catalog translates (a transport's or a library's own words, kept as
they were recorded) as :class:`Recorded`, which a page shows marked as English.
"""
from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from babel.numbers import format_decimal

#: How a tuple value is written: its items, one after the other.
LIST_SEPARATOR = "; "


def _english_html(text: str) -> str:
    return html.escape(str.__str__(text))


#: How a page writes core text (markupsafe's ``__html__``, which Jinja's autoescaping and
#: ``Markup``'s ``%`` call on every value): the web layer makes it write the text in the reader's
#: language (``ibiportal.web.i18n.init_app``), so that a message a template shows as it is, or
#: gives to ``_()`` as a value, is translated as surely as one shown with the ``translate``
#: filter. Outside the web layer, the English, escaped.
html_of: Callable[[str], str] = _english_html


class _Shown(str):
    """Core text a page writes through :data:`html_of`."""

    def __html__(self) -> str:
        return html_of(self)


class Message(_Shown):
    """English text that knows its catalog entry: ``template`` (the msgid) and ``values``; a
    message with a ``plural`` form (:func:`NP_`) also its ``count``, which chooses the form in
    each language (English: the template for one, the plural otherwise)."""

    template: str
    values: Mapping[str, object]
    plural: str | None
    count: int | None

    def __new__(cls, template: str, values: Mapping[str, object] | None = None, plural: str | None = None,
                count: int | None = None) -> "Message":
        values = MappingProxyType(dict(values or {}))
        shown = {name: LIST_SEPARATOR.join(value) if isinstance(value, tuple) else value
                 for name, value in values.items()}
        english = plural if plural is not None and count != 1 else template
        text = super().__new__(cls, english % shown if values else english)
        text.template = template
        text.values = values
        text.plural = plural
        text.count = count
        return text

    def __reduce__(self):  # pickled (a cached outcome shared between workers) with its template
        return (Message, (self.template, dict(self.values), self.plural, self.count))


class Localized(_Shown):
    """Text the core writes in each of its languages itself (the explanations of
    ``ibi/explain.py``, built word by word): English as the ``str``, each language's in ``texts``
    (by ``en``/``pt``). A value of a :class:`Message`, shown in the reader's language with it."""

    texts: Mapping[str, str]

    def __new__(cls, texts: Mapping[str, str]) -> "Localized":
        text = super().__new__(cls, texts["en"])
        text.texts = MappingProxyType(dict(texts))
        return text

    def __reduce__(self):
        return (Localized, (dict(self.texts),))


def decimal(value: float, spec: str = "g") -> Localized:
    """A measured number (milliseconds, seconds) as recorded, formatted by ``spec``, with each
    language's decimal sign: ``2000.2`` and ``2000,2``."""
    text = format(value, spec)
    return Localized({"en": text, "pt": text.replace(".", ",")})


def number(value: int | float, decimals: int | None = None) -> Localized:
    """A quantity as each language writes it (Babel's CLDR data): ``5,000`` and ``5.000``,
    ``0.4`` and ``0,4``; ``decimals`` fixes how many decimals are written."""
    pattern = None if decimals is None else "#,##0" + ("." + "0" * decimals if decimals else "")
    return Localized({language: format_decimal(value, format=pattern, locale=locale)
                      for language, locale in (("en", "en"), ("pt", "pt_BR"))})


class Recorded(_Shown):
    """Text kept in the words it was recorded in, which no catalog translates (a transport's
    error, libcurl's or requests' message, a reason stored before reasons were messages): a page
    shows it as it is, marked as English."""


def N_(template: str, **values: object) -> Message:
    """Mark ``template`` for translation (pybabel's ``N_`` keyword); its ``values`` fill it."""
    return Message(template, values)


def NP_(singular: str, plural: str, n: int, **values: object) -> Message:
    """Mark a message whose words follow a number (``ngettext``'s pair, pybabel's ``NP_:1,2``
    keyword): ``n`` chooses the form by each language's rule (English: ``singular`` for 1), and
    is the value ``count`` too unless ``values`` give one (:func:`number`, to write it)."""
    return Message(singular, {"count": n, **values}, plural, n)


def to_record(text: str | None) -> dict[str, Any] | None:
    """A message's template and values as JSON-ready data (values that are messages or tuples
    too); ``None`` for text that is no message."""
    if not isinstance(text, Message):
        return None
    record = {"template": text.template, "values": {name: _value_record(value) for name, value in text.values.items()}}
    if text.plural is not None:
        record.update(plural=text.plural, count=text.count)
    return record


def from_record(text: str | None, record: Mapping[str, Any] | None) -> str | None:
    """The stored ``text`` as a :class:`Message` again, from its :func:`to_record`; the text as it
    was stored when there is no record (stored before messages kept theirs)."""
    if record is None or text is None:
        return text
    return _message(record)


def _message(record: Mapping[str, Any]) -> Message:
    return Message(record["template"], {name: _value_of(value) for name, value in record["values"].items()},
                   record.get("plural"), record.get("count"))


def _value_record(value: object) -> object:
    if isinstance(value, Message):
        return to_record(value)
    if isinstance(value, Localized):
        return {"texts": dict(value.texts)}
    if isinstance(value, Recorded):
        return {"recorded": str(value)}
    if isinstance(value, tuple):
        return [_value_record(item) for item in value]
    return value


def _value_of(record: object) -> object:
    if isinstance(record, dict):
        if "recorded" in record:
            return Recorded(record["recorded"])
        return Localized(record["texts"]) if "texts" in record else _message(record)
    if isinstance(record, list):
        return tuple(_value_of(item) for item in record)
    return record
