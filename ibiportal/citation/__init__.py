"""Citations of any IBI: BibTeX, RIS, CSL-JSON and formatted text from its oai_dc metadata.

Pure Python (no Flask): the Cite page, its API and the Mint page build a
:class:`CitationRecord` and call :func:`citations`; :func:`from_oai_dc` reads the record an
Archive answers to ``:(oai_dc)`` (file 003, Table 8.2).
"""
from __future__ import annotations

from dataclasses import dataclass

from ibiportal.citation.formats import bibtex, citation_key, csl_json, ris
from ibiportal.citation.oai_dc import MAX_OAI_DC_BYTES, OaiDcRecord, from_oai_dc
from ibiportal.citation.record import CitationRecord
from ibiportal.citation.styles import STYLE_KEYS, STYLES, Style, render


@dataclass(frozen=True)
class Citations:
    """Every form of one item's citation; ``formatted`` maps a style key (``apa``…) to text."""

    key: str
    bibtex: str
    ris: str
    csl_json: dict
    formatted: dict[str, str]


def citations(record: CitationRecord) -> Citations:
    """All citation forms of ``record``, each carrying its persistent URL."""
    item = csl_json(record)
    # An untitled item is cited by a bracketed description, as APA and NBR 6023 do; the
    # CSL-JSON export itself stays as the metadata is (no invented title).
    shown = item if "title" in item else {**item, "title": f"[IBI {record.ibi}]"}
    return Citations(
        key=citation_key(record),
        bibtex=bibtex(record),
        ris=ris(record),
        csl_json=item,
        formatted={style.key: render(style, shown) for style in STYLES},
    )


__all__ = [
    "MAX_OAI_DC_BYTES",
    "CitationRecord",
    "Citations",
    "OaiDcRecord",
    "STYLES",
    "STYLE_KEYS",
    "Style",
    "citations",
    "from_oai_dc",
]
