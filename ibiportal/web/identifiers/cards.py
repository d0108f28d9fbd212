"""The Mint page's result card of one minted identifier: both forms, the persistent URL, its
QR code and its citations."""
from __future__ import annotations

from ...citation import CitationRecord, ItemType, citations
from ...citation.reading import comma_less_reading
from ...minted import MintedItem
from ..cite.lookup import today
from ..results import minted_to_dict
from .qr import qr_data_uri


def minted_card(item: MintedItem, base: str, links: list[tuple[str, str]]) -> dict:
    """:func:`~..results.minted_to_dict`, plus ``qr`` (an SVG ``data:`` URI of the persistent URL),
    ``citations`` (:class:`~ibiportal.citation.Citations`) and the ``links`` the item was minted with
    (label, IBI as given), and ``creator_notes``: how each comma-less name with a particle was read."""
    card = minted_to_dict(item, base)
    details = item.bibliographic
    record = CitationRecord(
        persistent_url=card["persistent_url"],
        ibi=item.ibip,
        title=item.title,
        creators=item.creators,
        date=item.item_date,
        language=item.language,
        repository=item.rep,
        item_type=ItemType.from_slug(details.item_type) if details.item_type else ItemType.OTHER,
        publisher=details.publisher,
        place=details.place,
        extent=details.extent,
        degree=details.degree,
        report_number=details.report_number,
    )
    return {
        **card,
        "qr": qr_data_uri(card["persistent_url"]),
        "citations": citations(record, today()),
        "links": links,
        "creator_notes": [note for creator in item.creators if (note := comma_less_reading(creator))],
    }
