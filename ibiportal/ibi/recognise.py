"""IBIs as people hold them: from a pasted text to what the standard's parsers read, with notes.

The standards show ``http://urlib.net/<IBI>``; published references and links show much more
(STANDARD.md §6): the current resolver's ``/ibi/`` and ``/rep/`` path segments, direct Archive
links ``/col/<rep>/doc/<file>``, no scheme, URLib's own query pairs, the ``ibi:`` URI scheme, the
punctuation of a printed reference (``IBI: <…>.``, ``(…-TDI).``, ``<<…>>``, Markdown links) and
INPE's report-number suffix after a repository name, and URLib's ``upn:`` URIs (STANDARD.md §8).
:func:`recognise` undoes each of them and
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
from ibiportal.i18n import N_, Message
from ibiportal.ibi.grammar import IBIP_DIGIT, IBIP_PREFIX, IBIP_SUFFIX, MINUTE, REPORT_NUMBER, REPOSITORY_NAME, YEAR
from ibiportal.ibi.identifier import ibi_form, parse_ibi, split_ibi
from ibiportal.ibi.url import DEFAULT_RESOLVER, RESOLVER_PAIRS

#: Report-series codes INPE's library prints after a repository name, and what each series is.
REPORT_SERIES = {
    "TDI": N_("theses and dissertations"),
    "NTC": N_("technical-scientific notes"),
    "RPQ": N_("research reports"),
    "PUD": N_("teaching publications"),
    "MAN": N_("manuals"),
}

#: URLib's query pairs beyond Table 8.3, in words; every one is kept and passed on to the item.
URLIB_PAIRS = {
    "ibiurl.backgroundlanguage": N_("the language of URLib's pages around the item"),
    "ibiurl.language": N_("the language URLib shows the item's page in"),
    "ibiurl.requiredsite": N_("the URLib site (host and port) the item is to be taken from"),
    "ibiurl.clientinformation.citingitem": N_("the repository of the item whose page holds this link"),
    "metadatarepository": N_("the repository holding the item's metadata (a repository name with seconds)"),
    "requiredmirror": N_("the URLib mirror (a repository) to show the item through"),
    "mirror": N_("the URLib mirror (a repository) to show the item through"),
    "searchsite": N_("the URLib site (host:port) whose search found the item"),
    "searchmirror": N_("the URLib mirror whose search found the item"),
    "choice": N_("how much of the metadata URLib shows (brief, full, …)"),
    "languagebutton": N_("the language of URLib's page buttons"),
    "linktype": N_("how URLib made the link (relative, …)"),
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
_MARKDOWN = re.compile(r"\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(")
"""The start of a Markdown link ``[label](``: its target runs to the balancing ``)``; the label may
hold one level of brackets (an image badge: ``[![DOI](badge.svg)](target)``)."""
_MARKDOWN_INSIDE = re.compile(r"(?:^|(?<=\s))\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(|\[\]\((?=[A-Za-z][A-Za-z0-9+.-]*://)")
"""A Markdown link in a text: after a space, or glued to the text when its label is empty
(``…selection.[](http://…)``, as generated notes print their sources)."""
_HTML_LINK = re.compile(r"<[A-Za-z][\w.-]*\s[^>]*?\bhref\s*=\s*([\"'])(.*?)\1", re.IGNORECASE | re.DOTALL)
_ATTRIBUTE = re.compile(r"[\w.-]+\s*=\s*([\"'])(.*?)\1", re.DOTALL)
"""``link="…"`` (an attribute of a page's code holding the link)."""
_URL_INSIDE = re.compile(r"(?:^|(?<=[\s<(\[\"']))[A-Za-z][A-Za-z0-9+.-]*://[^\s<>\"'`\\]+")
_PATH_WORD = re.compile(r"(?:^|(?<=\s))[^\s/]+/\S+")
_IBI_SHAPED = re.compile(rf"{IBIP_PREFIX}/{IBIP_SUFFIX}|{REPOSITORY_NAME}", re.IGNORECASE)
"""An IBI of either form anywhere (grammar.py): text around a link holding one is a reference."""
"""A word with a ``/`` in a sentence: where an IBI printed without a link would be."""
_PAIR_LIST = re.compile(
    r"(?:(?P<name>ibi(?:\.[A-Za-z0-9.()-]*)?)\s+)?(?P<brace>\{\s*)?(?:rep\s+(?P<rep>[^\s{}]+))?\s*"
    r"(?:ibip\s+(?P<ibip>[^\s{}]+))?\s*(?(brace)\})|ibi\s+(?P<value>[^\s{}:<]+)",
    re.IGNORECASE,
)
"""URLib's pair lists (file 003, Tables 6.2 and 9.4): ``ibi {rep … ibip …}``, ``{rep …}``, ``ibip …``, ``ibi <IBI>``."""
_LINE_BREAK = re.compile(r"([ \t]*)\r?\n((?:[ \t]*\r?\n)*)[ \t]*")
"""A line break with the spaces around it: spaces before it, or a blank line, part words, never a URL."""
_WORD_END = (")", ">", ",", ";", "]", '"', "'")
"""How a word ends that no URL broken by a PDF ends with: the break after it is between words."""
_DATE_SPACE = re.compile(rf"/{YEAR}/([ \t]+)[0-9]{{2}}\.[0-9]{{2}}\.")
_PAIRS = {"<": ">", "(": ")", "[": "]", "{": "}", '"': '"', "'": "'", "`": "`", "«": "»", "“": "”"}
_TRAILING = ".,;"
"""Sentence punctuation after a reference's IBI; not ``:``, the metadata modifier."""
_REPORT_SUFFIX = re.compile(rf"(/{YEAR}/{MINUTE}(?:\.[0-9]{{2}})?)({REPORT_NUMBER})(?![A-Za-z0-9])")
_SEGMENT = re.compile(r"(ibi|rep)/", re.IGNORECASE)
_REP_IN_LINK = rf"[^/?#]+/[^/?#]+/{YEAR}/[0-9.]+"
"""A repository name in an Archive's link, loosely: a malformed one still reaches the parser for its error."""
_ARCHIVE_LINK = re.compile(
    rf"(?P<cgi>col|attachment\.cgi)/(?P<rep>{_REP_IN_LINK})(?P<doc>/doc)(?=[/?#]|$)(?P<mirror>/mirror(?:get)?\.cgi(?=[/?#]|$))?"
    rf"|(?P<archive>archive\.cgi)/(?P<item>{_REP_IN_LINK})(?=[/?#]|$)",
    re.IGNORECASE,
)
"""The links of URLib Archives (STANDARD.md §6): ``col/<rep>/doc/<file>`` (a file of the item),
``attachment.cgi/<rep>/doc/<file>`` (an attachment), ``archive.cgi/<rep>`` (the item's archive);
``col/<mirror>/doc/mirror.cgi/…`` and ``…/mirrorget.cgi?…`` are pages of a mirror."""
_METADATA_REPOSITORY = re.compile(rf"[?&]metadatarepository=({_REP_IN_LINK})(?=[&#]|$)", re.IGNORECASE)
_ARCHIVE_LINK_KINDS = {
    "col": N_("a direct link to a file in one Archive's copy of the item"),
    "attachment.cgi": N_("a direct link to an attachment in one Archive's copy of the item"),
    "archive.cgi": N_("a direct link to one Archive's archive of the item (its files in one file)"),
}
_UPN = re.compile(rf"(?P<relative>\./)?upn:(?P<resolver>{IBIP_DIGIT}+)(?P<dash>-)?:(?P<slash>/)?(?=[^/\s])", re.IGNORECASE)
"""URLib's ``upn:<ResolverID>:<LocalID>`` (STANDARD.md §8): the ResolverID a numeral of the IBIp
alphabet; ``./upn:…`` the relative link, ``upn:<ResolverID>-:…`` a file of the whole federation; a
``/`` may follow the second colon (``http://urlib.net/upn:LNRMAL:/sid.inpe.br/…``)."""
_RELATIVE_LINK = re.compile(rf"(?:\.\./)+(?:col/)?(?=[^/]+/[^/]+/{YEAR}/[0-9.]+/doc/)")
_RELATIVE_UPN = re.compile(rf"/col/[^?#]*?/doc/(?:[^/?#]+/)*upn:{IBIP_DIGIT}+-?:/?(?=[^/\s])", re.IGNORECASE)
"""Where a browser takes URLib's relative link ``./upn:…`` on a page served at ``/col/<rep>/doc/…``."""
_COMPACT = re.compile(r"(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]+/[A-Za-z0-9]+(?=[/?#!+:]|$)")
"""URLib's compact local identifiers (``6qtX3pFwXQZGivnK2Y/TLEBM``): two parts of letters and digits,
the first in mixed case. An IBIp is printed in upper case and a repository name has four parts, so neither is one."""
_RESOLVER_HOST = re.compile(r"(?:www\.)?urlib\.net(?::[0-9]+)?/", re.IGNORECASE)
_DOMAIN_ONLY = re.compile(r"(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}/?")
"""A host name alone after a resolver's address (``https://urlib.net/sid.inpe.br``): no IBI has a dot
before its first ``/``-less end."""
_HTML_TAIL = re.compile(r"\\?[\"']\s*>.*|</[A-Za-z][\w-]*\s*>.*|[<>\"\\].*", re.DOTALL)
"""What HTML or code leaves after a link's URL (``">PDF</a>``, ``</a>``, an escaped ``\\"``): no URL
holds a raw ``<``, ``>``, ``"`` or ``\\``."""
_CLOSERS = {")": "(", "]": "[", "}": "{"}


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
    whose reading is put there; None for a host-less path. ``refusal`` says why a URLib link
    names no item (a mirror's own page), with ``refusal_at`` the 1-based span it is about;
    ``archive_link`` that the text is a link to one Archive's copy of the item (not persistent:
    where the item is now is for the resolver to say).
    """

    text: str
    reading: str
    notes: tuple[Note, ...]
    origin: tuple[int, ...]
    original_resolver: str | None
    refusal: str | None = None
    refusal_at: tuple[int, int] | None = None
    archive_link: bool = False
    upn_resolver: str | None = None

    def position_in_text(self, position: int | None) -> int | None:
        """A 1-based position in the reading, as a 1-based position in the given text."""
        if position is None:
            return None
        index = min(max(position - 1, 0), len(self.origin) - 1)
        return self.origin[index] + 1

    def error_in_text(self, error: ParseError, field: str | None = None) -> ParseError:
        """A parser's error on the reading, its position moved onto the given text."""
        return ParseError(error.message, self.position_in_text(error.position), field or error.field)


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

    def keep(self, start: int, end: int) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        """Keep only ``chars[start:end]``; the 1-based spans of what was cut before and after."""
        after = self.cut(end, len(self.chars)) if end < len(self.chars) else None
        before = self.cut(0, start) if start > 0 else None
        return before, after

    def insert(self, at: int, text: str) -> None:
        self.chars = self.chars[:at] + text + self.chars[at:]
        self.origin = self.origin[:at] + [self.origin[at]] * len(text) + self.origin[at:]


def recognise(text: str) -> Recognition:
    """Undo what references and links add to an IBI; never raises.

    The steps, in order: a line break inside the text (a URL broken by a PDF) and a space inside
    a date (``2010/ 01.20.19.25``) are joined; the link is taken out of the text around it (a
    Markdown link's target, an HTML ``href``, a URL in a sentence, URLib's pairs ``ibi {rep …
    ibip …}``); a label (``IBI:``, ``Available from:``), enclosing brackets or quotes, Markdown
    emphasis and the reference's closing punctuation are removed, repeatedly; ``ibi:`` is read
    as the IBI; a report-number suffix is dropped; a host without a scheme gets ``http://``; the
    path segments ``/ibi/`` or ``/rep/`` and the links of URLib Archives (``/col/<rep>/doc/…``,
    ``attachment.cgi``, ``archive.cgi``, ``mirrorget.cgi``) are read as the item; URLib's query
    pairs are explained; and a repository name printed with capitals is noted. What HTML,
    Markdown or code leaves after a link (``)|``, ``">PDF</a>``, an unbalanced ``)``) is set aside;
    URLib's ``upn:<ResolverID>:<LocalID>`` is read as its local IBI, with the ResolverID kept; a
    compact local part, or a host name alone after a resolver, is refused as no IBI.
    """
    work = _Text(text)
    notes: list[Note] = []
    if not text.strip():
        return Recognition(text, text, (), tuple(work.origin), None)
    _strip_spaces(work)
    if len(work.chars) > MAX_RECOGNISED:
        return Recognition(text, work.chars, (), tuple(work.origin), None)
    _join_lines(work, notes)
    _join_date(work, notes)
    _unwrap(work, notes)
    _report_suffix(work, notes)
    _relative_link(work, notes)
    _add_scheme(work, notes)
    upn = _upn(work, notes)
    resolver, refusal, refusal_at, archive_link = _path_segments(work, notes)
    if refusal is None:
        refusal, refusal_at = _unreadable(work, upn)
    _query_pairs(work, notes)
    _published_case(work, notes)
    notes.sort(key=lambda note: note.start)
    return Recognition(text, work.chars, tuple(notes), tuple(work.origin), resolver, refusal, refusal_at, archive_link,
                       upn)


def _strip_spaces(work: _Text) -> None:
    end = len(work.chars.rstrip())
    if end < len(work.chars):
        work.cut(end, len(work.chars))
    start = len(work.chars) - len(work.chars.lstrip())
    if start:
        work.cut(0, start)


def _join_lines(work: _Text, notes: list[Note]) -> None:
    """A line break inside a link (a PDF breaks a URL after ``http:``, a ``/`` or a ``.``) is
    joined; any other, between the words of a reference pasted over two lines, is a space."""
    for match in reversed(list(_LINE_BREAK.finditer(work.chars))):
        before = work.chars[: match.start()].rsplit(None, 1)[-1] if work.chars[: match.start()].strip() else ""
        inside = not match.group(1) and not match.group(2) and (
            ("/" in before or before.endswith(":")) and not before.endswith(_WORD_END))
        start, end = work.cut(match.start(), match.end())
        if inside:
            notes.append(Note(N_("a line break inside was joined (a URL broken over two lines)"), start, end))
        else:
            work.insert(match.start(), " ")
            notes.append(Note(N_("a line break between words was read as a space"), start, end))


def _join_date(work: _Text, notes: list[Note]) -> None:
    """``…/2010/ 01.20.19.25``: no URL holds a space there; the link was broken inside its date."""
    for match in reversed(list(_DATE_SPACE.finditer(work.chars))):
        start, end = work.cut(match.start(1), match.end(1))
        notes.append(Note(N_("warning: a space inside the date of a repository name was joined (the link was broken there; check that the date is the one meant)"), start, end))


def _unwrap(work: _Text, notes: list[Note]) -> None:
    while chars := work.chars:  # a text of nothing but leftovers leaves nothing to unwrap
        label = _LABEL.match(chars)
        pairs = _PAIR_LIST.fullmatch(chars)
        html = _HTML_LINK.match(chars)
        if _IBI_SCHEME.match(chars):
            start, end = work.cut(0, 4)
            notes.append(Note(N_("`ibi:` is the URI scheme of IBIs (registration requested in 2026): the IBI follows it"), start, end))
        elif _MARKDOWN.match(chars) and (target := _markdown_target(chars, 0)):
            _take_markdown(work, notes, target)
        elif pairs and (pairs["rep"] or pairs["ibip"] or pairs["value"]):
            _take_pairs(work, notes, pairs)
        elif label:
            start, end = work.cut(0, label.end())
            notes.append(Note(N_("the label `%(value)s` of a printed reference is not part of the IBI", value=label.group().strip()), start, end))
        elif html:
            before, after = work.keep(html.start(2), html.end(2))
            _note_cut(notes, "an HTML link: the URL in its `href` is read", before, after)
        elif len(chars) > 1 and chars[-1] in _TRAILING:
            start, end = work.cut(len(chars) - 1, len(chars))
            notes.append(Note(N_("`%(chars)s` after the IBI is the reference's punctuation, not part of the IBI", chars=chars[-1]), start, end))
        elif (leftover := _leftover(chars)) is not None:
            start, end = leftover
            what = chars[start:end].strip()
            notes.append(Note(N_("`%(chars)s` is what Markdown, HTML or code leaves around a link, not part of it", chars=what),
                              *work.cut(start, end)))
        elif len(chars) > 2 and (chars[0] == "*" or chars.endswith("**")):
            _take_emphasis(work, notes)
        elif len(chars) > 2 and _PAIRS.get(chars[0]) == chars[-1] and _encloses(chars):
            work.cut(len(chars) - 1, len(chars))
            start, end = work.cut(0, 1)
            notes.append(Note(N_("the enclosing `%(chars)s…%(chars2)s` of a printed reference is not part of the IBI", chars=chars[0], chars2=chars[-1]), start, end))
        elif not _take_link_inside(work, notes):
            return


def _leftover(chars: str) -> tuple[int, int] | None:
    """The span of what a Markdown table, HTML or code leaves at either end of a link, or None:
    the pipes of a table cell (``|[PDF](…)|``), the rest of an HTML element after its URL
    (``">PDF</a>``), an empty Markdown link (``[](``) and a closing bracket that nothing in the
    text opened (``…/publicacao.pdf)``). A bracket the link opened (``…_(bar)``) stays."""
    pipes = len(chars) - len(chars.lstrip("| \t"))
    if pipes and len(chars) > pipes:
        return 0, pipes
    end = len(chars.rstrip("| \t"))
    if end < len(chars) and end > 0:
        return end, len(chars)
    if chars.endswith(("[](", "[]", "[")) and len(chars) > 3:
        return chars.rindex("["), len(chars)
    if _SCHEME.match(chars) and (tail := _HTML_TAIL.search(chars, _SCHEME.match(chars).end())):
        return tail.start(), len(chars)
    last = chars[-1]
    if last in _CLOSERS and chars.count(last) > chars.count(_CLOSERS[last]):
        return len(chars) - 1, len(chars)
    if last in "\"'" and chars.count(last) % 2 and len(chars) > 1:
        return len(chars) - 1 - (chars[-2] == "\\"), len(chars)
    return None


def _encloses(chars: str) -> bool:
    """The first and last characters are one pair around the rest (``<a>. b <c>`` is two)."""
    opening, closing = chars[0], chars[-1]
    if opening == closing:
        return closing not in chars[1:-1]
    depth = 0
    for index, character in enumerate(chars[:-1]):
        depth += (character == opening) - (character == closing)
        if depth == 0 and index > 0:
            return False
    return True


def _markdown_target(chars: str, start: int) -> tuple[int, int] | None:
    """The span of the target of the Markdown link at ``start``: up to the ``)`` that balances its
    ``(`` (a URL may hold parentheses), never across a space; None when it does not close."""
    opening = _label_end(chars, start) + 1
    depth = 0
    for index in range(opening, len(chars)):
        character = chars[index]
        if character.isspace():
            return None
        depth += {"(": 1, ")": -1}.get(character, 0)
        if depth == 0:
            return (opening + 1, index) if index > opening + 1 else None
    return None


def _label_end(chars: str, start: int) -> int:
    """The index of the ``]`` that closes the Markdown label opened at ``start``."""
    depth = 0
    for index in range(start, len(chars)):
        depth += {"[": 1, "]": -1}.get(chars[index], 0)
        if depth == 0:
            return index
    return chars.index("](", start)


def _take_markdown(work: _Text, notes: list[Note], target: tuple[int, int]) -> None:
    """``[label](target)rest``: the target is kept, the rest noted as not part of the link."""
    rest = work.chars[target[1] + 1 :]
    before, after = work.keep(*target)
    notes.append(Note(N_("a Markdown link: its target is read"), before[0], before[1] + (1 if after is None else 0)))
    if after is not None and rest:
        notes.append(Note(N_("`%(rest)s` after the Markdown link is not part of it", rest=rest), after[0] + 1, after[1]))


def _take_pairs(work: _Text, notes: list[Note], pairs: re.Match[str]) -> None:
    """URLib's own forms of an IBI (file 003, Table 9.4): the repository name when both are given."""
    group = "rep" if pairs["rep"] else "ibip" if pairs["ibip"] else "value"
    before, after = work.keep(pairs.start(group), pairs.end(group))
    both = pairs["rep"] and pairs["ibip"]
    what = N_("URLib's pair-list form `rep … ibip …` (file 003, Table 9.4) gives both forms of one IBI: "
              "%(rep)s = %(ibip)s; the repository name is read", rep=pairs["rep"], ibip=pairs["ibip"]) if both else (
        N_("a value of URLib's pair lists (file 003, Tables 6.2 and 9.4): the IBI is read"))
    _note_cut(notes, what, before, after)


def _take_emphasis(work: _Text, notes: list[Note]) -> None:
    chars = work.chars
    end = len(chars.rstrip("*"))
    if end < len(chars):
        notes.append(Note(N_("the Markdown emphasis `%(chars)s` is not part of the link", chars=chars[end:]), *work.cut(end, len(chars))))
    start = len(work.chars) - len(work.chars.lstrip("*"))
    if start:
        notes.append(Note(N_("the Markdown emphasis `%(value)s` is not part of the link", value=work.chars[:start]), *work.cut(0, start)))


def _take_link_inside(work: _Text, notes: list[Note]) -> bool:
    """A link in a text around it: a Markdown link, an attribute's value or a URL in a sentence
    (the first one; the extractor finds every one)."""
    chars = work.chars
    markdown = _MARKDOWN_INSIDE.search(chars)
    target = _markdown_target(chars, markdown.start()) if markdown else None
    attribute = _ATTRIBUTE.match(chars)
    url = _URL_INSIDE.search(chars)
    words = _PATH_WORD.findall(chars)
    if target is not None:
        span, what = (markdown.start(), target[1] + 1), N_("the text around the Markdown link is not part of it")
    elif attribute and attribute.end() == len(chars.rstrip(",;")):
        span, what = (attribute.start(2), attribute.end(2)), N_("the attribute `%(name)s` holds the link: its value is read",
                                                                     name=chars[: attribute.start(1)].strip())
    elif url and url.start() > 0:  # a URL then words may be a file name with a space: the parser says so
        span, what = url.span(), N_("the text around the URL is not part of it")
    elif len(words) == 1 and not chars.startswith(words[0]):
        at = chars.index(words[0])
        span, what = (at, at + len(words[0])), N_("the words around it are not part of the IBI")
    else:
        return False
    if _IBI_SHAPED.search(chars[: span[0]]) or _IBI_SHAPED.search(chars[span[1]:]):
        return False  # several IBIs: a whole reference, for the reference checker, not one link
    before, after = work.keep(*span)
    _note_cut(notes, what, before, after)
    return True


def _note_cut(notes: list[Note], what: Message, before: tuple[int, int] | None, after: tuple[int, int] | None) -> None:
    """One note for what was cut on either side of what is kept (its span from first to last cut)."""
    spans = [span for span in (before, after) if span is not None]
    if spans:
        notes.append(Note(what, spans[0][0], spans[-1][1]))


def _report_suffix(work: _Text, notes: list[Note]) -> None:
    for match in reversed(list(_REPORT_SUFFIX.finditer(work.chars))):
        code = match.group(2)[1:]
        series = REPORT_SERIES.get(code)
        what = (N_("INPE's report-number suffix (%(series)s)", series=series) if series
                else N_("a report-number suffix as INPE's library prints it"))
        start, end = work.cut(match.start(2), match.end(2))
        notes.append(Note(N_("`-%(code)s` is %(what)s, not part of the IBI", code=code, what=what), start, end))


def _relative_link(work: _Text, notes: list[Note]) -> None:
    """``../../../../../../col/<rep>/doc/<file>`` and ``../../../../../<rep>/doc/<file>``: URLib's
    relative links between documents of one collection (its documents sit at
    ``<collection>/<rep>/doc/``), read as the Archive link ``/col/<rep>/doc/<file>``."""
    match = _RELATIVE_LINK.match(work.chars)
    if match is None:
        return
    start, end = work.cut(0, match.end())
    work.insert(0, "/col/")
    notes.append(Note(N_("`%(up)s` begins a relative link between documents of one URLib collection: read as the "
                         "repository and file that follow", up=match.group()), start, end))


def _add_scheme(work: _Text, notes: list[Note]) -> None:
    """``urlib.net/8JMKD3MGP8W/34PGRBS``: a host first is a URL without its scheme, unless the
    whole text is a repository name (``sid.inpe.br/mtc-m18/2009/…`` starts like a host too)."""
    chars = work.chars
    host = _HOST_FIRST.match(chars)
    if _SCHEME.match(chars) or not host or _REPOSITORY_NAME_START.match(chars) or _is_ibi(chars):
        return
    rest = chars[host.end():]
    if not (_SEGMENT.match(rest) or _ARCHIVE_LINK.match(rest) or ibi_form(rest) == "ibip" or _splits(rest)
            or _UPN.match(rest) or (_RESOLVER_HOST.match(chars) and _DOMAIN_ONLY.fullmatch(rest))):
        return
    work.insert(0, "http://")
    notes.append(Note(N_("no scheme: read as http://%(value)s…", value=host.group()), 1, host.end() - 1))


def _upn(work: _Text, notes: list[Note]) -> str | None:
    """``upn:<ResolverID>:<LocalID>``, bare, relative (``./upn:…``) or after a resolver's address
    (``http://urlib.net/upn:…``): the ``upn:`` part is taken off, so that the local part is read as
    an IBI where it is one (STANDARD.md §8); the ResolverID is returned, to be kept and shown."""
    chars = work.chars
    scheme = _SCHEME.match(chars)
    at = chars.find("/", scheme.end()) + 1 if scheme else int(chars.startswith("/"))
    match = _UPN.match(chars, at) if at or not scheme else None
    if match is None:
        return None
    resolver = match["resolver"].upper()
    written = match.group().rstrip("/")
    start, end = work.cut(at, match.end())
    kind = (N_("a relative link, which a browser resolves against the Archive of the citing page") if match["relative"]
            else N_("a file of the whole federation") if match["dash"] else N_("a URI"))
    notes.append(Note(N_("`%(upn)s` is URLib's `upn:` form (%(kind)s): ResolverID %(resolver)s names the Archive of the "
                         "federation that resolves it; the local part after it is read as the IBI",
                         upn=written, kind=kind, resolver=resolver), start, end))
    return resolver


def _unreadable(work: _Text, upn: str | None) -> tuple[str | None, tuple[int, int] | None]:
    """Why what stands where an IBI should is surely none, with its span: a compact local
    identifier of URLib (mixed case, ``6qtX3pFwXQZGivnK2Y/TLEBM``), which this portal cannot read
    and does not guess, or a host name alone after a resolver (``https://urlib.net/sid.inpe.br``)."""
    chars = work.chars
    scheme = _SCHEME.match(chars)
    at = chars.find("/", scheme.end()) + 1 if scheme else int(chars.startswith("/"))
    if scheme and at == 0:
        return None, None
    compact = _COMPACT.match(chars, at)
    end = len(chars.split("?", 1)[0].split("#", 1)[0])
    if compact and not _splits(chars[at:end]):
        span = (work.origin[compact.start()] + 1, work.origin[compact.end() - 1] + 1)
        local = compact.group()
        if upn is not None:
            return N_("this is a URLib `upn:` URI (ResolverID %(resolver)s) whose local part %(local)s is in URLib's compact "
                      "encoding, which this portal cannot read: it names an item, but not by an IBI, and this portal does "
                      "not guess which", resolver=upn, local=local), span
        return N_("%(local)s is in URLib's compact encoding of an identifier (mixed case), which this portal cannot read: "
                  "it is no IBI (an IBIp is printed in upper case; a repository name has four parts), and this portal "
                  "does not guess which item it names", local=local), span
    if scheme and _DOMAIN_ONLY.fullmatch(chars, at, end):
        span = (work.origin[at] + 1, work.origin[end - 1] + 1)
        return N_("%(host)s after the resolver's address %(base)s is a host name, not an IBI: a persistent URL names an "
                  "IBI there, as in http://urlib.net/<IBI> (Table 8.1)", host=chars[at:end].rstrip("/"), base=chars[:at]), span
    return None, None


def _path_segments(work: _Text, notes: list[Note]) -> tuple[str | None, str | None, tuple[int, int] | None, bool]:
    """Remove ``ibi/`` or ``rep/`` after the host, read an Archive's link as the item; the resolver
    base, why the link names no item (a mirror's page) with where, and whether it was an Archive's link."""
    chars = work.chars
    scheme = _SCHEME.match(chars)
    if scheme:
        slash = chars.find("/", scheme.end())
        if slash < 0:
            return None, None, None, False
        base, at = chars[: slash + 1].lower(), slash + 1
    elif chars.startswith("/"):
        base, at = None, 1
    else:
        return DEFAULT_RESOLVER, None, None, False
    link = _ARCHIVE_LINK.match(chars, at)
    segment = _SEGMENT.match(chars, at)
    if link and link["mirror"]:
        return _mirror_page(work, notes, link)
    if link:
        _archive_item(work, notes, link, at)
        return DEFAULT_RESOLVER, None, None, True
    if segment:
        start, end = work.cut(at, segment.end())
        name = segment.group(1).lower()
        notes.append(Note(N_("`/%(name)s/` is the path segment URLib's resolvers put before an IBI (as urlib.net does today): the IBI follows it", name=name), start, end))
    return base, None, None, False


def _archive_item(work: _Text, notes: list[Note], link: re.Match[str], at: int) -> None:
    """``http://<host>/col/<rep>/doc/<file>`` (and the CGI forms) as ``http://urlib.net/<rep>/<file>``."""
    chars = work.chars
    kind = (link["cgi"] or link["archive"]).lower()
    rep = link["rep"] or link["item"]
    rest = chars[link.end():]
    if link["doc"]:
        work.cut(link.start("doc"), link.end("doc"))
    start, end = work.cut(0, link.start("rep") if link["rep"] else link.start("item"))
    work.insert(0, DEFAULT_RESOLVER)
    notes.append(Note(
        N_("`%(link)s/…` is %(kind)s, not a persistent URL: read as the item %(rep)s and the file after it; its "
           "persistent URL is %(url)s", link=chars[:at] + (link["cgi"] or link["archive"]), kind=_ARCHIVE_LINK_KINDS[kind],
           rep=rep, url=f"{DEFAULT_RESOLVER}{rep}{rest if link['doc'] else ''}")
        if rest.strip("/?#") and link["doc"] else
        N_("`%(link)s/…` is %(kind)s, not a persistent URL: read as the item %(rep)s; its persistent URL is %(url)s",
           link=chars[:at] + (link["cgi"] or link["archive"]), kind=_ARCHIVE_LINK_KINDS[kind], rep=rep,
           url=f"{DEFAULT_RESOLVER}{rep}{rest if link['doc'] else ''}"), start, end))


def _mirror_page(work: _Text, notes: list[Note], link: re.Match[str]) -> tuple[str | None, str | None, tuple[int, int] | None, bool]:
    """A mirror's pages: ``mirror.cgi`` is the mirror's own page; ``mirrorget.cgi`` shows an item
    through the mirror, the item named by its metadata repository in the query."""
    chars = work.chars
    mirror = link["rep"]
    span = (work.origin[link.start("rep")] + 1, work.origin[link.end("mirror") - 1] + 1)
    metadata = _METADATA_REPOSITORY.search(chars, link.end())
    item = _item_of_metadata(metadata.group(1)) if metadata and link["mirror"].lower().endswith("get.cgi") else None
    if item is None:
        if link["mirror"].lower().endswith("get.cgi"):
            why = N_("a page of the URLib mirror %(mirror)s, not a link to an item: the mirror's page mirrorget.cgi "
                     "names no item (no `metadatarepository` pair)", mirror=mirror)
        else:
            why = N_("a page of the URLib mirror %(mirror)s, not a link to an item: the mirror's own page (mirror.cgi)",
                     mirror=mirror)
        return None, why, span, False
    start_keep, end_keep = metadata.start(1), metadata.start(1) + len(item)
    before, after = work.keep(start_keep, end_keep)
    work.insert(0, DEFAULT_RESOLVER)
    _note_cut(notes, N_(
        "a page of the URLib mirror %(mirror)s (mirrorget.cgi) showing the item whose metadata is kept in "
        "repository %(metadata)s: URLib names an item's metadata repository after the item, plus "
        "seconds, so the item is read as %(item)s; its persistent URL is %(url)s",
        mirror=mirror, metadata=metadata.group(1), item=item, url=DEFAULT_RESOLVER + item), before, after)
    return DEFAULT_RESOLVER, None, None, True


def _item_of_metadata(repository: str) -> str | None:
    """``sid.inpe.br/mtc-m21d/2024/09.03.22.32.35`` → ``sid.inpe.br/mtc-m21d/2024/09.03.22.32``: the
    item a metadata repository describes, when its name is the item's minute plus seconds."""
    head, _, time = repository.rpartition("/")
    fields = time.split(".")
    return f"{head}/{'.'.join(fields[:4])}" if len(fields) == 5 else None


def _published_case(work: _Text, notes: list[Note]) -> None:
    """A repository name printed with capitals (``sid.inpe.br/ePrint@1905/…``): kept as published
    for display, compared without case (Table 6.1; lower case is recommended)."""
    end = min((at for at in (work.chars.find("?"), work.chars.find("#")) if at >= 0), default=len(work.chars))
    match = _REPOSITORY_NAME_START.search(work.chars, 0, end)  # not a repository named in the query's pairs
    if not match or match.group().islower():
        return
    start, end = work.origin[match.start()] + 1, work.origin[match.end() - 1] + 1
    printed = match.group().rstrip("/").rsplit("/", 1)[0]
    notes.append(Note(N_("the repository name is printed with capitals (%(printed)s): kept as published for display; IBIs are compared without case (Table 6.1 recommends lower case)", printed=printed), start, end))


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
            meaning = URLIB_PAIRS.get(name, N_("not a resolver pair of Table 8.3"))
            span_end = work.origin[index + len(pair) - 1] + 1 if pair else work.origin[index] + 1
            notes.append(Note(N_("`%(name)s` is URLib's: %(meaning)s; kept and passed on to the item", name=name, meaning=meaning),
                              work.origin[index] + 1, span_end))
        index += len(pair) + 1


def without_resolver_segment(path: str) -> str:
    """A request path (``/ibi/8JMKD3MGP8W/34PGRBS?…``) without its leading ``/ibi`` or ``/rep``,
    ``ibi:`` or ``upn:<ResolverID>:`` (``/upn:LNRMAL:/sid.inpe.br/…`` too), or below a page an
    Archive serves (``/col/<rep>/doc/…/upn:…``, where a relative ``./upn:`` link on that page leads):
    the portal answers those paths exactly as the path that follows (STANDARD.md §6 and §8)."""
    for segment in RESOLVER_SEGMENTS:
        if path.startswith(segment):
            return path[len(segment) - 1 :]
    if _IBI_SCHEME.match(path, 1):
        return "/" + path[5:]
    upn = _UPN.match(path, 1) if path.startswith("/upn:") else _RELATIVE_UPN.match(path)
    if upn is not None:
        return "/" + path[upn.end():]
    return path


_PASTED_URL = re.compile(r"/https?:/+[^/?#]+(?=[/?#])", re.IGNORECASE)


def without_pasted_resolver(path: str) -> str:
    """A request path holding a whole persistent URL, as a person pastes one after the portal's
    address (``/http://urlib.net/8JMKD3MGP8W/34PGRBS``; a proxy may merge its ``//``), as that
    URL's own path: this portal resolves it, whichever resolver it named. Any other path as given."""
    pasted = _PASTED_URL.match(path)
    return path[pasted.end():] if pasted else path


def direct_link_path(path: str) -> str | None:
    """A request path that is a URLib Archive's link to an item, as the persistent URL's path:
    ``/col/<rep>/doc/<file>`` and ``/attachment.cgi/<rep>/doc/<file>`` → ``/<rep>/<file>``,
    ``/archive.cgi/<rep>`` → ``/<rep>`` (query kept). The portal resolves such a path like the
    persistent URL, wherever the item lives now (STANDARD.md §6: rescued); a mirror's
    ``mirrorget.cgi?metadatarepository=<rep with seconds>`` page is the item ``/<rep>`` (the query,
    the mirror's own, left out). None for any other path, a mirror's own page included."""
    link = _ARCHIVE_LINK.match(path, 1) if path.startswith("/") else None
    if link is None:
        return None
    if link["mirror"]:  # a mirror's page about the item its metadata repository names: the item
        metadata = _METADATA_REPOSITORY.search(path, link.end()) if link["mirror"].lower().endswith("get.cgi") else None
        item = _item_of_metadata(metadata.group(1)) if metadata else None
        return f"/{item}" if item else None
    return f"/{link['rep'] or link['item']}{path[link.end():]}"


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
