"""The portal's database: named by ``IBIPORTAL_DATABASE`` (a file path for the embedded SQLite,
or a URL: ``sqlite:///path``, ``postgresql+psycopg://user@host:port/db``), reached through
SQLAlchemy Core. One engine per database and process; a :class:`Storage` is one connection,
for a request or a job.

Transactions are explicit. Reads run on their own (autocommit: no transaction is left open
between requests) through :meth:`Storage.read`, which bridges a brief restart of a database
server with one retry; every write is one short :meth:`Storage.write_transaction`, never
retried. On SQLite it starts with ``BEGIN IMMEDIATE``, which takes the database's write lock
first, so a read then a write inside it is atomic across worker processes; on PostgreSQL it is
a plain ``BEGIN`` and what must not race is read ``FOR UPDATE`` (see ``identifiers.py``).
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Connection, CursorResult, Engine, Executable, Table, create_engine, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError

from .. import metrics
from ..ibi.clock import Clock, utc_now
from .private_files import make_private
from ..errors import IbiError
from .outage import READ_RETRY_PAUSE_SECONDS, unreachable
from .schema import SCHEMA_REVISION
from .signal import signal_file, write_signal_file


#: How long a SQLite writer waits for another process's transaction (seconds). Minting holds
#: the write lock only for a read and two writes, so this is generous.
BUSY_TIMEOUT_SECONDS = 30

#: Connections per process to a server database: a worker's request threads plus the
#: resolver threads reading the own Archive share them; each holds one for milliseconds. So
#: PostgreSQL's max_connections must be at least nodes x workers x 10 (docs/storage.md).
SERVER_POOL_SIZE = 5
SERVER_POOL_OVERFLOW = 5

#: Connections a process keeps open to a SQLite file. A SQLite connection is only a file handle,
#: but opening one (and its first statement, which reads the schema) costs about a millisecond;
#: with more threads reading at once than the pool keeps (a reference check's 32 resolutions,
#: each reading the own Archive), the overflow connections were opened and closed for every read,
#: a fifth of the check's time (``benchmarks/references.py``).
SQLITE_POOL_SIZE = 64


class SchemaNotCurrent(IbiError):
    """The database is not at the schema this code needs: the operator runs ``db upgrade``."""

    def __init__(self, url: str, revision: str | None):
        self.revision = revision
        at = f"at revision {revision}" if revision else "empty (no tables)"
        super().__init__(
            f"the database {url} is {at}, this portal needs revision {SCHEMA_REVISION}: "
            "run 'flask --app app db upgrade'"
        )


def database_url(setting: str) -> str:
    """The SQLAlchemy URL of ``IBIPORTAL_DATABASE``: a file path means the embedded SQLite.

    ``postgresql://`` is read as ``postgresql+psycopg://`` (psycopg 3 is the driver installed).
    Raises ``ValueError`` naming the variable for anything else.
    """
    if "://" not in setting:
        return "sqlite:///" + os.path.abspath(setting)
    try:
        url = make_url(setting)
    except ArgumentError as error:
        raise ValueError(f"IBIPORTAL_DATABASE is neither a file path nor a database URL: {setting!r}") from error
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    if url.drivername not in ("sqlite", "postgresql+psycopg"):
        raise ValueError(
            f"IBIPORTAL_DATABASE must be a file path, sqlite:///… or postgresql+psycopg://…, not {url.drivername}://…"
        )
    return url.render_as_string(hide_password=False)


@dataclass(frozen=True)
class Database:
    """One database, as this process reaches it."""

    url: str
    engine: Engine

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @property
    def shown_url(self) -> str:
        """The URL without its password, for messages and logs."""
        return make_url(self.url).render_as_string(hide_password=True)

    def revision(self, connection: Connection) -> str | None:
        """The migration revision the database is at (``None``: no migrations ran yet)."""
        try:
            return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        except SQLAlchemyError as error:
            connection.rollback()
            if not self.is_sqlite and unreachable(error):
                raise  # a server that does not answer says nothing of its schema: an outage (503)
            return None  # no such table (SQLite reports that as an OperationalError too)


_DATABASES: dict[str, Database] = {}
_CURRENT: set[str] = set()  # URLs whose revision this process found current
_LOCK = threading.Lock()


def _forget_after_fork() -> None:
    """A forked child (a gunicorn worker) opens its own connections: pooled ones are the parent's."""
    _DATABASES.clear()
    _CURRENT.clear()


