"""Formatted citations: APA, ABNT, IEEE, Harvard and INPE's own form, written from their rules.

Each style is written here once, in order, from its manual (why not a CSL processor: the
documentation's docs/citations.md):

* APA — *Publication Manual*, 7th ed., ch. 9–10 (reports, theses, data sets, software);
* ABNT — NBR 6023:2018 (7.1, 7.13, 8.1–8.6: names, ``[S. l.]``, ``[s. n.]``, ``Acesso em:``);
* IEEE — *IEEE Reference Guide* (reports, theses, online sources: ``[Online]. Available:``);
* Harvard — *Cite Them Right*, 12th ed. (``Available at: … (Accessed: …)``);
* INPE — NBR 6023 as INPE's library prints it in every thesis and report, e.g. ``UBA, D. M.;
  NEGRI, R. G. … TATHU - Software … São José dos Campos: INPE, 2022. 39 p. IBI:
  <8JMKD3MGP3W34T/47AF772>. (sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC). Disponível em:
  <http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772>.``; a thesis puts ``Tese (Doutorado em …) -
  institution, place, year.`` after the repository name, as ``ROBLEDO ASENCIO, J. C. … 2020.
  189 p. IBI: <…>. (…-TDI). Tese (Doutorado em Combustão e Propulsão) - Instituto Nacional
  de Pesquisas Espaciais (INPE), São José dos Campos, 2019. Disponível em: <…>.`` — and its
  English twin (``Available from:``, ``Thesis (…)``).

Every style is a function of the record and the access date (injected: no clock here) that
returns :class:`~.rich.Rich` text; punctuation between elements goes through :func:`_close`,
which never doubles a full stop after an initial or a question mark.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from ..i18n import N_
from .names import Name
from .record import CitationRecord
from .rich import BOLD, ITALIC, PLAIN, Rich, RichBuilder
from .types import ItemType


@dataclass(frozen=True)
class Style:
    """One citation style: the key used in URLs and dicts, its label, the language its text is
    written in, and the function that writes a reference."""

    key: str
    label: str
    short: str
    language: str
    write: Callable[[CitationRecord, date], Rich]

    def render(self, record: CitationRecord, accessed: date) -> Rich:
        return self.write(record, accessed)


_ENDS_SENTENCE = (".", "?", "!")
_MONTHS_PT = "jan. fev. mar. abr. maio jun. jul. ago. set. out. nov. dez.".split()
_MONTHS_EN = (
    "January February March April May June July August September October November December".split()
)
#: Words NBR 6023 upper-cases together with the next one when a title opens the reference.
_LEADING_ARTICLES = frozenset("a o as os um uma uns umas the an el la los las le les".split())


def _close(builder: RichBuilder, mark: str = ".") -> None:
    """End the current element with ``mark`` unless it already ends a sentence (``W. de C.``)."""
    if mark == "." and builder.ends_with(_ENDS_SENTENCE):
        return
    builder.add(mark)


def _title(record: CitationRecord) -> str:
    """The title, or a bracketed description when the record has none (APA 9.9, NBR 6023 8.2)."""
    return record.title or f"[IBI {record.ibi}]"


def _split_subtitle(title: str) -> tuple[str, str]:
    """``("Título", ": subtítulo")``: NBR 6023 emphasises the title, not its subtitle."""
    main, colon, rest = title.partition(": ")
    return (main, f": {rest}") if colon and main else (title, "")


def _extent(record: CitationRecord) -> str | None:
    """``39 p.`` from ``39``; any other extent as written (``xx + 150 p.``)."""
    extent = (record.extent or "").strip()
    if not extent:
        return None
    return f"{extent} p." if extent.isdigit() else extent


def _year(record: CitationRecord) -> str | None:
    issued = record.issued
    return str(issued.year) if issued else None


def _series(record: CitationRecord) -> str | None:
    """The report's number as INPE prints it: the repository name with its document-type code
    appended (``sid.inpe.br/…/02.16.17.46-NTC``), any other number as given; None without one."""
    number = (record.report_number or "").strip()
    if number and re.fullmatch(r"[A-Z]{2,6}", number) and record.repository:
        return f"{record.repository}-{number}"
    return number or None


def _join_names(names: list[str], last: str, serial: bool = True) -> str:
    """``A``; ``A and B``; ``A, B, and C`` (``serial=False``: ``A, B and C``)."""
    if len(names) < 3:
        return f" {last} ".join(names)
    comma = "," if serial else ""
    return ", ".join(names[:-1]) + f"{comma} {last} {names[-1]}"


# --- NBR 6023 and INPE ---------------------------------------------------------------------


def _nbr_name(name: Name) -> str:
    if name.is_organisation:
        return name.literal.upper()
    initials = name.initials()
    return f"{name.surname.upper()}, {initials}" if initials else name.surname.upper()


def _nbr_title_entry(builder: RichBuilder, title: str) -> None:
    """An item without creators opens with its title, the first word (and a leading article
    with the word after it) in capitals, without other emphasis (NBR 6023:2018, 8.1.1.8)."""
    words = title.split(" ")
    count = 2 if len(words) > 1 and words[0].lower() in _LEADING_ARTICLES else 1
    builder.add(" ".join([*(word.upper() for word in words[:count]), *words[count:]]))


def _nbr_head(builder: RichBuilder, record: CitationRecord) -> None:
    """Authors and title: ``SILVA, M. da; LEITE FILHO, W. de C. **Título**: subtítulo.``"""
    names = record.names
    title = _title(record)
    if names:
        builder.add("; ".join(_nbr_name(name) for name in names))
        _close(builder)
        builder.add(" ")
        main, subtitle = _split_subtitle(title)
        builder.add(main, PLAIN if record.item_type.is_part else BOLD)
        builder.add(subtitle)
    else:
        _nbr_title_entry(builder, title)
    _close(builder)


def _nbr_year(record: CitationRecord, no_date: str) -> str:
    """The year; else the year of the repository name in brackets (NBR 6023:2018 8.6.1.3, a
    date certain though not printed on the item); else the style's "no date"."""
    year = _year(record)
    if year:
        return year
    found = re.search(r"/((?:19|20)\d\d)/", record.repository or "")
    return f"[{found.group(1)}]" if found else no_date


