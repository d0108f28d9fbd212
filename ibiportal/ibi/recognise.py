"""IBIs as people hold them: from a pasted text to what the standard's parsers read, with notes.

The standards show ``http://urlib.net/<IBI>``; published references and links show much more
(STANDARD.md §6): the current resolver's ``/ibi/`` and ``/rep/`` path segments, direct Archive
links ``/col/<rep>/doc/<file>``, no scheme, URLib's own query pairs, the ``ibi:`` URI scheme, the
punctuation of a printed reference (``IBI: <…>.``, ``(…-TDI).``, ``<<…>>``, Markdown links) and
INPE's report-number suffix after a repository name. :func:`recognise` undoes each of them and
says so in a :class:`Note`, so that every entry point (home page, Convert, Parse, Compose, Cite,
Trace, the CLI and the reference checker) reads the same IBI from the same text and tells the
person what it did.

The result, :class:`Recognition`, is a *reading*: a bare IBI, a host-less path or a persistent
URL in the standard's grammar (file 003, Table 8.1), plus, for each character of the reading,
the position of the character of the given text it came from. A parser's error on the reading
is moved back onto the given text with :meth:`Recognition.error_in_text`, so a person is shown
the faulty character where they typed it. Nothing here decides validity: a text with nothing
to undo is its own reading, and the parsers judge it exactly as before.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ibiportal.errors import ParseError
from ibiportal.ibi.grammar import MINUTE, REPORT_NUMBER, YEAR
from ibiportal.ibi.identifier import ibi_form, parse_ibi, split_ibi
from ibiportal.ibi.url import DEFAULT_RESOLVER, RESOLVER_PAIRS

#: Report-series codes INPE's library prints after a repository name, and what each series is.
REPORT_SERIES = {
    "TDI": "theses and dissertations",
    "NTC": "technical-scientific notes",
    "RPQ": "research reports",
    "PUD": "teaching publications",
    "MAN": "manuals",
}

#: URLib's query pairs beyond Table 8.3, in words; every one is kept and passed on to the item.
URLIB_PAIRS = {
    "ibiurl.backgroundlanguage": "the language of URLib's pages around the item",
    "ibiurl.language": "the language URLib shows the item's page in",
    "ibiurl.requiredsite": "the URLib site (host and port) the item is to be taken from",
    "ibiurl.clientinformation.citingitem": "the repository of the item whose page holds this link",
    "metadatarepository": "the repository holding the item's metadata (a repository name with seconds)",
    "requiredmirror": "the URLib mirror (a repository) to show the item through",
    "mirror": "the URLib mirror (a repository) to show the item through",
    "searchsite": "the URLib site (host:port) whose search found the item",
    "searchmirror": "the URLib mirror whose search found the item",
    "choice": "how much of the metadata URLib shows (brief, full, …)",
    "languagebutton": "the language of URLib's page buttons",
    "linktype": "how URLib made the link (relative, …)",
}

RESOLVER_SEGMENTS = ("/ibi/", "/rep/")
"""Path segments URLib's resolvers put before an IBI (``http://urlib.net/ibi/<IBI>``): neither
``IBI`` (``I`` is no IBIp digit) nor ``REP`` (no ``W``/``X`` separator) can start an IBI."""

MAX_RECOGNISED = 2048
"""Longest text the recogniser undoes anything in: an IBI has at most 255 characters and URLib's
longest links a few hundred; a longer text is read as given (and refused by the parsers' own
bounds), which keeps every step's work small on hostile input."""

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_HOST_FIRST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z][A-Za-z0-9-]*(?::[0-9]{1,5})?/")
"""A host name with a dot (and maybe a port), then ``/``: ``urlib.net/`` at the start of a scheme-less URL."""
_LABEL = re.compile(r"(?:IBI|URI|URL|Link|Disponível em|Available (?:from|at|in))\s*:\s*", re.IGNORECASE)
_IBI_SCHEME = re.compile(r"ibi:(?=[A-Za-z0-9])", re.IGNORECASE)
"""``ibi:`` straight before an IBI is the URI scheme; with a space or ``<`` after it, a reference's label."""
_REPOSITORY_NAME_START = re.compile(rf"[^/]+/[^/]+/{YEAR}/")
"""Three ``/``-parts, the third a year: a repository name, even a malformed one, never a host first."""
_MARKDOWN = re.compile(r"\[[^\]\n]*\]\((.+)\)")
_PAIRS = {"<": ">", "(": ")", "[": "]", "{": "}", '"': '"', "'": "'", "`": "`", "«": "»", "“": "”"}
_TRAILING = ".,;"
"""Sentence punctuation after a reference's IBI; not ``:``, the metadata modifier."""
_REPORT_SUFFIX = re.compile(rf"(/{YEAR}/{MINUTE}(?:\.[0-9]{{2}})?)({REPORT_NUMBER})(?![A-Za-z0-9])")
_SEGMENT = re.compile(r"(ibi|rep)/", re.IGNORECASE)
_COLLECTION = re.compile(rf"col/([^/?#]+/[^/?#]+/{YEAR}/[0-9.]+)/doc(?=[/?#]|$)", re.IGNORECASE)