os.register_at_fork(after_in_child=_forget_after_fork)


def database(setting: str) -> Database:
    """The process's :class:`Database` for ``IBIPORTAL_DATABASE`` (one engine per URL)."""
    url = database_url(setting)
    found = _DATABASES.get(url)
    if found is None:
        with _LOCK:
            found = _DATABASES.get(url)
            if found is None:
                found = _DATABASES[url] = Database(url, _engine(url))
    return found


def private_sqlite_file(url: str) -> None:
    """Make the SQLite file of ``url`` readable by the portal's user alone before SQLite opens it.

    It holds the administrator's password hash, token hashes and traces. A new file is created
    0600 (SQLite would create it 0644 under the usual umask), and SQLite creates the write-ahead
    log and its index (``-wal``, ``-shm``) and a rollback journal with the database file's
    permissions. Files an earlier version left open to other users lose group's and others'
    permissions (0644 becomes 0600; ``-wal`` and ``-shm`` too), with a warning in the log; one the
    portal may not change is only warned about.
    A missing folder is left to SQLite's own error; an in-memory database has no file.
    """
    if not url.startswith("sqlite"):
        return
    path = make_url(url).database
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except (FileExistsError, FileNotFoundError):
        pass
    for name in (path, path + "-wal", path + "-shm", path + "-journal"):
        make_private(name)


