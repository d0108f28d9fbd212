"""Finding the IBIs in a text: a reference list, a BibTeX or RIS file, the text of a PDF.

Two kinds of candidate are looked for, in one pass over the text:

* **links**: ``http(s)://…`` up to a space or a character no URL has (``<>"'`` …), and the
  scheme-less ``urlib.net/…`` and ``<host>.inpe.br/…``; a link broken at the end of a line
  (as a PDF prints a long URL) is joined to the start of the next line when the line ends
  inside it and the joined text reads as an IBI;
* **bare IBIs**: an IBIp in upper case (``8JMKD3MGP3W34T/47AF772``, also after ``ibi:``) and a
  repository name with its date (``sid.inpe.br/mtc-m21d/2022/07.20.15.45``, with an optional
  report-number suffix such as ``-NTC``), standing on their own (not inside a word or a link);
* **labelled values**: whatever follows the label ``IBI:`` that references print (``IBI: <…>``).

Each candidate is read by :func:`~ibiportal.ibi.classify.classify`, the recogniser of every
entry point, after the punctuation around it in a sentence is set aside. A link counts only
when it is one of URLib's: its host is ``urlib.net`` or an INPE server (``*.inpe.br``), its
path starts with URLib's ``/ibi/``, ``/rep/`` or ``/col/`` segments, or the IBI it names has a
known prefix (either form) or a repository name whose prefix has a dot, as Algorithm 1 makes
them. So DOIs (``10.1109/ACCESS.2020.2997019`` has no date part), ordinary URLs and dates
that merely look like ``2020/01.02.03.04`` inside another site's URL are not IBIs.

A candidate that is plainly meant as an IBI but does not read as one is kept as a **broken**
entry with the recogniser's error (what is wrong, at which character of the entry's text),
never dropped: that is what a researcher checking a list needs flagged. Plainly meant means: a
link on ``urlib.net`` with a path, a link on an INPE server with URLib's ``/ibi/``, ``/rep/``
or ``/col/`` segment, a labelled value, or a bare string of an IBI's shape (the patterns above,
which a wrong digit or an impossible date does not stop matching).

What the text asks for is kept: the modifiers of Table 8.2 (``!``, ``+``, ``:``, and the
legacy ``??``), the file path and the query. A ``!`` or ``??`` ending a link is the last-edition
or metadata modifier, never a sentence's punctuation.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ibiportal.ibi.classify import Classification, classify, notes_as_warnings
from ibiportal.ibi.contradictions import contradictions
from ibiportal.ibi.grammar import (
    IBIP_DIGIT, IBIP_PREFIX, IBIP_SUFFIX, LABEL, REP_SUFFIX, REPORT_NUMBER, REPOSITORY_NAME, WORD_PORT, YEAR,
)
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS
from ibiportal.ibi.url import DEFAULT_RESOLVER

_LINK = re.compile(
    r"(?:https?://|(?<![\w.@/-])(?:urlib\.net|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.inpe\.br)/)[^\s<>\"'`{}|\\^]+",
    re.IGNORECASE,
)
_IBIP_TEXT = f"{IBIP_PREFIX}/{IBIP_DIGIT}{{4,}}(?:W{IBIP_DIGIT}+)?"
"""An IBIp as printed: a date since 1995 takes at least four digits (Table 7.1, grammar.py)."""
_IBIP = re.compile(rf"(?<![\w/.@:-])(?:ibi:)?{_IBIP_TEXT}(?![\w/])", re.IGNORECASE)
_IBIP_UPPER = re.compile(f"(?i:ibi:)?{_IBIP_TEXT}")
"""Printed IBIps are upper case: ``and/or`` or ``ok/done`` in lower case are words, not IBIps."""
_REP = re.compile(
    rf"(?<![\w/.@-])(?:ibi:)?{LABEL}(?:\.{LABEL})+/{WORD_PORT}/{REP_SUFFIX}{REPORT_NUMBER}?(?![\w/])",
    re.IGNORECASE,
)
"""A repository name whose prefix has a dot, as Algorithm 1 makes them (Table 6.1, grammar.py)."""
_LABELLED = re.compile(r"\bIBI:[ \t]*<?(?P<value>[^\s<>]+?)>?[.,;]?(?=\s|$)")
"""``IBI: <…>`` as INPE's references print it: the label says an IBI follows, whatever it is."""
_PAIR_LIST = re.compile(rf"\{{rep\s+{REPOSITORY_NAME}(?:\s+ibip\s+{IBIP_PREFIX}/{IBIP_SUFFIX})?\}}", re.IGNORECASE)
"""URLib's pair-list value ``{rep … ibip …}`` (file 003, Table 9.4): both forms of one IBI, found once."""
_YEAR_END = re.compile(rf"/{YEAR}/\Z")
_BROKEN_DATE = re.compile(r"[ \t]+(?=[0-9]{2}\.[0-9]{2}\.)")
_LINK_REST = re.compile(r"[^\s<>\"'`{}|\\^]*")
_URLIB_HOST = re.compile(r"(?:^|\.)(?:urlib\.net|inpe\.br)$", re.IGNORECASE)
_INPE_SEGMENT = re.compile(r"^[a-z]+://[^/]+\.inpe\.br(?::\d+)?/(?:ibi|rep|col)/", re.IGNORECASE)
_URLIB_PATH = re.compile(r"^(?:[a-z]+://)?(?:www\.)?urlib\.net(?::\d+)?/[^/?#]", re.IGNORECASE)
_SEGMENT_NOTE = ("path segment URLib", "a direct link to", "a page of the URLib mirror")
_CLOSING = {")": "(", "]": "[", "}": "{"}
_SENTENCE_END = ".,;:?*"


