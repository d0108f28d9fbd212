"""What the Cite page, item pages and the home page embed for reference managers.

:func:`embedded_metadata` turns a :class:`~ibiportal.citation.CitationRecord` into the Highwire
``citation_*`` tags and the schema.org JSON-LD that ``templates/base.html`` writes into the
page's head (:mod:`ibiportal.citation.metadata`). :func:`record_held_here` finds the record of an
item this portal holds — its own Archive's or a well-behaved demo Archive's — from the same oai_dc
record the Cite page reads, in process: the home page must not resolve anything to describe an IBI.
"""
from __future__ import annotations

from ...archive.model import Item
from ...archive.oai_dc import oai_dc_xml
from ...citation import CitationRecord, from_oai_dc
from ...citation.metadata import highwire_tags, json_ld_text
from ...errors import ParseError
from ..context import holdings, resolver_base
from ..results import persistent_url


def embedded_metadata(record: CitationRecord | None) -> dict | None:
    """``{"tags", "json_ld", "cite_as"}`` for the page's head, or None without a record."""
    if record is None:
        return None
    return {"tags": highwire_tags(record), "json_ld": json_ld_text(record), "cite_as": record.persistent_url}


def item_record(item: Item) -> CitationRecord | None:
    """The citation record of an item with descriptive metadata, cited by its persistent URL
    on this portal's resolver (IBIp form when the item has one)."""
    if item.dc is None:
        return None
    base = resolver_base()
    ibi = item.ibi.ibip or item.ibi.rep
    metadata = from_oai_dc(oai_dc_xml(item, base.rstrip("/")))
    return metadata.citation_record(persistent_url(base, ibi), ibi, item.ibi.rep)


def own_item_record(ibi: str) -> CitationRecord | None:
    """The record of an item of the own Archive, read back from the oai_dc record it serves:
    the one source of the citations the Mint result, the item page and Cite show (the record
    normalises what minting kept as typed, such as an extent of ``182 p.``)."""
    try:
        item = holdings().own.store.find(ibi)
    except ParseError:
        return None
    return item_record(item) if item is not None else None


def record_held_here(ibi: str) -> CitationRecord | None:
    """The record of ``ibi`` if the own Archive or a well-behaved demo Archive holds it."""
    services = [holdings().own] + [archive.service for archive in holdings().demo.values() if not archive.faulty]
    for service in services:
        try:
            item = service.store.find(ibi)
        except ParseError:
            return None
        if item is not None and item.dc is not None:
            return item_record(item)
    return None