@dataclass(frozen=True)
class Note:
    """Something the recogniser removed or interpreted: what, in words, and where in the given text.

    ``start`` and ``end`` are 1-based and inclusive (``end`` < ``start`` for nothing removed).
    """

    message: str
    start: int
    end: int

    def to_dict(self) -> dict:
        return {"message": self.message, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class Recognition:
    """A text, the reading the standard's parsers get, and the notes on how one became the other.

    ``origin[i]`` is the 0-based index in ``text`` of the reading's character ``i`` (one more
    entry for the end). ``original_resolver`` is the resolver base the text names, such as
    ``http://urlib.net/``: urlib.net (Table 8.1) for a bare IBI and for a direct Archive link,
    whose reading is put there; None for a host-less path.
    """

    text: str
    reading: str
    notes: tuple[Note, ...]
    origin: tuple[int, ...]
    original_resolver: str | None

    def position_in_text(self, position: int | None) -> int | None:
        """A 1-based position in the reading, as a 1-based position in the given text."""
        if position is None:
            return None
        index = min(max(position - 1, 0), len(self.origin) - 1)
        return self.origin[index] + 1

    def error_in_text(self, error: ParseError, field: str | None = None) -> ParseError:
        """A parser's error on the reading, its position moved onto the given text."""
        return ParseError(error.message, self.position_in_text(error.position), field or error.field)

    def to_notes(self) -> list[dict]:
        return [note.to_dict() for note in self.notes]


class _Text:
    """The reading being built: characters, each with the index in the given text it came from."""

    def __init__(self, text: str) -> None:
        self.chars = text
        self.origin = list(range(len(text) + 1))

    def cut(self, start: int, end: int) -> tuple[int, int]:
        """Remove ``chars[start:end]``; return its 1-based inclusive span in the given text."""
        span = (self.origin[start] + 1, self.origin[end - 1] + 1 if end > start else self.origin[start])
        self.chars = self.chars[:start] + self.chars[end:]
        self.origin = self.origin[:start] + self.origin[end:]
        return span

    def insert(self, at: int, text: str) -> None:
        self.chars = self.chars[:at] + text + self.chars[at:]
        self.origin = self.origin[:at] + [self.origin[at]] * len(text) + self.origin[at:]


def recognise(text: str) -> Recognition:
    """Undo what references and links add to an IBI; never raises.

    The steps, in order: a line break inside the text (a URL broken by a PDF) is joined; a
    Markdown link gives its target; a label (``IBI:``, ``Available from:``), enclosing brackets or
    quotes and the reference's closing punctuation are removed, repeatedly; ``ibi:`` is read as
    the IBI; a report-number suffix is dropped; a host without a scheme gets ``http://``; the
    path segments ``/ibi/`` or ``/rep/`` and a direct Archive link ``/col/<rep>/doc/…`` are read
    as the IBI; and URLib's query pairs are explained.
    """
    work = _Text(text)
    notes: list[Note] = []
    if not text.strip():
        return Recognition(text, text, (), tuple(work.origin), None)
    _strip_spaces(work)
    if len(work.chars) > MAX_RECOGNISED:
        return Recognition(text, work.chars, (), tuple(work.origin), None)
    _join_lines(work, notes)
    _unwrap(work, notes)
    _report_suffix(work, notes)
    _add_scheme(work, notes)
    resolver = _path_segments(work, notes)
    _query_pairs(work, notes)
    notes.sort(key=lambda note: note.start)
    return Recognition(text, work.chars, tuple(notes), tuple(work.origin), resolver)


def _strip_spaces(work: _Text) -> None:
    end = len(work.chars.rstrip())
    if end < len(work.chars):
        work.cut(end, len(work.chars))
    start = len(work.chars) - len(work.chars.lstrip())
    if start:
        work.cut(0, start)


def _join_lines(work: _Text, notes: list[Note]) -> None:
    for match in reversed(list(re.finditer(r"[ \t]*\r?\n\s*", work.chars))):
        start, end = work.cut(match.start(), match.end())
        notes.append(Note("a line break inside was joined (a URL broken over two lines)", start, end))


def _unwrap(work: _Text, notes: list[Note]) -> None:
    while True:
        chars = work.chars
        markdown = _MARKDOWN.fullmatch(chars)
        label = _LABEL.match(chars)
        if _IBI_SCHEME.match(chars):
            start, end = work.cut(0, 4)
            notes.append(Note("`ibi:` is the URI scheme of IBIs (registration requested in 2026): the IBI follows it", start, end))
        elif markdown:
            _, end = work.cut(0, markdown.start(1))
            start, _ = work.cut(len(work.chars) - 1, len(work.chars))
            notes.append(Note("a Markdown link: its target is read", 1, end))
        elif label:
            start, end = work.cut(0, label.end())
            notes.append(Note(f"the label `{label.group().strip()}` of a printed reference is not part of the IBI", start, end))
        elif len(chars) > 1 and chars[-1] in _TRAILING:
            start, end = work.cut(len(chars) - 1, len(chars))
            notes.append(Note(f"`{chars[-1]}` after the IBI is the reference's punctuation, not part of the IBI", start, end))
        elif len(chars) > 2 and _PAIRS.get(chars[0]) == chars[-1]:
            work.cut(len(chars) - 1, len(chars))
            start, end = work.cut(0, 1)
            notes.append(Note(f"the enclosing `{chars[0]}…{chars[-1]}` of a printed reference is not part of the IBI", start, end))
        else:
            return


def _report_suffix(work: _Text, notes: list[Note]) -> None:
    for match in reversed(list(_REPORT_SUFFIX.finditer(work.chars))):
        code = match.group(2)[1:]
        series = REPORT_SERIES.get(code)
        what = f"INPE's report-number suffix ({series})" if series else "a report-number suffix as INPE's library prints it"
        start, end = work.cut(match.start(2), match.end(2))
        notes.append(Note(f"`-{code}` is {what}, not part of the IBI", start, end))


def _add_scheme(work: _Text, notes: list[Note]) -> None:
    """``urlib.net/8JMKD3MGP8W/34PGRBS``: a host first is a URL without its scheme, unless the
    whole text is a repository name (``sid.inpe.br/mtc-m18/2009/…`` starts like a host too)."""
    chars = work.chars
    host = _HOST_FIRST.match(chars)
    if _SCHEME.match(chars) or not host or _REPOSITORY_NAME_START.match(chars) or _is_ibi(chars):
        return
    rest = chars[host.end():]
    if not (_SEGMENT.match(rest) or _COLLECTION.match(rest) or ibi_form(rest) == "ibip" or _splits(rest)):
        return
    work.insert(0, "http://")
    notes.append(Note(f"no scheme: read as http://{host.group()}…", 1, host.end() - 1))


def _path_segments(work: _Text, notes: list[Note]) -> str | None:
    """Remove ``ibi/`` or ``rep/`` after the host, read ``col/<rep>/doc`` as the item; the resolver base."""
    chars = work.chars
    scheme = _SCHEME.match(chars)
    if scheme:
        slash = chars.find("/", scheme.end())
        if slash < 0:
            return None
        base, at = chars[: slash + 1].lower(), slash + 1
    elif chars.startswith("/"):
        base, at = None, 1
    else:
        return DEFAULT_RESOLVER
    collection = _COLLECTION.match(chars, at)
    segment = _SEGMENT.match(chars, at)
    if collection:
        doc = collection.end() - len("/doc")
        work.cut(doc, collection.end())
        start, end = work.cut(0, at + len("col/"))
        work.insert(0, DEFAULT_RESOLVER)
        notes.append(Note(
            f"`{chars[:at]}col/…/doc/…` is a direct link to a file in an Archive, not a persistent URL: "
            f"read as the item {collection.group(1)} and the file after it, on {DEFAULT_RESOLVER}", start, end))
        return DEFAULT_RESOLVER
    if segment:
        start, end = work.cut(at, segment.end())
        name = segment.group(1).lower()
        notes.append(Note(f"`/{name}/` is the path segment URLib's resolvers put before an IBI (as urlib.net does today): the IBI follows it", start, end))
    return base


def _query_pairs(work: _Text, notes: list[Note]) -> None:
    """Explain the pairs of URLib's links that Table 8.3 does not define (kept, passed on to the item)."""
    chars = work.chars
    query = chars.find("?")
    if query < 0 or not (_SCHEME.match(chars) or chars.startswith("/")):
        return
    fragment = chars.find("#", query)
    end = fragment if fragment >= 0 else len(chars)
    index = query + 1
    for pair in chars[query + 1 : end].split("&"):
        name = pair.split("=", 1)[0]
        if name.startswith("ibiurl.") and name not in RESOLVER_PAIRS or name in URLIB_PAIRS:
            meaning = URLIB_PAIRS.get(name, "not a resolver pair of Table 8.3")
            span_end = work.origin[index + len(pair) - 1] + 1 if pair else work.origin[index] + 1
            notes.append(Note(f"`{name}` is URLib's: {meaning}; kept and passed on to the item",
                              work.origin[index] + 1, span_end))
        index += len(pair) + 1


def without_resolver_segment(path: str) -> str:
    """A request path (``/ibi/8JMKD3MGP8W/34PGRBS?…``) without its leading ``/ibi`` or ``/rep``:
    the portal answers those paths exactly as the path that follows (STANDARD.md §6)."""
    for segment in RESOLVER_SEGMENTS:
        if path.startswith(segment):
            return path[len(segment) - 1 :]
    return path


def _is_ibi(text: str) -> bool:
    try:
        parse_ibi(text)
    except ParseError:
        return False
    return True


def _splits(path: str) -> bool:
    try:
        split_ibi(path)
    except ParseError:
        return False
    return True
