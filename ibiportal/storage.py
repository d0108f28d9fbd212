"""The only module that speaks SQL (SQLite by default).

Everything else asks for domain values through these functions; queries use ``?`` parameters
only. Transactions are explicit (``isolation_level=None``) because minting must read and
advance a subsystem's last date atomically across worker processes (``BEGIN IMMEDIATE``).
"""
from __future__ import annotations

import json
import mmap
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

from ibiportal.resolver.registration import (
    ArchiveDetails,
    ArchiveEvent,
    Confirmation,
    KeyHash,
    RegisteredArchive,
)
from ibiportal.resolver.transport import ArchiveEndpoint, Route

SCHEMA = (Path(__file__).with_name("schema.sql")).read_text(encoding="utf-8")

#: Database files this process has applied the schema to. A connection is opened per request
#: and per read of the own Archive; re-running the script each time cost ten times the connect.
_SCHEMA_APPLIED: set[str] = set()

#: How long a writer waits for another process's transaction (seconds). Minting holds the
#: write lock only for a read and two writes, so this is generous.
BUSY_TIMEOUT_SECONDS = 30


@dataclass(frozen=True)
class SubsystemClock:
    """A subsystem's persisted Algorithm 4 state (see schema.sql)."""

    last_date: Decimal
    last_reading: Decimal
    offset: Decimal


@dataclass(frozen=True)
class ItemLink:
    """A minted item's link to another IBI: ``nextedition``, or ``translation`` into ``language``."""

    relation: str
    target: str
    language: str = ""


@dataclass(frozen=True)
class Bibliographic:
    """What a reference needs beyond title, creators and date: the kind of item (an
    ``ibiportal.citation.ItemType`` slug such as ``doctoral thesis``), who published it where,
    its extent in pages, a thesis's degree and a report's number. All optional."""

    item_type: str | None = None
    publisher: str | None = None
    place: str | None = None
    extent: str | None = None
    degree: str | None = None
    report_number: str | None = None


#: Columns of ``minted_item`` added after its first release, applied to older databases.
BIBLIOGRAPHIC_COLUMNS = ("item_type", "publisher", "place", "extent", "degree", "report_number")


@dataclass(frozen=True)
class MintedItem:
    """A row of ``minted_item``: an identifier the portal issued and what was given with it."""

    rep: str
    ibip: str
    date: Decimal
    utc: str
    subsystem: str
    title: str | None = None
    target_url: str | None = None
    creators: tuple[str, ...] = ()
    item_date: str | None = None
    language: str | None = None
    bibliographic: Bibliographic = Bibliographic()


@dataclass(frozen=True)
class PrefixPairRecord:
    """A row of ``prefix_pair``: a pair added by an administrator or learnt, with where and when."""

    rep_prefix: str
    ibip_prefix: str
    source: str
    added_at: str


