"""The user's language preference (``clientinformation.languagepreference``, Table 8.6).

The resolver keeps it to itself (it is not passed to Archives, §8.2) and uses it for one
thing: choosing among the ``url….translation(xx)`` pairs of an answer when the persistent
URL asks for a translation without naming the language (``+``, STANDARD.md §4). The header
is the HTTP ``Accept-Language`` (RFC 9110 §12.5.4), e.g. ``pt-BR,fr;q=0.8,en;q=0.5,pt;q=0.3``
as in §10.1.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ibiportal.i18n import N_

_RANGE = re.compile(r"\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*)?")


@dataclass(frozen=True)
class LanguageRange:
    """One ``Accept-Language`` element: a range (``pt-br``, ``fr``, ``*``) and its q-value."""

    range: str
    q: float


def parse_accept_language(header: str | None) -> tuple[LanguageRange, ...]:
    """The ranges of an ``Accept-Language`` header, best first (stable for equal q-values).

    Malformed elements are skipped (a browser's header is not the user's fault); ``q=0``
    ranges are kept, since they say "not this language".
    """
    ranges: list[LanguageRange] = []
    for element in (header or "").split(","):
        match = _RANGE.fullmatch(element)
        if match is None or not element.strip():
            continue
        q = float(match[2]) if match[2] is not None else 1.0
        ranges.append(LanguageRange(match[1].lower(), min(q, 1.0)))
    return tuple(sorted(ranges, key=lambda item: -item.q))


def _quality(tag: str, ranges: Sequence[LanguageRange]) -> tuple[float, int]:
    """The q-value the user gives to ``tag`` (``pt``, ``pt-BR``) and how closely it matches.

    The most specific matching range gives the q-value. A range matches a tag equal to it
    (closeness 2) or beginning with it and ``-`` (closeness 1, RFC 4647 basic filtering); a
    language-only tag ``pt`` also matches the range ``pt-br`` (closeness 0), so a translation
    ``(pt)`` is acceptable to a user who asks for ``pt-BR``; ``*`` matches anything
    (closeness -1). Closeness breaks ties between equal q-values: a ``pt-BR`` reader gets
    ``(pt-BR)`` before ``(pt)`` whatever the answer's order.
    """
    wanted = tag.lower()
    best: tuple[int, float, int] | None = None
    for item in ranges:
        if item.range == "*":
            specificity, closeness = 0, -1
        elif wanted == item.range:
            specificity, closeness = len(item.range), 2
        elif wanted.startswith(item.range + "-"):
            specificity, closeness = len(item.range), 1
        elif "-" not in wanted and item.range.split("-")[0] == wanted:
            specificity, closeness = len(wanted), 0
        else:
            continue
        if best is None or specificity > best[0]:
            best = (specificity, item.q, closeness)
    return (0.0, -1) if best is None else (best[1], best[2])


@dataclass(frozen=True)
class LanguageChoice:
    """The translation chosen (``None``: none is acceptable, take the original) and why, in words."""

    language: str | None
    reason: str


def choose_translation(available: Sequence[str], accept_language: str | None) -> LanguageChoice:
    """Choose among the languages of ``url….translation(xx)`` pairs by the user's q-values.

    The highest q-value wins, then the closest tag (an exact ``pt-BR`` before a ``pt``), then
    the answer's order. When the user accepts none of them (no header, or no range matches
    with q > 0) no translation is chosen: Example 8.3 says ``+`` then returns "simplesmente a
    versão do item de informação no seu idioma original" (see
    :func:`ibiportal.resolver.reading.read`).
    """
    if not available:
        return LanguageChoice(None, N_("the answer offers no translation"))
    ranges = parse_accept_language(accept_language)
    scored = [(*_quality(tag, ranges), -index, tag) for index, tag in enumerate(available)]
    q, _, _, tag = max(scored)
    offered = ", ".join(available)
    if q > 0:
        return LanguageChoice(tag, N_("translation (%(tag)s) chosen by Accept-Language q=%(q)s among %(offered)s",
                                      tag=tag, q=f"{q:g}", offered=offered))
    return LanguageChoice(None, N_(
        "no translation offered (%(offered)s) is in Accept-Language %(header)s; taking the original (Example 8.3)",
        offered=offered, header=repr(accept_language) if accept_language else N_("(none)")))
