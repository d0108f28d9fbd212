"""Idempotency keys of mint requests: what a key was claimed for and the IBIps minted under it.

A key is claimed in its own transaction (the first request with it records its fingerprint and
how many items it wants); each item minted for it is added in the very transaction that stores
the item, under the key's row lock, so a key never gets more items than it asked for, even when
two nodes run the same request at once (one of the two mints is rolled back whole).
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, delete, select, update

from ..errors import IbiError
from .database import Storage
from .schema import mint_key


class MintKeyFulfilled(IbiError):
    """The key already has every item it asked for: the mint adding one more is rolled back."""


@dataclass(frozen=True)
class MintKey:
    """A claimed key: the request it was first used with, and what was minted for it so far."""

    fingerprint: str
    wanted: int
    ibips: tuple[str, ...]


class MintKeyStore:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def claim(self, scope: str, key: str, fingerprint: str, wanted: int, now: str, forget_before: str) -> MintKey:
        """The key as stored, claimed for this request if it was not (keys created before
        ``forget_before`` are forgotten first)."""
        with self.storage.write_transaction() as conn:
            conn.execute(delete(mint_key).where(mint_key.c.created_at < forget_before))
            conn.execute(
                self.storage.insert(mint_key)
                .values(scope=scope, idempotency_key=key, fingerprint=fingerprint, wanted=wanted, ibips="",
                        created_at=now)
                .on_conflict_do_nothing(index_elements=["scope", "idempotency_key"])
            )
            return self._read(conn, scope, key, lock=False)

    def add(self, conn: Connection, scope: str, key: str, ibip: str) -> None:
        """Within the minting transaction: ``ibip`` is minted for the key; raises
        :class:`MintKeyFulfilled` when the key has all its items already (another node's)."""
        claimed = self._read(conn, scope, key, lock=True)
        if len(claimed.ibips) >= claimed.wanted:
            raise MintKeyFulfilled(f"idempotency key {key!r} has its {claimed.wanted} item(s)")
        conn.execute(update(mint_key)
                     .where(mint_key.c.scope == scope, mint_key.c.idempotency_key == key)
                     .values(ibips=" ".join((*claimed.ibips, ibip))))

    def find(self, scope: str, key: str) -> MintKey:
        return self._read(self.storage.connection, scope, key, lock=False)

    @staticmethod
    def _read(conn: Connection, scope: str, key: str, lock: bool) -> MintKey:
        query = select(mint_key).where(mint_key.c.scope == scope, mint_key.c.idempotency_key == key)
        row = conn.execute(query.with_for_update() if lock else query).one()
        return MintKey(row.fingerprint, row.wanted, tuple(row.ibips.split()))
