"""What a citation is made of: one item's descriptive metadata plus its persistent URL and IBI.

The portal cites items it can only know through their oai_dc records (file 003, Table 8.2,
``:(oai_dc)``), so a :class:`CitationRecord` holds what Dublin Core offers — title, creators,
date, language, publisher, type, description, format — read into the fields a reference needs
(kind of item, place, extent, degree, report number), and the two things every citation must
carry: the item's IBI and its persistent URL (§8.1). Everything else is optional, because many
records lack a date or even a creator and still deserve a citation.

Names (:mod:`.names`) and dates are parsed here, once; the BibTeX, RIS, CSL-JSON and formatted
citations are all written from these parsed values.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .names import Name, parse_name
from .types import ItemType

_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:[T ].*)?")

__all__ = ["CitationRecord", "Name", "PartialDate", "parse_date", "parse_name"]


@dataclass(frozen=True)
class PartialDate:
    """``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` (a time after the day is ignored)."""

    year: int
    month: int | None = None
    day: int | None = None

    def parts(self) -> list[int]:
        """CSL-JSON ``date-parts`` of this date."""
        return [part for part in (self.year, self.month, self.day) if part is not None]

    def iso(self) -> str:
        """``YYYY[-MM[-DD]]``."""
        return "-".join(f"{part:02d}" if index else f"{part:04d}" for index, part in enumerate(self.parts()))


def parse_date(text: str | None) -> PartialDate | None:
    """The date of ``text`` (W3CDTF, as Dublin Core recommends), or None if it is not one."""
    match = _DATE.fullmatch(text.strip()) if text else None
    if not match:
        return None
    year, month, day = (int(group) if group else None for group in match.groups())
    if month is not None and not 1 <= month <= 12 or day is not None and not 1 <= day <= 31:
        return None
    return PartialDate(year, month, day)


@dataclass(frozen=True)
class CitationRecord:
    """One item to cite. ``persistent_url`` and ``ibi`` are required; the rest may be missing.

    ``date`` is kept as written; :attr:`issued` is its parsed form (None when it is absent or
    not a W3CDTF date: the styles then print their own "n.d." / "[s. d.]").
    ``extent`` is the number of pages (``39``) or an extent as written (``xx + 150 p.``);
    ``degree`` names a thesis's degree and programme (``Doutorado em Computação Aplicada``);
    ``report_number`` is a report's number, or the document-type code INPE appends to the
    repository name (``NTC``, ``TDI``).
    """

    persistent_url: str
    ibi: str
    title: str | None = None
    creators: tuple[str, ...] = ()
    date: str | None = None
    language: str | None = None
    repository: str | None = None
    publisher: str | None = None
    description: str | None = None
    item_type: ItemType = ItemType.OTHER
    place: str | None = None
    extent: str | None = None
    degree: str | None = None
    report_number: str | None = None

    @property
    def names(self) -> tuple[Name, ...]:
        """The creators, parsed (blank ones dropped)."""
        return tuple(parse_name(creator) for creator in self.creators if creator.strip(" ,;"))

    @property
    def issued(self) -> PartialDate | None:
        return parse_date(self.date)

    @property
    def identifiers(self) -> str:
        """The IBI, and its repository-name form when it is another: the note every format carries."""
        note = f"IBI: {self.ibi}"
        if self.repository and self.repository != self.ibi:
            note += f" ({self.repository})"
        return note
