"""Administrators' accounts: a username and the scrypt hash of their password, never the password;
and their sessions, kept here so that a logout or a new password ends them (a signed cookie alone
cannot be taken back: whoever copied it could use it until it expired)."""
from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import delete, insert, select

from .database import Storage, iso
from .schema import admin_account, admin_session
from .tokens import TOKEN_BYTES, token_hash


class AccountStore:
    """The administrators over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def set_admin_password_hash(self, username: str, password_hash: str) -> None:
        """Create the administrator or replace their password hash; either way every session of
        theirs ends (a new password is what one sets when an old one, or a session, leaked)."""
        statement = self.storage.insert(admin_account).values(username=username, password_hash=password_hash, updated_at=self.storage.now_iso())
        with self.storage.write_transaction() as conn:
            conn.execute(statement.on_conflict_do_update(
                index_elements=[admin_account.c.username],
                set_={"password_hash": statement.excluded.password_hash, "updated_at": statement.excluded.updated_at},
            ))
            conn.execute(delete(admin_session).where(admin_session.c.username == username))

    def admin_password_hash(self, username: str) -> str | None:
        return self.storage.read(
            select(admin_account.c.password_hash).where(admin_account.c.username == username)
        ).scalar()

    def open_session(self, username: str, lifetime: timedelta) -> str:
        """A new session of ``username``: its random id (what the cookie carries; only its hash
        is stored). Sessions older than ``lifetime`` are forgotten on the way."""
        session_id = secrets.token_urlsafe(TOKEN_BYTES)
        with self.storage.write_transaction() as conn:
            conn.execute(delete(admin_session).where(admin_session.c.created_at < self._cutoff(lifetime)))
            conn.execute(insert(admin_session).values(id_hash=token_hash(session_id), username=username,
                                                      created_at=self.storage.now_iso()))
        return session_id

    def session_holder(self, session_id: str, lifetime: timedelta) -> str | None:
        """The administrator of session ``session_id``; ``None`` when it ended, never was, or is
        older than ``lifetime``."""
        return self.storage.read(
            select(admin_session.c.username).where(admin_session.c.id_hash == token_hash(session_id),
                                                   admin_session.c.created_at >= self._cutoff(lifetime))
        ).scalar()

    def end_session(self, session_id: str) -> None:
        with self.storage.write_transaction() as conn:
            conn.execute(delete(admin_session).where(admin_session.c.id_hash == token_hash(session_id)))

    def _cutoff(self, lifetime: timedelta) -> str:
        """The creation time before which a session is over (ISO text in UTC sorts as time does)."""
        return iso(self.storage.clock() - lifetime)
