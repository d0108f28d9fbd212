"""The change signal: how every worker process, on every node, learns at once what changed in
what resolutions answer, so that its resolution cache drops what is stale and nothing else.

Two kinds of change, both committed in the transaction of the change itself:

- the Archive set (an Archive included, excluded or removed): ``resolution_generation`` is
  bumped and every cache empties, since any IBI may now resolve elsewhere;
- an item (minted, edited, deleted, copied, its files or links changed): :func:`ibis_changed`
  adds its IBIs to ``resolution_change``, and caches drop only their outcomes.

An item's change takes no lock: writers of every node add their rows at once, and transactions
commit in any order, so a row's id does not say when it became visible. On PostgreSQL each row
is stamped with its transaction's id (``xact``), and a reader re-reads, besides the rows after
the newest id it has seen, the rows of the transactions that were still running when it last
read (``xact`` at or after that read's snapshot ``xmin``): every row committed since is among
them. Each process numbers the changes in the order it reads them (:func:`read_changes`). On
SQLite ``BEGIN IMMEDIATE`` lets one writer in at a time, so ids follow commits there.

Asking the database on each cache lookup would cost more than the lookup (benchmarks/cache.py),
so each commit is also announced, as a number unique to that commit (its newest change id, or
its new generation, told apart by their last bit), so that it differs from the one announced
before:

- to the node's own workers through a small memory-mapped file (``<database>-generation`` for
  SQLite, else one in the instance folder): a lookup compares 8 bytes;
- to every other node through Redis pub/sub when ``IBIPORTAL_REDIS_URL`` is set: each worker
  process listens on a thread and counts what it hears.

A lookup reads the database only when the file or the count changed, and then only the changes
it has not read. With Redis down, a node misses the other nodes' changes until it is
back (every reconnection counts as a change, so nothing is missed after it) and cached
redirects still expire by time.
"""
from __future__ import annotations

import logging
import mmap
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Connection, delete, func, insert, literal_column, null, select, update
from sqlalchemy.exc import SQLAlchemyError

from .. import metrics
from ..log_limits import LimitedLog
from .private_files import make_private
from .outage import STALE_SECONDS, unreachable
from .schema import minted_item, resolution_change, resolution_generation

if TYPE_CHECKING:
    from .database import Storage

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Changes:
    """The changes committed to what resolutions answer, as this process last read them.

    ``generation`` grows with every change of the Archive set (everything is dropped). IBI
    changes are numbered in the order this process read them (transactions commit in any order):
    ``last`` is the number of the newest, ``recent`` the newest as (number, casefolded IBI),
    oldest first, and every change after ``known_after`` is among them (older ones are no longer
    remembered). ``cursor`` is where the reader stands in the database's log of changes, the
    storage's business (``storage.signal.read_changes``). Immutable: a reader builds the next one.
    """

    generation: int
    last: int = 0
    recent: tuple[tuple[int, str], ...] = ()
    known_after: int = 0
    cursor: tuple = ()

    def ibis_after(self, change: int) -> frozenset[str] | None:
        """The IBIs changed after change ``change``; ``None`` when they are no longer all known."""
        if change >= self.last:
            return frozenset()
        if change < self.known_after:
            return None
        return frozenset(ibi for number, ibi in self.recent if number > change)

#: The Redis channel the generation is published on.
CHANNEL = "ibiportal:resolution-generation"

#: Seconds a Redis command may take before the portal gives up on it (Redis is on the LAN; a
#: stalled one must not hold a request).
REDIS_TIMEOUT_SECONDS = 0.5

#: Seconds between attempts to listen again after the connection to Redis was lost.
REDIS_RETRY_SECONDS = 0.5

#: Seconds between reads tried while the database does not answer (not one per lookup).
RETRY_SECONDS = 1.0

#: IBI changes kept in the database: a process that has read none of the last this many
#: (asleep through a burst of edits) empties its cache instead of reading them.
RETAINED_CHANGES = 10_000

