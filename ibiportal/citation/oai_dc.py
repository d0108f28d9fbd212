"""Reading the oai_dc record an Archive answers to ``:(oai_dc)`` (file 003, Table 8.2).

The record comes from another server, so it is read defensively:

* at most :data:`MAX_OAI_DC_BYTES` — a Dublin Core record is a few kilobytes;
* no document type declaration at all: an oai_dc record never needs one, and refusing it
  refuses every entity trick with it (billion laughs, external entities);
* with expat directly, keeping only the ``dc:*`` elements inside ``oai_dc:dc`` (the record
  may also arrive inside an OAI-PMH ``GetRecord`` envelope).

Every failure is a :class:`~ibiportal.errors.ParseError` that says what is wrong and where
(line and column of the XML).
"""
from __future__ import annotations

import pyexpat
import re
from dataclasses import dataclass

from ibiportal.citation.record import CitationRecord
from ibiportal.citation.types import ItemType, read_dc_type
from ibiportal.errors import IbiError, ParseError
from ibiportal.i18n import N_, Recorded

MAX_OAI_DC_BYTES = 1_000_000
OAI_DC_NAMESPACE = "http://www.openarchives.org/OAI/2.0/oai_dc/"
DC_NAMESPACE = "http://purl.org/dc/elements/1.1/"
_RECORD = f"{OAI_DC_NAMESPACE} dc"
_DC_ELEMENTS = (
    "title creator subject description publisher contributor date type format identifier"
    " source language relation coverage rights"
).split()


@dataclass(frozen=True)
class OaiDcRecord:
    """The Dublin Core elements of one oai_dc record, each as a tuple of its values in order."""

    elements: dict[str, tuple[str, ...]]

    def first(self, name: str) -> str | None:
        values = self.elements.get(name, ())
        return values[0] if values else None

    def all(self, name: str) -> tuple[str, ...]:
        return self.elements.get(name, ())

    @property
    def title(self) -> str | None:
        return self.first("title")

    @property
    def creators(self) -> tuple[str, ...]:
        return self.all("creator")

    @property
    def date(self) -> str | None:
        return self.first("date")

    @property
    def language(self) -> str | None:
        return self.first("language")

    def citation_record(self, persistent_url: str, ibi: str, repository: str | None = None) -> CitationRecord:
        """The record to cite, with the persistent URL and IBI the caller resolved.

        Dublin Core has no element for a thesis's degree, a report's number, the place of
        publication or the number of pages; the own Archive writes them where NBR 6023 readers
        and other repositories look (see :mod:`ibiportal.archive.oai_dc`), and they are read
        back from there: ``dc:publisher`` ``Place: Publisher``, ``dc:format`` ``39 p.``, a
        ``dc:description`` ``Tese (Doutorado em …)``, a ``dc:identifier`` ``<repository>-NTC``.
        """
        degree_note = next(filter(None, (_THESIS_NOTE.fullmatch(text) for text in self.all("description"))), None)
        degree = degree_note.group(2).strip() if degree_note else None
        item_type = read_dc_type(self.all("type"), degree)
        if item_type is None and degree_note:
            doctoral = degree_note.group(1).lower() in ("tese", "thesis")
            item_type = ItemType.DOCTORAL_THESIS if doctoral else ItemType.MASTERS_THESIS
        place, publisher = split_imprint(self.first("publisher"))
        return CitationRecord(
            persistent_url=persistent_url,
            ibi=ibi,
            repository=repository,
            title=self.title,
            creators=self.creators,
            date=self.date,
            language=self.language,
            publisher=publisher,
            place=place,
            description=next((text for text in self.all("description") if not _THESIS_NOTE.fullmatch(text)), None),
            item_type=item_type or ItemType.OTHER,
            extent=next(filter(None, (_pages(text) for text in self.all("format"))), None),
            degree=degree,
            report_number=next(filter(None, (_report_number(text) for text in self.all("identifier"))), None),
        )


#: ``Tese (Doutorado em Computação Aplicada)``: the degree note NBR 6023 prints for a thesis.
_THESIS_NOTE = re.compile(r"(Tese|Dissertação|Thesis|Dissertation)\s*\((.+)\)\.?", re.IGNORECASE)
#: ``39 p.``, ``150 f.``, ``xx + 263 p.``, ``120 pages``: an extent in pages or leaves.
_PAGES = re.compile(r"(?:[ivxlc]+\s*\+\s*)?(\d+)\s*(?:p|f|pp|pages|páginas|folhas)\.?", re.IGNORECASE)
#: INPE's report numbers: the repository name with a document-type code (``…/02.16.17.46-NTC``),
#: or the older series numbers (``INPE-14466-TDI/1147``).
_REPOSITORY_CODE = re.compile(r"[^\s/]+/[^\s]+/\d{4}/[\d.]+-([A-Z]{2,6})")
_INPE_SERIES = re.compile(r"INPE-\d+-[A-Z]+/\d+")


def split_imprint(publisher: str | None) -> tuple[str | None, str | None]:
    """``("São José dos Campos", "INPE")`` from NBR 6023's imprint ``São José dos Campos: INPE``;
    a publisher without a place is ``(None, publisher)``."""
    if not publisher:
        return None, None
    place, colon, name = publisher.partition(":")
    if colon and place.strip() and not any(char.isdigit() for char in place) and len(place.split()) <= 6:
        return place.strip(), name.strip() or None
    return None, publisher


