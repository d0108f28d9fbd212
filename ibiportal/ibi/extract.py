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

The candidates of every kind are read in the order of the text, so that a reading within
:class:`Bounds` (a request's: at most so many IBIs, for at most so many seconds) stops at the
first IBI over the limit, or at its deadline, naming where, without reading the rest: an
anonymous 1 MB text of 18,000 IBIs was read whole before it was refused. Where two
candidates overlap, the kinds take precedence as they always did: a pair list, a link, a bare
IBIp, a bare repository name, a labelled value. Every step is linear in the text: a pattern
read again from each of its starts (a label whose value never ends, a link's closing brackets,
the year before a link's broken date) made a small text cost minutes.
"""
from __future__ import annotations

import bisect
import heapq
import itertools
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from ibiportal.errors import ParseError, TooLarge
from ibiportal.i18n import N_, number
from ibiportal.ibi.classify import Classification, classify, notes_as_warnings
from ibiportal.ibi.contradictions import contradictions
from ibiportal.ibi.grammar import (
    IBIP_DIGIT, IBIP_PREFIX, IBIP_SUFFIX, LABEL, REP_SUFFIX, REPORT_NUMBER, REPOSITORY_NAME, WORD_PORT, YEAR,
)
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS
from ibiportal.ibi.url import DEFAULT_RESOLVER

_LINE_BREAK = r"(?:[ \t]*\r?\n[ \t]*)?"
_LINK = re.compile(
    rf"(?:https?:{_LINE_BREAK}/{_LINE_BREAK}/{_LINE_BREAK}|(?<![\w.@/-])(?:urlib\.net|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.inpe\.br)/"
    rf"|(?<![\w.@/:-])(?:\./)?upn:{IBIP_DIGIT}+-?:|(?<![\w.@/-])(?:\.\./)+(?:col/)?(?={REPOSITORY_NAME}/doc/))"
    rf"[^\s<>\"'`{{}}|\\^]+",
    re.IGNORECASE,
)
"""A link: ``http(s)://…`` (a PDF may break it right after ``http:`` or a ``/`` of ``//``), the
scheme-less ``urlib.net/…`` and ``<host>.inpe.br/…``, URLib's ``upn:<ResolverID>:…`` URIs
(bare or relative, ``./upn:…``; STANDARD.md §8) and its relative links between documents
(``../../../../../../col/<rep>/doc/<file>``)."""
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
_LABEL = re.compile(r"\bIBI:[ \t]*<?")
_LABELLED_VALUE = re.compile(r"(?P<value>[^\s<>]+?)>?[.,;]?(?=\s|$)")
"""``IBI: <…>`` as INPE's references print it: the label says an IBI follows, whatever it is."""
_VALUE_RUN = re.compile(r"[^\s<>]*")
_NEXT_LINE_WORD = re.compile(r"[ \t]*\r?\n[ \t]*([^\s<>\"'`{}|\\^]+)")
_PAIR_LIST = re.compile(rf"\{{rep\s+{REPOSITORY_NAME}(?:\s+ibip\s+{IBIP_PREFIX}/{IBIP_SUFFIX})?\}}", re.IGNORECASE)
"""URLib's pair-list value ``{rep … ibip …}`` (file 003, Table 9.4): both forms of one IBI, found once."""
_QUERY_VALUE = re.compile(r"[?&][\w.-]+=\Z")
"""A bare IBI right after ``?name=`` or ``&name=`` is the value of a link's pair (``?mirror=<rep>``,
``&metadatarepository=<rep>``, ``citingitem=<rep>``): another repository the link names, not an IBI
of the text, even where a broken link left the pair on its own; a whole URL there (``?url=http://…``)
is a link of its own."""
_SCHEME_AT = re.compile(r"https?:", re.IGNORECASE)
_GLUE = re.compile(r"(?:\([A-Za-z_-]{1,12}\)|[^\s<>\"'`()\[\]{}|])*")
_YEAR_END = re.compile(rf"/{YEAR}/\Z")
_BROKEN_DATE = re.compile(r"[ \t]+(?=[0-9]{2}\.[0-9]{2}\.)")
_LINK_REST = re.compile(r"[^\s<>\"'`{}|\\^]*")
_URLIB_HOST = re.compile(r"(?:^|\.)(?:urlib\.net|inpe\.br)$", re.IGNORECASE)
_INPE_SEGMENT = re.compile(r"^[a-z]+://[^/]+\.inpe\.br(?::\d+)?/(?:ibi|rep|col)/", re.IGNORECASE)
_URLIB_PATH = re.compile(r"^(?:[a-z]+://)?(?:www\.)?urlib\.net(?::\d+)?/(?!(?:[a-z0-9-]+\.)+[a-z]{2,}/?$)[^/?#]", re.IGNORECASE)
"""A path on urlib.net, but not a host name alone (``https://urlib.net/sid.inpe.br``: a list of sites, no IBI)."""
_UPN_LINK = re.compile(rf"^(?:\./)?upn:{IBIP_DIGIT}+-?:", re.IGNORECASE)
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
        offset = self._line_starts[found.line - 1]
        line = self.lines[found.line - 1]
        column = found.start - offset
        stop = min(len(line), column + (found.end - found.start))
        before = line[max(0, column - context) : column]
        after = line[stop : stop + context]
        return ("…" if column > context else "") + before, line[column:stop], after + ("…" if stop + context < len(line) else "")

    @cached_property
    def _line_starts(self) -> tuple[int, ...]:
        """Where each line starts in the text: found once, not summed again for every entry shown."""
        return (0, *itertools.accumulate(len(line) + 1 for line in self.lines[:-1]))

    @property
    def distinct(self) -> int:
        return len({found.key for found in self.found if not found.broken})

    @property
    def broken(self) -> int:
        return sum(found.broken for found in self.found)

    def to_dict(self) -> dict:
        return {"found": [found.to_dict() for found in self.found], "count": len(self.found),
                "distinct": self.distinct, "broken": self.broken}


#: The kinds of candidate, in their precedence where two overlap (:func:`_found`).
_PAIR, _LINK_KIND, _BARE_IBIP, _BARE_REP, _LABELLED_KIND = range(5)


@dataclass(frozen=True)
class Bounds:
    """How much one reading may do (a request's: ``web.references.views``): at most ``max_found``
    IBIs, the next one stopping it (:class:`TooManyIBIs`, at its start); at most ``seconds`` by
    ``clock``, looked at before each candidate is read and each entry compared, stopping it
    where it got to (:class:`ParsingTooLong`). ``None``: no bound. The clock is the CPU time of
    the reading's thread: what is bounded is the work, which a busy machine does not make larger
    (a wall clock would refuse a list of 5,000 IBIs under load, and other requests' work would
    count against this one); it is injected so that tests move it."""

    max_found: int | None = None
    seconds: float | None = None
    clock: Callable[[], float] = time.thread_time


class TooManyIBIs(ParseError):
    """More IBIs than :attr:`Bounds.max_found`: ``position`` (1-based) is where the first over it starts."""


class ParsingTooLong(TooLarge):
    """The reading passed :attr:`Bounds.seconds`: ``position`` (1-based) is where it got to."""


def extract(
    text: str, known_pairs: Iterable[Sequence[str]] = KNOWN_PREFIX_PAIRS, base: str = DEFAULT_RESOLVER,
    bounds: Bounds = Bounds(),
) -> Extraction:
    """The IBIs in ``text``, in the order they appear (see the module docstring for what counts),
    read within ``bounds``."""
    pairs = [tuple(pair) for pair in known_pairs]
    prefixes = {prefix.casefold() for pair in pairs for prefix in pair[:2]}
    line_starts = [0] + [match.end() for match in re.finditer(r"\n", text)]
    check = _deadline(bounds, line_starts)
    found: list[Found] = []
    for item in _found(text, pairs, prefixes, base, line_starts, check):
        if len(found) == bounds.max_found:
            values = {"max_found": number(bounds.max_found), "next": number(bounds.max_found + 1),
                      "line": number(item.line), "position": number(item.start + 1)}
            raise TooManyIBIs(N_("the text holds more than %(max_found)s IBIs; at most %(max_found)s are checked at "
                                 "once: split it before IBI %(next)s, on line %(line)s at character %(position)s",
                                 **values), position=item.start + 1, field="text")
        found.append(item)
    for index, warnings in contradictions(text, found, check).items():
        found[index] = replace(found[index], contradictions=warnings)
    return Extraction(tuple(found), tuple(text.split("\n")))


def _deadline(bounds: Bounds, line_starts: list[int]) -> Callable[[int], None]:
    """``check(offset)``: once :attr:`Bounds.seconds` of its clock have passed since now, raise
    :class:`ParsingTooLong` naming ``offset`` (0-based in the text) as where the reading got to."""
    if bounds.seconds is None:
        return lambda offset: None
    clock, seconds = bounds.clock, bounds.seconds
    deadline = clock() + seconds
    # The thread's CPU clock is a system call (a tenth of the reading's time, read before every
    # candidate); it never runs faster than the monotonic clock, which is not one. So it is read
    # only once the monotonic clock says the deadline may have passed, then again only after what
    # was left of the deadline has passed on the monotonic clock. Any other clock (a test's) is
    # read every time.
    wall = time.monotonic if clock is time.thread_time else None
    next_look = wall() + seconds if wall is not None else 0.0

    def check(offset: int) -> None:
        nonlocal next_look
        if wall is not None:
            now = wall()
            if now < next_look:
                return
            left = deadline - clock()
            if left >= 0:
                next_look = now + left
                return
        elif clock() <= deadline:
            return
        values = {"seconds": number(seconds), "line": number(_line_of(line_starts, offset)),
                  "position": number(offset + 1)}
        raise ParsingTooLong(N_("reading the text took more than %(seconds)s s of processing, the most one "
                                "request may take; it stopped on line %(line)s at character %(position)s: "
                                "split the text there", **values),
                             position=offset + 1, field="text")

    return check


def _found(
    text: str, pairs: list, prefixes: set[str], base: str, line_starts: list[int], check: Callable[[int], None]
) -> Iterator[Found]:
    """The IBIs of ``text`` in its order, each candidate read as it comes (``check(start)`` first).

    A candidate is set aside when a part of the text already taken by a candidate of its kind or
    of a kind before it covers its start: the precedence of :data:`_PAIR` … :data:`_LABELLED_KIND`.
    Read in the text's order, only candidates starting before it (or at it, of an earlier kind)
    can cover a start, and those have all been read: the result is that of reading each kind
    over the whole text in turn, as this function once did, without reading past the point
    where a bound stops it."""
    taken = [_Spans() for _ in range(_LABELLED_KIND + 1)]
    for start, kind, item in _candidates(text):
        if any(spans.covers(start) for spans in taken[: kind + 1]):
            continue
        if kind != _PAIR and _QUERY_VALUE.search(text, max(0, start - 64), start) and not _SCHEME_AT.match(text, start):
            continue
        if kind == _LINK_KIND:
            candidate = _link_candidate(text, start, item)
            if candidate is None:
                continue
            check(start)
            end, reading = _read_link(text, start, candidate, pairs, prefixes, base)
            taken[kind].add(start, max(end, item))
            if reading is None:
                continue
        else:
            if kind == _BARE_IBIP and not _IBIP_UPPER.fullmatch(item.group()):
                continue
            end = item.end("value") if kind == _LABELLED_KIND else item.end()
            check(start)
            reading = classify(text[start:end], pairs, base)
            if kind in (_BARE_IBIP, _BARE_REP) and (glue := _glued(text, end)):
                end, reading = _read_glued(text, start, end, glue, reading, pairs, base)
            if kind == _PAIR and not reading.recognised:
                continue
            taken[kind].add(start, end)
        yield Found(text[start:end], _line_of(line_starts, start), start, end, reading)


def _glued(text: str, end: int) -> str:
    """What is glued right after a bare IBI ending at ``end``: the characters up to a space or a
    bracket, less the sentence's closing punctuation (``.``, ``,``, ``;``, a lone ``?`` or ``:``)."""
    glue = _GLUE.match(text, end).group().rstrip(".,;")
    return "" if glue in ("?", ":") else glue


def _read_glued(
    text: str, start: int, end: int, glue: str, reading: Classification, pairs: list, base: str
) -> tuple[int, Classification]:
    """A bare IBI with ``glue`` right after it (``8JMKD3MGP8W/35MMLL8!:(oai_dc)``, or a typo such
    as ``8JMKD3MGP8W/35MML!8``): read whole, modifiers and file path kept, when the whole reads;
    otherwise a broken entry that says what is glued to the IBI. A typo must not leave a shorter,
    valid-looking IBI behind (``…/35MML``, dated 1995, names another item or none)."""
    whole = classify(text[start : end + len(glue)], pairs, base)
    if whole.recognised or not reading.recognised:
        return end + len(glue), whole
    problem = whole.error
    message = N_("`%(glue)s` is glued right after the IBI %(ibi)s, so it is not read alone (a typo there may leave "
                 "another valid-looking IBI): %(problem)s", glue=glue, ibi=reading.ibi, problem=problem.message)
    return end + len(glue), replace(whole, error=ParseError(message, problem.position, problem.field))


def _candidates(text: str) -> Iterator[tuple[int, int, Any]]:
    """Every candidate as ``(start, kind, match)`` (for a link, its end instead of the match), in
    the order of the text and, at one start, of the kinds; each pattern is searched only as far
    as the candidates taken so far need."""
    return heapq.merge(
        ((match.start(), _PAIR, match) for match in _PAIR_LIST.finditer(text)),
        _links(text),
        ((match.start(), _BARE_IBIP, match) for match in _IBIP.finditer(text)),
        ((match.start(), _BARE_REP, match) for match in _REP.finditer(text)),
        ((match.start("value"), _LABELLED_KIND, match) for match in _labelled(text)),
        key=lambda candidate: candidate[:2],
    )


def _links(text: str) -> Iterator[tuple[int, int, int]]:
    """Each link as ``(start, _LINK_KIND, end)``, its end after a date broken by a space and
    before a Markdown link's ``](``; the next is searched from there."""
    at = 0
    while match := _LINK.search(text, at):
        start = match.start()
        at = _markdown_end(text, start, _date_end(text, start, match.end()))
        yield start, _LINK_KIND, at


def _labelled(text: str) -> Iterator[re.Match]:
    """The values after ``IBI:`` labels (:data:`_LABELLED_VALUE`). A value that does not end as
    one may (a ``<`` inside) fails the same way from every label inside it, so the search goes on
    after it: a text of labels alone is read once, not once per label (which made 32 KB cost 12 s)."""
    at = 0
    while label := _LABEL.search(text, at):
        value = _LABELLED_VALUE.match(text, label.end())
        if value is not None:
            yield value
            at = value.end()
        else:
            at = _VALUE_RUN.match(text, label.end()).end()


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


def _date_end(text: str, start: int, end: int) -> int:
    """A link ``text[start:end]`` broken by a space inside its date (``…/2010/ 01.20.19.25``):
    where the joined link ends. Only the link is searched for its year (the whole text before it
    once was, for every link)."""
    broken = _BROKEN_DATE.match(text, end) if _YEAR_END.search(text, start, end) else None
    return _LINK_REST.match(text, broken.end()).end() if broken else end


def _link_candidate(text: str, start: int, end: int) -> int | None:
    """Where a link found at ``start`` really ends: before the sentence's punctuation and an
    unbalanced closing bracket (``(http://…)``, ``[x](http://…)``), but after a modifier
    (``!``, and the legacy ``??``) that ends it. The brackets are counted once, then as each is
    set aside (counting them again for each made a link ending in many cost their square)."""
    count = {bracket: text.count(bracket, start, end) for pair in _CLOSING.items() for bracket in pair}
    while end > start:
        last = text[end - 1]
        if last == "?" and text.endswith("??", start, end) and not text.endswith("???", start, end):
            return end  # the legacy metadata suffix of file 002, read as ``:``
        if last in _SENTENCE_END and last != ":" or last == ":" and end - start > 1 and text[end - 2] in ")>":
            end -= 1
        elif last in _CLOSING and count[_CLOSING[last]] < count[last]:  # more closing than opening
            count[last] -= 1
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
    after = _NEXT_LINE_WORD.match(text, end)  # not on a copy of the rest of the text, for every link
    if after and (not reading.recognised or text[end - 1] in "/-.?&="):
        joined_end = _link_candidate(text, start, after.end())
        if joined_end is not None and joined_end > after.start(1):
            joined = classify(text[start:joined_end], pairs, base)
            if joined.recognised and _is_urlib(joined, prefixes):
                return joined_end, joined
    if reading.recognised and _is_urlib(reading, prefixes):
        return end, reading
    bare = _REP.match(text, start, end)
    if not reading.recognised and bare and bare.end() < end:  # a repository name (its prefix looks like a host) and glue
        alone = classify(bare.group(), pairs, base)
        return _read_glued(text, start, bare.end(), text[bare.end():end], alone, pairs, base)
    if not reading.recognised and _meant_as_ibi(text[start:end]):
        return end, reading
    return end, None


def _meant_as_ibi(link: str) -> bool:
    """A link that does not read is still plainly meant as a persistent URL: a path on
    urlib.net, URLib's ``/ibi/``, ``/rep/`` or ``/col/`` segment on an INPE server, the shape
    of a repository name (whose INPE prefix looks like a scheme-less link), or a URLib ``upn:``
    URI (whose compact local part this portal cannot read: the entry says so)."""
    return bool(_URLIB_PATH.match(link) or _INPE_SEGMENT.match(link) or _REP.fullmatch(link) or _UPN_LINK.match(link))


def _is_urlib(reading: Classification, prefixes: set[str]) -> bool:
    """A link is URLib's: its host, its ``/ibi/`` ``/rep/`` ``/col/`` segments, or an IBI that is one
    for sure (a known prefix, or a repository name whose prefix has a dot, as Algorithm 1's do)."""
    url = reading.url
    if url is None:
        return False
    if reading.upn_resolver is not None:
        return True
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
