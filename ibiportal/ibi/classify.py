"""What a pasted text is: an IBI of either form, a persistent URL, or nothing recognisable.

The portal's home page has one box that accepts anything a person may have at hand:
a repository name (file 004, Table 6.1), an IBIp (Table 7.1), or a persistent URL (file 003,
Table 8.1) on any resolver host, a host-less path, or a bare IBI with a modifier, file path or
query. :func:`classify` reads it with the existing parsers, in this order:

1. the whole text as an IBI (:func:`~ibiportal.ibi.identifier.parse_ibi`): kind ``rep`` or ``ibip``;
2. else as a persistent URL (:func:`~ibiportal.ibi.url.parse_persistent_url`): kind ``url``;
3. else kind ``unknown``, with the persistent-URL parser's error when the text begins like a
   URL (a scheme and ``//``, or a ``/``), else the error of the parser that read further into
   the text (the position of a ParseError is where that grammar stopped; the one that got
   further knows better what the text was meant to be). On a tie the IBI's error is kept.

The text is first read by :func:`~ibiportal.ibi.recognise.recognise`, which undoes what
references and links add to an IBI (``IBI: <…>.``, ``/ibi/``, ``-TDI``, no scheme, …) and notes
each thing it removed or interpreted; the parsers then read its reading, and their errors are
moved back onto the text as given.

Recognised texts also get both forms of their IBI where conversion can give them
(:func:`~ibiportal.ibi.conversion.convert` with the known prefix pairs) and a persistent URL:
the URL's own canonical form on its own resolver, or, for a bare IBI or a host-less path, on
``base`` (this portal's resolver base).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ibiportal.errors import ParseError
from ibiportal.i18n import N_
from ibiportal.ibi.conversion import SOURCE_TABLE, Conversion, convert
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS
from ibiportal.ibi.recognise import Note, Recognition, recognise
from ibiportal.ibi.servers import known_server
from ibiportal.ibi.url import DEFAULT_RESOLVER, PersistentUrl, parse_persistent_url

KIND_REP = "rep"
KIND_IBIP = "ibip"
KIND_URL = "url"
KIND_UNKNOWN = "unknown"

DESCRIPTIONS = {
    KIND_REP: N_("an IBI in repository-name form"),
    KIND_IBIP: N_("an IBI in IBIp form"),
    KIND_URL: N_("a persistent URL"),
    KIND_UNKNOWN: N_("not an IBI or a persistent URL"),
}
"""How each kind is named to a person."""

_URL_START = re.compile(r"\s*(?:[A-Za-z][A-Za-z0-9+.-]*://|/)")
"""A text beginning with ``scheme://`` or ``/`` is meant as a URL, whatever follows."""

EMPTY_MESSAGE = N_("paste an IBI (either form) or a persistent URL, such as http://urlib.net/8JMKD3MGP8W/34PGRBS")


