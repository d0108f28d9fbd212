"""Creators' names as NBR 6023 and the citation styles write them.

A Dublin Core creator is one string; a citation needs its parts. Brazilian names are the
portal's main case, and NBR 6023:2018 (8.1.1) files them under the *last* surname, with
the generational suffixes that belong to it (``LEITE FILHO, W. de C.``, ``SANTIAGO JÚNIOR``)
and the Portuguese connectives ``da, de, do, das, dos, e`` left with the given names, in
lower case, after the initials (``SILVA, M. da``). Other languages' particles (``van``,
``von``, ``di``…) stay in front of the family name (``van der Berg, J.``).

So a person is ``given`` (connectives included, in order), ``family`` (with its suffix) and
an optional leading ``particle``; an organisation is one ``literal`` kept whole. Every style
builds its names from :meth:`Name.initials` and these parts, so none can print a stray
``" ."`` or an empty part.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: Portuguese connectives: written after the given names' initials, never capitalised.
CONNECTIVES = frozenset("da de do das dos e d'".split())
#: Particles of other languages that stay before the family name (CSL's non-dropping particle).
PARTICLES = frozenset("van von der den ter ten di del della dello du la le zu af av".split())
#: Generational suffixes that are part of a Brazilian surname (NBR 6023:2018 8.1.1.3).
SUFFIXES = frozenset("filho filha júnior junior jr jr. neto neta sobrinho sobrinha".split())

#: Words that mark a comma-less creator as an organisation (Dublin Core writes persons as
#: "Family, Given"; a comma-less "Research Data Service" must not become "Service, R. D.").
_ORGANISATION_WORDS = frozenset(
    """
    agency association bureau center centre college committee commission company consortium
    council department division foundation group inc institute institution laboratory lab ltd
    ministry office organisation organization programme program project service society team
    unit university agência associação centro comissão comitê conselho coordenação departamento
    divisão empresa equipe fundação grupo instituto laboratório ministério programa projeto rede
    serviço sociedade universidade inpe nasa esa
    """.split()
)

_INITIAL_PARTS = re.compile(r"[^\s.]+\.?")


@dataclass(frozen=True)
class Name:
    """A creator: a person's ``given`` names, ``family`` name and leading ``particle``, or an
    organisation's ``literal`` name."""

    family: str | None = None
    given: str | None = None
    particle: str | None = None
    literal: str | None = None

    @property
    def is_organisation(self) -> bool:
        return self.literal is not None

    @property
    def surname(self) -> str:
        """The family name with its leading particle (``van der Berg``, ``Leite Filho``)."""
        return " ".join(part for part in (self.particle, self.family) if part)

    def initials(self, spaced: bool = True) -> str:
        """The given names as initials, connectives kept in lower case.

        ``Waldemar de Castro`` → ``W. de C.``; ``Jean-Paul`` → ``J.-P.``; ``R.C.`` → ``R. C.``;
        with ``spaced=False`` initials touch (``R.C.``), as Cite Them Right writes them, but a
        connective is still a word of its own (``W. de C.``).
        """
        words: list[str] = []
        for token in _INITIAL_PARTS.findall(self.given or ""):
            bare = token.rstrip(".")
            if bare.lower() in CONNECTIVES and token == bare:
                words.append(bare.lower())
            else:
                words.append("-".join(f"{part[:1].upper()}." for part in bare.split("-") if part))
        if spaced:
            return " ".join(words)
        text = ""
        for word in words:
            glue = "" if text.endswith(".") and word.endswith(".") else " "
            text = f"{text}{glue}{word}" if text else word
        return text

    def inverted(self) -> str:
        """``Surname, Given`` — the "Lastname, Firstname" of BibTeX and RIS."""
        if self.literal is not None:
            return self.literal
        return f"{self.surname}, {self.given}" if self.given else self.surname

    def csl(self) -> dict[str, str]:
        """The CSL-JSON name object. The connectives that end the given names are its
        ``dropping-particle``, which CSL prints after the initials when the name is inverted
        (``Silva, M. da``) and before the family name otherwise (``M. da Silva``); a connective
        inside them stays (``Waldir de Carvalho``: ``W. de C.``). The suffix stays in ``family``:
        it is part of the Brazilian surname (``Leite Filho``), which CSL's ``suffix`` would split."""
        if self.literal is not None:
            return {"literal": self.literal}
        given = (self.given or "").split()
        trailing = len(given)
        while trailing > 1 and given[trailing - 1].lower() in CONNECTIVES:
            trailing -= 1
        parts = {
            "family": self.family,
            "given": " ".join(given[:trailing]),
            "dropping-particle": " ".join(given[trailing:]),
            "non-dropping-particle": self.particle,
        }
        return {key: value for key, value in parts.items() if value}


def _is_organisation(words: list[str]) -> bool:
    return any(word.strip(".,()").lower() in _ORGANISATION_WORDS for word in words)


def _split_family(words: list[str]) -> tuple[str | None, list[str], list[str]]:
    """``(particle, family words, connectives moved to the given names)`` of a family part."""
    lead = 0
    while lead < len(words) - 1 and words[lead][:1].islower():
        lead += 1
    leading = words[:lead]
    if leading and all(word.lower() in CONNECTIVES for word in leading):
        return None, words[lead:], leading  # "de Paula, Eurico R." is PAULA, E. R. de
    return (" ".join(leading) or None), words[lead:], []


def parse_name(text: str) -> Name:
    """A creator as written in Dublin Core: ``Family, Given`` or ``Given Family``.

    With a comma the part before it is the family name: a leading foreign particle stays with it
    (``van der Berg, Jan``), a leading Portuguese connective joins the given names
    (``de Paula, Eurico R.`` = ``Paula, Eurico R. de``). Without one, a single word or a name with
    an organisation word is an organisation, kept whole; otherwise the last word is the family
    name — the last two when the last is a suffix (``Waldemar de Castro Leite Filho``) — and
    lower-case foreign particles right before it are its particle (``Ludwig van Beethoven``).
    """
    text = " ".join(text.split()).strip(" ;")
    if "," in text:
        family_part, given = (part.strip(" ,") for part in text.split(",", 1))
        if _is_organisation(family_part.split()) and not given:
            return Name(literal=family_part)
        particle, family_words, connectives = _split_family(family_part.split())
        if not family_words:
            return Name(literal=text.strip(" ,"))
        given_words = given.split() + connectives
        return Name(family=" ".join(family_words), given=" ".join(given_words) or None, particle=particle)
    words = text.split()
    if len(words) < 2 or _is_organisation(words) or text.isupper() and len(words) > 3:
        return Name(literal=text)
    take = 2 if words[-1].lower() in SUFFIXES and len(words) > 2 else 1
    family, rest = words[-take:], words[:-take]
    index = len(rest)
    while index > 1 and rest[index - 1].lower() in PARTICLES:
        index -= 1
    particle = " ".join(rest[index:]) or None
    return Name(family=" ".join(family), given=" ".join(rest[:index]) or None, particle=particle)
