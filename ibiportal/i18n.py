"""Translatable messages for the packages that must not import Flask (ibi/, protocol/, resolver/,
archive/, application/ and the other core modules).

The core says what went wrong in English; the web layer shows it in the reader's language. So
the core marks each message with :func:`N_` and gives its variable parts as named values::

    raise ParseError(N_("the identifier is %(length)d characters long; at most %(limit)d are allowed",
                        length=len(text), limit=255), position=256)

``N_`` is the no-op marker pybabel extracts (``bin/translations``): it returns a :class:`Message`,
a ``str`` holding the English text (so logs, the CLI, comparisons and JSON see plain English), that
also keeps its template and values; the web layer translates it when it renders it
(``ibiportal.web.i18n.translate``, the ``translate`` filter), the values slotted into the
translated template. Values may be messages themselves (translated too). Placeholders are
``%(name)s``-style, as everywhere in the catalog (``%%`` for a literal ``%`` when there are values).
A message built by concatenation or an f-string is plain text again, and stays English.
"""
from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType


class Message(str):
    """English text that knows its catalog entry: ``template`` (the msgid) and ``values``."""

    template: str
    values: Mapping[str, object]

    def __new__(cls, template: str, values: Mapping[str, object] | None = None) -> "Message":
        values = MappingProxyType(dict(values or {}))
        text = super().__new__(cls, template % values if values else template)
        text.template = template
        text.values = values
        return text

    def __reduce__(self):  # pickled (a cached outcome shared between workers) with its template
        return (Message, (self.template, dict(self.values)))


def N_(template: str, **values: object) -> Message:
    """Mark ``template`` for translation (pybabel's ``N_`` keyword); its ``values`` fill it."""
    return Message(template, values)