def _nbr_imprint(record: CitationRecord, no_date: str) -> str:
    """``Local: Editora, ano`` with NBR 6023:2018's ``[S. l.]``, ``[s. n.]`` or ``[S. l.: s. n.]``."""
    place, publisher = record.place, record.publisher
    if place and publisher:
        where = f"{place}: {publisher}"
    elif publisher:
        where = f"[S. l.]: {publisher}"
    elif place:
        where = f"{place}: [s. n.]"
    else:
        where = "[S. l.: s. n.]"
    return f"{where}, {_nbr_year(record, no_date)}"


def _thesis_note(record: CitationRecord, english: bool, dash: str) -> str:
    """``Tese (Doutorado em …) - Instituição, Local, ano`` (NBR 6023:2018 7.1.3)."""
    doctoral = record.item_type is ItemType.DOCTORAL_THESIS
    if english:
        kind = "Thesis" if doctoral else "Dissertation"
        degree = record.degree or ("Doctorate" if doctoral else "Master's")
    else:
        kind = "Tese" if doctoral else "Dissertação"
        degree = record.degree or ("Doutorado" if doctoral else "Mestrado")
    where = ", ".join(part for part in (record.publisher, record.place, _year(record)) if part)
    return f"{kind} ({degree}){f' {dash} {where}' if where else ''}"


def _nbr_body(builder: RichBuilder, record: CitationRecord, *, english: bool, inpe: bool) -> None:
    """Imprint (or, for a thesis, the year), extent, then INPE's IBI and repository name, then
    the degree note: the middle of an NBR 6023 reference."""
    no_date = "[n.d.]" if english else "[s. d.]"
    thesis = record.item_type.is_thesis
    builder.add(" ")
    builder.add(_nbr_year(record, no_date) if thesis else _nbr_imprint(record, no_date))
    _close(builder)
    extent = _extent(record)
    if extent:
        builder.add(f" {extent}")
        _close(builder)
    series = _series(record)
    if inpe:
        series = series or record.repository  # INPE always prints the repository name
        builder.add(f" IBI: <{record.ibi}>.")
        if series:
            builder.add(f" ({series}).")
    elif series and not thesis:
        builder.add(f" ({series}).")
    if thesis:
        builder.add(" " + _thesis_note(record, english, "-" if inpe else "–"))
        _close(builder)


