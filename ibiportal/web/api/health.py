"""``GET /api/v1/archives/health``: the Archive health page as JSON."""
from __future__ import annotations

from flask import jsonify

from ..health.views import HEALTH_WINDOW, current_health
from .views import bp


@bp.get("/archives/health")
def archives_health():
    """Each Archive's recent answered / empty / failed counts, latency and last failure, with its registry state."""
    rows, traces = current_health()
    return jsonify({"traces": traces, "window": HEALTH_WINDOW, "archives": [row.to_dict() for row in rows]})
