"""``GET /healthz`` and ``GET /readyz``, for load balancers and orchestrators.

``/healthz`` says the process answers (restart it if not). ``/readyz`` says whether this node
should get traffic: the database answers and is at this version's schema (else 503). Redis,
when configured, is reported too, but its absence does not make the node unready: without it
resolution goes on from the database, rate limits are counted per worker and other nodes' changes reach
this node's caches by expiry (``ibiportal.storage.signal``) – a node taken out of the pool
for it would serve nothing at all.
"""
from __future__ import annotations

from flask import Blueprint, jsonify

from ..application.outage import database_check
from .context import application, settings

bp = Blueprint("probes", __name__)


@bp.get("/healthz")
def healthz():
    return jsonify({"status": "ok", "checks": {"process": {"ok": True}}})


@bp.get("/readyz")
def readyz():
    checks = {"database": database_check(settings().database), "redis": _redis()}
    ready = checks["database"]["ok"]
    status = "ok" if all(check["ok"] for check in checks.values()) else ("degraded" if ready else "unavailable")
    return jsonify({"status": status, "checks": checks}), 200 if ready else 503


def _redis() -> dict:
    redis = application().redis_changes
    if redis is None:
        return {"ok": True, "configured": False}
    problem = redis.reachable()
    if problem is not None:
        return {"ok": False, "configured": True,
                "error": f"unreachable ({problem}): rate limits are counted per worker, other nodes' changes arrive late"}
    return {"ok": True, "configured": True}