@dataclass(frozen=True)
class Classification:
    """The result of :func:`classify`.

    ``url`` is the text read as a persistent URL (a bare IBI is one too, with no resolver), so
    every recognised text has an IBI, a verb list and a canonical form; ``conversion`` gives the
    IBI's two forms; ``persistent_url`` is the absolute URL to open or trace (on the resolver the
    text names, else on this portal); ``portal_url`` the same request on this portal and
    ``original_url`` on the resolver the text came from (urlib.net for a bare IBI or a direct
    Archive link); ``notes`` what the recogniser removed or interpreted; ``error`` says why an
    unknown text is not recognised (its position counts in ``text`` as given); ``published`` is
    the IBI in the case it was printed in (``sid.inpe.br/ePrint@1905/…``), for display beside
    the normalized :attr:`ibi`; ``archive_link`` that the text was a link to one Archive's copy
    of the item (``/col/…/doc/…`` and the CGI links), read as its persistent URL; ``upn_resolver``
    the ResolverID of a URLib ``upn:`` URI the text was (STANDARD.md §8), kept beside the IBI read
    from its local part (or beside the refusal of a compact local part).
    """

    text: str
    kind: str
    url: PersistentUrl | None = None
    conversion: Conversion | None = None
    persistent_url: str | None = None
    error: ParseError | None = None
    notes: tuple[Note, ...] = ()
    portal_url: str | None = None
    original_url: str | None = None
    published: str | None = None
    archive_link: bool = False
    upn_resolver: str | None = None

    @property
    def recognised(self) -> bool:
        return self.kind != KIND_UNKNOWN

    @property
    def description(self) -> str:
        """The kind in words: ``an IBI in IBIp form``."""
        return DESCRIPTIONS[self.kind]

    @property
    def ibi(self) -> str | None:
        """The IBI recognised, normalized (for a URL, the IBI it names)."""
        return str(self.url.ibi) if self.url else None

    @property
    def form(self) -> str | None:
        """``rep`` or ``ibip``: the form of :attr:`ibi`."""
        return self.url.ibi.form if self.url else None

    @property
    def rep(self) -> str | None:
        """The repository-name form, None when the prefix table does not know it."""
        if self.conversion is None:  # a repository name with no IBIp form is still one
            return self.ibi if self.form == KIND_REP else None
        return self.conversion.rep

    @property
    def ibip(self) -> str | None:
        """The IBIp form, None when the prefix table does not know it."""
        return self.conversion.ibip if self.conversion else None

    @property
    def resolver(self) -> str | None:
        """The resolver base the text came with (``http://urlib.net/``), None for a bare IBI or a host-less path."""
        if self.url is None or self.url.resolver in (None, "/"):
            return None
        return self.url.resolver

    @property
    def resolver_path(self) -> str | None:
        """What follows the resolver base in the canonical form: ``/<ibi><modifiers><path>?<query>``,
        the same request on any resolver (Table 8.1)."""
        return self.url.canonical_symbols("/") if self.url else None

    def to_dict(self) -> dict:
        """The JSON shape: ``kind``, ``description``, the IBI in both forms, the URLs, or the ``error``."""
        return {
            "input": self.text,
            "kind": self.kind,
            "description": self.description,
            "ibi": self.ibi,
            "published": self.published,
            "form": self.form,
            "rep": self.rep,
            "ibip": self.ibip,
            "utc": self.conversion.utc if self.conversion else None,
            "warnings": list(self.conversion.warnings) if self.conversion else [],
            "resolver": self.resolver,
            "persistent_url": self.persistent_url,
            "resolver_path": self.resolver_path,
            "portal_url": self.portal_url,
            "original_url": self.original_url,
            "notes": [note.to_dict() for note in self.notes],
            "upn_resolver": self.upn_resolver,
            "error": self.error.to_dict() if self.error else None,
        }


def classify(
    text: str,
    known_pairs: Iterable[Sequence[str]] = KNOWN_PREFIX_PAIRS,
    base: str = DEFAULT_RESOLVER,
) -> Classification:
    """Say what ``text`` is; never raises for any text (an unknown text carries its error).

    ``known_pairs`` are the prefix pairs conversion may use; ``base`` the resolver base on which
    a bare IBI or a host-less path becomes a persistent URL.
    """
    if not text.strip():
        return Classification(text, KIND_UNKNOWN, error=ParseError(EMPTY_MESSAGE, field="q"))
    recognition = recognise(text)
    reading = recognition.reading
    if recognition.refusal is not None:
        position = recognition.refusal_at[0] if recognition.refusal_at else None
        return Classification(text, KIND_UNKNOWN, error=ParseError(recognition.refusal, position, "q"), notes=recognition.notes,
                              upn_resolver=recognition.upn_resolver)
    try:
        identifier = parse_ibi(reading)
    except ParseError as exc:
        ibi_error = recognition.error_in_text(exc, "q")
    else:
        return _recognised(recognition, identifier.form, PersistentUrl(identifier), known_pairs, base)
    try:
        url = parse_persistent_url(reading)
    except ParseError as exc:
        url_error = recognition.error_in_text(exc, "q")
    else:
        return _recognised(recognition, KIND_URL, url, known_pairs, base)
    notes, upn = recognition.notes, recognition.upn_resolver
    if _URL_START.match(reading) or (url_error.position or 0) > (ibi_error.position or 0):
        return Classification(text, KIND_UNKNOWN, error=url_error, notes=notes, upn_resolver=upn)
    return Classification(text, KIND_UNKNOWN, error=ibi_error, notes=notes, upn_resolver=upn)


def read_url(text: str, field: str | None = None) -> tuple[PersistentUrl, Recognition]:
    """The persistent URL (or bare IBI, or host-less path) a text names, as every entry point
    reads it: :func:`~ibiportal.ibi.recognise.recognise`'s reading, parsed; an error's position
    is moved onto the text as given, in ``field``. A text the recogniser refuses (a mirror's own
    page, a ``upn:`` whose local part is URLib's compact code) gets that refusal."""
    recognition = recognise(text)
    if recognition.refusal is not None:  # a URLib link that names no item this portal can read
        position = recognition.refusal_at[0] if recognition.refusal_at else None
        raise ParseError(recognition.refusal, position, field)
    try:
        return parse_persistent_url(recognition.reading), recognition
    except ParseError as exc:
        raise recognition.error_in_text(exc, field) from exc