class Storage:
    """A connection to the portal's database, with the schema applied."""

    def __init__(self, path: str):
        self.path = path
        self.connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        self.connection.row_factory = sqlite3.Row
        self._generation_bumped = False
        if path not in _SCHEMA_APPLIED:  # WAL mode and the tables persist in the file
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.executescript(SCHEMA)
            self._add_missing_columns()
            _SCHEMA_APPLIED.add(path)

    def _add_missing_columns(self) -> None:
        """Upgrade a database made before ``minted_item`` had its bibliographic columns: SQLite's
        ``CREATE TABLE IF NOT EXISTS`` leaves an existing table as it was."""
        present = {row["name"] for row in self.connection.execute("PRAGMA table_info(minted_item)")}
        for column in BIBLIOGRAPHIC_COLUMNS:
            if column not in present:
                self.connection.execute(f"ALTER TABLE minted_item ADD COLUMN {column} TEXT")

    def close(self) -> None:
        self.connection.close()

    @contextmanager
    def write_transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``: takes the write lock first, so read-then-write is atomic."""
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield self.connection
        except BaseException:
            self.connection.execute("ROLLBACK")
            self._generation_bumped = False
            raise
        self.connection.execute("COMMIT")
        if self._generation_bumped:
            self._generation_bumped = False
            _write_generation_signal(self.path, self.resolution_generation())

    def bump_resolution_generation(self, conn: sqlite3.Connection) -> None:
        """Inside the caller's write transaction: every worker's resolution cache empties at its
        next lookup (GenerationSignal, written once the transaction is committed)."""
        conn.execute("UPDATE resolution_generation SET value = value + 1 WHERE id = 1")
        self._generation_bumped = True

    # -- minting -------------------------------------------------------------------------

    def subsystem_clock(self, conn: sqlite3.Connection, subsystem: str) -> SubsystemClock | None:
        row = conn.execute(
            "SELECT last_date, last_reading, clock_offset FROM subsystem_clock WHERE subsystem = ?",
            (subsystem,),
        ).fetchone()
        if row is None:
            return None
        return SubsystemClock(
            Decimal(row["last_date"]), Decimal(row["last_reading"]), Decimal(row["clock_offset"])
        )

    def record_minted(self, conn: sqlite3.Connection, item: MintedItem, clock: SubsystemClock) -> None:
        """Advance the subsystem's clock and store the item, inside the caller's transaction."""
        conn.execute(
            "INSERT INTO subsystem_clock (subsystem, last_date, last_reading, clock_offset)"
            " VALUES (?, ?, ?, ?) ON CONFLICT(subsystem) DO UPDATE SET"
            " last_date = excluded.last_date, last_reading = excluded.last_reading,"
            " clock_offset = excluded.clock_offset",
            (item.subsystem, str(clock.last_date), str(clock.last_reading), str(clock.offset)),
        )
        conn.execute(
            "INSERT INTO minted_item (rep, ibip, date, utc, subsystem, title, target_url,"
            " creators, item_date, language, created_at, item_type, publisher, place, extent, degree,"
            " report_number) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                item.rep,
                item.ibip,
                str(item.date),
                item.utc,
                item.subsystem,
                item.title,
                item.target_url,
                json.dumps(list(item.creators)),
                item.item_date,
                item.language,
                _now_iso(),
                *(getattr(item.bibliographic, column) for column in BIBLIOGRAPHIC_COLUMNS),
            ),
        )
        self.bump_resolution_generation(conn)  # a "not found" kept for this IBI is now wrong

    def add_item_link(self, conn: sqlite3.Connection, ibi: str, link: ItemLink) -> None:
        """Link a minted item (its IBIp) to another IBI, inside the caller's transaction."""
        conn.execute(
            "INSERT INTO item_link (ibi, relation, language, target) VALUES (?, ?, ?, ?)",
            (ibi, link.relation, link.language, link.target),
        )
        self.bump_resolution_generation(conn)  # e.g. "X!" now leads to the new edition

    def item_links(self, ibi: str) -> list[ItemLink]:
        """The links of a minted item (its IBIp)."""
        rows = self.connection.execute(
            "SELECT relation, target, language FROM item_link WHERE ibi = ? ORDER BY relation, language", (ibi,)
        ).fetchall()
        return [ItemLink(row["relation"], row["target"], row["language"]) for row in rows]

    def minted_items(self) -> list[MintedItem]:
        """Every minted item, oldest first."""
        rows = self.connection.execute("SELECT * FROM minted_item ORDER BY id").fetchall()
        return [_minted_item(row) for row in rows]

    def find_minted(self, rep: str | None = None, ibip: str | None = None) -> MintedItem | None:
        """The minted item with this identifier (normalized form), in either form."""
        row = self.connection.execute(
            "SELECT * FROM minted_item WHERE rep = ? OR ibip = ?", (rep, ibip)
        ).fetchone()
        return _minted_item(row) if row else None

    # -- prefix pairs --------------------------------------------------------------------

    def prefix_pairs(self) -> list[tuple[str, str]]:
        """Stored (repository-name prefix, IBIp prefix) pairs, oldest first."""
        rows = self.connection.execute(
            "SELECT rep_prefix, ibip_prefix FROM prefix_pair ORDER BY added_at"
        ).fetchall()
        return [(row["rep_prefix"], row["ibip_prefix"]) for row in rows]

    def prefix_pair_records(self) -> list[PrefixPairRecord]:
        """Stored pairs with their source and time of adding, oldest first (the prefix table page)."""
        rows = self.connection.execute(
            "SELECT rep_prefix, ibip_prefix, source, added_at FROM prefix_pair ORDER BY added_at"
        ).fetchall()
        return [PrefixPairRecord(**dict(row)) for row in rows]

    def add_prefix_pair(self, rep_prefix: str, ibip_prefix: str, source: str) -> None:
        with self.write_transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO prefix_pair (rep_prefix, ibip_prefix, source, added_at)"
                " VALUES (?, ?, ?, ?)",
                (rep_prefix, ibip_prefix, source, _now_iso()),
            )


    # -- resolution traces --------------------------------------------------------------

    def save_trace(self, trace_id: str, persistent_url: str, outcome: str, body: dict, keep: int) -> None:
        """Store a trace and drop the oldest beyond ``keep`` (bounded retention)."""
        with self.write_transaction() as conn:
            conn.execute(
                "INSERT INTO trace (id, created_at, persistent_url, outcome, body) VALUES (?, ?, ?, ?, ?)",
                (trace_id, _now_iso(), persistent_url, outcome, json.dumps(body)),
            )
            conn.execute(
                "DELETE FROM trace WHERE id NOT IN"
                " (SELECT id FROM trace ORDER BY created_at DESC, rowid DESC LIMIT ?)",
                (keep,),
            )

    def resolution_generation(self) -> int:
        """The number bumped by every change to what resolutions can answer (see schema.sql)."""
        return self.connection.execute("SELECT value FROM resolution_generation WHERE id = 1").fetchone()[0]

    def recent_traces(self, limit: int) -> list[tuple[str, str, dict]]:
        """The ``limit`` newest traces as (id, created_at, JSON body), newest first: what the
        Archive health page summarises."""
        rows = self.connection.execute(
            "SELECT id, created_at, body FROM trace ORDER BY created_at DESC, rowid DESC LIMIT ?", (limit,)
        ).fetchall()
        return [(row["id"], row["created_at"], json.loads(row["body"])) for row in rows]

    def load_trace(self, trace_id: str) -> dict | None:
        """A stored trace's JSON body, or None when unknown or already dropped."""
        row = self.connection.execute("SELECT body FROM trace WHERE id = ?", (trace_id,)).fetchone()
        return json.loads(row["body"]) if row else None


    # -- administrators -------------------------------------------------------------------

    def set_admin_password_hash(self, username: str, password_hash: str) -> None:
        """Create the administrator or replace their password hash."""
        self.connection.execute(
            "INSERT INTO admin_account (username, password_hash, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (username) DO UPDATE SET password_hash = excluded.password_hash,"
            " updated_at = excluded.updated_at",
            (username, password_hash, _now_iso()),
        )

    def admin_password_hash(self, username: str) -> str | None:
        row = self.connection.execute(
            "SELECT password_hash FROM admin_account WHERE username = ?", (username,)
        ).fetchone()
        return None if row is None else row["password_hash"]


