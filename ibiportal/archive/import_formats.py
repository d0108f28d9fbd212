"""The sources an import reads, each into :class:`~ibiportal.archive.import_records.SourceRecord`
values: a CSV with a header, a RIS file, a BibTeX file, and the pages of an OAI-PMH
``ListRecords`` answer in ``oai_dc``.

Each reader is a generator over the source's records, so a collection of thousands is read one
record at a time; a record it cannot read becomes a record with a ``problem`` (reported, the
others go on). A source that is not of its format at all (a CSV without an ``ibi`` column, an
OAI-PMH answer that is not XML) raises :class:`~ibiportal.errors.ParseError`.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from ..citation.oai_dc import from_oai_dc
from ..citation.types import ItemType, read_dc_type
from ..errors import ParseError
from ..i18n import N_, Recorded
from .import_records import SourceRecord

#: The columns a CSV may name in its header: ``ibi`` is required.
CSV_COLUMNS = ("ibi", "title", "creators", "date", "type", "language", "target_url", "files")
#: Several creators or files in one CSV cell: ``Silva, João; Souza, Maria``.
CELL_SEPARATOR = ";"


def read_csv(text: str) -> Iterator[SourceRecord]:
    """The rows of a CSV whose header names its columns (:data:`CSV_COLUMNS`, any order, any case)."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    header = [name.strip().lower() for name in next(reader, [])]
    if "ibi" not in header:
        raise ParseError(N_("the CSV's first line must name its columns, one of them `ibi` (the others: %(columns)s)",
                            columns=_code(CSV_COLUMNS[1:])), position=1, field="file")
    unknown = [name for name in header if name not in CSV_COLUMNS]
    if unknown:
        raise ParseError(N_("the CSV names a column `%(column)s`; its columns can be %(columns)s",
                            column=unknown[0], columns=_code(CSV_COLUMNS)), position=1, field="file")
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        cells = {name: (row[index].strip() if index < len(row) else "") for index, name in enumerate(header)}
        where = N_("line %(line)s", line=reader.line_num)
        fields: dict[str, object] = {name: cells[name] or None for name in ("title", "date", "language", "target_url")
                                     if name in cells}
        fields["creators"] = _split(cells.get("creators", ""))
        problem = None
        if cells.get("type"):
            fields["item_type"], problem = _item_type(cells["type"])
        yield SourceRecord(where, (cells["ibi"],), fields, _split(cells.get("files", "")), problem=problem)


def _code(names: tuple[str, ...]) -> str:
    """Column names as a message lists them: code, which no language translates."""
    return ", ".join(f"`{name}`" for name in names)


def _split(cell: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in cell.split(CELL_SEPARATOR) if part.strip())


def _item_type(text: str) -> tuple[str | None, str | None]:
    """An item type slug from a slug or a Dublin Core type (``doctoral thesis``,
    ``info:eu-repo/semantics/report``, ``Tese``); a problem naming the accepted ones otherwise."""
    try:
        return ItemType.from_slug(text).slug, None
    except ValueError as error:
        found = read_dc_type((text,))
        return (found.slug, None) if found else (None, error.args[0])


#: The file sources, by their name's suffix.
FILE_SUFFIXES = (".bib", ".ris", ".csv")


