"""Showing what Archives answered, exactly and harmlessly.

An Archive's answer is data from a stranger: it may hold markup, megabytes, control
characters, bytes that are not ASCII (Table 6.2 allows only ASCII, other bytes as ``%hh``)
or invisible Unicode that reorders text. Everything is escaped (never marked safe as it
came), and what cannot be seen is made visible:

* C0 controls and DEL become escapes (``\\x07``, ``\\t``; a line end ``\\r\\n`` or ``\\n``,
  followed by a real line break), so that CRLF versus LF is visible (escapes rather than
  Unicode control pictures, which many fonts lack);
* C1 controls, zero-width and bidirectional controls become ``\\u…`` escapes (a right-to-
  left override must not reorder what support staff read);
* other characters beyond ASCII stay as they are, marked as not ASCII.

Each made-visible character is wrapped in ``<span class="ctl">`` with a title saying what
it was (in the reader's language); the span is built from constants and that escaped title, the
text between spans is escaped.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from markupsafe import Markup, escape
from ..i18n import gettext

#: Characters shown as ``\\u…``: C1 controls, zero-width and bidirectional formatting characters.
_INVISIBLE = frozenset(
    [*range(0x80, 0xA0), 0xAD, *range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x2070), 0xFEFF]
)

#: Longest text shown in full before "show all" (raw answers, pair values, URLs).
RAW_LIMIT = 4000
VALUE_LIMIT = 300


_ESCAPES = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _escape_code(code: int) -> str:
    return _ESCAPES.get(code, f"\\x{code:02x}")


#: Runs of printable ASCII, a CRLF line end (kept in one piece), or any other single character.
_TOKENS = re.compile(r"[\x20-\x7e]+|\r\n|.", re.S)


def _segments(text: str):
    """``text`` as (kind, piece, code): ``plain`` ASCII runs; ``control`` and ``invisible`` characters as
    escapes (CRLF as one ``\\r\\n``, code 0x0A); ``other`` characters as they are."""
    for match in _TOKENS.finditer(text):
        piece = match[0]
        if piece == "\r\n":
            yield "control", "\\r\\n", 0x0A
            continue
        code = ord(piece[0])
        if 0x20 <= code < 0x7F:
            yield "plain", piece, 0
        elif code < 0x20 or code == 0x7F:
            yield "control", _escape_code(code), code
        elif code in _INVISIBLE:
            yield "invisible", f"\\u{code:04x}", code
        else:
            yield "other", piece, code


_TAG = re.compile(r"(<[^<>]*>)")
"""A tag of markup made by the portal (a transport's words in ``<span lang="en">``, ``<code>``)."""


def visible(text: str | None, *, mark_non_ascii: bool = True) -> Markup:
    """``text`` escaped, with control, invisible and non-ASCII characters made visible (module docstring).

    ``mark_non_ascii=False`` for the page's own sentences that quote Archive data (decisions,
    summaries): controls and invisible characters are still shown, other characters left alone.
    Markup (a translated message whose values the portal marked up) keeps its tags; only the text
    between them is made visible, once: escaped again, a Portuguese alert showed its
    ``<span lang="en">`` as text.
    """
    if isinstance(text, Markup):
        return Markup("").join(Markup(piece) if _TAG.fullmatch(piece) else
                               visible(Markup(piece).unescape(), mark_non_ascii=mark_non_ascii)
                               for piece in _TAG.split(str(text)) if piece)
    parts: list[str] = []
    for kind, piece, code in _segments(text or ""):
        if kind == "control":
            what = gettext("line end CR LF") if piece == "\\r\\n" else gettext("control character 0x%(code)s",
                                                                                  code=f"{code:02X}")
            parts.append(f'<span class="ctl" title="{escape(what)}">{piece}</span>')
            if code == 0x0A:
                parts.append("\n")
        elif kind == "invisible":
            what = gettext("invisible character U+%(code)s", code=f"{code:04X}")
            parts.append(f'<span class="ctl" title="{escape(what)}">{piece}</span>')
        elif kind == "other" and mark_non_ascii:
            what = gettext("not ASCII: U+%(code)s", code=f"{code:04X}")
            parts.append(f'<span class="nonascii" title="{escape(what)}">{escape(piece)}</span>')
        else:
            parts.append(str(escape(piece)))
    return Markup("".join(parts))


def visible_text(text: str | None) -> str:
    """Plain text for attributes and tooltips: controls and invisible characters as escapes (escaped later)."""
    return "".join(piece for _, piece, _ in _segments(text or ""))


@dataclass(frozen=True)
class Clipped:
    """A text cut for display: ``head`` is shown, the whole is behind "show all" when ``cut``."""

    head: str
    length: int
    cut: bool


def clip(text: str | None, limit: int = VALUE_LIMIT) -> Clipped:
    """The first ``limit`` characters of ``text`` and whether there is more."""
    value = text or ""
    return Clipped(value[:limit], len(value), len(value) > limit)


def marked(text: str, position: int | None) -> tuple[str, str, str]:
    """``text`` split around the 1-based ``position`` of a parse error: before, the character, after."""
    if position is None or not 1 <= position <= len(text) + 1:
        return text, "", ""
    index = position - 1
    return text[:index], text[index:index + 1], text[index + 1:]