def _pages(text: str) -> str | None:
    match = _PAGES.fullmatch(text.strip())
    return match.group(1) if match else None


def _report_number(text: str) -> str | None:
    text = text.strip()
    match = _REPOSITORY_CODE.fullmatch(text)
    if match:
        return match.group(1)
    return text if _INPE_SERIES.fullmatch(text) else None


class _RefusedDeclaration(IbiError):
    """Raised inside expat's callbacks; turned into a ParseError with expat's position."""


def _refuse(*_args) -> None:
    raise _RefusedDeclaration


def from_oai_dc(xml: bytes | str) -> OaiDcRecord:
    """The Dublin Core elements of the oai_dc record ``xml``.

    Raises ParseError for a record larger than :data:`MAX_OAI_DC_BYTES`, one with a DOCTYPE
    (or any entity declaration), ill-formed XML, or XML that holds no ``oai_dc:dc`` element.
    """
    size = len(xml.encode("utf-8") if isinstance(xml, str) else xml)
    if size > MAX_OAI_DC_BYTES:
        raise ParseError(N_("the oai_dc record is %(size)s bytes, more than the %(limit)s allowed",
                            size=size, limit=MAX_OAI_DC_BYTES))
    parser = pyexpat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(pyexpat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse
    parser.EntityDeclHandler = _refuse
    elements: dict[str, list[str]] = {}
    depth_in_record = 0  # 0: outside oai_dc:dc; 1: directly inside it; more: deeper
    found_record = False
    current: list[str] | None = None

    def start(name: str, _attributes: dict) -> None:
        nonlocal depth_in_record, found_record, current
        if depth_in_record:
            depth_in_record += 1
            namespace, _, local = name.rpartition(" ")
            if depth_in_record == 2 and namespace == DC_NAMESPACE and local in _DC_ELEMENTS:
                current = elements.setdefault(local, [])
                current.append("")
        elif name == _RECORD and not found_record:
            depth_in_record, found_record = 1, True

    def end(_name: str) -> None:
        nonlocal depth_in_record, current
        if depth_in_record:
            depth_in_record -= 1
            if depth_in_record == 1 or depth_in_record == 0:
                current = None

    def text(data: str) -> None:
        if current is not None and depth_in_record == 2:
            current[-1] += data

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(xml, True)
    except _RefusedDeclaration:
        raise ParseError(N_(
            "the oai_dc record has a document type declaration (line %(line)s, column %(column)s); oai_dc records"
            " have none, and it is refused so that no entity can be expanded",
            line=parser.CurrentLineNumber, column=parser.CurrentColumnNumber + 1,
        )) from None
    except pyexpat.ExpatError as error:
        raise ParseError(N_(
            "the oai_dc record is not well-formed XML: %(reason)s (line %(line)s, column %(column)s)",
            reason=Recorded(pyexpat.ErrorString(error.code)), line=error.lineno, column=error.offset + 1,
        )) from None
    if not found_record:
        raise ParseError(N_("the XML holds no oai_dc:dc element (namespace %(namespace)s)", namespace=OAI_DC_NAMESPACE))
    cleaned = {
        name: tuple(value for value in (" ".join(raw.split()) for raw in values) if value)
        for name, values in elements.items()
    }
    return OaiDcRecord({name: values for name, values in cleaned.items() if values})


@dataclass(frozen=True)
class WrittenFields:
    """How an item's kind, imprint, extent, degree and report number are written in Dublin
    Core — the inverse of :meth:`OaiDcRecord.citation_record`'s reading."""

    type: str | None
    publisher: str | None
    format: str | None
    notes: tuple[str, ...]
    identifiers: tuple[str, ...]


def written_fields(
    item_type: ItemType | None,
    *,
    publisher: str | None = None,
    place: str | None = None,
    extent: str | None = None,
    degree: str | None = None,
    report_number: str | None = None,
    repository: str | None = None,
) -> WrittenFields:
    """``dc:type`` (:mod:`.types`), ``dc:publisher`` as NBR 6023's imprint ``Place: Publisher``,
    ``dc:format`` ``39 p.``, a ``dc:description`` ``Tese (Doutorado em …)`` for a thesis, and a
    ``dc:identifier`` with the report number as INPE prints it (``<repository>-NTC``)."""
    if place and publisher:
        imprint = f"{place}: {publisher}"
    else:
        imprint = publisher or (f"{place}:" if place else None)
    pages = f"{extent} p." if extent and extent.isdigit() else extent
    notes: tuple[str, ...] = ()
    if degree and item_type is not None and item_type.is_thesis:
        kind = "Tese" if item_type is ItemType.DOCTORAL_THESIS else "Dissertação"
        notes = (f"{kind} ({degree})",)
    identifiers: tuple[str, ...] = ()
    if report_number:
        coded = re.fullmatch(r"[A-Z]{2,6}", report_number) and repository
        identifiers = (f"{repository}-{report_number}" if coded else report_number,)
    return WrittenFields(item_type.names.dc_type if item_type else None, imprint, pages, notes, identifiers)