def read_file(name: str, data: bytes) -> Iterator[SourceRecord]:
    """The records of a ``.bib``, ``.ris`` or ``.csv`` file by its name (UTF-8, else Latin-1 as
    older URLib exports are); ParseError for another kind of file."""
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    readers = {".bib": read_bib, ".ris": read_ris, ".csv": read_csv}
    if suffix not in readers:
        raise ParseError(N_("%(name)s is not a .bib, .ris or .csv file", name=name), field="file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return readers[suffix](text)


# -- RIS ---------------------------------------------------------------------------------------

_RIS_LINE = re.compile(r"([A-Z][A-Z0-9])  -(?: (.*))?$")
#: RIS tags that may carry the item's IBI or its persistent URL, most trusted first.
_RIS_IDENTIFIERS = ("ID", "UR", "L1", "L2", "L3", "L4", "AN", "M1", "N1", "DO")
#: ``THES`` is a doctoral thesis unless a degree says otherwise, as ``read_dc_type`` reads a bare "thesis".
_RIS_TYPES = {item.names.ris: item for item in ItemType if item is not ItemType.MASTERS_THESIS}


def read_ris(text: str) -> Iterator[SourceRecord]:
    """The records of a RIS file (``TY  -`` … ``ER  -``): titles ``TI``/``T1``, creators
    ``AU``/``A1``, date ``PY``/``DA``/``Y1``, language ``LA``, publisher ``PB``, place ``CY``."""
    tags: dict[str, list[str]] = {}
    start = 0
    number = 0
    for line_number, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        match = _RIS_LINE.match(line.rstrip())
        if not match:
            continue
        tag, value = match[1], (match[2] or "").strip()
        if tag == "TY":
            tags, start = {"TY": [value]}, line_number
        elif tag == "ER":
            number += 1
            yield _ris_record(tags, N_("record %(number)s (line %(line)s)", number=number, line=start))
            tags = {}
        elif value:
            tags.setdefault(tag, []).append(value)


def _ris_record(tags: dict[str, list[str]], where: str) -> SourceRecord:
    first = lambda *names: next((tags[name][0] for name in names if tags.get(name)), None)  # noqa: E731
    item_type = _RIS_TYPES.get(first("TY") or "")
    fields: dict[str, object] = {
        "title": first("TI", "T1"), "creators": tuple(tags.get("AU", []) + tags.get("A1", [])),
        "date": _year_first(first("PY", "DA", "Y1")), "language": first("LA"), "publisher": first("PB"),
        "place": first("CY"), "item_type": item_type.slug if item_type else None,
    }
    identifiers = tuple(value for name in _RIS_IDENTIFIERS for value in tags.get(name, []))
    return SourceRecord(where, identifiers, {name: value for name, value in fields.items() if value})


def _year_first(value: str | None) -> str | None:
    """RIS dates ``2009/07/21/``, ``2009///`` as ``2009-07-21``, ``2009``."""
    if value is None:
        return None
    parts = [part for part in value.split("/") if part.strip()]
    return "-".join(parts[:3]) if parts and parts[0].isdigit() else value


# -- BibTeX ------------------------------------------------------------------------------------

_BIB_ENTRY = re.compile(r"@\s*([A-Za-z]+)\s*[{(]")
_BIB_FIELD = re.compile(r"\s*([A-Za-z][A-Za-z0-9_:-]*)\s*=\s*")
#: BibTeX fields that may carry the item's IBI, most trusted first.
_BIB_IDENTIFIERS = ("ibi", "url", "howpublished", "note", "doi")
_BIB_TYPES = {item.names.bibtex: item for item in reversed(ItemType)}
_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", '"': "\u0308", "c": "\u0327", "=": "\u0304"}
_DOTLESS = re.compile(r"\\i\b\s*")  # ``{\'{\i}}``: the dotless i an accent goes on
_LATEX_ACCENT = re.compile(r"\\([`'^~\"=c])\s*\{?\s*([A-Za-z])\}?")


def read_bib(text: str) -> Iterator[SourceRecord]:
    """The entries of a BibTeX file: ``ibi`` and ``url`` carry the IBI (URLib writes both);
    ``title``, ``author`` (``and``-separated), ``year``, ``language``, ``publisher``/``school``/
    ``institution``, ``address``, ``pages``; the entry type gives the item type. LaTeX accents
    (``{\\'a}``) are read as the letters they make; ``@comment``, ``@string`` and ``@preamble`` are
    passed over."""
    position = 0
    number = 0
    while match := _BIB_ENTRY.search(text, position):
        kind = match[1].lower()
        line = text.count("\n", 0, match.start()) + 1
        try:
            key, fields, position = _bib_body(text, match.end())
        except ParseError as error:
            number += 1
            yield SourceRecord(N_("entry %(number)s (line %(line)s)", number=number, line=line), (), problem=error.message)
            position = match.end()
            continue
        if kind in ("comment", "string", "preamble"):
            continue
        number += 1
        yield _bib_record(kind, fields, N_("entry %(number)s %(key)s (line %(line)s)", number=number, key=key, line=line))


def _bib_body(text: str, at: int) -> tuple[str, dict[str, str], int]:
    """The key, fields and end of the entry whose body starts at ``at``."""
    key_end = text.find(",", at)
    close = _closing(text, at - 1)
    if key_end < 0 or key_end > close:
        return text[at:close].strip(), {}, close + 1
    fields: dict[str, str] = {}
    position = key_end + 1
    while position < close:
        match = _BIB_FIELD.match(text, position)
        if not match:
            break
        value, position = _bib_value(text, match.end(), close)
        fields[match[1].lower()] = _latex(value)
        position = text.find(",", position, close) + 1 or close
    return text[at:key_end].strip(), fields, close + 1


def _closing(text: str, opening: int) -> int:
    """Where the brace (or parenthesis) at ``opening`` closes."""
    close_char = "}" if text[opening] == "{" else ")"
    depth = 0
    for index in range(opening, len(text)):
        if text[index] in "{(" and (text[index] == text[opening] or text[index] == "{"):
            depth += 1
        elif text[index] in "})" and (text[index] == close_char or text[index] == "}"):
            depth -= 1
            if depth == 0:
                return index
    raise ParseError(N_("the BibTeX entry is not closed: a brace is missing"))


def _bib_value(text: str, at: int, end: int) -> tuple[str, int]:
    """A field's value (``{…}``, ``"…"``, a number or a macro name) and where it ends."""
    if text[at] == "{":
        close = _closing(text, at)
        return text[at + 1: close], close + 1
    if text[at] == '"':
        close = text.find('"', at + 1)
        if close < 0 or close > end:
            raise ParseError(N_("the BibTeX entry has a value with no closing quote"))
        return text[at + 1: close], close + 1
    match = re.compile(r"[^,}\s]*").match(text, at)
    assert match is not None
    return match[0], match.end()


def _latex(value: str) -> str:
    """A BibTeX value as text: accents composed, braces and doubled spaces gone."""
    value = _DOTLESS.sub("i", value)
    value = _LATEX_ACCENT.sub(lambda m: unicodedata.normalize("NFC", m[2] + _ACCENTS[m[1]]), value)
    return " ".join(value.replace("{", "").replace("}", "").split())


def _bib_record(kind: str, fields: dict[str, str], where: str) -> SourceRecord:
    item_type = _BIB_TYPES.get(kind)
    values: dict[str, object] = {
        "title": fields.get("title"),
        "creators": tuple(name.strip() for name in fields.get("author", "").split(" and ") if name.strip()),
        "date": fields.get("year"), "language": fields.get("language"),
        "publisher": fields.get("publisher") or fields.get("school") or fields.get("institution"),
        "place": fields.get("address"), "item_type": item_type.slug if item_type and kind != "misc" else None,
    }
    identifiers = tuple(fields[name] for name in _BIB_IDENTIFIERS if fields.get(name))
    return SourceRecord(where, identifiers, {name: value for name, value in values.items() if value})


# -- OAI-PMH -----------------------------------------------------------------------------------

OAI_NAMESPACE = "http://www.openarchives.org/OAI/2.0/"
_OAI = {"oai": OAI_NAMESPACE}
#: No entity is expanded and nothing is fetched while an answer is read (it comes from another server).
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, remove_comments=True)


