"""Minting that a client may retry: a request sent again with the same ``Idempotency-Key``
answers the items the first one minted, never new ones (the EZID and Handle promise: a fault
costs at most a retry, never an orphan identifier).

A key belongs to a scope (the API token, else the client's address), is kept at least
:data:`KEPT_HOURS` hours, and stands for one request: the same key with another request is
:class:`KeyReused` (422, as the IETF's Idempotency-Key draft and Stripe answer). A retry of a
request that stopped half-way (3 items asked, the node killed after the first) mints only the
missing ones; two nodes running it at once mint each item once (``storage.mint_keys``).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta

from ..errors import ParseError, Refused
from ..i18n import N_
from ..ibi.clock import Clock
from ..ibi.minted import MintedItem
from .minting import Minter
from ..ibi.mint_request import MintRequest
from ..storage.database import iso
from ..ibi.history import Actor
from ..storage.identifiers import IdentifierStore
from ..storage.mint_keys import MintKeyFulfilled, MintKeyStore

KEPT_HOURS = 24
MAX_KEY_LENGTH = 255


class KeyReused(Refused):
    """The key was first used with another request."""

    field = "Idempotency-Key"


@dataclass(frozen=True)
class MintOutcome:
    """The items of the request, and whether they were minted by an earlier request with its key."""

    items: list[MintedItem]
    replayed: bool


def fingerprint(fields: object) -> str:
    """What makes two requests the same request: their fields, in any order of keys."""
    return hashlib.sha256(json.dumps(fields, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def idempotency_key(text: str | None, field: str = "Idempotency-Key") -> str | None:
    """The key as sent (``None`` without one): 1 to 255 printable ASCII characters, such as a UUID."""
    if text is None:
        return None
    for index, char in enumerate(text):
        if not (" " < char <= "~"):
            raise ParseError(N_("%(field)s is printable ASCII without spaces, such as a UUID; not %(char)r", field=field, char=char),
                             position=index + 1, field=field)
    if not 1 <= len(text) <= MAX_KEY_LENGTH:
        raise ParseError(N_("%(field)s has 1 to %(limit)s characters, not %(length)s", field=field, limit=MAX_KEY_LENGTH,
                            length=len(text)),
                         position=min(len(text), MAX_KEY_LENGTH) + 1, field=field)
    return text


class IdempotentMinting:
    """Mints through ``minter``, remembering each key's items in ``keys``; ``clock`` (the
    application's one) dates a key's claim and says which keys are past :data:`KEPT_HOURS`."""

    def __init__(self, minter: Minter, keys: MintKeyStore, items: IdentifierStore, clock: Clock) -> None:
        self.minter = minter
        self.keys = keys
        self.items = items
        self.clock = clock

    def mint(self, count: int, request: MintRequest, key: str | None = None, scope: str = "",
             request_fingerprint: str = "", *, actor: Actor) -> MintOutcome:
        """``count`` items for ``request``, minted by ``actor``; with a ``key``, those of the key's
        first request."""
        if key is None:
            return MintOutcome(self.minter.mint_many(count, request, actor=actor), replayed=False)
        now = self.clock()
        claimed = self.keys.claim(scope, key, request_fingerprint, count, iso(now),
                                  iso(now - timedelta(hours=KEPT_HOURS)))
        if claimed.fingerprint != request_fingerprint:
            raise KeyReused(f"this Idempotency-Key was used with another request: send a new key for a new "
                            f"request (a key is kept {KEPT_HOURS} hours)")

        def record(conn, item: MintedItem) -> None:
            self.keys.add(conn, scope, key, item.ibip)

        minted = 0
        for _ in range(claimed.wanted - len(claimed.ibips)):
            try:
                self.minter.mint(request, record, actor=actor)
            except MintKeyFulfilled:  # the same request, running on another worker, minted it
                break
            minted += 1
        ibips = self.keys.find(scope, key).ibips
        items = [item for ibip in ibips if (item := self.items.find_minted(ibip=ibip)) is not None]
        return MintOutcome(items, replayed=minted < len(ibips))
