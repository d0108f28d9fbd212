"""What an Archive knows about the items it holds (file 003, §5.2, §9.2, Tables 9.3-9.5).

An :class:`Item` is one Archive's record of one identified item: the same IBI may be held by
several Archives (an original and its copies, §5.2), each with its own record, state and URL.
That is why the Archive's own identity (its address, its archive-service IBI and the software
of its platform, Table 9.3) lives in :class:`ArchiveIdentity`, beside the item store, and not
in the items.

Every value here is exactly what the Archive answers: IBI forms as the Archive writes them
(Table 9.4), URLs already percent-encoded for the wire, timestamps in UTC.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from datetime import datetime, timezone
from enum import StrEnum

from ibiportal.ibi.modifiers import BIBINPE, OAI_DC

#: Table 9.3: the timestamp pairs are ISO 8601 UTC to the second, e.g. 2014-01-02T17:23:57Z.
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

#: The characters a file name keeps as they are in a URL path (RFC 3986 unreserved, ``/``
#: between path segments, and ``@``, which URLib uses for target files: Example 9.9).
_URL_PATH_SAFE = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/@"
)


class ItemState(StrEnum):
    """Table 9.3 ``state``: the state of an item of information in one Archive (§5.2)."""

    ORIGINAL = "Original"
    COPY = "Copy"
    DELETED = "Deleted"


class ContentType(StrEnum):
    """Table 9.3 ``contenttype``: data or metadata."""

    DATA = "Data"
    METADATA = "Metadata"


def format_timestamp(moment: datetime) -> str:
    """Table 9.3 timestamp text of an aware datetime, e.g. ``2009-07-21T13:23:45Z``."""
    return moment.astimezone(timezone.utc).strftime(TIMESTAMP_FORMAT)


def url_path_encode(name: str, encoding: str = "utf-8") -> str:
    """A file path as a URL path: bytes outside :data:`_URL_PATH_SAFE` become ``%hh``.

    The hexadecimal digits are lower case, as in Example 6.2 (``Relat%f3rio%20Final.pdf``:
    that file name was written in ISO-8859-1, hence ``encoding``).
    """
    return "".join(
        chr(byte) if chr(byte) in _URL_PATH_SAFE else f"%{byte:02x}"
        for byte in name.encode(encoding)
    )


@dataclass(frozen=True)
class IbiForms:
    """``formas-de-ibi`` of Table 9.4: the repository-name form, the IBIp form, or both.

    Each form is kept as the Archive writes it (``sid.inpe.br/mtc-m18@80/…`` keeps its
    legacy ``@80``: Example 9.2 prints it so). ``str()`` is the pair value
    ``rep X ibip Y`` (braced by the pair-list serializer).
    """

    rep: str | None = None
    ibip: str | None = None

    def __post_init__(self) -> None:
        if not self.rep and not self.ibip:
            raise ValueError("formas-de-ibi needs a rep form, an ibip form or both (Table 9.4)")

    def forms(self) -> tuple[str, ...]:
        """The forms present, repository name first."""
        return tuple(form for form in (self.rep, self.ibip) if form)

    @cached_property
    def folded(self) -> frozenset[str]:
        """The forms case-folded, as a request's service IBI is compared with them (LocalTransport);
        kept, since every cached redirect's acknowledgment asks."""
        return frozenset(form.casefold() for form in self.forms())

    def __str__(self) -> str:
        words = []
        if self.rep:
            words += ["rep", self.rep]
        if self.ibip:
            words += ["ibip", self.ibip]
        return " ".join(words)


@dataclass(frozen=True)
class Metadata:
    """The metadata of an item (relation ``.metadata``, Table 9.5; Examples 9.2, 9.8, 9.10).

    ``ibi`` is ``None`` when the metadata are not an identified item (then CRIARPARIBI has
    nothing to say, §9.2). ``url`` serves them in a free format (``:``), ``oai_dc_url`` in
    oai_dc (``:(oai_dc)``, Table 8.2), ``bibinpe_url`` as URLib's "how to cite" page in INPE's
    form (``:(BibINPE)``, STANDARD.md §8); URLib serves them all from one CGI script, so they share
    one IBI (Example 9.2).
    """

    url: str
    state: ItemState
    timestamp: datetime
    ibi: IbiForms | None = None
    oai_dc_url: str | None = None
    bibinpe_url: str | None = None

    def url_in(self, format: str | None) -> str | None:
        """Where the metadata are served in ``format`` (``None``: the free format), None when not."""
        return {None: self.url, OAI_DC: self.oai_dc_url, BIBINPE: self.bibinpe_url}.get(format)


