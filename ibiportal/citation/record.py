"""What a citation is made of: one item's descriptive metadata plus its persistent URL and IBI.

The portal cites items it can only know through their oai_dc records (file 003, Table 8.2,
``:(oai_dc)``), so a :class:`CitationRecord` holds exactly what Dublin Core offers — title,
creators, date, language, publisher, type, description — and the two things every citation
must carry: the item's IBI and its persistent URL (§8.1). Everything else is optional, because
many records lack a date or even a creator and still deserve a citation.

Names and dates are parsed here, once, into the shapes CSL-JSON uses; the BibTeX, RIS and
formatted citations are all written from these parsed values.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: Words that mark a comma-less creator as an organisation (Dublin Core writes persons as
#: "Family, Given"; a comma-less "Research Data Service" must not become "Service, R. D.").
_ORGANISATION_WORDS = frozenset(
    """
    agency association bureau center centre college committee commission company consortium
    council department division foundation group inc institute institution laboratory lab ltd
    ministry office organisation organization programme program project service society team
    unit university agência associação centro comissão comitê conselho departamento divisão
    empresa equipe fundação grupo instituto laboratório ministério programa projeto serviço
    sociedade universidade
    """.split()
)

_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:[T ].*)?")


@dataclass(frozen=True)
class Name:
    """A creator as CSL-JSON names it: a person's parts, or an organisation's ``literal`` name.

    ``particle`` is the lower-case part kept before the family name ("van", "de", "da"): CSL's
    ``non-dropping-particle``, so "van Gogh" stays together under "V" in every style.
    """

    family: str | None = None
    given: str | None = None
    particle: str | None = None
    literal: str | None = None

    def csl(self) -> dict[str, str]:
        """The CSL-JSON name object."""
        if self.literal is not None:
            return {"literal": self.literal}
        parts = {"family": self.family, "given": self.given, "non-dropping-particle": self.particle}
        return {key: value for key, value in parts.items() if value}

    def inverted(self) -> str:
        """``particle family, given`` — the "Lastname, Firstname" of BibTeX and RIS."""
        if self.literal is not None:
            return self.literal
        family = " ".join(part for part in (self.particle, self.family) if part)
        return f"{family}, {self.given}" if self.given else family


def _split_particle(words: list[str]) -> tuple[str | None, list[str]]:
    """Leading lower-case words ("van der", "de", "da") and the rest."""
    count = 0
    while count < len(words) - 1 and words[count][:1].islower():
        count += 1
    return (" ".join(words[:count]) or None), words[count:]


def parse_name(text: str) -> Name:
    """A creator as written in Dublin Core: ``Family, Given`` or ``Given Family``.

    With a comma the part before it is the family name (leading lower-case words are its
    particle: ``van der Berg, Jan``). Without one, a single word or a name with an
    organisation word (``Research Data Service``) is kept whole as a literal; otherwise the
    last capitalised word is the family name, with any lower-case words before it as its
    particle (``Ludwig van Beethoven``).
    """
    text = " ".join(text.split())
    if "," in text:
        family_part, given = (part.strip() for part in text.split(",", 1))
        particle, family_words = _split_particle(family_part.split())
        if not family_words:
            return Name(literal=text)
        return Name(family=" ".join(family_words), given=given or None, particle=particle)
    words = text.split()
    if len(words) < 2 or any(word.strip(".").lower() in _ORGANISATION_WORDS for word in words):
        return Name(literal=text)
    family = words[-1]
    rest = words[:-1]
    index = len(rest)
    while index > 1 and rest[index - 1][:1].islower():
        index -= 1
    particle = " ".join(rest[index:]) or None
    return Name(family=family, given=" ".join(rest[:index]), particle=particle)


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
    not a W3CDTF date: the styles then print their own "n.d." / "[s.d.]").
    ``item_type`` is the CSL type; ``report`` is the default because the CSL styles render a
    stand-alone document with a publisher and a URL best as a report.
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
    item_type: str = "report"

    @property
    def names(self) -> tuple[Name, ...]:
        """The creators, parsed (blank ones dropped)."""
        return tuple(parse_name(creator) for creator in self.creators if creator.strip())

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
