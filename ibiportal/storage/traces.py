"""Resolution traces, kept for their permalinks within two bounds: a number of traces
(``IBIPORTAL_TRACE_RETENTION``) and a number of bytes (``IBIPORTAL_TRACE_BYTES``).

Anyone can make the portal store a trace (every resolution does), and an Archive chooses what
its answers hold, so neither count nor size may grow without limit: each save drops the oldest
traces beyond either bound. The newest one is always kept, whatever its size, and what one trace
may hold is capped here too (:func:`stored_trace`).

Saves are **group-committed**: threads of one process saving at once (a reference list's
resolutions, a burst of requests) have their traces written by whichever of them gets the write
first, in one transaction with one pruning, while the others wait for that commit. A save still
returns only once its trace is committed; a lone save is one transaction as before. Without it
each trace cost a commit (an fsync) and a pruning query over every kept trace, 12-18 ms, and
traces were the bottleneck of checking a reference list (``benchmarks/references.py``).
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

from sqlalchemy import delete, func, insert, select, update

from .database import Storage, now_iso
from .schema import trace

#: What a stored trace keeps of each Archive's answer, in characters (and as much of its pairs):
#: enough for any answer of the standard's examples many times over.
STORED_ANSWER_CHARS = 16_384


def stored_trace(body: dict) -> dict:
    """A trace's JSON as stored: each Archive's answer and its pairs cut at
    :data:`STORED_ANSWER_CHARS`, with a note saying so, so that one trace stays small whatever
    the Archives send (the transport reads up to 256 KiB of each, and there may be many)."""
    for step in body["trace"]["steps"]:
        raw = step.get("raw_answer")
        if raw is not None and len(raw) > STORED_ANSWER_CHARS:
            step["raw_answer"] = raw[:STORED_ANSWER_CHARS]
            step["notes"] = [*step["notes"], f"the stored answer is cut at {STORED_ANSWER_CHARS:,} of its {len(raw):,} characters"]
        pairs = step.get("pairs")
        total = sum(len(name) + len(value) for name, value in pairs or ())
        if total > STORED_ANSWER_CHARS:
            kept, room = [], STORED_ANSWER_CHARS
            for name, value in pairs:
                if room <= len(name):
                    break
                kept.append([name, value[:room - len(name)]])
                room -= len(name) + len(value)
            step["pairs"] = kept
            step["notes"] = [*step["notes"], f"the stored pairs are cut at {STORED_ANSWER_CHARS:,} of their {total:,} characters"]
    return body


class TraceStore:
    """Stored traces over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def save_trace(
        self, trace_id: str, persistent_url: str, outcome: str, body: dict, keep: int, budget_bytes: int
    ) -> None:
        """Store a trace, then drop the oldest beyond ``keep`` traces or ``budget_bytes`` bytes;
        returns once it is committed (with the traces other threads were saving at once)."""
        text = json.dumps(body)
        row = {"id": trace_id, "created_at": now_iso(), "persistent_url": persistent_url, "outcome": outcome,
               "body": text, "size": len(text.encode("utf-8"))}
        group = _group_of(self.storage.database.url)
        pending = _Pending(row)
        with group.queued:
            group.queue.append(pending)
        with group.writing:
            if not pending.done:
                with group.queued:
                    batch, group.queue = group.queue, []
                try:
                    self._write(batch, keep, budget_bytes)
                except BaseException as error:
                    for each in batch:
                        each.error = error
                    raise
                finally:
                    for each in batch:
                        each.done = True
        if pending.error is not None:
            raise pending.error

    def _write(self, batch: list[_Pending], keep: int, budget_bytes: int) -> None:
        """One transaction: every trace of ``batch``, then one pruning."""
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
            conn.execute(insert(trace), [pending.row for pending in batch])
            conn.execute(delete(trace).where(trace.c.id.in_(beyond)))

    def recent_traces(self, limit: int) -> list[tuple[str, str, dict]]:
        """The ``limit`` newest traces as (id, created_at, JSON body), newest first: what the
        Archive health page summarises."""
        rows = self.storage.read(
            select(trace.c.id, trace.c.created_at, trace.c.body)
            .order_by(trace.c.created_at.desc(), trace.c.id.desc())
            .limit(limit)
        )
        return [(row.id, row.created_at, json.loads(row.body)) for row in rows]

    def load_trace(self, trace_id: str) -> dict | None:
        """A stored trace's JSON body, or None when unknown or already dropped."""
        body = self.storage.read(select(trace.c.body).where(trace.c.id == trace_id)).scalar()
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

@dataclass(eq=False)
class _Pending:
    """A trace waiting for its group's commit: written (``done``), or failed with ``error``."""

    row: dict
    done: bool = False
    error: BaseException | None = None


@dataclass(eq=False)
class _Group:
    """The traces of one database being saved in this process: ``queued`` guards the queue,
    ``writing`` is held by the one thread writing a batch."""

    queue: list[_Pending] = field(default_factory=list)
    queued: threading.Lock = field(default_factory=threading.Lock)
    writing: threading.Lock = field(default_factory=threading.Lock)


_GROUPS: dict[str, _Group] = {}
_GROUPS_LOCK = threading.Lock()


def _group_of(url: str) -> _Group:
    with _GROUPS_LOCK:
        return _GROUPS.setdefault(url, _Group())
