"""Resolution traces, kept for their permalinks within two bounds: a number of traces
(``IBIPORTAL_TRACE_RETENTION``) and a number of bytes (``IBIPORTAL_TRACE_BYTES``).

Anyone can make the portal store a trace (every resolution does), and an Archive chooses what
its answers hold, so neither count nor size may grow without limit: each save drops the oldest
traces beyond either bound. The newest one is always kept, whatever its size, and what one trace
may hold is capped here too (:func:`stored_trace`).

Saves are **group-committed**: threads of one process saving at once (a reference list's
resolutions, a burst of requests) have their traces written by whichever of them gets the write
first, in one transaction, while the others wait for that commit. A save still returns only once
its trace is committed; a lone save is one transaction as before. Without it each trace cost a
commit (an fsync) and a pruning query over every kept trace, 12-18 ms, and traces were the
bottleneck of checking a reference list (``benchmarks/references.py``).

**Pruning runs in batches.** A pruning reads the index of every kept trace (their times and
sizes), so its cost grows with the retention; run on every save it was a third of an uncached
resolution's CPU (a window query over 1,000 traces, 7 ms: ``benchmarks/uncached.py``). A process
prunes on its first save, then once every ``keep // PRUNE_FRACTION`` traces it saves (every save
while the retention is under :data:`PRUNE_FRACTION`): each save pays for a fixed share of the
index whatever the retention, and between two prunings the table holds at most that many traces
more per process (1000 // 64 = 15 for the default retention of 1,000). Each pruning brings the
table back to the newest ``keep`` traces within the byte budget.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

from sqlalchemy import Connection, Integer, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ..i18n import N_, Message, number, to_record
from .database import Storage
from .schema import trace, trace_run

#: How a trace was asked, of its body's ``request``, kept beside it for the history to list
#: (``trace.options``): which Archives, the faulty demo ones or not, as which client.
TRACE_OPTIONS = ("archives", "include_faulty", "client_ip", "accept_language")
#: What a stored trace keeps of each Archive's answer, in characters (and as much of its pairs):
#: enough for any answer of the standard's examples many times over.
STORED_ANSWER_CHARS = 16_384

#: A process prunes once every ``keep // PRUNE_FRACTION`` traces it saves (module docstring).
PRUNE_FRACTION = 64

_NEWEST_FIRST = (trace.c.created_at.desc(), trace.c.id.desc())
#: The traces beyond the newest ``keep``: the index walked past ``keep`` entries (its ``LIMIT``
#: is none; SQLite writes it ``LIMIT -1``).
_BEYOND_COUNT = delete(trace).where(trace.c.id.in_(
    select(trace.c.id).order_by(*_NEWEST_FIRST).offset(bindparam("keep", type_=Integer))))
_TOTAL_BYTES = select(func.coalesce(func.sum(trace.c.size), 0))
_OLDEST_FIRST = select(trace.c.id, trace.c.size).order_by(trace.c.created_at, trace.c.id)
#: The columns a trace is saved with (:meth:`TraceStore.save_trace`'s row).
_ROW = ("id", "created_at", "persistent_url", "outcome", "body", "size", "ibi", "options")
#: The trace's INSERT as each dialect writes it, compiled once, with the order of its parameters
#: where the driver takes them by position (SQLite's ``?``): run as the driver's SQL, a save skips
#: SQLAlchemy's keying and compiling of the statement (every resolution saves one).
_INSERTS: dict[str, tuple[str, tuple[str, ...] | None]] = {}


def stored_trace(body: dict) -> dict:
    """A trace's JSON as stored: each Archive's answer and its pairs cut at
    :data:`STORED_ANSWER_CHARS`, with a note saying so, so that one trace stays small whatever
    the Archives send (the transport reads up to 256 KiB of each, and there may be many)."""
    for step in body["trace"]["steps"]:
        raw = step.get("raw_answer")
        if raw is not None and len(raw) > STORED_ANSWER_CHARS:
            step["raw_answer"] = raw[:STORED_ANSWER_CHARS]
            _add_note(step, N_("the stored answer is cut at %(kept)s of its %(length)s characters",
                               kept=number(STORED_ANSWER_CHARS), length=number(len(raw))))
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
            _add_note(step, N_("the stored pairs are cut at %(kept)s of their %(length)s characters",
                               kept=number(STORED_ANSWER_CHARS), length=number(total)))
    return body


def _add_note(step: dict, note: Message) -> None:
    """A note on a stored step, kept with its message as the step's own notes are
    (``notes_i18n``, ibiportal.resolver.trace), so that a page shows it in its reader's language."""
    records = step.get("notes_i18n") or [None] * len(step["notes"])
    step["notes"] = [*step["notes"], note]
    step["notes_i18n"] = [*records, to_record(note)]


