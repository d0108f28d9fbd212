"""``/api/v1/trace``: run a resolution and return every message of it (issue 4); never cached."""
from __future__ import annotations

from flask import abort, jsonify, url_for

from ...errors import ParseError
from ...ibi.url import parse_persistent_url
from ...resolver.addresses import client_ip_list
from ...resolver.engine import ClientInfo
from ..context import get_storage
from ..resolution import SELECTIONS, request_client, resolve_and_store
from .views import bp, json_body


@bp.post("/trace")
def run_trace():
    """Resolve ``url`` against the chosen Archives as a given client and return the trace."""
    body = json_body()
    url = body.get("url")
    if not isinstance(url, str) or not url.strip():
        raise ParseError("url is required: the persistent URL to trace", field="url")
    parse_persistent_url(url.strip())  # a bad URL is a 400 naming the character, before any message
    selection = body.get("archives", "all")
    if selection not in SELECTIONS:
        raise ParseError(f"archives must be one of {', '.join(SELECTIONS)}", field="archives")
    stored = resolve_and_store(_with_original(url.strip(), body.get("require_original")), selection, _client(body))
    result = {"id": stored.trace_id, "permalink": url_for("api.get_trace", trace_id=stored.trace_id, _external=True)}
    return jsonify({**result, **stored.resolution.to_dict()}), 201


@bp.get("/trace/<trace_id>")
def get_trace(trace_id: str):
    """A stored trace, while it is retained."""
    body = get_storage().load_trace(trace_id)
    if body is None:
        abort(404, description=f"no trace {trace_id}: unknown, or older than the traces kept")
    return jsonify({"id": trace_id, **body})


def _client(body: dict) -> ClientInfo:
    """The client to resolve as: the request's own, or the ``client_ip`` / ``accept_language`` given."""
    client = request_client()
    client_ip = body.get("client_ip")
    if client_ip:
        ips = client_ip_list(str(client_ip), None, ())
        if not ips:
            raise ParseError(f"client_ip {client_ip!r} is not an IP address", field="client_ip")
        client = ClientInfo(ips, client.language_preference)
    language = body.get("accept_language")
    if language is not None:
        if not isinstance(language, str):
            raise ParseError("accept_language must be text such as 'pt-BR,en;q=0.5'", field="accept_language")
        client = ClientInfo(client.ip_addresses, language)
    return client


def _with_original(url: str, require_original: object) -> str:
    """``require_original`` adds ``ibiurl.requireditemstatus=Original`` (Table 8.3) unless present."""
    if not require_original or "ibiurl.requireditemstatus=" in url:
        return url
    return url + ("&" if "?" in url else "?") + "ibiurl.requireditemstatus=Original"
