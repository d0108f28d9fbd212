"""Kinds of items, and what each is called in Dublin Core, BibTeX, RIS and CSL.

The portal mints items of the kinds INPE's library catalogues (theses, reports, papers…) and
must say which in every format a reference manager reads. One :class:`ItemType` holds every
name of a kind, so the own Archive's ``dc:type``, the BibTeX entry type, the RIS ``TY`` and
the CSL type can never disagree.

``dc:type`` is written in the info:eu-repo vocabulary of the DRIVER/OpenAIRE guidelines that
Brazilian repositories (and BDTD) use in oai_dc, and in the DCMI Type vocabulary for data and
software, which info:eu-repo lacks. Reading accepts those, URLib's own reference types and
plain English and Portuguese words, because other Archives write whatever their platform writes.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import Enum

from ..i18n import N_


@dataclass(frozen=True)
class TypeNames:
    """The names of one kind of item in each vocabulary."""

    slug: str
    label: str
    dc_type: str
    bibtex: str
    ris: str
    csl: str


class ItemType(Enum):
    """What kind of item is cited; the value's ``slug`` is what the API and forms take."""

    ARTICLE = TypeNames("article", N_("Article"), "info:eu-repo/semantics/article", "article", "JOUR", "article-journal")
    BOOK = TypeNames("book", N_("Book"), "info:eu-repo/semantics/book", "book", "BOOK", "book")
    CHAPTER = TypeNames("chapter", N_("Book chapter"), "info:eu-repo/semantics/bookPart", "incollection", "CHAP", "chapter")
    CONFERENCE_PAPER = TypeNames(
        "conference paper", N_("Conference paper"), "info:eu-repo/semantics/conferenceObject", "inproceedings", "CONF",
        "paper-conference",
    )
    MASTERS_THESIS = TypeNames(
        "master's thesis", N_("Master's thesis"), "info:eu-repo/semantics/masterThesis", "mastersthesis", "THES", "thesis"
    )
    DOCTORAL_THESIS = TypeNames(
        "doctoral thesis", N_("Doctoral thesis"), "info:eu-repo/semantics/doctoralThesis", "phdthesis", "THES", "thesis"
    )
    REPORT = TypeNames("report", N_("Report"), "info:eu-repo/semantics/report", "techreport", "RPRT", "report")
    DATASET = TypeNames("dataset", N_("Dataset"), "Dataset", "misc", "DATA", "dataset")
    SOFTWARE = TypeNames("software", N_("Software"), "Software", "misc", "COMP", "software")
    OTHER = TypeNames("other", N_("Other"), "info:eu-repo/semantics/other", "misc", "GEN", "document")

    @property
    def names(self) -> TypeNames:
        return self.value

    @property
    def slug(self) -> str:
        return self.value.slug

    @property
    def is_thesis(self) -> bool:
        return self in (ItemType.MASTERS_THESIS, ItemType.DOCTORAL_THESIS)

    @property
    def is_part(self) -> bool:
        """Part of a larger work (journal, book, proceedings): its title is not emphasised."""
        return self in (ItemType.ARTICLE, ItemType.CHAPTER, ItemType.CONFERENCE_PAPER)

    @classmethod
    def from_slug(cls, slug: str) -> ItemType:
        """The type named ``slug`` (``doctoral thesis``); ValueError (its message the first
        argument) names the accepted ones."""
        wanted = " ".join(slug.split()).lower().replace("’", "'")
        for item_type in cls:
            if item_type.slug == wanted:
                return item_type
        raise ValueError(N_("unknown item type %(slug)r; one of: %(slugs)s", slug=slug,
                            slugs=", ".join(f"`{item_type.slug}`" for item_type in cls)))


SLUGS = tuple(item_type.slug for item_type in ItemType)


def _fold(text: str) -> str:
    """Lower case, no accents, single spaces, apostrophes dropped: how dc:type words are compared."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return " ".join(re.sub(r"['’`]", "", folded).replace("_", " ").replace("-", " ").split())


#: dc:type values (folded) and the kind each names. "Text" and other generic DCMI types are
#: absent on purpose: they say nothing about the kind, so a later value may.
_READ = {
    **{word: ItemType.ARTICLE for word in (
        "article", "journal article", "articles", "preprint", "artigo", "artigo de periodico", "artigo cientifico",
    )},
    **{word: ItemType.BOOK for word in ("book", "livro")},
    **{word: ItemType.CHAPTER for word in (
        "bookpart", "book part", "book section", "book chapter", "chapter", "capitulo", "capitulo de livro",
    )},
    **{word: ItemType.CONFERENCE_PAPER for word in (
        "conferenceobject", "conferencepaper", "conference object", "conference paper", "conference proceedings",
        "proceedings paper", "inproceedings", "trabalho em evento", "artigo em evento", "trabalho apresentado em evento",
        "anais",
    )},
    **{word: ItemType.MASTERS_THESIS for word in (
        "masterthesis", "master thesis", "masters thesis", "mastersthesis", "dissertacao", "dissertacao de mestrado",
        "dissertacao (mestrado)",
    )},
    **{word: ItemType.DOCTORAL_THESIS for word in (
        "doctoralthesis", "doctoral thesis", "phd thesis", "phdthesis", "dissertation", "doctoral dissertation",
        "tese", "tese de doutorado", "tese (doutorado)",
    )},
    **{word: ItemType.REPORT for word in (
        "report", "technical report", "research report", "techreport", "workingpaper", "working paper",
        "relatorio", "relatorio tecnico", "relatorio de pesquisa", "nota tecnica",
    )},
    **{word: ItemType.DATASET for word in ("dataset", "data set", "conjunto de dados", "base de dados", "dados")},
    **{word: ItemType.SOFTWARE for word in ("software", "computer program", "programa de computador")},
    **{word: ItemType.OTHER for word in ("other", "outro", "outros")},
}
_MASTERS_DEGREE = re.compile(r"\b(mestrado|master|mestre|m\.?sc?\.?)\b", re.IGNORECASE)


def read_dc_type(values: tuple[str, ...], degree: str | None = None) -> ItemType | None:
    """The kind named by the first recognised of ``values`` (an oai_dc record's ``dc:type``s).

    ``info:eu-repo/semantics/<kind>`` and ``http://purl.org/coar/...``-less plain words alike,
    English or Portuguese. URLib's "Thesis or Dissertation" and a bare "thesis" are a master's
    thesis when the degree says Mestrado/Master, else a doctoral thesis. None if none is known.
    """
    for value in values:
        text = value.strip()
        if text.lower().startswith("info:eu-repo/semantics/"):
            text = text.rsplit("/", 1)[1]
        folded = _fold(text)
        if folded in ("thesis", "thesis or dissertation", "tese ou dissertacao"):
            masters = degree is not None and _MASTERS_DEGREE.search(degree)
            return ItemType.MASTERS_THESIS if masters else ItemType.DOCTORAL_THESIS
        if folded in _READ:
            return _READ[folded]
    return None
