"""``GET /metrics``: the Prometheus text format (ibiportal/metrics.py), for the addresses of
``IBIPORTAL_METRICS_ALLOW`` only.

Any other client gets the portal's 404, as for a page that does not exist: the figures say how
busy the portal is and which Archives fail, which is the operator's business, and a 403 would
only tell a stranger that they are there. The client is the address the rate limits count
(:func:`~ibiportal.web.context.client_address`): behind nginx (a trusted proxy) the real client
of its ``X-Forwarded-For``, never nginx itself, so a loopback rule does not open the metrics to
everyone nginx serves.
"""
from __future__ import annotations

from ipaddress import ip_address

from flask import Blueprint, Flask, Response, abort, current_app

from .. import metrics
from ..config import networks
from .context import client_address, settings

bp = Blueprint("metrics", __name__)

#: The key in ``app.extensions`` of the networks allowed (parsed once, at start-up).
ALLOWED = "ibiportal.metrics_allow"


def allowed(address: str, allow) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``address`` (a client IP as text) is in one of the networks ``allow``."""
    try:
        ip = ip_address(address.split("%", 1)[0])  # an IPv6 zone is not part of the address
    except ValueError:
        return False
    if getattr(ip, "ipv4_mapped", None) is not None:  # ::ffff:127.0.0.1 from a dual-stack socket
        ip = ip.ipv4_mapped
    return any(ip in network for network in allow)


@bp.get("/metrics")
def exposition() -> Response:
    if not settings().metrics or not allowed(client_address(), current_app.extensions[ALLOWED]):
        abort(404)
    body, content_type = metrics.exposition()
    return Response(body, 200, {"Content-Type": content_type, "Cache-Control": "no-store"})


def init_app(app: Flask) -> None:
    """Read the allowed networks (a bad one stops the start, named) and switch counting on or off
    for this process (``IBIPORTAL_METRICS``)."""
    given = settings(app)
    app.extensions[ALLOWED] = networks(list(given.metrics_allow), "METRICS_ALLOW")
    metrics.switch(given.metrics)
    app.register_blueprint(bp)
