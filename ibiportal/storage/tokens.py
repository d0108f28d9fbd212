"""API tokens: a name and the SHA-256 of a token, never the token itself.

A token is 32 random bytes from :mod:`secrets` (256 bits), so a fast hash is as safe as a slow
one here: nothing about a token can be guessed from its hash, and a lookup by hash costs one
indexed query. The token is shown once, when it is created (``flask api-token create``).
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..errors import Conflict
from .database import Storage, iso
from .schema import api_token

#: Random bytes in a token (written as 43 URL-safe base64 characters).
TOKEN_BYTES = 32

#: How stale a token's ``last_used_at`` may be. Noting every use would make every API request a
#: write, a transaction committed to disk, taking the token's row lock (a client's requests on
#: every worker and node queue for it); "last used" answers "is this token still in use?", which
#: a minute's precision answers as well.
USE_NOTED_EVERY = timedelta(minutes=1)


class TokenNameTaken(Conflict):
    """A token of that name exists already: revoke it first, or choose another name."""


@dataclass(frozen=True)
class TokenRecord:
    """A stored token as ``api-token list`` shows it: never the token."""

    name: str
    created_at: str
    last_used_at: str | None


def token_hash(token: str) -> str:
    """What is stored of ``token``: its SHA-256, hexadecimal."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenStore:
    """The API tokens over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def create(self, name: str) -> str:
        """A new token called ``name``; raises :class:`TokenNameTaken` if the name is in use."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        try:
            with self.storage.write_transaction() as conn:
                conn.execute(insert(api_token).values(name=name, token_hash=token_hash(token), created_at=self.storage.now_iso()))
        except IntegrityError as error:
            raise TokenNameTaken(f"a token named {name!r} exists already: revoke it first, or choose another name") from error
        return token

    def records(self) -> list[TokenRecord]:
        """Every token's name and dates, by name."""
        rows = self.storage.read(select(api_token).order_by(api_token.c.name))
        return [TokenRecord(row.name, row.created_at, row.last_used_at) for row in rows]

    def revoke(self, name: str) -> bool:
        """Forget the token called ``name``; ``False`` when there is none."""
        with self.storage.write_transaction() as conn:
            return conn.execute(delete(api_token).where(api_token.c.name == name)).rowcount > 0

    def holder(self, token: str) -> str | None:
        """The name of ``token``, noting that it was used now if its last use noted is older than
        :data:`USE_NOTED_EVERY`; ``None`` for an unknown token.

        The condition is asked again by the UPDATE, so requests arriving together on several
        workers write it once (times are stored as ISO text in UTC, which sorts as time does).
        """
        digest = token_hash(token)
        row = self.storage.read(
            select(api_token.c.name, api_token.c.last_used_at).where(api_token.c.token_hash == digest)
        ).first()
        if row is None:
            return None
        now = self.storage.clock()
        cutoff = iso(now - USE_NOTED_EVERY)
        if row.last_used_at is None or row.last_used_at < cutoff:
            with self.storage.write_transaction() as conn:
                conn.execute(
                    update(api_token)
                    .where(api_token.c.token_hash == digest,
                           api_token.c.last_used_at.is_(None) | (api_token.c.last_used_at < cutoff))
                    .values(last_used_at=iso(now))
                )
        return row.name