#: The old changes are dropped when a change's id is a multiple of this.
PRUNE_EVERY = 100

#: IBI changes a process remembers, for resolutions that started before the newest were read.
REMEMBERED_CHANGES = 1_000

_SIGNAL_BYTES = 8


def bump_resolution_generation(storage: Storage, conn: Connection) -> None:
    """Inside the caller's write transaction that changes the Archive set: every worker's
    resolution cache empties at its next lookup, once the transaction is committed (then the
    change is announced). An item's change is not one: see :func:`ibis_changed`."""
    generation = conn.execute(
        update(resolution_generation).where(resolution_generation.c.id == 1)
        .values(value=resolution_generation.c.value + 1).returning(resolution_generation.c.value)
    ).scalar_one()
    storage.announce_after_commit(2 * generation + 1)  # odd: no change id's number (module docstring)


def ibis_changed(storage: Storage, conn: Connection, ibis: Iterable[str], *, both_forms: bool = False) -> None:
    """THE call for "these IBIs changed": inside the caller's write transaction that mints,
    edits, deletes, copies or changes the files of an item, so that every cached resolution
    outcome of these IBIs (redirects and negative entries, in both forms, with every modifier, on
    every node) is dropped once the transaction is committed, and only those.

    Pass every form you know (repository name and IBIp); a minted item's other form is found
    here, unless ``both_forms`` says that ``ibis`` are both forms of one item already (a mint).
    Changes to the Archive set are not IBI changes: they call :func:`bump_resolution_generation`,
    which empties everything.

    No lock is taken (module docstring): a mint, an edit and an upload committing at once wait
    for none of each other here (benchmarks/minting.py). Call it last in the transaction: its ids
    are drawn here, and :func:`read_changes` counts on their commit following soon.
    """
    forms = {ibi for ibi in ibis if ibi}
    if not forms:
        return
    if not both_forms:
        for row in conn.execute(select(minted_item.c.rep, minted_item.c.ibip)
                                .where(minted_item.c.rep.in_(forms) | minted_item.c.ibip.in_(forms))):
            forms.update((row.rep, row.ibip))
    changed = sorted({form.casefold() for form in forms})
    ids = conn.execute(_INSERT_CHANGES, [{"ibi": ibi} for ibi in changed]).scalars().all()
    if any(number % PRUNE_EVERY == 0 for number in ids):  # now and then
        conn.execute(delete(resolution_change).where(resolution_change.c.id <= max(ids) - RETAINED_CHANGES))
    storage.announce_after_commit(2 * max(ids))  # even: no generation's number


#: Built once, so that SQLAlchemy finds it compiled (it runs in every mint, edit and upload); the
#: rows go as one INSERT … VALUES (SQLAlchemy's "insertmanyvalues").
_INSERT_CHANGES = insert(resolution_change).returning(resolution_change.c.id)


#: The oldest transaction still running (PostgreSQL): every transaction with a smaller id has
#: ended, so its rows are visible to whoever reads now, or will never be.
_RUNNING_FROM = literal_column("pg_snapshot_xmin(pg_current_snapshot())::text::bigint")


