"""Resolution traces, kept for their permalinks within two bounds: a number of traces
(``IBIPORTAL_TRACE_RETENTION``) and a number of bytes (``IBIPORTAL_TRACE_BYTES``).

Anyone can make the portal store a trace (every resolution does), and an Archive chooses what
its answers hold, so neither count nor size may grow without limit: each save drops the oldest
traces beyond either bound. The newest one is always kept, whatever its size (the caller caps
what one trace may hold: ``ibiportal.web.resolution``).
"""
from __future__ import annotations

import json

from sqlalchemy import delete, func, insert, select, update

from .database import Storage, now_iso
from .schema import trace


class TraceStore:
    """Stored traces over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def save_trace(
        self, trace_id: str, persistent_url: str, outcome: str, body: dict, keep: int, budget_bytes: int
    ) -> None:
        """Store a trace, then drop the oldest beyond ``keep`` traces or ``budget_bytes`` bytes."""
        text = json.dumps(body)
        size = len(text.encode("utf-8"))
        newest_first = (trace.c.created_at.desc(), trace.c.id.desc())
        ranked = select(
            trace.c.id,
            func.row_number().over(order_by=newest_first).label("rank"),
            func.sum(trace.c.size).over(order_by=newest_first).label("bytes_so_far"),
        ).subquery()
        beyond = select(ranked.c.id).where(
            (ranked.c.rank > keep) | ((ranked.c.bytes_so_far > budget_bytes) & (ranked.c.rank > 1))
        )
        with self.storage.write_transaction() as conn:
            conn.execute(
                insert(trace).values(
                    id=trace_id, created_at=now_iso(), persistent_url=persistent_url, outcome=outcome,
                    body=text, size=size,
                )
            )
            conn.execute(delete(trace).where(trace.c.id.in_(beyond)))

    def recent_traces(self, limit: int) -> list[tuple[str, str, dict]]:
        """The ``limit`` newest traces as (id, created_at, JSON body), newest first: what the
        Archive health page summarises."""
        rows = self.storage.connection.execute(
            select(trace.c.id, trace.c.created_at, trace.c.body)
            .order_by(trace.c.created_at.desc(), trace.c.id.desc())
            .limit(limit)
        )
        return [(row.id, row.created_at, json.loads(row.body)) for row in rows]

    def load_trace(self, trace_id: str) -> dict | None:
        """A stored trace's JSON body, or None when unknown or already dropped."""
        body = self.storage.connection.execute(select(trace.c.body).where(trace.c.id == trace_id)).scalar()
        return json.loads(body) if body is not None else None

    def record_notice(self, trace_id: str, notice: dict) -> bool:
        """Put ``notice``, the step (6) that came after the URL went out, in place of the stored
        trace's ``pending`` one of the same hop; ``False`` when there is none (the trace was
        dropped meanwhile, or already has it). The size is counted anew; the byte budget is
        applied at the next save."""
        with self.storage.write_transaction() as conn:
            text = conn.execute(select(trace.c.body).where(trace.c.id == trace_id)).scalar()
            if text is None:
                return False
            body = json.loads(text)
            steps = body["trace"]["steps"]
            where = next((index for index, step in enumerate(steps)
                          if step["number"] == 6 and step["hop"] == notice["hop"] and step["acknowledgment"] == "pending"), None)
            if where is None:
                return False
            steps[where] = notice
            text = json.dumps(body)
            conn.execute(update(trace).where(trace.c.id == trace_id).values(body=text, size=len(text.encode("utf-8"))))
        return True

    def stored_bytes(self) -> tuple[int, int]:
        """How many traces are kept and their bytes (the budget's measure)."""
        count, total = self.storage.connection.execute(select(func.count(), func.coalesce(func.sum(trace.c.size), 0))).one()
        return int(count), int(total)
