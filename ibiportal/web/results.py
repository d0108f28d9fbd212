"""Domain results → JSON-ready dicts, shared by the API, the pages and the CLI."""
from __future__ import annotations

from ..ibi.explain import EXPLANATION_LANGUAGES, explain
from ..ibi.url import PersistentUrl
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


def url_to_dict(url: PersistentUrl, base: str | None = None) -> dict:
    """A persistent URL's Table 8.8 fields under their own names, plus ``relation``, ``meaning`` (en, pt),
    ``canonical`` (``symbols``, ``verblist``, on ``base``, else the URL's own resolver), the IBI's ``form``
    and the ``query`` pairs passed on to the item."""
    return {
        **url.to_table_8_8(),
        "relation": url.relation,
        "meaning": {lang: explain(url, lang) for lang in EXPLANATION_LANGUAGES},
        "canonical": {"symbols": url.canonical_symbols(base), "verblist": url.canonical_verblist(base)},
        "form": url.ibi.form,
        "query": [[name, value] for name, value in url.query],
    }