def _minted_item(row: sqlite3.Row) -> MintedItem:
    return MintedItem(
        rep=row["rep"],
        ibip=row["ibip"],
        date=Decimal(row["date"]),
        utc=row["utc"],
        subsystem=row["subsystem"],
        title=row["title"],
        target_url=row["target_url"],
        creators=tuple(json.loads(row["creators"] or "[]")),
        item_date=row["item_date"],
        language=row["language"],
        bibliographic=Bibliographic(**{column: row[column] for column in BIBLIOGRAPHIC_COLUMNS}),
    )


def _now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# -- registered Archives (file 003 §7): the ArchiveRegistry of the resolver service --

#: Events kept per Archive; older ones are dropped, so repeated refused attempts (anyone may
#: send a wrong key) cannot grow the database without bound.
ARCHIVE_HISTORY_LIMIT = 200


class ArchiveStore:
    """Registered Archives over a :class:`Storage`: implements
    :class:`~ibiportal.resolver.registration.ArchiveRegistry` (§7.2) and the administrator's
    operations of §7.1. Every write is one transaction (row and history together). Only the
    key's hash is stored (:class:`~ibiportal.resolver.registration.KeyHash`).
    """

    def __init__(self, storage: Storage):
        self.storage = storage

    def register_archive(self, service_ibi: str, key_hash: KeyHash, at: datetime) -> bool:
        """Register an Archive (§7.1); ``False`` when ``service_ibi`` is already registered."""
        when = _iso(at)
        with self.storage.write_transaction() as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO archive (service_ibi, key_hash, registered_at, updated_at)"
                " VALUES (?, ?, ?, ?)",
                (service_ibi, key_hash.encode(), when, when),
            )
            if cursor.rowcount == 0:
                return False
            _add_archive_event(conn, service_ibi, when, "registered", "registered by an administrator")
        return True

    def remove_archive(self, service_ibi: str) -> bool:
        """Forget an Archive and its history; ``False`` when it was not registered."""
        with self.storage.write_transaction() as conn:
            cursor = conn.execute("DELETE FROM archive WHERE service_ibi = ?", (service_ibi,))
            conn.execute("DELETE FROM archive_event WHERE service_ibi = ?", (service_ibi,))
            self.storage.bump_resolution_generation(conn)
        return cursor.rowcount > 0

    def find_archive(self, service_ibi: str) -> RegisteredArchive | None:
        row = self.storage.connection.execute(
            "SELECT * FROM archive WHERE service_ibi = ?", (service_ibi,)
        ).fetchone()
        return _registered_archive(row) if row else None

    def archives(self) -> list[RegisteredArchive]:
        """Every registered Archive, by service IBI."""
        rows = self.storage.connection.execute("SELECT * FROM archive ORDER BY service_ibi").fetchall()
        return [_registered_archive(row) for row in rows]

    def archive_events(self, service_ibi: str) -> list[ArchiveEvent]:
        """An Archive's history, oldest first."""
        rows = self.storage.connection.execute(
            "SELECT at, kind, detail FROM archive_event WHERE service_ibi = ? ORDER BY id", (service_ibi,)
        ).fetchall()
        return [ArchiveEvent(row["at"], row["kind"], row["detail"]) for row in rows]

    def record_inclusion(
        self, service_ibi: str, details: ArchiveDetails, confirmation: Confirmation, at: datetime
    ) -> None:
        when = _iso(at)
        with self.storage.write_transaction() as conn:
            conn.execute(
                "UPDATE archive SET included = 1, address = ?, ip = ?, platform_version = ?,"
                " admin_email = ?, last_confirmation = ?, updated_at = ? WHERE service_ibi = ?",
                (details.address, details.ip, details.platform_version, details.admin_email,
                 confirmation.word, when, service_ibi),
            )
            _add_archive_event(
                conn, service_ibi, when, "included",
                f"at {details.address} ({details.ip}), confirmation {confirmation.word}: {confirmation.detail}",
            )
            self.storage.bump_resolution_generation(conn)

    def record_exclusion(self, service_ibi: str, at: datetime) -> None:
        when = _iso(at)
        with self.storage.write_transaction() as conn:
            conn.execute(
                "UPDATE archive SET included = 0, updated_at = ? WHERE service_ibi = ?", (when, service_ibi)
            )
            _add_archive_event(conn, service_ibi, when, "excluded", "switched off")
            self.storage.bump_resolution_generation(conn)

    def record_refusal(self, service_ibi: str, reason: str, at: datetime) -> None:
        with self.storage.write_transaction() as conn:
            _add_archive_event(conn, service_ibi, _iso(at), "refused", reason)

    def record_confirmation(self, service_ibi: str, confirmation: Confirmation, at: datetime) -> None:
        """An administrator's confirmation request (§7.2 message 3) and its outcome: the
        Archive's ``last_confirmation`` and a ``confirmation`` event (Archives page)."""
        when = _iso(at)
        with self.storage.write_transaction() as conn:
            conn.execute(
                "UPDATE archive SET last_confirmation = ?, updated_at = ? WHERE service_ibi = ?",
                (confirmation.word, when, service_ibi),
            )
            _add_archive_event(
                conn, service_ibi, when, "confirmation",
                f"confirmation request by an administrator: {confirmation.word} ({confirmation.detail})",
            )

    def included_endpoints(
        self, connect_timeout: float = 3.0, read_timeout: float = 5.0
    ) -> tuple[ArchiveEndpoint, ...]:
        """The included Archives, for the resolver (reached over HTTP), named by their address."""
        rows = self.storage.connection.execute(
            "SELECT address, service_ibi FROM archive WHERE included = 1 AND address IS NOT NULL"
            " ORDER BY service_ibi"
        ).fetchall()
        return tuple(
            ArchiveEndpoint(row["address"], row["service_ibi"], row["address"], Route.HTTP, connect_timeout, read_timeout)
            for row in rows
        )


