"""JSON API for persistent URLs (file 003, §8.1): reading one, and building one from chosen verbs.

The routes join the ``api`` blueprint of :mod:`.views`; answers are :func:`~..results.url_to_dict`.
"""
from __future__ import annotations

from flask import jsonify, request

from ...ibi.classify import ibi_of
from ...ibi.compose import compose
from ..context import canonical_base, resolver_base
from ..inputs import optional_flag, query_pairs, recognised_url_input
from ..results import url_to_dict
from .views import bp


@bp.get("/parse")
def parse_url():
    """Read ``url``: its Table 8.8 fields, relation, meaning and canonical forms (on ``base`` when it has no host),
    and ``portal_url``, the same URL on this portal."""
    url, recognition = recognised_url_input(request.args.get("url"))
    base = canonical_base(url, request.args.get("base") or None)
    return jsonify(url_to_dict(url, base, portal=request.url_root, notes=recognition.notes))


@bp.get("/compose")
def compose_url():
    """Build a persistent URL: both syntaxes, the meaning and the Table 8.8 fields.

    Parameters: ``ibi`` (either form); ``verb``, repeated, in the order of composition
    (``verb=GetLastEdition&verb=GetMetadata(oai_dc)``); ``filepath`` (``/reference.bib``);
    ``original`` (``1``/``true``/``yes``/``on`` asks for ``ibiurl.requireditemstatus=Original``);
    ``q``, repeated, one pair passed on to the item each, written ``q=name=value`` and split at
    the first ``=`` (percent-encode ``&`` and ``+`` inside it as in any query string); ``base``
    (default: the portal's resolver base). The answer adds ``portal_url``: the same URL on this
    portal, to resolve or trace it here. Errors name the ``field``: for ``verbs`` and
    ``query`` the ``position`` is the number of the ``verb`` or ``q`` parameter.
    """
    ibi, notes = ibi_of(request.args.get("ibi", ""), "ibi")
    url = compose(
        ibi,
        request.args.getlist("verb"),
        filepath=request.args.get("filepath") or None,
        original=optional_flag(request.args.get("original"), "original"),
        query=query_pairs(request.args.getlist("q")),
        base=request.args.get("base") or resolver_base(),
    )
    return jsonify(url_to_dict(url, portal=request.url_root, notes=notes))
