"""JSON API views. Errors are ``{"error": {"message", "position"}}`` with a 4xx status."""
from __future__ import annotations

from flask import Blueprint, jsonify, request
from werkzeug.routing import PathConverter

from ...errors import ParseError
from ...ibi.classify import ibi_of
from ...ibi.conversion import convert
from ...minting import MintRequest, parse_count
from ..edge import read_json
from ..inputs import optional_port
from ..context import get_minter, known_prefix_pairs, resolver_base
from ..results import minted_to_dict
from .tokens import token_required_if

bp = Blueprint("api", __name__, url_prefix="/api/v1")


class ItemConverter(PathConverter):
    """``<item:ibi>``: an IBI in either form, slashes and all, up to a ``/files`` segment (no IBI
    has one), so that ``/items/<ibi>`` and ``/items/<ibi>/files…`` never take each other's
    requests: a method one of them lacks is its 405, not the other's answer."""

    regex = r"[^/](?:(?!/files(?:/|$)).)*"


bp.record_once(lambda state: state.app.url_map.converters.setdefault("item", ItemConverter))


@bp.post("/mint")
@token_required_if("MINT_REQUIRES_TOKEN")
def mint():
    """Mint one identifier, or ``count`` of them, with optional title and target URL (an API
    token only with ``IBIPORTAL_MINT_REQUIRES_TOKEN``)."""
    body = json_body()
    count = parse_count(body.get("count"))
    mint_request = MintRequest.parse(body)
    items = get_minter().mint_many(count, mint_request)
    base = resolver_base()
    results = [minted_to_dict(item, base) for item in items]
    return jsonify(results if "count" in body else results[0]), 201


@bp.get("/convert")
def convert_view():
    """Convert an IBI to the other form, with its anatomy and any warnings; ``ibi`` may be any form
    the recogniser reads (``IBI: <…>.``, a persistent URL, ``…-TDI``): ``notes`` say what it set aside."""
    text = request.args.get("ibi", "")
    ibi, notes = ibi_of(text, "ibi")
    conversion = convert(
        ibi,
        known_prefix_pairs(),
        host=request.args.get("host") or None,
        ip=request.args.get("ip") or None,
        port=optional_port(request.args.get("port")),
    )
    return jsonify({**conversion.to_dict(), "input": text, "notes": [note.to_dict() for note in notes]})


def json_body() -> dict:
    """The request's JSON object, read within the edge's bounds (``web.edge``); an empty body is ``{}``;
    anything else is a 400 naming where."""
    raw = request.get_data()
    if not raw.strip():
        return {}
    body = read_json(raw)
    if not isinstance(body, dict):
        raise ParseError("the body must be a JSON object", position=1, field="body")
    return body