def abnt(record: CitationRecord, accessed: date) -> Rich:
    """NBR 6023:2018: online documents end ``Disponível em: URL. Acesso em: 22 nov. 2026.``"""
    builder = RichBuilder()
    _nbr_head(builder, record)
    _nbr_body(builder, record, english=False, inpe=False)
    month = _MONTHS_PT[accessed.month - 1]
    builder.add(f" Disponível em: {record.persistent_url}. Acesso em: {accessed.day} {month} {accessed.year}.")
    return builder.build()


def _inpe(record: CitationRecord, english: bool) -> Rich:
    builder = RichBuilder()
    _nbr_head(builder, record)
    _nbr_body(builder, record, english=english, inpe=True)
    builder.add(f" {'Available from' if english else 'Disponível em'}: <{record.persistent_url}>.")
    return builder.build()


def inpe(record: CitationRecord, accessed: date) -> Rich:
    """INPE's library form, in Portuguese (no access date: the IBI does not rot)."""
    return _inpe(record, english=False)


def inpe_en(record: CitationRecord, accessed: date) -> Rich:
    """INPE's library form as English-language INPE publications print it."""
    return _inpe(record, english=True)


# --- APA -----------------------------------------------------------------------------------


def _apa_name(name: Name) -> str:
    if name.is_organisation:
        return name.literal
    initials = name.initials()
    return f"{name.surname}, {initials}" if initials else name.surname


def _apa_authors(names: tuple[Name, ...]) -> str:
    """APA 9.8: up to 20 names, ``&`` before the last; from 21, the first 19, ``…``, the last."""
    written = [_apa_name(name) for name in names]
    if len(written) == 1:
        return written[0]
    if len(written) > 20:
        return ", ".join(written[:19]) + ", . . . " + written[-1]
    return ", ".join(written[:-1]) + ", & " + written[-1]


def _apa_description(record: CitationRecord) -> str | None:
    """The bracketed description or report number after an APA title (10.4, 10.6, 10.9, 10.10)."""
    kind = record.item_type
    if kind.is_thesis:
        what = "Doctoral dissertation" if kind is ItemType.DOCTORAL_THESIS else "Master's thesis"
        return f"[{what}, {record.publisher}]" if record.publisher else f"[{what}]"
    if kind is ItemType.DATASET:
        return "[Data set]"
    if kind is ItemType.SOFTWARE:
        return "[Computer software]"
    if kind is ItemType.REPORT and _series(record):
        return f"(Report No. {_series(record)})"
    return None


def apa(record: CitationRecord, accessed: date) -> Rich:
    """APA 7: ``Author, A. A., & Author, B. (2009). *Title* (Report No. x). Publisher. URL``."""
    builder = RichBuilder()
    when = f"({_year(record) or 'n.d.'})."
    emphasis = PLAIN if record.item_type.is_part else ITALIC
    description = _apa_description(record)

    def title() -> None:
        builder.add(_title(record), emphasis)
        if description:
            builder.add(f" {description}")
        _close(builder)

    names = record.names
    if names:
        builder.add(_apa_authors(names))
        _close(builder)
        builder.add(f" {when} ")
        title()
    else:
        title()
        builder.add(f" {when}")
    author_is_publisher = len(names) == 1 and names[0].is_organisation and names[0].literal == record.publisher
    if record.publisher and not record.item_type.is_thesis and not author_is_publisher:
        builder.add(f" {record.publisher}")
        _close(builder)
    builder.add(f" {record.persistent_url}")
    return builder.build()


# --- Harvard (Cite Them Right) -------------------------------------------------------------


def _harvard_name(name: Name) -> str:
    if name.is_organisation:
        return name.literal
    initials = name.initials(spaced=False)
    return f"{name.surname}, {initials}" if initials else name.surname


