"""Citations of any IBI: formatted styles, BibTeX, RIS and CSL-JSON from its oai_dc metadata.

Pure Python (no Flask, no clock): the Cite page, its API, content negotiation and the Mint page
build a :class:`CitationRecord` and call :func:`citations` with the access date;
:func:`from_oai_dc` reads the record an Archive answers to ``:(oai_dc)`` (file 003, Table 8.2).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ibiportal.citation.formats import bibtex, citation_key, csl_json, ris
from ibiportal.citation.oai_dc import MAX_OAI_DC_BYTES, OaiDcRecord, from_oai_dc
from ibiportal.citation.record import CitationRecord
from ibiportal.citation.rich import Rich
from ibiportal.citation.styles import STYLE_KEYS, STYLES, STYLES_BY_KEY, Style
from ibiportal.citation.types import SLUGS, ItemType


@dataclass(frozen=True)
class Citations:
    """Every form of one item's citation; ``rich`` maps a style key (``apa``…) to its text."""

    key: str
    bibtex: str
    ris: str
    csl_json: dict
    rich: dict[str, Rich]

    @property
    def formatted(self) -> dict[str, str]:
        """Each style as plain text."""
        return {key: text.plain() for key, text in self.rich.items()}

    @property
    def formatted_html(self) -> dict[str, str]:
        """Each style as HTML with its emphasis (``<i>``, ``<b>``)."""
        return {key: text.html() for key, text in self.rich.items()}


def citations(record: CitationRecord, accessed: date) -> Citations:
    """All citation forms of ``record``, each carrying its persistent URL; ``accessed`` is the
    date the styles that ask for one print (NBR 6023's "Acesso em", Harvard's "Accessed")."""
    return Citations(
        key=citation_key(record),
        bibtex=bibtex(record),
        ris=ris(record),
        csl_json=csl_json(record),
        rich={style.key: style.render(record, accessed) for style in STYLES},
    )


__all__ = [
    "MAX_OAI_DC_BYTES",
    "SLUGS",
    "CitationRecord",
    "Citations",
    "ItemType",
    "OaiDcRecord",
    "Rich",
    "STYLES",
    "STYLES_BY_KEY",
    "STYLE_KEYS",
    "Style",
    "citations",
    "from_oai_dc",
]
