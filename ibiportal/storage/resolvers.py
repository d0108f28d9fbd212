"""The outside resolvers the portal's own Archive joined or left (file 003 §7.2, the Archive's
side): the last exchange with each, one row per resolver service URL.

The registration key never reaches this module: a key is the Archive's secret for one
resolver, typed for every inclusion or exclusion request and forgotten after it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import select

from ..i18n import Message, Recorded, from_record, to_record
from .database import Storage
from .schema import joined_resolver


@dataclass(frozen=True)
class ResolverStatus:
    """The last exchange with one resolver: what was asked (``join``/``leave``), what came of it
    (an ``application.joining.JoinOutcome`` value), the resolver's answer as one line when it
    answered a pair list, the reason in words when it refused or failed (a message, shown in each
    reader's language; recorded text for a reason kept before messages were), the
    ``archiveaddress`` sent, and when (ISO 8601 UTC)."""

    service_url: str
    action: str
    outcome: str
    status: str | None
    reason: Message | Recorded | None
    archive_address: str
    at: str


class ResolverStatusStore:
    """The last exchange with each outside resolver, over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def record(self, status: ResolverStatus) -> None:
        """Keep ``status`` as the resolver's last exchange (replacing the one before)."""
        values = {
            "action": status.action, "outcome": status.outcome, "status": status.status,
            "reason": None if status.reason is None else str(status.reason),
            "reason_message": json.dumps(record) if (record := to_record(status.reason)) is not None else None,
            "archive_address": status.archive_address, "at": status.at,
        }
        with self.storage.write_transaction() as conn:
            conn.execute(
                self.storage.insert(joined_resolver)
                .values(service_url=status.service_url, **values)
                .on_conflict_do_update(index_elements=[joined_resolver.c.service_url], set_=values)
            )

    def resolvers(self) -> list[ResolverStatus]:
        """Every resolver the Archive asked, by service URL."""
        rows = self.storage.read(select(joined_resolver).order_by(joined_resolver.c.service_url))
        return [_status(row) for row in rows]


def _status(row) -> ResolverStatus:
    values = dict(row._mapping)
    message = values.pop("reason_message")
    if message:
        values["reason"] = from_record(values["reason"], json.loads(message))
    elif values["reason"] is not None:
        values["reason"] = Recorded(values["reason"])
    return ResolverStatus(**values)
