"""The storage's faults and readiness as the layers above see them: a database that does not
answer (a 503 with ``Retry-After``, never a stack trace), one whose schema is not at the
revision this code needs, the readiness probe's check of both, and how long a Redis call may
take before it counts as Redis being down. The web layer reads them here, not from storage."""
from __future__ import annotations

from ..storage.database import SchemaNotCurrent, Storage
from ..storage.outage import unreachable
from ..storage.schema import SCHEMA_REVISION
from ..storage.signal import REDIS_TIMEOUT_SECONDS

__all__ = ["REDIS_TIMEOUT_SECONDS", "SCHEMA_REVISION", "SchemaNotCurrent", "database_check", "unreachable"]


def database_check(setting: str) -> dict:
    """Reachable and at :data:`SCHEMA_REVISION` (read anew: an upgrade may have just run), as the
    readiness probe reports it."""
    try:
        storage = Storage.unchecked(setting)
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


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