@dataclass(frozen=True)
class Found:
    """One IBI found: the text as found, where (``line`` 1-based; ``start`` and ``end`` 0-based
    offsets in the whole text, ``text[start:end]``), what it was read as, and the warnings of
    an entry of the other form in its reference that names another item
    (:mod:`~ibiportal.ibi.contradictions`)."""

    text: str
    line: int
    start: int
    end: int
    reading: Classification
    contradictions: tuple[str, ...] = ()

    @property
    def broken(self) -> bool:
        """Meant as an IBI, but not one: :attr:`reading` carries the ``error``."""
        return not self.reading.recognised

    @property
    def key(self) -> str:
        """The item, whichever form was found: its IBIp when known, else its IBI (case-folded);
        empty for a broken entry, which names no item."""
        return (self.reading.ibip or self.reading.ibi or "").casefold()

    @property
    def error(self) -> dict | None:
        """Why a broken entry is no IBI: ``{"message", "position"}``, the 1-based character of
        :attr:`text` where reading stopped (``None`` when it reads)."""
        problem = self.reading.error
        return None if problem is None else {"message": problem.message, "position": problem.position}

    def to_dict(self) -> dict:
        """``{"text", "line", "start", "end", "ibi", "form", "rep", "ibip", "persistent_url",
        "warnings", "error"}``: the persistent URL on the resolver the text names (urlib.net for a
        bare IBI); the warnings are the recogniser's notes, then the conversion's; ``error`` says
        why a broken entry is no IBI (then the IBI fields are null)."""
        reading = self.reading
        conversion = reading.conversion
        return {
            "text": self.text,
            "line": self.line,
            "start": self.start,
            "end": self.end,
            "ibi": reading.ibi,
            "form": reading.form,
            "rep": reading.rep,
            "ibip": reading.ibip,
            "persistent_url": reading.original_url,
            "warnings": [
                *notes_as_warnings(reading.ibi or "", reading.notes),
                *(conversion.warnings if conversion else ()),
                *self.contradictions,
            ],
            "error": self.error,
        }


@dataclass(frozen=True)
class Extraction:
    """Every IBI found in a text, in order; ``distinct`` counts items (both forms of one count once)."""

    found: tuple[Found, ...]
    lines: tuple[str, ...]

    def in_line(self, found: Found, context: int = 80) -> tuple[str, str, str]:
        """The found text in its line, for a reader: ``(before, found, after)``, at most ``context``
        characters on each side (a PDF's paragraph may be one long line); a text that goes on to
        the next line is shown up to the line's end."""
        offset = sum(len(line) + 1 for line in self.lines[: found.line - 1])
        line = self.lines[found.line - 1]
        column = found.start - offset
        stop = min(len(line), column + (found.end - found.start))
        before = line[max(0, column - context) : column]
        after = line[stop : stop + context]
        return ("…" if column > context else "") + before, line[column:stop], after + ("…" if stop + context < len(line) else "")

    @property
    def distinct(self) -> int:
        return len({found.key for found in self.found if not found.broken})

    @property
    def broken(self) -> int:
        return sum(found.broken for found in self.found)

    def to_dict(self) -> dict:
        return {"found": [found.to_dict() for found in self.found], "count": len(self.found),
                "distinct": self.distinct, "broken": self.broken}


def extract(
    text: str, known_pairs: Iterable[Sequence[str]] = KNOWN_PREFIX_PAIRS, base: str = DEFAULT_RESOLVER
) -> Extraction:
    """The IBIs in ``text``, in the order they appear (see the module docstring for what counts)."""
    pairs = [tuple(pair) for pair in known_pairs]
    prefixes = {prefix.casefold() for pair in pairs for prefix in pair[:2]}
    line_starts = [0] + [match.end() for match in re.finditer(r"\n", text)]
    taken = _Spans()
    found: list[Found] = []
    for match in _PAIR_LIST.finditer(text):
        reading = classify(match.group(), pairs, base)
        if reading.recognised:
            found.append(Found(match.group(), _line_of(line_starts, match.start()), match.start(), match.end(), reading))
            taken.add(*match.span())
    at = 0
    while match := _LINK.search(text, at):
        link_end = _markdown_end(text, match.start(), _date_end(text, match.end()))
        at = link_end
        if taken.covers(match.start()):
            continue
        candidate = _link_candidate(text, match.start(), link_end)
        if candidate is None:
            continue
        end, reading = _read_link(text, match.start(), candidate, pairs, prefixes, base)
        if reading is not None:
            found.append(Found(text[match.start():end], _line_of(line_starts, match.start()), match.start(), end, reading))
        taken.add(match.start(), max(end, link_end))
    for pattern in (_IBIP, _REP, _LABELLED):
        for match in pattern.finditer(text):
            start, end = match.span("value") if pattern is _LABELLED else match.span()
            if taken.covers(start):
                continue
            if pattern is _IBIP and not _IBIP_UPPER.fullmatch(match.group()):
                continue
            reading = classify(text[start:end], pairs, base)
            found.append(Found(text[start:end], _line_of(line_starts, start), start, end, reading))
            taken.add(start, end)
    found.sort(key=lambda item: item.start)
    for index, warnings in contradictions(text, found).items():
        found[index] = replace(found[index], contradictions=warnings)
    return Extraction(tuple(found), tuple(text.split("\n")))


