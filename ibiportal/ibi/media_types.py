"""The media type a file is kept, served and judged as: one bare ``type/subtype``.

Browsers read a Content-Type's parameters differently. Chromium splits a Content-Type on commas,
honours backslash escapes inside quotes and lets the last type win, so
``application/pdf; a="\\"; b=",text/html;c="`` is HTML to it while everything before the first
``;`` says PDF. A value with no parameters, and nothing but RFC 9110's token characters around
one ``/``, leaves no two readings.
"""
from __future__ import annotations

import re

#: What a file is served as when no type can be read from what it was given.
DEFAULT_CONTENT_TYPE = "application/octet-stream"
#: RFC 9110 §5.6.2's token.
TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_BARE = re.compile(rf"{TOKEN}/{TOKEN}")


def bare_media_type(content_type: str) -> str:
    """The ``type/subtype`` of a Content-Type, lower-cased, its parameters dropped; where that is
    no ``token/token`` (a comma, a backslash, a control character, nothing: a row an export
    brought, never an upload, which is checked first), :data:`DEFAULT_CONTENT_TYPE`."""
    bare = content_type.split(";", 1)[0].strip().lower()
    return bare if _BARE.fullmatch(bare) else DEFAULT_CONTENT_TYPE
