"""The only module that speaks SQL (SQLite by default).

Everything else asks for domain values through these functions; queries use ``?`` parameters
only. Transactions are explicit (``isolation_level=None``) because minting must read and
advance a subsystem's last date atomically across worker processes (``BEGIN IMMEDIATE``).
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

SCHEMA = (Path(__file__).with_name("schema.sql")).read_text(encoding="utf-8")

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


class Storage:
    """A connection to the portal's database, with the schema applied."""

    def __init__(self, path: str):
        self.path = path
        self.connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        self.connection.row_factory = sqlite3.Row
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.executescript(SCHEMA)

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
            raise
        self.connection.execute("COMMIT")

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
            " creators, item_date, language, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            ),
        )

    def add_item_link(self, conn: sqlite3.Connection, ibi: str, link: ItemLink) -> None:
        """Link a minted item (its IBIp) to another IBI, inside the caller's transaction."""
        conn.execute(
            "INSERT INTO item_link (ibi, relation, language, target) VALUES (?, ?, ?, ?)",
            (ibi, link.relation, link.language, link.target),
        )

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

    def load_trace(self, trace_id: str) -> dict | None:
        """A stored trace's JSON body, or None when unknown or already dropped."""
        row = self.connection.execute("SELECT body FROM trace WHERE id = ?", (trace_id,)).fetchone()
        return json.loads(row["body"]) if row else None


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
    )


def _now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
