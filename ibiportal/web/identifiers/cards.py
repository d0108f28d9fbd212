"""The Mint page's result card of one minted identifier: both forms, the persistent URL, its
QR code and its citations."""
from __future__ import annotations

from ...archive.own import item_page_url
from ...citation import citations
from ...citation.reading import comma_less_reading
from ...ibi.minted import MintedItem
from ..cite.embedded import own_item_record
from ..context import application
from ..host import portal_url
from ..results import minted_to_dict
from .qr import qr_data_uri


def minted_card(item: MintedItem, base: str, links: list[tuple[str, str]]) -> dict:
    """:func:`~..results.minted_to_dict`, plus ``qr`` (an SVG ``data:`` URI of the persistent URL),
    ``item_page`` (the item's public page, the own Archive's landing page of it),
    ``citations`` (:class:`~ibiportal.citation.Citations`, from the record the own Archive serves, as
    Cite and the item page read it) and the ``links`` the item was minted with
    (label, IBI as given), and ``creator_notes``: how each comma-less name with a particle was read."""
    card = minted_to_dict(item, base)
    record = own_item_record(item.ibip)
    return {
        **card,
        "qr": qr_data_uri(card["persistent_url"]),
        "item_page": item_page_url(portal_url(), item.ibip),
        "citations": citations(record, application().clock().date()) if record else None,
        "links": links,
        "creator_notes": [note for creator in item.creators if (note := comma_less_reading(creator))],
    }
