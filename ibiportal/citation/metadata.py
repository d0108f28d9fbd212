"""Metadata embedded in a page, for reference managers: Highwire ``citation_*`` tags and
schema.org JSON-LD.

Zotero's browser connector (and Mendeley's, and Google Scholar) read a page's
``<meta name="citation_…">`` tags — the Highwire Press convention Google Scholar documents —
and schema.org JSON-LD; with them a reader saves the item with its kind, its authors, its IBI
and its persistent URL instead of a bare web page. Both are written from the same
:class:`~.record.CitationRecord` as the citations, so the three can never disagree.

:func:`json_ld_text` is the JSON to put inside ``<script type="application/ld+json">``: data,
never executed, with ``<``, ``>`` and ``&`` escaped so that no metadata value can close the
element.
"""
from __future__ import annotations

import json

from .record import CitationRecord
from .types import ItemType

#: schema.org type of each kind of item.
SCHEMA_TYPES = {
    ItemType.ARTICLE: "ScholarlyArticle",
    ItemType.BOOK: "Book",
    ItemType.CHAPTER: "Chapter",
    ItemType.CONFERENCE_PAPER: "ScholarlyArticle",
    ItemType.MASTERS_THESIS: "Thesis",
    ItemType.DOCTORAL_THESIS: "Thesis",
    ItemType.REPORT: "Report",
    ItemType.DATASET: "Dataset",
    ItemType.SOFTWARE: "SoftwareSourceCode",
    ItemType.OTHER: "CreativeWork",
}


def highwire_tags(record: CitationRecord) -> list[tuple[str, str]]:
    """``(name, content)`` of each ``<meta>`` tag, in Google Scholar's order (title, authors, date).

    The IBI goes in ``DC.identifier`` as ``ibi:<IBI>`` (the URI scheme registration the
    standards' author requested) and in ``citation_id``; the persistent URL is the
    ``citation_abstract_html_url``: the page a reader should come back to.
    """
    tags: list[tuple[str, str]] = []
    if record.title:
        tags.append(("citation_title", record.title))
    tags += [("citation_author", name.inverted()) for name in record.names]
    issued = record.issued
    if issued:
        tags.append(("citation_publication_date", "/".join(f"{part:02d}" for part in issued.parts())))
    kind = record.item_type
    if record.publisher:
        holder = {
            ItemType.MASTERS_THESIS: "citation_dissertation_institution",
            ItemType.DOCTORAL_THESIS: "citation_dissertation_institution",
            ItemType.REPORT: "citation_technical_report_institution",
        }.get(kind, "citation_publisher")
        tags.append((holder, record.publisher))
    if kind is ItemType.REPORT and record.report_number:
        tags.append(("citation_technical_report_number", record.report_number))
    if record.language:
        tags.append(("citation_language", record.language))
    tags.append(("citation_abstract_html_url", record.persistent_url))
    tags.append(("citation_id", f"ibi:{record.ibi}"))
    tags.append(("DC.identifier", f"ibi:{record.ibi}"))
    if record.repository and record.repository != record.ibi:
        tags.append(("DC.identifier", f"ibi:{record.repository}"))
    tags.append(("DC.type", kind.names.dc_type))
    return tags


def json_ld(record: CitationRecord) -> dict:
    """The schema.org description of the item (``@id`` and ``url``: its persistent URL)."""
    kind = record.item_type
    identifiers = [{"@type": "PropertyValue", "propertyID": "IBI", "value": record.ibi}]
    if record.repository and record.repository != record.ibi:
        identifiers.append({"@type": "PropertyValue", "propertyID": "IBI", "value": record.repository})
    data: dict = {
        "@context": "https://schema.org",
        "@type": SCHEMA_TYPES[kind],
        "@id": record.persistent_url,
        "url": record.persistent_url,
        "identifier": identifiers,
    }
    if record.title:
        data["name"] = record.title
    if record.names:
        data["author"] = [_agent(name) for name in record.names]
    if record.issued:
        data["datePublished"] = record.issued.iso()
    if record.publisher:
        publisher: dict = {"@type": "Organization", "name": record.publisher}
        if record.place:
            publisher["location"] = record.place
        data["publisher"] = publisher
    if record.extent and record.extent.isdigit():
        data["numberOfPages"] = int(record.extent)
    if record.language:
        data["inLanguage"] = record.language
    if kind.is_thesis and record.degree:
        data["inSupportOf"] = record.degree
    if kind is ItemType.REPORT and record.report_number:
        data["reportNumber"] = record.report_number
    if record.description:
        data["abstract"] = record.description
    return data


def _agent(name) -> dict:
    if name.is_organisation:
        return {"@type": "Organization", "name": name.literal}
    person = {"@type": "Person", "name": " ".join(part for part in (name.given, name.surname) if part)}
    person["familyName"] = name.surname
    if name.given:
        person["givenName"] = name.given
    return person


def json_ld_text(record: CitationRecord) -> str:
    """:func:`json_ld` as text safe inside ``<script type="application/ld+json">``."""
    text = json.dumps(json_ld(record), ensure_ascii=False, indent=1)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
