"""The Mint page's result card of one minted identifier: both forms, the persistent URL, its
QR code and its citations."""
from __future__ import annotations

from ...citation import CitationRecord, citations
from ...minting import MintRequest
from ...storage import MintedItem
from ..results import minted_to_dict
from .qr import qr_data_uri


def minted_card(item: MintedItem, base: str, request: MintRequest) -> dict:
    """:func:`~..results.minted_to_dict`, plus ``qr`` (an SVG ``data:`` URI of the persistent URL),
    ``citations`` (:class:`~ibiportal.citation.Citations`) and the ``links`` the item was minted with."""
    card = minted_to_dict(item, base)
    record = CitationRecord(
        persistent_url=card["persistent_url"],
        ibi=item.ibip,
        title=item.title,
        creators=item.creators,
        date=item.item_date,
        language=item.language,
        repository=item.rep,
    )
    links = [("Next edition of", request.previous_edition), ("Translation of", request.translation_of)]
    return {
        **card,
        "qr": qr_data_uri(card["persistent_url"]),
        "citations": citations(record),
        "links": [(label, ibi) for label, ibi in links if ibi],
    }
