"""Domain results → JSON-ready dicts, shared by the API, the pages and the CLI."""
from __future__ import annotations

from dataclasses import asdict

from collections.abc import Sequence

from ..ibi.explain import EXPLANATION_LANGUAGES, explain
from ..ibi.recognise import Note
from ..ibi.url import PersistentUrl
from ..ibi.minted import MintedItem


def minted_to_dict(item: MintedItem, base: str) -> dict:
    """``{"rep", "ibip", "utc", "persistent_url"}``, plus what was given with it, under
    the request's own keys (``date`` is the item's date; ``utc`` the identifier's)."""
    return {
        "rep": item.rep,
        "ibip": item.ibip,
        "utc": item.utc,
        "persistent_url": persistent_url(base, item.ibip),
        "title": item.title,
        "target_url": item.target_url,
        "creators": list(item.creators),
        "date": item.item_date,
        "language": item.language,
        **asdict(item.bibliographic),
    }


def persistent_url(base: str, ibi: str) -> str:
    """``<resolver base>/<ibi>``: the IBIp form, as urlib.net's own examples use."""
    return base.rstrip("/") + "/" + ibi


def url_to_dict(url: PersistentUrl, base: str | None = None, portal: str | None = None, notes: Sequence[Note] = ()) -> dict:
    """A persistent URL's Table 8.8 fields under their own names, plus ``relation``, ``meaning`` (en, pt),
    ``canonical`` (``symbols``, ``verblist``, on ``base``, else the URL's own resolver), the IBI's ``form``
    and the ``query`` pairs passed on to the item; with ``portal`` (this portal's address), also
    ``portal_url``: the same request on this portal, where it can be resolved and traced; ``notes``
    are what the recogniser set aside to read the URL (``/ibi/``, ``IBI: <…>.``, …)."""
    result = {
        **url.to_table_8_8(),
        "relation": url.relation,
        "meaning": {lang: explain(url, lang) for lang in EXPLANATION_LANGUAGES},
        "canonical": {"symbols": url.canonical_symbols(base), "verblist": url.canonical_verblist(base)},
        "form": url.ibi.form,
        "query": [[name, value] for name, value in url.query],
        "notes": [note.to_dict() for note in notes],
    }
    if portal is not None:
        result["portal_url"] = url.canonical_symbols(portal)
    return result