@dataclass(frozen=True)
class HistoryQuery:
    """Which kept traces to list: of any of ``ibis`` (the IBI in its forms), with ``outcome``
    (``found`` or an alert's reason), created from ``since`` and before ``before`` (ISO 8601 UTC
    texts, compared as text as they are stored), page ``page`` of ``per_page``."""

    ibis: tuple[str, ...] = ()
    outcome: str | None = None
    since: str | None = None
    before: str | None = None
    page: int = 1
    per_page: int = 25


@dataclass(frozen=True)
class HistoryEntry:
    """One kept trace as the history lists it (its body is read only when it is opened)."""

    trace_id: str
    created_at: str
    persistent_url: str
    outcome: str
    ibi: str | None
    options: dict | None = None


@dataclass(frozen=True)
class HistoryPage:
    entries: tuple[HistoryEntry, ...]
    total: int


class TraceStore:
    """Stored traces over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def save_trace(
        self, trace_id: str, persistent_url: str, outcome: str, body: dict, keep: int, budget_bytes: int,
        ibi: str | None = None,
    ) -> None:
        """Store a trace (of ``ibi``, the IBI resolved, for the history's filter); the oldest
        beyond ``keep`` traces or ``budget_bytes`` bytes are dropped at this process's next
        pruning (module docstring). Returns once it is committed (with the traces other threads
        were saving at once)."""
        text = json.dumps(body)
        asked = body.get("request") or {}
        options = {name: asked[name] for name in TRACE_OPTIONS if name in asked}
        row = {"id": trace_id, "created_at": self.storage.now_iso(), "persistent_url": persistent_url, "outcome": outcome,
               "body": text, "size": len(text.encode("utf-8")), "ibi": ibi,
               "options": json.dumps(options) if options else None}
        group = _group_of(self.storage.database.url)
        pending = _Pending(row)
        with group.queued:
            group.queue.append(pending)
        with group.writing:
            if not pending.done:
                with group.queued:
                    batch, group.queue = group.queue, []
                group.unpruned += len(batch)
                prune = group.unpruned >= max(1, keep // PRUNE_FRACTION) or not group.pruned_once
                try:
                    self._write(batch, keep, budget_bytes, prune)
                    if prune:
                        group.unpruned, group.pruned_once = 0, True
                except BaseException as error:
                    for each in batch:
                        each.error = error
                    raise
                finally:
                    for each in batch:
                        each.done = True
        if pending.error is not None:
            raise pending.error

    def _write(self, batch: list[_Pending], keep: int, budget_bytes: int, prune: bool) -> None:
        """One transaction: every trace of ``batch``, then, if ``prune``, the pruning. Not durable
        (``Storage.write_transaction``): on SQLite a commit that waited for the disk held the
        database's one write lock meanwhile, and the other workers' traces queued behind it, their
        cores idle (``benchmarks/uncached.py``); a trace lost in a power failure reads "expired"."""
        with self.storage.write_transaction(durable=False) as conn:
            _insert(conn, [pending.row for pending in batch])
            if prune:
                _prune(conn, keep, budget_bytes)

    def recent_traces(self, limit: int) -> list[tuple[str, str, dict]]:
        """The ``limit`` newest traces as (id, created_at, JSON body), newest first: what the
        Archive health page summarises."""
        rows = self.storage.read(
            select(trace.c.id, trace.c.created_at, trace.c.body)
            .order_by(trace.c.created_at.desc(), trace.c.id.desc())
            .limit(limit)
        )
        return [(row.id, row.created_at, json.loads(row.body)) for row in rows]

    def history(self, query: HistoryQuery) -> HistoryPage:
        """The kept traces ``query`` asks for, newest first, one page of them and how many in all."""
        conditions = []
        if query.ibis:
            # the IBI column, and for traces stored before it, the persistent URL that names it
            conditions.append(or_(trace.c.ibi.in_(query.ibis),
                                  *(trace.c.persistent_url.contains(ibi, autoescape=True) for ibi in query.ibis)))
        if query.outcome:
            conditions.append(trace.c.outcome == query.outcome)
        if query.since:
            conditions.append(trace.c.created_at >= query.since)
        if query.before:
            conditions.append(trace.c.created_at < query.before)
        connection = self.storage.connection
        total = connection.execute(select(func.count()).select_from(trace).where(*conditions)).scalar_one()
        rows = connection.execute(
            select(trace.c.id, trace.c.created_at, trace.c.persistent_url, trace.c.outcome, trace.c.ibi, trace.c.options)
            .where(*conditions)
            .order_by(trace.c.created_at.desc(), trace.c.id.desc())
            .limit(query.per_page).offset((query.page - 1) * query.per_page)
        )
        entries = tuple(HistoryEntry(row.id, row.created_at, row.persistent_url, row.outcome, row.ibi,
                                     json.loads(row.options) if row.options else None) for row in rows)
        return HistoryPage(entries, total)

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


def _insert(conn: Connection, rows: list[dict]) -> None:
    """``rows`` (each with every column of :data:`_ROW`) inserted by the statement compiled once."""
    dialect = conn.dialect
    compiled = _INSERTS.get(dialect.name)
    if compiled is None:
        statement = insert(trace).values({name: bindparam(name) for name in _ROW}).compile(dialect=dialect)
        compiled = _INSERTS[dialect.name] = (statement.string, tuple(statement.positiontup or ())
                                             if statement.positional else None)
    sql, order = compiled
    conn.exec_driver_sql(sql, rows if order is None else [tuple(row[name] for name in order) for row in rows])


def _prune(conn, keep: int, budget_bytes: int) -> None:
    """Drop the traces beyond the newest ``keep``, then the oldest while the rest exceed
    ``budget_bytes``, the newest always kept: the newest traces whose bytes, counted from the
    newest, stay within the budget are what remains. Reads what it drops, no more (the oldest
    traces first, usually one or two)."""
    conn.execute(_BEYOND_COUNT, {"keep": keep})
    excess = conn.execute(_TOTAL_BYTES).scalar_one() - budget_bytes
    if excess <= 0:
        return
    dropped: list[str] = []
    rows = conn.execute(_OLDEST_FIRST)
    candidate = rows.fetchone()
    while candidate is not None and excess > 0:
        following = rows.fetchone()
        if following is None:  # the newest stays
            break
        dropped.append(candidate.id)
        excess -= candidate.size
        candidate = following
    rows.close()
    if dropped:
        conn.execute(delete(trace).where(trace.c.id.in_(dropped)))


class TraceRuns:
    """Traces started from the Trace page, by fingerprint (who asked, what, with which options),
    so that a repeated identical request joins the trace already running instead of asking every
    Archive again. The row is claimed in the database: every worker and node sharing it (one
    PostgreSQL) sees the same claims, and its primary key lets only one of two simultaneous
    claims win (the loser reads the winner's)."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def claim(self, fingerprint: str, trace_id: str, now: str, fresh_after: str, running_after: str) -> tuple[str, bool]:
        """``(trace_id, True)`` when this request is to run its trace, under ``trace_id``; else
        ``(the running trace's id, False)``: the trace of ``fingerprint`` started after
        ``running_after`` and not finished, or finished after ``fresh_after`` (ISO 8601 UTC).
        Older claims of the fingerprint are replaced, and every claim older than ``running_after``
        and finished before ``fresh_after`` is dropped (the table stays small)."""
        for _ in range(3):  # a claim lost to a simultaneous one is read on the next round
            try:
                with self.storage.write_transaction() as conn:
                    row = conn.execute(select(trace_run).where(trace_run.c.fingerprint == fingerprint)).first()
                    if row is not None and _joinable(row, fresh_after, running_after):
                        return row.trace_id, False
                    conn.execute(delete(trace_run).where(
                        trace_run.c.started_at < running_after,
                        or_(trace_run.c.finished_at.is_(None), trace_run.c.finished_at < fresh_after)))
                    if row is not None:
                        conn.execute(delete(trace_run).where(trace_run.c.fingerprint == fingerprint,
                                                             trace_run.c.trace_id == row.trace_id))
                    conn.execute(insert(trace_run).values(fingerprint=fingerprint, trace_id=trace_id, started_at=now))
                    return trace_id, True
            except IntegrityError:
                continue
        raise RuntimeError(f"the trace run {fingerprint} could not be claimed in three rounds")

    def finish(self, fingerprint: str, trace_id: str, now: str) -> None:
        """The trace is stored: identical requests join it for a few seconds more."""
        with self.storage.write_transaction() as conn:
            conn.execute(update(trace_run).where(trace_run.c.fingerprint == fingerprint, trace_run.c.trace_id == trace_id)
                         .values(finished_at=now))

    def abandon(self, fingerprint: str, trace_id: str) -> None:
        """The trace failed: the requests waiting for it run their own."""
        with self.storage.write_transaction() as conn:
            conn.execute(delete(trace_run).where(trace_run.c.fingerprint == fingerprint, trace_run.c.trace_id == trace_id))

    def state(self, fingerprint: str, trace_id: str) -> str:
        """``stored`` once the trace is kept, ``running`` while its claim stands, else ``gone``
        (reads run in autocommit: each look sees what other workers and nodes committed)."""
        connection = self.storage.connection
        if connection.execute(select(trace.c.id).where(trace.c.id == trace_id)).first() is not None:
            return "stored"
        claimed = connection.execute(select(trace_run.c.trace_id).where(
            trace_run.c.fingerprint == fingerprint, trace_run.c.trace_id == trace_id)).first()
        return "running" if claimed is not None else "gone"


def _joinable(row, fresh_after: str, running_after: str) -> bool:
    if row.finished_at is None:
        return row.started_at >= running_after
    return row.finished_at >= fresh_after


@dataclass(eq=False)
class _Pending:
    """A trace waiting for its group's commit: written (``done``), or failed with ``error``."""

    row: dict
    done: bool = False
    error: BaseException | None = None


@dataclass(eq=False)
class _Group:
    """The traces of one database being saved in this process: ``queued`` guards the queue,
    ``writing`` is held by the one thread writing a batch; how many it saved since it pruned."""

    queue: list[_Pending] = field(default_factory=list)
    queued: threading.Lock = field(default_factory=threading.Lock)
    writing: threading.Lock = field(default_factory=threading.Lock)
    unpruned: int = 0  # traces saved since the last pruning (guarded by ``writing``)
    pruned_once: bool = False


_GROUPS: dict[str, _Group] = {}
_GROUPS_LOCK = threading.Lock()


def _group_of(url: str) -> _Group:
    with _GROUPS_LOCK:
        return _GROUPS.setdefault(url, _Group())
