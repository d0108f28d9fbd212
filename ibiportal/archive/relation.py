"""Relations of Table 9.5: the qualifiers of answer pair names (``url.lastedition.metadata``).

Grammar (Table 9.5)::

    relação = ([u [t]] | [t [u]]) [m [t]]     ; ex: .lastedition.metadata
    u       = ".lastedition"
    t       = ".translation" ["(" idioma ["-" país] ")"]   ; ex: .translation(en)
    m       = ".metadata" ["(" formato ")"]                 ; ex: .metadata(oai_dc)
    formato = "oai_dc"                                      ; and URLib's "BibINPE" (STANDARD.md §8)

``idioma`` and ``país`` are the enumerations of Appendix B. A relation is the Archive-side
twin of a persistent-URL modifier (Table 8.2) and of a verb list (Table 8.4): §4 of
STANDARD.md maps ``GetLastEdition`` → ``.lastedition``, ``GetTranslation(pt)`` →
``.translation(pt)``, ``GetMetadata(oai_dc)`` → ``.metadata(oai_dc)``; ``GetFileList`` adds
nothing (:meth:`Relation.from_verbs`).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from enum import StrEnum

from ibiportal.errors import ParseError
from ibiportal.i18n import N_
from ibiportal.ibi.languages import country_problem, language_problem
from ibiportal.ibi.modifiers import GET_LAST_EDITION, GET_METADATA, GET_TRANSLATION, METADATA_FORMATS, Verb

_ELEMENT = re.compile(r"\.(lastedition|translation|metadata)(?:\(([^()]*)\))?")
#: Table 9.5 as a pattern over element kinds: u=lastedition, t=translation, m=metadata.
_SHAPE = re.compile(r"(?:(?:u?t?)|(?:tu))(?:mt?)?")


class Kind(StrEnum):
    """The three elementary relations (Table 9.5 rules u, t and m)."""

    LASTEDITION = "lastedition"
    TRANSLATION = "translation"
    METADATA = "metadata"


_SHAPE_LETTER = {Kind.LASTEDITION: "u", Kind.TRANSLATION: "t", Kind.METADATA: "m"}
_VERB_KIND = {GET_LAST_EDITION: Kind.LASTEDITION, GET_TRANSLATION: Kind.TRANSLATION, GET_METADATA: Kind.METADATA}


def _parameter_problem(kind: Kind, parameter: str) -> str | None:
    """Why ``parameter`` cannot follow ``kind`` (Table 9.5, Appendix B), or ``None``."""
    if kind is Kind.LASTEDITION:
        return N_("`.lastedition` takes no parameter")
    if kind is Kind.METADATA:
        return None if parameter in METADATA_FORMATS else N_("metadata format %(format)r is neither `oai_dc` nor `BibINPE`", format=parameter)
    language, dash, country = parameter.partition("-")
    return language_problem(language) or (country_problem(country) if dash else None)


@dataclass(frozen=True)
class Element:
    """One elementary relation: ``.lastedition``, ``.translation[(xx[-YY])]``, ``.metadata[(oai_dc|BibINPE)]``."""

    kind: Kind
    parameter: str | None = None

    def __str__(self) -> str:
        return f".{self.kind}" + (f"({self.parameter})" if self.parameter else "")

    def answers(self, wanted: Element) -> bool:
        """Whether this element serves ``wanted``: equal, or any translation for a bare one.

        A bare ``GetTranslation`` leaves the choice of language to the resolver, so every
        ``.translation(xx)`` must reach it (Example 9.3).
        """
        if wanted.kind is Kind.TRANSLATION and wanted.parameter is None:
            return self.kind is Kind.TRANSLATION
        return self == wanted


@dataclass(frozen=True)
class Relation:
    """A relation of Table 9.5; ``Relation()`` is the empty relation (the item itself).

    Its hash and its text are worked out once: an answer's relations are looked up and written
    into pair names again and again (the own Archive's items answer about thirty each, and which of
    them the filter keeps is remembered by relation: ``ibiportal.archive.service``)."""

    elements: tuple[Element, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash(self.elements))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined,no-any-return]

    def __reduce__(self) -> tuple[type[Relation], tuple[tuple[Element, ...]]]:
        """Pickled as its elements: the hash is this process's (strings hash differently in each)."""
        return Relation, (self.elements,)

    @classmethod
    def parse(cls, text: str) -> Relation:
        """Parse ``.lastedition.metadata(oai_dc)``-like text; ``""`` is the empty relation.

        Raises :class:`ParseError` (1-based ``position``) for text outside Table 9.5.
        """
        elements: list[Element] = []
        index = 0
        while index < len(text):
            match = _ELEMENT.match(text, index)
            if match is None:
                raise ParseError(
                    N_("relation %(text)r: expected .lastedition, .translation or .metadata", text=text),
                    position=index + 1,
                    field="relation",
                )
            kind = Kind(match[1])
            problem = None if match[2] is None else _parameter_problem(kind, match[2])
            if problem:
                raise ParseError(N_("relation %(text)r: %(problem)s", text=text, problem=problem), position=match.start(2) + 1, field="relation")
            elements.append(Element(kind, match[2]))
            index = match.end()
        relation = cls(tuple(elements))
        if not relation.follows_table_9_5():
            raise ParseError(
                N_("relation %(text)r does not follow Table 9.5: ([u [t]] | [t [u]]) [m [t]]", text=text),
                field="relation",
            )
        return relation

    @classmethod
    def from_verbs(cls, verbs: Iterable[Verb]) -> Relation:
        """The relation a verb list asks for (Tables 8.4, 8.5), in the verbs' order.

        ``GetFileList`` changes which URL is given, not which item (§8.1), so it adds no
        element. The result may break Table 9.5 (``GetMetadata GetLastEdition``); such a
        relation is simply served by no pair.
        """
        return cls(
            tuple(
                Element(_VERB_KIND[verb.name], verb.parameter[1:-1] or None)
                for verb in verbs
                if verb.name in _VERB_KIND
            )
        )

    def shape(self) -> str:
        """The kinds as Table 9.5 letters, e.g. ``um`` for ``.lastedition.metadata``."""
        return "".join(_SHAPE_LETTER[element.kind] for element in self.elements)

    def follows_table_9_5(self) -> bool:
        """Whether the elements compose as Table 9.5 allows (``from_verbs`` may build others)."""
        return _SHAPE.fullmatch(self.shape()) is not None

    def answers(self, wanted: Relation) -> bool:
        """Whether pairs qualified by this relation serve a request for ``wanted`` (Example 9.3)."""
        return len(self.elements) == len(wanted.elements) and all(
            mine.answers(theirs) for mine, theirs in zip(self.elements, wanted.elements)
        )

    @cached_property
    def text(self) -> str:
        """The relation as pair names qualify it: ``.lastedition.metadata(oai_dc)``."""
        return "".join(str(element) for element in self.elements)

    def __str__(self) -> str:
        return self.text
