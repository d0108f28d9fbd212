"""The history of the own Archive's items kept (``ibi.history`` has its values).

An entry is written in the transaction of the change it records, so a change and its
entry are kept together or not at all. Entries are only ever added: nothing here, nor in the API
or the pages, edits or removes one. ``db export`` and ``db import`` move them as every table.
"""
from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import Connection, insert, select

from ..ibi.history import Actor, Change, HistoryEntry
from .database import COMMITTED_CHANGES, Storage, now_iso
from .schema import item_history


#: Built once, so that SQLAlchemy finds it compiled: every change of an item writes one (an
#: import of a collection, one or more for each of its items).
_INSERT_ENTRY = insert(item_history)


def record_change(conn: Connection, ibi: str, change: Change) -> None:
    """Record ``change`` of the item ``ibi``, inside the caller's transaction (the change's own)."""
    record_changes(conn, [(ibi, change)])


def record_changes(conn: Connection, changes: Sequence[tuple[str, Change]]) -> None:
    """Record each ``(ibi, change)``, in order, in one statement, inside the caller's transaction
    (the changes' own: an import's batch of items)."""
    at = now_iso(conn)
    conn.execute(_INSERT_ENTRY, [{
        "ibi": ibi, "at": at, "actor_kind": change.actor.kind, "actor_name": change.actor.name,
        "action": change.action, "details": json.dumps(dict(change.details), ensure_ascii=False, sort_keys=True),
    } for ibi, change in changes])
    conn.info.setdefault(COMMITTED_CHANGES, []).extend(change.action for _, change in changes)  # counted once committed


def copy_entry(conn: Connection, ibi: str, entry: HistoryEntry) -> None:
    """Keep an entry another Archive recorded (an item package's history), with its own time and
    actor, inside the caller's transaction: a moved item keeps its past."""
    conn.execute(insert(item_history).values(
        ibi=ibi, at=entry.at, actor_kind=entry.actor.kind, actor_name=entry.actor.name, action=entry.action,
        details=json.dumps(dict(entry.details), ensure_ascii=False, sort_keys=True),
    ))


class HistoryStore:
    """The recorded changes over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def entries(self, ibi: str) -> list[HistoryEntry]:
        """Every change of the item ``ibi`` (its IBIp), oldest first."""
        rows = self.storage.read(select(item_history).where(item_history.c.ibi == ibi).order_by(item_history.c.id))
        return [HistoryEntry(row.ibi, row.at, Actor(row.actor_kind, row.actor_name), row.action, json.loads(row.details))
                for row in rows]