class _Spans:
    """The parts of the text already read, disjoint: whether an offset falls in one is a binary
    search (a scan of every part made a 5,000-IBI list take seconds per pattern)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def covers(self, offset: int) -> bool:
        index = bisect.bisect_right(self.starts, offset) - 1
        return index >= 0 and offset < self.ends[index]

    def add(self, start: int, end: int) -> None:
        index = bisect.bisect_right(self.starts, start)
        self.starts.insert(index, start)
        self.ends.insert(index, end)


def _markdown_end(text: str, start: int, end: int) -> int:
    """``[url](url)``: the link shown as the label ends before ``](``, so the target is a link of its own."""
    cut = text.find("](", start, end)
    return cut if cut >= 0 else end


def _date_end(text: str, end: int) -> int:
    """A link broken by a space inside its date (``…/2010/ 01.20.19.25``): where the joined link ends."""
    broken = _BROKEN_DATE.match(text, end) if _YEAR_END.search(text, 0, end) else None
    return _LINK_REST.match(text, broken.end()).end() if broken else end


def _link_candidate(text: str, start: int, end: int) -> int | None:
    """Where a link found at ``start`` really ends: before the sentence's punctuation and an
    unbalanced closing bracket (``(http://…)``, ``[x](http://…)``), but after a modifier
    (``!``, and the legacy ``??``) that ends it."""
    while end > start:
        last = text[end - 1]
        body = text[start : end - 1]
        if last == "?" and text[start:end].endswith("??") and not text[start:end].endswith("???"):
            return end  # the legacy metadata suffix of file 002, read as ``:``
        if last in _SENTENCE_END and last != ":" or last == ":" and end - start > 1 and text[end - 2] in ")>":
            end -= 1
        elif last in _CLOSING and body.count(_CLOSING[last]) < body.count(last) + 1:
            end -= 1
        else:
            return end
    return None


def _read_link(
    text: str, start: int, end: int, pairs: list, prefixes: set[str], base: str
) -> tuple[int, Classification | None]:
    """Read the link ``text[start:end]``; when it ends a line and does not read as an IBI by
    itself (or stops at a ``/``, ``-``, ``.``, ``?``, ``&`` or ``=``, where a PDF breaks URLs),
    try it joined with the first word of the next line. Returns its end and reading (None when
    it is no URLib link; a broken reading when it is plainly meant as one, see the module
    docstring)."""
    reading = classify(text[start:end], pairs, base)
    after = re.match(r"[ \t]*\r?\n[ \t]*([^\s<>\"'`{}|\\^]+)", text[end:])
    if after and (not reading.recognised or text[end - 1] in "/-.?&="):
        joined_end = _link_candidate(text, start, end + after.end())
        if joined_end is not None and joined_end > end + after.start(1):
            joined = classify(text[start:joined_end], pairs, base)
            if joined.recognised and _is_urlib(joined, prefixes):
                return joined_end, joined
    if reading.recognised and _is_urlib(reading, prefixes):
        return end, reading
    if not reading.recognised and _meant_as_ibi(text[start:end]):
        return end, reading
    return end, None


def _meant_as_ibi(link: str) -> bool:
    """A link that does not read is still plainly meant as a persistent URL: a path on
    urlib.net, URLib's ``/ibi/``, ``/rep/`` or ``/col/`` segment on an INPE server, or the shape
    of a repository name (whose INPE prefix looks like a scheme-less link)."""
    return bool(_URLIB_PATH.match(link) or _INPE_SEGMENT.match(link) or _REP.fullmatch(link))


def _is_urlib(reading: Classification, prefixes: set[str]) -> bool:
    """A link is URLib's: its host, its ``/ibi/`` ``/rep/`` ``/col/`` segments, or an IBI that is one
    for sure (a known prefix, or a repository name whose prefix has a dot, as Algorithm 1's do)."""
    url = reading.url
    if url is None:
        return False
    host = (url.resolver or "").split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
    if _URLIB_HOST.search(host):
        return True
    if any(marker in note.message for note in reading.notes for marker in _SEGMENT_NOTE):
        return True
    prefix = url.ibi.prefix
    return prefix.casefold() in prefixes or (url.ibi.form == "rep" and "." in prefix.split("/", 1)[0])


def _line_of(line_starts: list[int], offset: int) -> int:
    low, high = 0, len(line_starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if line_starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low + 1
