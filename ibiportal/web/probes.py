"""``GET /healthz`` and ``GET /readyz``, for load balancers and orchestrators.

``/healthz`` says the process answers (restart it if not). ``/readyz`` says whether this node
should get traffic: the database answers and is at this version's schema (else 503). Redis,
when configured, is reported too, but its absence does not make the node unready: without it
resolution goes on from the database, rate limits are counted per worker and other nodes' changes reach
this node's caches by expiry (``ibiportal.storage.signal``) – a node taken out of the pool
for it would serve nothing at all.
"""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from ..storage.database import Storage
from ..storage.schema import SCHEMA_REVISION
from .context import application

bp = Blueprint("probes", __name__)


@bp.get("/healthz")
def healthz():
    return jsonify({"status": "ok", "checks": {"process": {"ok": True}}})


@bp.get("/readyz")
def readyz():
    checks = {"database": _database(), "redis": _redis()}
    ready = checks["database"]["ok"]
    status = "ok" if all(check["ok"] for check in checks.values()) else ("degraded" if ready else "unavailable")
    return jsonify({"status": status, "checks": checks}), 200 if ready else 503


def _database() -> dict:
    """Reachable and at :data:`SCHEMA_REVISION` (read anew: an upgrade may have just run)."""
    try:
        storage = Storage.unchecked(current_app.config["DATABASE"])
    except Exception as error:  # noqa: BLE001 - any failure to connect is the answer
        return {"ok": False, "error": f"unreachable: {_first_line(error)}"}
    try:
        revision = storage.database.revision(storage.connection)
    except Exception as error:  # noqa: BLE001
        return {"ok": False, "error": f"unreachable: {_first_line(error)}"}
    finally:
        storage.close()
    if revision != SCHEMA_REVISION:
        return {"ok": False, "revision": revision, "expected": SCHEMA_REVISION,
                "error": "migrations not current: run 'flask --app app db upgrade'"}
    return {"ok": True, "revision": revision}


def _redis() -> dict:
    redis = application().redis_changes
    if redis is None:
        return {"ok": True, "configured": False}
    problem = redis.reachable()
    if problem is not None:
        return {"ok": False, "configured": True,
                "error": f"unreachable ({problem}): rate limits are counted per worker, other nodes' changes arrive late"}
    return {"ok": True, "configured": True}


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
