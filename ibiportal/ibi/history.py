"""The history of an own item as values: every change, when (UTC), by whom, and what.

URLib shows each item's "History (UTC)"; DOI registration agencies are asked for the same
auditing. ``storage.history`` keeps the entries, each in the transaction of the change it records.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: What a change was (the item page translates each; ``details`` says the rest).
MINTED, IMPORTED, EDITED, DELETED = "minted", "imported", "edited", "deleted"
FILE_ADDED, FILE_REPLACED, FILE_REMOVED = "file added", "file replaced", "file removed"
LINKED, UNLINKED = "linked", "unlinked"
COPY_HELD, COPY_ENDED = "copy held", "copy ended"
#: Moved to another Archive (``application.releasing``): details ``successor`` (its service URL)
#: and ``url`` (what it answered for the item).
RELEASED = "released"
ACTIONS = (MINTED, IMPORTED, EDITED, DELETED, FILE_ADDED, FILE_REPLACED, FILE_REMOVED, LINKED, UNLINKED,
           COPY_HELD, COPY_ENDED, RELEASED)


@dataclass(frozen=True)
class Actor:
    """Who made a change: ``administrator`` (a user name), ``token`` (an API token's name, never
    the token), ``anonymous`` (a mint by a visitor, when minting needs no token), ``import``, or
    ``command`` (a ``flask`` command run on the server, named)."""

    kind: str
    name: str = ""

    def __str__(self) -> str:
        return f"{self.kind} {self.name}".strip()


@dataclass(frozen=True)
class Change:
    """One change as it will be recorded: by whom, what, and its details (JSON-able)."""

    actor: Actor
    action: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HistoryEntry:
    """A recorded change of the item ``ibi`` (its IBIp)."""

    ibi: str
    at: str
    actor: Actor
    action: str
    details: Mapping[str, Any]
