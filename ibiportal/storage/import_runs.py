"""The imports started from the Import page and their progress (``application.import_runs``).

A run's row holds its source, its options and its progress; each outcome is a row of
``import_run_outcome``, written with the run's new counts in one small transaction after the
item's commit (``application.importing`` writes items a batch a transaction): a page shows a run
as far as it has gone, from any worker or node. Only the newest :data:`KEPT_RUNS` runs are kept.
"""
from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update

from ..i18n import from_record, to_record
from .database import Storage
from .schema import import_run, import_run_outcome

#: Runs kept, newest first: an older one (its source's bytes, its outcomes) goes when a run starts.
KEPT_RUNS = 20


@dataclass(frozen=True)
class ImportRun:
    """One import as stored: ``counts`` per outcome name; ``total`` ``None`` while unknown;
    ``stopped`` why the source stopped (a message), ``None`` when it did not."""

    id: str
    source: str
    dry_run: bool
    update: bool
    started_by: str
    started_at: str
    alive_at: str
    finished_at: str | None
    total: int | None
    done: int
    counts: Mapping[str, int] = field(default_factory=dict)
    stopped: str | None = None

    def alive_since(self, seconds: float, now: datetime) -> bool:
        """Whether the run was heard from within ``seconds`` before ``now``."""
        return datetime.fromisoformat(self.alive_at.replace("Z", "+00:00")) >= now - timedelta(seconds=seconds)


class ImportRunStore:
    """Import runs over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def create(self, source: str, data: bytes | None, *, dry_run: bool, update: bool, started_by: str,
               counts: Mapping[str, int], stale_before: str = "") -> str:
        """A new run, before it starts; its id. Older runs beyond :data:`KEPT_RUNS` go, but for
        one still running (heard from at ``stale_before`` or later)."""
        run_id = secrets.token_urlsafe(12)
        now = self.storage.now_iso()
        with self.storage.write_transaction() as conn:
            conn.execute(insert(import_run).values(
                id=run_id, source=source, source_data=data, dry_run=int(dry_run), update_held=int(update),
                started_by=started_by, started_at=now, alive_at=now, counts=json.dumps(dict(counts))))
            old = [row.id for row in conn.execute(select(import_run.c.id, import_run.c.finished_at,
                                                         import_run.c.alive_at).order_by(
                import_run.c.started_at.desc(), import_run.c.id).offset(KEPT_RUNS))
                if row.finished_at is not None or row.alive_at < stale_before]
            if old:
                conn.execute(delete(import_run_outcome).where(import_run_outcome.c.run_id.in_(old)))
                conn.execute(delete(import_run).where(import_run.c.id.in_(old)))
        return run_id

    def record(self, run_id: str, seq: int, outcome: Mapping[str, Any], counts: Mapping[str, int],
               total: int | None) -> None:
        """Outcome number ``seq`` (from 0) of the run, and its counts and total after it."""
        with self.storage.write_transaction(durable=False) as conn:  # progress: the item's own commit was durable
            conn.execute(insert(import_run_outcome).values(run_id=run_id, seq=seq, outcome=json.dumps(
                {**outcome, "reason": str(outcome["reason"]), "reason_message": to_record(outcome["reason"])},
                ensure_ascii=False)))
            conn.execute(update(import_run).where(import_run.c.id == run_id).values(
                done=seq + 1, total=total, counts=json.dumps(dict(counts)), alive_at=self.storage.now_iso()))

    def beat(self, run_id: str) -> None:
        """The run is alive (between outcomes: a slow OAI-PMH page, a large file)."""
        with self.storage.write_transaction(durable=False) as conn:
            conn.execute(update(import_run).where(import_run.c.id == run_id, import_run.c.finished_at.is_(None))
                         .values(alive_at=self.storage.now_iso()))

    def finish(self, run_id: str, stopped: str | None, total: int | None) -> None:
        """The run ended: every record done, or the source stopped (``stopped`` says why)."""
        with self.storage.write_transaction() as conn:
            conn.execute(update(import_run).where(import_run.c.id == run_id).values(
                finished_at=self.storage.now_iso(), stopped=stopped, stopped_message=_json(to_record(stopped)), total=total))

    def find(self, run_id: str) -> ImportRun | None:
        row = self.storage.read(select(*_RUN_COLUMNS).where(import_run.c.id == run_id)).first()
        return None if row is None else _run(row)

    def recent(self, limit: int = KEPT_RUNS) -> list[ImportRun]:
        """The newest runs first."""
        rows = self.storage.read(select(*_RUN_COLUMNS).order_by(import_run.c.started_at.desc()).limit(limit))
        return [_run(row) for row in rows]

    def source_data(self, run_id: str) -> bytes | None:
        """The bytes of the run's file (``None`` for an OAI-PMH URL)."""
        return self.storage.read(select(import_run.c.source_data).where(import_run.c.id == run_id)).scalar()

    def outcomes(self, run_id: str, after: int = -1) -> list[dict[str, Any]]:
        """The run's outcomes in order (from ``after + 1``), each as the report's row, its reason a
        message again (shown in the reader's language)."""
        rows = self.storage.read(select(import_run_outcome.c.outcome).where(
            import_run_outcome.c.run_id == run_id, import_run_outcome.c.seq > after).order_by(import_run_outcome.c.seq))
        outcomes = []
        for row in rows:
            outcome = json.loads(row.outcome)
            outcome["reason"] = from_record(outcome["reason"], outcome.pop("reason_message"))
            outcomes.append(outcome)
        return outcomes


#: Everything of a run but its source's bytes.
_RUN_COLUMNS = [column for column in import_run.c if column.name != "source_data"]


def _run(row: Any) -> ImportRun:
    return ImportRun(
        id=row.id, source=row.source, dry_run=bool(row.dry_run), update=bool(row.update_held),
        started_by=row.started_by, started_at=row.started_at, alive_at=row.alive_at, finished_at=row.finished_at,
        total=row.total, done=row.done, counts=json.loads(row.counts),
        stopped=from_record(row.stopped, json.loads(row.stopped_message) if row.stopped_message else None),
    )


def _json(value: object) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)

