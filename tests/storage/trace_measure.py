"""What the trace store holds, measured by the tests: the store prunes by count and bytes
(``IBIPORTAL_TRACE_RETENTION``, ``IBIPORTAL_TRACE_BYTES``) but never reports them, so the measure
lives here rather than in the product."""
from __future__ import annotations

from sqlalchemy import func, select

from ibiportal.storage.database import Storage
from ibiportal.storage.schema import trace


def stored_bytes(storage: Storage) -> tuple[int, int]:
    """How many traces are kept and their bytes (the budget's measure)."""
    count, total = storage.connection.execute(select(func.count(), func.coalesce(func.sum(trace.c.size), 0))).one()
    return int(count), int(total)