def _engine(url: str) -> Engine:
    # AUTOCOMMIT: the driver opens no transaction by itself; Storage.write_transaction does.
    if url.startswith("sqlite"):
        private_sqlite_file(url)
        engine = create_engine(
            url, isolation_level="AUTOCOMMIT",
            connect_args={"timeout": BUSY_TIMEOUT_SECONDS, "check_same_thread": False},
            pool_size=SQLITE_POOL_SIZE, max_overflow=-1,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(
        url, isolation_level="AUTOCOMMIT", pool_size=SERVER_POOL_SIZE, max_overflow=SERVER_POOL_OVERFLOW,
        pool_pre_ping=True,  # a restarted PostgreSQL leaves dead pooled connections behind
    )


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    """WAL lets readers go on while one process writes (the mode stays in the file); every commit
    waits for the disk (``synchronous`` FULL, SQLite's default, said here because a write that
    need not wait sets NORMAL for its own transaction, and the next durable one FULL again:
    :meth:`Storage.write_transaction`)."""
    dbapi_connection.execute("PRAGMA journal_mode=WAL")
    dbapi_connection.execute(f"PRAGMA synchronous={_SQLITE_DURABLE}")
    dbapi_connection.execute(f"PRAGMA mmap_size={SQLITE_MMAP_BYTES}")


#: How much of a SQLite file its connections read through a memory map rather than ``read``
#: calls into each connection's own page cache (2 MB by default): the pages of a large collection
#: are then shared by every connection of the process, and a lookup that misses the page cache
#: costs no system call (``benchmarks/growth.py``: 1,000 against 100,000 items).
SQLITE_MMAP_BYTES = 1024 * 1024 * 1024

#: SQLite's ``synchronous`` for a commit that waits for the disk, and for one that does not (in
#: WAL mode: the log is written, not flushed; the next durable commit flushes it, in order).
_SQLITE_DURABLE, _SQLITE_NOT_DURABLE = "FULL", "NORMAL"
#: Where a SQLite connection's ``info`` says which of the two its last write transaction set
#: (absent: FULL, as every connection starts: :func:`_sqlite_pragmas`).
_SQLITE_SYNCHRONOUS = "ibiportal.synchronous"


#: Where :func:`~ibiportal.storage.history.record_change` leaves the actions of a transaction's
#: changes (in the connection's ``info``), for the metrics to count them once it commits.
COMMITTED_CHANGES = "ibiportal.changes"

#: Where a :class:`Storage` leaves its clock (in its connection's ``info``), so that what is
#: written with only the connection at hand (:func:`now_iso`) is dated by the one clock too.
CLOCK = "ibiportal.clock"


class Storage:
    """A connection to the portal's database, checked to be at :data:`SCHEMA_REVISION`.

    ``on_commit`` callbacks registered inside a write transaction run once it is committed.
    ``announce`` tells the other workers and nodes of each commit that changed what resolutions
    answer, with a number unique to it (``signal.py``);
    by default, a SQLite database's workers learn it from the file beside it.

    A server database that does not answer connecting or a :meth:`read` is asked once more after
    ``retry_pause`` seconds (``None``: never), once per Storage (a request, a job): a restart
    shorter than the pause costs a reader nothing, and a longer outage holds it at most that much
    longer before its 503. Only what changes nothing is retried: see :meth:`read`.

    ``clock`` dates every time written (:meth:`now_iso`): the application's one clock.
    """

    def __init__(self, setting: str, announce: Callable[[int], None] | None = None, check: bool = True,
                 retry_pause: float | None = READ_RETRY_PAUSE_SECONDS, pause: Callable[[float], None] = time.sleep,
                 clock: Clock = utc_now):
        self.clock = clock
        self.database = database(setting)
        self._announce = announce if announce is not None else _beside_sqlite_file(setting)
        self._retry_pause = None if self.database.is_sqlite else retry_pause  # a file has no restart to bridge
        self._pause = pause
        self._writing = False
        self._with_commit = None  # what execute_with_commit sends with the COMMIT
        self._announcement = 0  # what _announce_committed tells, set by announce_after_commit
        self.connection = self._connect()
        self.connection.info[CLOCK] = clock
        self._after_commit: list[Callable[[], None]] = []
        if check and self.database.url not in _CURRENT:
            revision = self.database.revision(self.connection)
            if revision != SCHEMA_REVISION:
                self.connection.close()
                raise SchemaNotCurrent(self.database.shown_url, revision)
            _CURRENT.add(self.database.url)

    def now_iso(self) -> str:
        """Now on this storage's clock, as every time stored by the portal is written."""
        return iso(self.clock())

    def _connect(self) -> Connection:
        """A pooled connection (pre-pinged); connecting changes nothing, so it may be retried."""
        try:
            return self.database.engine.connect()
        except SQLAlchemyError as error:
            self._before_retry(error)
        return self.database.engine.connect()

    def read(self, statement: Executable, parameters: Mapping[str, Any] | None = None) -> CursorResult:
        """Run a read (a SELECT) outside any write transaction, with the values of its bound
        ``parameters`` (a statement built once with ``bindparam`` is not built and keyed again for
        each read); if the database did not answer it, once more on a new connection after the
        pause (see the class).

        Safe to run twice: reads run in autocommit, so a SELECT holds nothing and changes nothing,
        and the second answers what the first would have. Writes are never retried, since a lost
        COMMIT may or may not have happened: they run on :meth:`write_transaction`'s connection,
        and a read inside one is part of it, so it is not retried either.
        """
        if self._writing:
            return self.connection.execute(statement, parameters)
        try:
            return self.connection.execute(statement, parameters)
        except DBAPIError as error:
            if not error.connection_invalidated:  # a wrong statement, not a lost connection
                raise
            self._before_retry(error)
        self.connection.rollback()  # SQLAlchemy's side of the lost connection: the retry takes a new one
        return self.connection.execute(statement, parameters)

    def _before_retry(self, error: SQLAlchemyError) -> None:
        """Raise ``error`` unless it is the first the unreachable server gave this Storage; then pause."""
        if self._retry_pause is None or not unreachable(error):
            raise error
        self._retry_pause, pause = None, self._retry_pause  # one retry per Storage
        self._pause(pause)

    @classmethod
    def unchecked(cls, setting: str) -> Storage:
        """A connection whatever the schema: for the readiness check, which reports it."""
        return cls(setting, check=False)

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``: the few statements that differ ask."""
        return self.database.engine.dialect.name

    def close(self) -> None:
        self.connection.close()

    def insert(self, table: Table) -> postgresql.Insert | sqlite.Insert:
        """An INSERT that can say what to do ``ON CONFLICT`` (both dialects spell it alike)."""
        return (postgresql if self.dialect == "postgresql" else sqlite).insert(table)

    @contextmanager
    def write_transaction(self, durable: bool = True) -> Iterator[Connection]:
        """One transaction: committed when the block ends, rolled back if it raises.

        ``durable=False``: the commit does not wait for the disk (PostgreSQL's
        ``synchronous_commit`` off for this transaction; SQLite's ``synchronous`` NORMAL for it, in
        WAL mode), so whatever it locked is free a disk flush sooner: on SQLite the whole
        database, which every other process's writes wait for. Only for a write that a later
        durable commit carries to the disk (the log is written in order, and flushing a commit
        flushes everything before it), and that may be lost in a power failure: it was never the
        basis of anything handed out that must last (a trace: its permalink would then say
        "expired", as it does once the trace is pruned).
        """
        if self.database.is_sqlite:
            self._synchronous(_SQLITE_DURABLE if durable else _SQLITE_NOT_DURABLE)
            with self._transaction("BEGIN IMMEDIATE") as connection:
                yield connection
            return
        # one round trip for both (psycopg sends a statement without parameters as a simple query)
        with self._transaction("BEGIN" if durable else "BEGIN; SET LOCAL synchronous_commit TO OFF") as connection:
            yield connection

    def _synchronous(self, level: str) -> None:
        """SQLite's ``synchronous`` for the write transaction about to begin, set only when the
        connection's last one left another: the pooled connection keeps what it was set to (in
        its ``info``), so that a run of writes that need not wait for the disk (a trace for every
        resolution) sets it once, not twice a write, and a durable write after one of them sets
        FULL again before it begins."""
        info = self.connection.info
        if info.get(_SQLITE_SYNCHRONOUS, _SQLITE_DURABLE) != level:
            self.connection.exec_driver_sql(f"PRAGMA synchronous={level}")
            info[_SQLITE_SYNCHRONOUS] = level

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[Connection]:
        """:meth:`write_transaction` once its kind is chosen: ``begin``, the block, the commit."""
        self.connection.exec_driver_sql(begin)
        self._writing = True
        self._with_commit = None
        try:
            yield self.connection
            if self._with_commit is not None:  # inside the try: if it fails, the transaction is rolled back
                self.connection.exec_driver_sql(f"{self._with_commit}; COMMIT")
        except BaseException:
            self._after_commit.clear()
            if self.connection.invalidated:  # the server went away: nothing to roll back there
                self.connection.rollback()  # (SQLAlchemy's side: the connection may be used again)
            else:  # (an invalidated connection's info, and the changes it held, went with it)
                self.connection.info.pop(COMMITTED_CHANGES, None)
                self.connection.exec_driver_sql("ROLLBACK")
            raise
        finally:
            self._writing = False
        if self._with_commit is None:
            self.connection.exec_driver_sql("COMMIT")
        metrics.items_changed(self.connection.info.pop(COMMITTED_CHANGES, ()))
        callbacks, self._after_commit = self._after_commit, []
        for callback in callbacks:
            callback()

    def execute_with_commit(self, statement: Executable) -> None:
        """Inside a write transaction, as its last statement: on PostgreSQL ``statement`` is sent
        with the ``COMMIT`` in one round trip (its values written into the SQL, which the dialect
        quotes), so that a row lock taken before it is held one round trip to the worker less
        while the worker competes for the cores (benchmarks/minting.py); SQLite, in the process,
        runs it at once."""
        if self.database.is_sqlite:
            self.connection.execute(statement)
        else:
            self._with_commit = statement.compile(dialect=self.database.engine.dialect,
                                                  compile_kwargs={"literal_binds": True})

    def on_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` after the current write transaction commits (never if it rolls back),
        once however often it was registered in that transaction."""
        if callback not in self._after_commit:
            self._after_commit.append(callback)

    def announce_after_commit(self, number: int) -> None:
        """Inside a write transaction that changed what resolutions answer: once it is committed,
        tell every worker and node ``number``, unique to this commit (``signal.py``)."""
        self._announcement = number
        self.on_commit(self._announce_committed)

    def _announce_committed(self) -> None:
        if self._announce is not None:
            self._announce(self._announcement)


def _beside_sqlite_file(setting: str) -> Callable[[int], None] | None:
    if database_url(setting).startswith("sqlite"):
        path = signal_file(setting, "")
        return lambda generation: write_signal_file(path, generation)
    return None


def now_iso(conn: Connection) -> str:
    """Now on the clock of the :class:`Storage` ``conn`` belongs to, as every time stored by the
    portal is written."""
    return iso(conn.info.get(CLOCK, utc_now)())


def iso(at: datetime) -> str:
    """``at`` in UTC, microseconds included, with a ``Z``."""
    return at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
