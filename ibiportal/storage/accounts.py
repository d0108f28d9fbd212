"""Administrators' accounts: a username and the scrypt hash of their password, never the password."""
from __future__ import annotations

from sqlalchemy import select

from .database import Storage, now_iso
from .schema import admin_account


class AccountStore:
    """The administrators over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def set_admin_password_hash(self, username: str, password_hash: str) -> None:
        """Create the administrator or replace their password hash."""
        statement = self.storage.insert(admin_account).values(username=username, password_hash=password_hash, updated_at=now_iso())
        with self.storage.write_transaction() as conn:
            conn.execute(statement.on_conflict_do_update(
                index_elements=[admin_account.c.username],
                set_={"password_hash": statement.excluded.password_hash, "updated_at": statement.excluded.updated_at},
            ))

    def admin_password_hash(self, username: str) -> str | None:
        return self.storage.read(
            select(admin_account.c.password_hash).where(admin_account.c.username == username)
        ).scalar()
