"""Domain results → JSON-ready dicts, shared by the API, the pages and the CLI."""
from __future__ import annotations

from ..storage import MintedItem


def minted_to_dict(item: MintedItem, base: str) -> dict:
    """``{"rep", "ibip", "utc", "persistent_url"}`` (issue 2), plus what was given with it."""
    return {
        "rep": item.rep,
        "ibip": item.ibip,
        "utc": item.utc,
        "persistent_url": persistent_url(base, item.ibip),
        "title": item.title,
        "target_url": item.target_url,
    }


def persistent_url(base: str, ibi: str) -> str:
    """``<resolver base>/<ibi>``: the IBIp form, as urlib.net's own examples use."""
    return base.rstrip("/") + "/" + ibi