def ibi_of(text: str, field: str | None = None) -> tuple[str, tuple[Note, ...]]:
    """The IBI a text names, for the entry points that take an IBI (Convert, Compose, Cite, the
    CLI): a bare IBI, or the IBI of a persistent URL in any form the recogniser reads, with the
    recogniser's notes. A text the recogniser left as it was and the parsers refuse comes back
    unchanged, so that the caller's own parser reports it exactly as it always has; one it
    changed gets the error of its reading, placed in the text as given (in ``field``), and so
    does a text meant as a URL (``scheme://`` or ``/`` first): the URL's error is the one that
    says what is wrong in it, as on every other page.
    """
    try:
        url, recognition = read_url(text, field)
    except ParseError:
        recognition = recognise(text)
        if recognition.notes or _URL_START.match(recognition.reading):
            raise
        return text, ()
    return str(url.ibi), recognition.notes


def notes_as_warnings(ibi: str, notes: Sequence[Note]) -> tuple[str, ...]:
    """The recogniser's notes as lines of a conversion's warnings (batch rows, the CLI)."""
    return tuple(N_("read as %(ibi)s: %(note)s", ibi=ibi, note=note.message) for note in notes)


def _recognised(
    recognition: Recognition, kind: str, url: PersistentUrl, known_pairs: Iterable[Sequence[str]], base: str
) -> Classification:
    """A recognised text with both forms of its IBI and its absolute persistent URLs; a repository
    name glued to a word before it is refused (:func:`glued_word`)."""
    pairs = [tuple(pair) for pair in known_pairs]
    published = _published(recognition, str(url.ibi))
    glued = glued_word(published, pairs) if url.ibi.form == KIND_REP else None
    if glued is not None:
        start = recognition.position_in_text(recognition.reading.casefold().find(published.casefold()) + 1)
        return Classification(recognition.text, KIND_UNKNOWN, error=ParseError(glued, start, "q"), notes=recognition.notes)
    on = base if url.resolver in (None, "/") else url.resolver
    try:
        conversion = convert(str(url.ibi), pairs)
    except ParseError as exc:  # a repository name dated before the IBIp epoch: no IBIp form, still an IBI
        conversion, notes = None, (Note(f"no IBIp form: {exc.message}", 1, len(recognition.text)),)
    else:
        notes = _pair_source(conversion, len(recognition.text))
    return Classification(
        recognition.text,
        kind,
        url=url,
        conversion=conversion,
        persistent_url=url.canonical_symbols(on),
        notes=recognition.notes + notes,
        portal_url=url.canonical_symbols(base),
        original_url=url.canonical_symbols(recognition.original_resolver or DEFAULT_RESOLVER),
        published=published,
        archive_link=recognition.archive_link,
        upn_resolver=recognition.upn_resolver,
    )


def _pair_source(conversion: Conversion, length: int) -> tuple[Note, ...]:
    """A note naming where the prefix pair that gave the other form comes from, when it is not a
    published server's (those are the table's own): the portal's subsystem, an administrator, or
    the Archive whose answer proved it."""
    prefix = conversion.prefix
    if prefix.source != SOURCE_TABLE or not prefix.reference or known_server(prefix.rep, prefix.ibip):
        return ()
    return (Note(N_("the other form comes from the prefix pair %(rep)s = %(ibip)s, %(source)s", rep=prefix.rep,
                    ibip=prefix.ibip, source=prefix.reference), 1, length),)


def _published(recognition: Recognition, ibi: str) -> str:
    """The IBI as the reading spells it (the case it was published in)."""
    at = recognition.reading.casefold().find(ibi.casefold())
    return recognition.reading[at : at + len(ibi)] if at >= 0 else ibi


def glued_word(rep: str, known_pairs: Sequence[Sequence[str]]) -> str | None:
    """Why a repository name is a word glued to a known one (``Metadadossid.inpe.br/…``, as a page's
    text run together prints it), or None.

    Its first part ends with the subdomain of a known server (``sid.inpe.br``) with a letter or
    digit, not a dot, before it: no label of a host name is cut there, so the text is a word and a
    repository name run together. The message offers the repository name that may be meant.
    """
    subdomain, _, rest = rep.partition("/")
    for known in dict.fromkeys(pair[0].split("/", 1)[0].lower() for pair in known_pairs):
        glue = len(subdomain) - len(known)
        if glue > 0 and subdomain.lower().endswith(known) and subdomain[glue - 1].isalnum():
            return (f"`{subdomain[:glue]}` is a word glued to a repository name, not part of an IBI: "
                    f"{known}/{rest} may be meant")
    return None