def harvard(record: CitationRecord, accessed: date) -> Rich:
    """Cite Them Right: ``Surname, I.I. and Surname, I. (2009) *Title*. Place: Publisher.
    Available at: URL (Accessed: 22 November 2026).``; four or more authors: the first *et al.*"""
    builder = RichBuilder()
    when = f"({_year(record) or 'no date'})"
    emphasis = PLAIN if record.item_type.is_part else ITALIC
    names = record.names
    if names:
        if len(names) >= 4:
            builder.add(_harvard_name(names[0]) + " ").add("et al.", ITALIC)
        else:
            builder.add(_join_names([_harvard_name(name) for name in names], "and", serial=False))
        builder.add(f" {when} ")
        builder.add(_title(record), emphasis)
    else:
        builder.add(_title(record), emphasis)
        builder.add(f" {when}")
    kind = record.item_type
    if kind is ItemType.DATASET:
        builder.add(" [Dataset]")
    elif kind is ItemType.SOFTWARE:
        builder.add(" [Computer program]")
    _close(builder)
    if kind.is_thesis:
        builder.add(" PhD thesis." if kind is ItemType.DOCTORAL_THESIS else " Master's thesis.")
        if record.publisher:
            builder.add(f" {record.publisher}.")
    else:
        if kind is ItemType.REPORT and _series(record):
            builder.add(f" {_series(record)}.")
        imprint = ": ".join(part for part in (record.place, record.publisher) if part)
        if imprint:
            builder.add(f" {imprint}")
            _close(builder)
    day = f"{accessed.day} {_MONTHS_EN[accessed.month - 1]} {accessed.year}"
    builder.add(f" Available at: {record.persistent_url} (Accessed: {day}).")
    return builder.build()


# --- IEEE ----------------------------------------------------------------------------------


def _ieee_name(name: Name) -> str:
    if name.is_organisation:
        return name.literal
    initials = name.initials()
    return f"{initials} {name.surname}" if initials else name.surname


def _ieee_details(record: CitationRecord) -> list[str]:
    """What follows the title, comma-separated (IEEE Reference Guide: reports, theses, books)."""
    kind = record.item_type
    year = _year(record)
    if kind is ItemType.BOOK:
        imprint = ": ".join(part for part in (record.place, record.publisher) if part)
        return [f"{imprint}, {year}" if imprint and year else imprint or year or ""]
    details: list[str] = []
    if kind.is_thesis:
        details.append("Ph.D. dissertation" if kind is ItemType.DOCTORAL_THESIS else "M.S. thesis")
    details += [part for part in (record.publisher, record.place) if part]
    if kind is ItemType.REPORT and _series(record):
        details.append(f"Rep. {_series(record)}")
    if year:
        details.append(year)
    return details


def ieee(record: CitationRecord, accessed: date) -> Rich:
    """IEEE: ``A. B. Author and C. Author, “Title,” Publisher, Place, Rep. x, 2009. [Online].
    Available: URL`` — the comma inside the quotes; seven or more authors: the first *et al.*"""
    builder = RichBuilder()
    names = record.names
    if names:
        if len(names) >= 7:
            builder.add(_ieee_name(names[0]) + " ").add("et al.", ITALIC)
        else:
            builder.add(_join_names([_ieee_name(name) for name in names], "and"))
        builder.add(", ")
    details = [detail for detail in _ieee_details(record) if detail]
    title = _title(record)
    if record.item_type is not ItemType.BOOK:
        title = title.removesuffix(".")  # the quotes close on IEEE's own comma or full stop
    if record.item_type is ItemType.BOOK:
        builder.add(title, ITALIC)
        _close(builder)
        if details:
            builder.add(f" {details[0]}")
            _close(builder)
    else:
        ends = title.endswith(("?", "!"))
        if details:
            builder.add(f"“{title}{'' if ends else ','}” {', '.join(details)}.")
        else:
            builder.add(f"“{title}{'' if ends else '.'}”")
    builder.add(f" [Online]. Available: {record.persistent_url}")
    return builder.build()


STYLES: tuple[Style, ...] = (
    Style("inpe", N_("INPE (NBR 6023 as the INPE library prints it)"), "INPE", "pt-BR", inpe),
    Style("inpe_en", N_("INPE in English"), N_("INPE (English)"), "en", inpe_en),
    Style("abnt", "ABNT (NBR 6023:2018)", "ABNT", "pt-BR", abnt),
    Style("apa", N_("APA (7th edition)"), "APA", "en", apa),
    Style("ieee", "IEEE", "IEEE", "en", ieee),
    Style("harvard", "Harvard (Cite Them Right)", "Harvard", "en", harvard),
)
STYLE_KEYS = tuple(style.key for style in STYLES)
STYLES_BY_KEY = {style.key: style for style in STYLES}
