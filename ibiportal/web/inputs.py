"""Small input parsers shared by the API, the pages and the CLI."""
from __future__ import annotations

from collections.abc import Iterable

from ..errors import ParseError
from ..ibi.classify import read_url
from ..ibi.recognise import Recognition
from ..ibi.url import PersistentUrl

_NO = frozenset({"", "0", "false", "no", "off"})
_YES = frozenset({"1", "true", "yes", "on"})
"""How a yes/no parameter may be written (lower-cased)."""


def optional_port(value: str | None) -> int | None:
    """A port typed by a user: empty is "none"; digits only (the range is checked by the core)."""
    if value is None or not value.strip():
        return None
    if not value.strip().isdigit():
        raise ParseError(f"port must be a number from 1 to 65535, not {value!r}", position=1, field="port")
    return int(value)


def optional_flag(value: str | None, field: str) -> bool:
    """A yes/no parameter: absent, empty, ``0``, ``false``, ``no`` or ``off`` is no; ``1``, ``true``, ``yes`` or ``on`` is yes."""
    text = (value or "").strip().lower()
    if text in _NO:
        return False
    if text in _YES:
        return True
    raise ParseError(f"{field} is yes or no (1/0, true/false, yes/no, on/off), not {value!r}", position=1, field=field)


def persistent_url_input(text: str | None) -> PersistentUrl:
    """The persistent URL given as ``url``; errors name that field, the position being the character in it."""
    return recognised_url_input(text)[0]


def recognised_url_input(text: str | None) -> tuple[PersistentUrl, Recognition]:
    """The persistent URL given as ``url``, in any form the recogniser reads (``/ibi/``, no scheme,
    ``IBI: <…>.``, …), and the recognition whose notes say what was set aside; errors name the
    ``url`` field, the position being the character in the text as given."""
    if text is None:
        raise ParseError("the `url` parameter is required, such as url=http://urlib.net/LK47B6W/362SFKH", field="url")
    return read_url(text, "url")


def query_pairs(texts: Iterable[str]) -> list[tuple[str, str]]:
    """``name=value`` texts, split at the first ``=``, as pairs for the item; a text without ``=`` is an error
    (field ``query``, position: the pair's number, as :func:`ibiportal.ibi.compose.compose` counts them)."""
    pairs: list[tuple[str, str]] = []
    for number, text in enumerate(texts, start=1):
        name, equals, value = text.partition("=")
        if not equals:
            raise ParseError(f"`{text}` is not a pair: write `name=value`", position=number, field="query")
        pairs.append((name, value))
    return pairs


def resolution_target(text: str, recognition: Recognition) -> str:
    """What a trace resolves for ``text``: the text as given (stripped) when the recogniser set
    nothing aside, so the trace shows exactly what was typed; else the recogniser's reading
    (``http://urlib.net/ibi/X`` is resolved as ``http://urlib.net/X``, as ``GET /ibi/X`` is)."""
    return recognition.reading if recognition.notes else text.strip()
