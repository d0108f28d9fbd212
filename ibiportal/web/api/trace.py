"""``/api/v1/trace``: run a resolution and return every message of it; never cached."""
from __future__ import annotations

from flask import abort, jsonify, url_for

from ...errors import ParseError
from ...i18n import N_
from ...application.resolving import ArchiveGroup, ArchiveSet
from ..context import application, request_client, request_site
from ..inputs import asked_url_input, client_input
from ..trace.views import not_kept
from .views import bp, json_body


@bp.post("/trace")
def run_trace():
    """Resolve ``url`` against the chosen Archives as a given client and return the trace."""
    body = json_body()
    url = body.get("url")
    if not isinstance(url, str) or not url.strip():
        raise ParseError(N_("`url` is required: the persistent URL to trace"), field="url")
    asked = asked_url_input(url)  # a bad URL is a 400 naming the character, before any message
    archives = ArchiveSet.parse(body.get("archives", ArchiveGroup.ALL), body.get("include_faulty", False))
    client = client_input(request_client(), body.get("client_ip"), body.get("accept_language"))
    if body.get("require_original"):
        asked = asked.requiring_original()
    stored = application().resolving.trace(asked, archives, client, request_site())
    result = {"id": stored.trace_id, "permalink": url_for("api.get_trace", trace_id=stored.trace_id, _external=True)}
    if stored.diagnosis is not None:
        result["diagnosis"] = stored.diagnosis.to_dict()
    return jsonify({**result, **stored.resolution.to_dict()}), 201


@bp.get("/trace/<trace_id>")
def get_trace(trace_id: str):
    """A stored trace, while it is retained."""
    body = application().traces.load(trace_id)
    if body is None:
        abort(404, description=not_kept(trace_id))
    return jsonify({"id": trace_id, **body})