@dataclass(frozen=True)
class OaiPage:
    """One answer to ``ListRecords``: its records and the resumption token of the next page
    (``None`` on the last one: OAI-PMH 2.0 §3.5, an empty token ends the list), and the token's
    ``completeListSize`` when the source gives one (optional, §3.5: a harvest's progress shows it)."""

    records: tuple[SourceRecord, ...]
    token: str | None
    complete_list_size: int | None = None


def read_oai_page(xml: bytes, where: str) -> OaiPage:
    """The records of one ``ListRecords`` answer in ``oai_dc`` (OAI-PMH 2.0 §4.5). A header with
    ``status="deleted"`` is a deleted item (it has no metadata); ``noRecordsMatch`` is an empty
    list; any other OAI-PMH error, or an answer that is not OAI-PMH XML, raises ParseError."""
    try:
        root = etree.fromstring(xml, _PARSER)
    except etree.XMLSyntaxError as error:
        raise ParseError(N_("the OAI-PMH answer %(where)s is not well-formed XML: %(reason)s",
                            where=where, reason=Recorded(error))) from None
    if root.tag != f"{{{OAI_NAMESPACE}}}OAI-PMH":
        raise ParseError(N_("the answer %(where)s is not OAI-PMH (its root element is %(root)s)",
                            where=where, root=root.tag))
    errors = root.findall("oai:error", _OAI)
    if errors:
        codes = [error.get("code", "") for error in errors]
        if codes == ["noRecordsMatch"]:
            return OaiPage((), None)
        raise ParseError(N_("the OAI-PMH source answered %(where)s with the error %(code)s: %(text)s",
                            where=where, code=codes[0], text=Recorded((errors[0].text or "").strip())))
    records = tuple(_oai_record(record) for record in root.iterfind("oai:ListRecords/oai:record", _OAI))
    token = root.find("oai:ListRecords/oai:resumptionToken", _OAI)
    if token is None:
        return OaiPage(records, None)
    size = (token.get("completeListSize") or "").strip()
    return OaiPage(records, (token.text or "").strip() or None, int(size) if size.isascii() and size.isdigit() else None)


def _oai_record(record: etree._Element) -> SourceRecord:
    header = record.find("oai:header", _OAI)
    identifier = (header.findtext("oai:identifier", "", _OAI) if header is not None else "").strip()
    where = identifier or N_("a record without an identifier")
    if header is not None and header.get("status") == "deleted":
        return SourceRecord(where, (identifier,), deleted=True)
    metadata = record.find("oai:metadata", _OAI)
    if metadata is None or len(metadata) == 0:
        return SourceRecord(where, (identifier,), problem=N_("the record has no metadata"))
    try:
        dc = from_oai_dc(etree.tostring(metadata[0]))
    except ParseError as error:
        return SourceRecord(where, (identifier,), problem=error.message)
    cited = dc.citation_record("", "")
    fields: dict[str, object] = {
        "title": dc.title, "creators": dc.creators, "date": dc.date, "language": dc.language,
        "item_type": cited.item_type.slug if dc.all("type") or cited.degree else None, "publisher": cited.publisher,
        "place": cited.place, "extent": cited.extent, "degree": cited.degree, "report_number": cited.report_number,
    }
    return SourceRecord(where, (*dc.all("identifier"), identifier),
                        {name: value for name, value in fields.items() if value})