def read_changes(storage: Storage, seen: Changes | None) -> Changes:
    """What changed after ``seen`` (``None``: nothing read yet, so only where things stand).

    ``seen.cursor`` is (the newest change id read, the oldest transaction then running or
    ``None`` on SQLite, the ids read of that transaction or later ones): the rows after that id,
    and those of transactions from that one on not read yet, are the new changes, numbered after
    ``seen.last`` in the order read. The horizon is read before the rows, so that a transaction
    the rows' snapshot did not see is at or after it. When some of the new changes may no longer
    be kept (more than :data:`RETAINED_CHANGES` ids after the newest read), the result says none
    is known before the newest, and caches empty. (Ids are drawn as :func:`ibis_changed` runs,
    last in its transaction, so a row's transaction does not stay open while thousands of others
    commit.) At most :data:`REMEMBERED_CHANGES` are remembered.
    """
    running_from = _RUNNING_FROM if storage.dialect == "postgresql" else null()
    generation, horizon = storage.read(
        select(resolution_generation.c.value, running_from).where(resolution_generation.c.id == 1)
    ).one()
    if seen is None:
        newest = storage.read(select(func.coalesce(func.max(resolution_change.c.id), 0))).scalar_one()
        running = () if horizon is None else storage.read(
            select(resolution_change.c.id).where(resolution_change.c.xact >= horizon)).scalars()
        return Changes(generation, cursor=(newest, horizon, frozenset(running)))
    last_id, last_horizon, pending = seen.cursor or (0, None, frozenset())
    unread = resolution_change.c.id > last_id
    if last_horizon is not None:
        unread = unread | (resolution_change.c.xact >= last_horizon)
    rows = storage.read(
        select(resolution_change.c.id, resolution_change.c.ibi, resolution_change.c.xact)
        .where(unread).order_by(resolution_change.c.id)
    ).all()
    newest_id = max([last_id, *(row.id for row in rows)])
    cursor = (newest_id, horizon,
              frozenset(row.id for row in rows if horizon is not None and row.xact is not None and row.xact >= horizon))
    new = [row for row in rows if row.id not in pending]
    if not new:
        return Changes(generation, seen.last, seen.recent, seen.known_after, cursor)
    if newest_id - RETAINED_CHANGES > last_id:  # the ones between may have been dropped unread
        newest = seen.last + max(len(new), newest_id - last_id)
        return Changes(generation, newest, (), newest, cursor)
    recent = (*seen.recent, *((seen.last + number, row.ibi) for number, row in enumerate(new, start=1)))
    newest = seen.last + len(new)
    known_after = seen.known_after
    if len(recent) > REMEMBERED_CHANGES:
        known_after = recent[-REMEMBERED_CHANGES - 1][0]
        recent = recent[-REMEMBERED_CHANGES:]
    return Changes(generation, newest, recent, known_after, cursor)


def signal_file(setting: str, instance_path: str) -> str:
    """Where a node's workers watch for changes: beside a SQLite file, else in the instance folder."""
    if "://" not in setting:
        return setting + "-generation"
    if setting.startswith("sqlite:///"):
        return setting[len("sqlite:///"):] + "-generation"
    return os.path.join(instance_path, "resolution-generation")


def write_signal_file(path: str, generation: int) -> None:
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.pwrite(descriptor, generation.to_bytes(_SIGNAL_BYTES, "little"), 0)
    finally:
        os.close(descriptor)


class RedisChanges:
    """The generation published to, and heard from, the other nodes through Redis."""

    def __init__(self, url: str) -> None:
        import redis  # only deployments with IBIPORTAL_REDIS_URL need the package loaded

        self._redis = redis
        self.client = redis.Redis.from_url(
            url, socket_timeout=REDIS_TIMEOUT_SECONDS, socket_connect_timeout=REDIS_TIMEOUT_SECONDS
        )
        self.heard = 0  # messages heard and reconnections: any change of it means "read again"
        self._log = LimitedLog(logger)  # one line a minute while Redis is down, not one per change
        self._listener: threading.Thread | None = None

    def publish(self, number: int) -> None:
        """Tell every node; Redis down only delays other nodes (logged), never the change."""
        try:
            self.client.publish(CHANNEL, str(number))
        except self._redis.RedisError as error:
            metrics.unreachable("redis")
            self._log.warning("publish", "Redis unreachable, other nodes learn of this node's changes late: %s", error)
        else:
            self._log.recovered("publish", "Redis reachable again: other nodes learn of changes at once")

    def reachable(self) -> str | None:
        """``None`` when Redis answers a PING, else why not (for the readiness check)."""
        try:
            self.client.ping()
        except self._redis.RedisError as error:
            return str(error) or type(error).__name__
        return None

    def listen(self) -> None:
        """Start this process's listening thread (once)."""
        if self._listener is None:
            self._listener = threading.Thread(target=self._listen_forever, name="redis-changes", daemon=True)
            self._listener.start()

    def _listen_forever(self) -> None:
        lost = False  # logged once when the connection is lost, once when it is back
        while True:
            try:
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(CHANNEL)
                self.heard += 1  # changes published while not listening are read now
                if lost:
                    logger.warning("Redis reachable again: hearing other nodes' changes")
                    lost = False
                while True:
                    message = pubsub.get_message(timeout=30)
                    if message is not None:
                        self.heard += 1
            except self._redis.RedisError as error:
                metrics.unreachable("redis")
                if not lost:
                    logger.warning("Redis unreachable, not hearing other nodes' changes until it is back: %s", error)
                    lost = True
                time.sleep(REDIS_RETRY_SECONDS)


