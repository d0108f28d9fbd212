"""JSON API views. Errors are ``{"error": {"message", "position"}}`` with a 4xx status."""
from __future__ import annotations

from flask import Blueprint, g, jsonify, request
from werkzeug.routing import PathConverter

from ...application.idempotent_minting import fingerprint, idempotency_key
from ...errors import ParseError
from ...i18n import N_
from ...ibi.classify import ibi_of
from ...ibi.conversion import convert
from ...ibi.mint_request import parse_mint
from ..edge import read_json
from .. import limits
from ..inputs import optional_port
from ..context import application, client_address, known_prefix_pairs, resolver_base
from ..results import minted_to_dict
from ..actor import current_actor
from .tokens import token_required_if

bp = Blueprint("api", __name__, url_prefix="/api/v1")

#: The API's endpoints that resolve on demand, never from the cache (``RATELIMIT_TRACE``).
ON_DEMAND_RESOLUTIONS = frozenset({"api.run_trace", "api.cite_api"})
#: The API's endpoints that read a text of the client's size (``RATELIMIT_TEXT``).
TEXT_READERS = frozenset({"api.extract_api", "api.classify_text", "api.convert_batch"})


@limits.declare(bp)
def _limits(rules: limits.Rules) -> None:
    """``RATELIMIT_API`` on every endpoint together; a trace or a citation also counts against
    ``RATELIMIT_TRACE`` (a citation only when it names an ``ibi``: without one nothing resolves);
    an endpoint that reads a text also against ``RATELIMIT_TEXT``, by its size."""
    rules.shared(rules.settings.ratelimit_api, N_("API requests from your address"), "api")(bp)
    rules.text_read(lambda: request.endpoint in TEXT_READERS)(bp)
    rules.on_demand(lambda: request.endpoint in ON_DEMAND_RESOLUTIONS
                    and not (request.method == "GET" and not request.args.get("ibi")))(bp)


class ItemConverter(PathConverter):
    """``<item:ibi>``: an IBI in either form, slashes and all, up to a ``/files`` segment or a
    last ``/history``, ``/release``, ``/package`` or ``/usage`` one (no IBI has any), and never
    ``import`` alone (every IBI has a slash), so that ``/items/<ibi>``, ``/items/<ibi>/files…``,
    ``/items/<ibi>/history``, ``…/release``, ``…/package``, ``…/usage`` and ``/items/import`` never
    take each other's requests: a method one of them lacks is its 405, not the other's answer."""

    regex = r"(?!import$)[^/](?:(?!/files(?:/|$)|/history$|/release$|/package$|/usage$).)*"


bp.record_once(lambda state: state.app.url_map.converters.setdefault("item", ItemConverter))


@bp.post("/mint")
@token_required_if(lambda given: given.mint_requires_token)
def mint():
    """Mint one identifier, or ``count`` of them, with optional title and target URL (an API
    token only with ``IBIPORTAL_MINT_REQUIRES_TOKEN``). With ``Idempotency-Key``, a request sent
    again answers the items its first sending minted (``application.idempotent_minting``)."""
    body = json_body()
    count, mint_request = parse_mint(body)  # every field's error at once (FieldErrors: ``errors``)
    key = idempotency_key(request.headers.get("Idempotency-Key"))
    scope = f"token:{g.api_token_name}" if "api_token_name" in g else f"client:{client_address()}"
    outcome = application().idempotent_minting().mint(count, mint_request, key, scope, fingerprint(body), actor=current_actor())
    base = resolver_base()
    results = [minted_to_dict(item, base) for item in outcome.items]
    headers = {"Idempotent-Replayed": "true"} if outcome.replayed else {}
    return jsonify(results if "count" in body else results[0]), 201, headers


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
        raise ParseError(N_("the body must be a JSON object"), position=1, field="body")
    return body



#: A query flag's values, exactly as the OpenAPI document's enum lists them.
_FLAGS = {"": False, "0": False, "false": False, "no": False, "1": True, "true": True, "yes": True}


def query_flag(name: str) -> bool:
    """The query parameter ``name`` as a yes or no (absent: no); a 400 naming it for anything else."""
    value = request.args.get(name, "")
    if value not in _FLAGS:
        raise ParseError(N_("%(name)s must be 1, true or yes (or 0, false, no), not %(value)r", name=name, value=value),
                         field=name)
    return _FLAGS[value]
