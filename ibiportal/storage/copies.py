"""Copies the own Archive holds of other Archives' items (state Copy, file 003 §5.2, Table 9.3):
an IBI, in the form it was given, and the URL where the copy is served."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, delete, insert, select, update

from .database import Storage
from ..ibi.history import COPY_ENDED, COPY_HELD, Actor, Change
from .history import record_change
from .schema import item_copy
from .signal import ibis_changed

#: Asked by the own Archive for every IBI it does not hold (a reference check: thousands), so
#: built once; only its values change.
_CANDIDATES = select(item_copy).where(
    (item_copy.c.ibi == bindparam("ibi")) | item_copy.c.ibi.like(bindparam("pattern"), escape="\\"))


@dataclass(frozen=True)
class CopyRecord:
    """A copy as stored: ``ibi`` normalized, times ISO 8601 UTC."""

    ibi: str
    target_url: str
    created_at: str
    updated_at: str

    @property
    def timestamp(self) -> datetime:
        """Table 9.3 ``timestamp``: when the copy last changed (whole seconds)."""
        return datetime.fromisoformat(self.updated_at).replace(microsecond=0)


class CopyStore:
    """The own Archive's copies over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def put(self, ibi: str, forms: Sequence[str], target_url: str, *, actor: Actor) -> tuple[CopyRecord, bool]:
        """Hold a copy of ``ibi`` at ``target_url``, or move the one held (found by any of
        ``forms``); whether it is new. The resolution caches of every form drop it; the copy's
        history (under the IBI it is kept by) records it as ``actor``'s."""
        with self.storage.write_transaction() as conn:
            held = self._find(forms)
            moment = self.storage.now_iso()
            if held is None:
                conn.execute(insert(item_copy).values(ibi=ibi, target_url=target_url, created_at=moment, updated_at=moment))
            else:
                ibi = held.ibi
                conn.execute(update(item_copy).where(item_copy.c.ibi == ibi).values(target_url=target_url, updated_at=moment))
            ibis_changed(self.storage, conn, forms)
            old = None if held is None else held.target_url
            record_change(conn, ibi, Change(actor, COPY_HELD, {"target_url": target_url, "previous_target_url": old}))
        kept = self._find((ibi,))
        assert kept is not None
        return kept, held is None

    def remove(self, forms: Sequence[str], *, actor: Actor) -> CopyRecord | None:
        """Stop holding the copy any of ``forms`` names, recorded in its history as ``actor``'s;
        the copy that was, ``None`` if none."""
        with self.storage.write_transaction() as conn:
            held = self._find(forms)
            if held is not None:
                conn.execute(delete(item_copy).where(item_copy.c.ibi == held.ibi))
                ibis_changed(self.storage, conn, forms)
                record_change(conn, held.ibi, Change(actor, COPY_ENDED, {"target_url": held.target_url}))
        return held

    def find(self, forms: Sequence[str]) -> CopyRecord | None:
        """The copy held under any of ``forms`` (normalized IBIs), ``None`` if none."""
        return self._find(forms)

    def candidates(self, ibi: str, other_suffix: str) -> list[CopyRecord]:
        """The copies held under ``ibi`` or under any IBI ending in ``/<other_suffix>`` (the same
        date in the other form: which of those is ``ibi`` only the prefix table can say), in
        one query."""
        pattern = "%/" + other_suffix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.storage.read(_CANDIDATES, {"ibi": ibi, "pattern": pattern})
        return [CopyRecord(row.ibi, row.target_url, row.created_at, row.updated_at) for row in rows]

    def records(self) -> list[CopyRecord]:
        """Every copy, newest change first."""
        rows = self.storage.read(select(item_copy).order_by(item_copy.c.updated_at.desc()))
        return [CopyRecord(row.ibi, row.target_url, row.created_at, row.updated_at) for row in rows]

    def _find(self, forms: Sequence[str]) -> CopyRecord | None:
        row = self.storage.read(select(item_copy).where(item_copy.c.ibi.in_(list(forms)))).first()
        return None if row is None else CopyRecord(row.ibi, row.target_url, row.created_at, row.updated_at)