class GenerationSignal:
    """What changed (:class:`Changes`) for a process's cache lookups,
    read from the database only when the node's signal file or what Redis brought changed.

    ``read`` opens a connection and reads the changes after those given (:func:`read_changes`;
    the database stays the authority). The file is written after the commit, so whoever sees it
    change reads the new changes.
    """

    def __init__(self, path: str, read: Callable[[Changes | None], Changes], redis: RedisChanges | None = None,
                 clock: Callable[[], float] = time.monotonic, stale_seconds: float = STALE_SECONDS) -> None:
        make_private(path)  # created 0600; one an earlier version left 0644 is made so
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if os.fstat(descriptor).st_size < _SIGNAL_BYTES:
                os.ftruncate(descriptor, _SIGNAL_BYTES)
            self._map = mmap.mmap(descriptor, _SIGNAL_BYTES, access=mmap.ACCESS_READ)
        finally:
            os.close(descriptor)
        self._read = read
        self._redis = redis
        if redis is not None:
            redis.listen()
        self._state: tuple[bytes, int, Changes] | None = None  # (file seen, Redis count, changes)
        self._reading = threading.Lock()
        self._clock = clock
        self._stale_seconds = stale_seconds
        self._unreachable_since: float | None = None  # the database did not answer a read since then
        self._next_try = 0.0
        self._log = LimitedLog(logger)

    def current(self) -> Changes:
        """The changes; safe from several threads (one reads the database at a time, since each
        read starts where the last ended; the state is replaced in one assignment).

        While the database does not answer, the changes last read are answered for at most
        ``stale_seconds`` (cached redirects keep being served through a restart or an outage;
        the read is tried again at most every :data:`RETRY_SECONDS`), then the error is raised.
        """
        signal = self._map[:_SIGNAL_BYTES]
        heard = self._redis.heard if self._redis is not None else 0
        state = self._state
        if state is None or state[0] != signal or state[1] != heard:
            with self._reading:
                state = self._state
                if state is None or state[0] != signal or state[1] != heard:
                    return self._read_again(state, signal, heard)
        return state[2]

    def _read_again(self, state: tuple[bytes, int, Changes] | None, signal: bytes, heard: int) -> Changes:
        now = self._clock()
        if state is not None and self._unreachable_since is not None and now < self._next_try \
                and now - self._unreachable_since < self._stale_seconds:
            return state[2]
        try:
            changes = self._read(None if state is None else state[2])
        except SQLAlchemyError as error:
            if state is None or not unreachable(error):
                raise
            metrics.unreachable("database")
            self._unreachable_since = self._unreachable_since or now
            self._next_try = now + RETRY_SECONDS
            if now - self._unreachable_since >= self._stale_seconds:  # 0: nothing is served stale
                raise
            self._log.warning("unreachable", "database unreachable: cached resolutions are served as they "
                              "stood for up to %g s: %s", self._stale_seconds, error.__class__.__name__)
            return state[2]
        if self._unreachable_since is not None:
            self._unreachable_since = None
            self._log.recovered("unreachable", "database reachable again: cached resolutions are revalidated")
        self._state = (signal, heard, changes)
        return changes