@dataclass(frozen=True)
class DublinCore:
    """Descriptive metadata of an item, for its oai_dc record (see :mod:`.oai_dc`)."""

    title: str
    creators: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    description: str | None = None
    publisher: str | None = None
    date: str | None = None
    type: str | None = None
    format: str | None = None
    #: further ``dc:description`` values after the abstract (a thesis's degree note)
    notes: tuple[str, ...] = ()
    #: further ``dc:identifier`` values besides the persistent URLs (a report's number)
    identifiers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Item:
    """One Archive's record of an identified item (the subject of Tables 9.3 and 9.5).

    * ``directory_url`` + ``target_file``: the item's URL (``url``, relation ``""``), and the
      base of the URL of any of its ``files`` (``parsedibiurl.filepath``, Example 9.11);
      ``file_list_url`` is the page listing them (``GetFileList``, Example 9.12). A deleted
      item has none of these.
    * ``file_name_encoding``: how file names are written as URL bytes (ISO-8859-1 for
      Example 6.2's ``Relat%f3rio%20Final.pdf``, UTF-8 today).
    * ``nextedition``: ``ibi.nextedition`` (Algorithm 2 line 17), the next edition's IBI,
      wherever it is held.
    * ``translations``: ``(language, IBI forms)`` for ``.translation(xx)``, written as the
      Archive answers them (Example 9.2 names the English original itself as
      ``.translation(en)``, in its rep form only).
    * ``language``: the item's own language (ISO 639-1), ``None`` when unspecified; only an
      item in no specified language answers the bare relation ``.translation`` (§9.2).
    * ``target_url``: the item's URL when its data live at one address outside any Archive
      directory (items minted by the portal, whose target URL the user gave).
    """

    ibi: IbiForms
    state: ItemState
    timestamp: datetime
    contenttype: ContentType = ContentType.DATA
    directory_url: str | None = None
    target_file: str | None = None
    files: tuple[str, ...] = ()
    file_list_url: str | None = None
    file_name_encoding: str = "utf-8"
    language: str | None = None
    nextedition: IbiForms | None = None
    translations: tuple[tuple[str, IbiForms], ...] = ()
    metadata: Metadata | None = None
    dc: DublinCore | None = None
    target_url: str | None = None

    def __post_init__(self) -> None:
        if self.target_file is not None and self.target_file not in self.files:
            raise ValueError(f"target file {self.target_file!r} of {self.ibi} is not one of its files")

    @property
    def url(self) -> str | None:
        """The URL of the item itself (``url``, relation ``""``; Example 9.9)."""
        if self.target_url is not None:
            return self.target_url
        if self.directory_url is None or self.target_file is None:
            return None
        return self.file_url(self.target_file)

    def file_url(self, path: str) -> str | None:
        """The URL of one of the item's files (Example 9.11), ``None`` if it has no such file.

        ``path`` is ``parsedibiurl.filepath`` (Table 8.9: ``/reference.bib``; Example 9.11
        writes it without the slash): either is accepted. Its ``%hh`` were read one byte a
        character (§6.2); a name asked as UTF-8 bytes (``€`` is ``%e2%82%ac``, as browsers and
        this resolver write it, :mod:`ibiportal.protocol.percent`) is read back as UTF-8.
        """
        name = path.lstrip("/")
        if name not in self.files:
            name = _as_utf_8(name)
        if self.directory_url is None or name not in self.files:
            return None
        return self.directory_url + url_path_encode(name, self.file_name_encoding)

    def translation(self, language: str) -> IbiForms | None:
        """The IBI of the translation into ``language`` (``pt``, ``pt-BR``), if any."""
        return next((forms for lang, forms in self.translations if lang == language), None)


def _as_utf_8(name: str) -> str:
    """``name``'s characters taken as bytes and read as UTF-8 (``â\x82¬`` → ``€``); ``name``
    itself when they are not UTF-8."""
    try:
        return name.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return name


@dataclass(frozen=True)
class ArchiveIdentity:
    """Who answers (Table 9.3, Algorithm 2 lines 6-10).

    ``address`` is ``archiveaddress`` (hostport, §6.1); ``service_ibi`` is
    ``ibi.archiveservice``, the IBI the Archive was registered with (§7.1);
    ``platform_software`` is ``ibi.platformsoftware``, ``None`` when the software is not
    identified by an IBI (answered as ``{}``, §9.2).
    """

    address: str
    service_ibi: IbiForms
    platform_software: IbiForms | None = field(default=None)


@dataclass(frozen=True)
class Behaviour:
    """How the local transport makes an Archive misbehave: ``delay_seconds`` before answering,
    ``malformed`` text instead of the answer (the demo Archives ``slow`` and ``garbled``)."""

    delay_seconds: float = 0.0
    malformed: str | None = None

    @property
    def faulty(self) -> bool:
        """Whether the Archive misbehaves at all: such an Archive is there to teach the Trace
        page what a timeout or garbage looks like, and would only slow every reader down (a
        not-found waits for its deadline), so ``GET /<persistent URL>`` does not ask it."""
        return self != Behaviour()