def _add_archive_event(conn: sqlite3.Connection, service_ibi: str, when: str, kind: str, detail: str) -> None:
    conn.execute(
        "INSERT INTO archive_event (service_ibi, at, kind, detail) VALUES (?, ?, ?, ?)",
        (service_ibi, when, kind, detail),
    )
    conn.execute(
        "DELETE FROM archive_event WHERE service_ibi = ? AND id NOT IN"
        " (SELECT id FROM archive_event WHERE service_ibi = ? ORDER BY id DESC LIMIT ?)",
        (service_ibi, service_ibi, ARCHIVE_HISTORY_LIMIT),
    )


class GenerationSignal:
    """The resolution generation (schema.sql) for a process's cache lookups, read without a
    database query on each one.

    A query on every cache hit cost more than the rest of the hit: the sqlite3 module lets other
    threads run during it, and the request's thread then queues to get the interpreter back
    (benchmarks/cache.py). So each committed change of the generation is also written to a small
    file beside the database (``<database>-generation``), which every worker process maps into
    memory: a lookup compares 8 bytes, and only when they changed reads the database, which
    stays the authority. The file is written after the commit, so whoever sees it change reads
    the new generation.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        descriptor = os.open(_generation_signal_path(path), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if os.fstat(descriptor).st_size < _SIGNAL_BYTES:
                os.ftruncate(descriptor, _SIGNAL_BYTES)
            self._map = mmap.mmap(descriptor, _SIGNAL_BYTES, access=mmap.ACCESS_READ)
        finally:
            os.close(descriptor)
        self._state: tuple[bytes, int] | None = None  # (signal seen, generation read after it)

    def current(self) -> int:
        """The generation; safe from several threads (the state is replaced in one assignment)."""
        signal = self._map[:_SIGNAL_BYTES]
        state = self._state
        if state is None or state[0] != signal:
            storage = Storage(self.path)
            try:
                state = (signal, storage.resolution_generation())
            finally:
                storage.close()
            self._state = state
        return state[1]


_SIGNAL_BYTES = 8


def _generation_signal_path(database: str) -> str:
    return database + "-generation"


def _write_generation_signal(database: str, generation: int) -> None:
    descriptor = os.open(_generation_signal_path(database), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.pwrite(descriptor, generation.to_bytes(_SIGNAL_BYTES, "little"), 0)
    finally:
        os.close(descriptor)


def _registered_archive(row: sqlite3.Row) -> RegisteredArchive:
    return RegisteredArchive(
        service_ibi=row["service_ibi"],
        key_hash=KeyHash.decode(row["key_hash"]),
        registered_at=row["registered_at"],
        updated_at=row["updated_at"],
        included=bool(row["included"]),
        address=row["address"],
        ip=row["ip"],
        platform_version=row["platform_version"],
        admin_email=row["admin_email"],
        last_confirmation=row["last_confirmation"],
    )


def _iso(at: datetime) -> str:
    """``at`` in UTC, in the format of :func:`_now_iso`."""
    return at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
