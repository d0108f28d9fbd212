"""Registered Archives and their history (file 003 §7.1–§7.2): the resolver service's
:class:`~ibiportal.resolver.registry_service.ArchiveRegistry` and the administrator's operations.

Every write is one transaction (row and history together). Only the key's hash is stored
(:class:`~ibiportal.protocol.registry.KeyHash`). Changes to which Archives are included empty every
resolution cache (``signal.py``).

The registry has one module per layer (the design's "The registry"): ``protocol.registry``
its values, ``resolver.registry_service`` §7.2's service, ``storage.registry`` what is kept,
``application.registry`` the administrator's use case, which wires the other three.
"""
from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import Connection, Row, delete, insert, select, update

from ..i18n import N_, Message, Recorded, from_record, to_record
from ..protocol.registry import ArchiveDetails, ArchiveEvent, Confirmation, KeyHash, RegisteredArchive
from .database import Storage, iso
from .schema import archive, archive_event
from .signal import bump_resolution_generation

#: Events kept per Archive; older ones are dropped, so repeated refused attempts (anyone may
#: send a wrong key) cannot grow the database without bound.
ARCHIVE_HISTORY_LIMIT = 200


class ArchiveStore:
    """Registered Archives over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def register_archive(self, service_ibi: str, key_hash: KeyHash, at: datetime, *,
                         key_generated: bool | None = None) -> bool:
        """Register an Archive (§7.1); ``False`` when ``service_ibi`` is already registered.
        ``key_generated`` says whether the portal generated its key (``None``: not said)."""
        when = iso(at)
        generated = None if key_generated is None else int(key_generated)
        with self.storage.write_transaction() as conn:
            inserted = conn.execute(
                self.storage.insert(archive)
                .values(service_ibi=service_ibi, key_hash=key_hash.encode(), registered_at=when, updated_at=when,
                        key_generated=generated)
                .on_conflict_do_nothing()
                .returning(archive.c.service_ibi)
            ).first()
            if inserted is None:
                return False
            _add_archive_event(conn, service_ibi, when, "registered", N_("registered by an administrator"))
        return True

    def remove_archive(self, service_ibi: str) -> bool:
        """Forget an Archive and its history; ``False`` when it was not registered."""
        with self.storage.write_transaction() as conn:
            removed = conn.execute(
                delete(archive).where(archive.c.service_ibi == service_ibi).returning(archive.c.service_ibi)
            ).first()
            conn.execute(delete(archive_event).where(archive_event.c.service_ibi == service_ibi))
            bump_resolution_generation(self.storage, conn)
        return removed is not None

    def find_archive(self, service_ibi: str) -> RegisteredArchive | None:
        row = self.storage.read(select(archive).where(archive.c.service_ibi == service_ibi)).first()
        return _registered_archive(row) if row else None

    def archives(self) -> list[RegisteredArchive]:
        """Every registered Archive, by service IBI."""
        rows = self.storage.read(select(archive).order_by(archive.c.service_ibi))
        return [_registered_archive(row) for row in rows]

    def included_archives(self) -> list[RegisteredArchive]:
        """The Archives the resolver asks: included, at the address of their last inclusion."""
        rows = self.storage.read(
            select(archive)
            .where(archive.c.included == 1, archive.c.address.is_not(None))
            .order_by(archive.c.service_ibi)
        )
        return [_registered_archive(row) for row in rows]

    def archive_events(self, service_ibi: str) -> list[ArchiveEvent]:
        """An Archive's history, oldest first."""
        rows = self.storage.read(
            select(archive_event.c.at, archive_event.c.kind, archive_event.c.detail, archive_event.c.detail_message)
            .where(archive_event.c.service_ibi == service_ibi)
            .order_by(archive_event.c.id)
        )
        return [_event(row) for row in rows]

    def last_exclusions(self) -> dict[str, ArchiveEvent]:
        """Each excluded Archive's latest ``excluded`` event (by service IBI): when and why it was
        excluded, for the diagnosis of a not-found (ibiportal.resolver.diagnosis)."""
        rows = self.storage.read(
            select(archive_event.c.service_ibi, archive_event.c.at, archive_event.c.kind, archive_event.c.detail,
                   archive_event.c.detail_message)
            .join(archive, archive.c.service_ibi == archive_event.c.service_ibi)
            .where(archive.c.included == 0, archive_event.c.kind == "excluded")
            .order_by(archive_event.c.id)
        )
        return {row.service_ibi: _event(row) for row in rows}

    def record_inclusion(
        self, service_ibi: str, details: ArchiveDetails, confirmation: Confirmation, at: datetime
    ) -> None:
        when = iso(at)
        with self.storage.write_transaction() as conn:
            conn.execute(
                update(archive).where(archive.c.service_ibi == service_ibi).values(
                    included=1, address=details.address, ip=details.ip,
                    platform_version=details.platform_version, admin_email=details.admin_email,
                    last_confirmation=confirmation.word, updated_at=when,
                )
            )
            _add_archive_event(
                conn, service_ibi, when, "included",
                N_("at %(address)s (%(ip)s), confirmation %(outcome)s: %(detail)s", address=details.address,
                   ip=details.ip, outcome=_CONFIRMATION_WORDS[confirmation.word], detail=confirmation.detail),
            )
            bump_resolution_generation(self.storage, conn)

    def record_exclusion(self, service_ibi: str, at: datetime, detail: Message = N_("switched off")) -> None:
        """The Archive is no longer asked (its ``exclusionRequest`` of §7.2, or an administrator);
        its address is kept for a later inclusion and the resolution caches are emptied."""
        when = iso(at)
        with self.storage.write_transaction() as conn:
            conn.execute(update(archive).where(archive.c.service_ibi == service_ibi).values(included=0, updated_at=when))
            _add_archive_event(conn, service_ibi, when, "excluded", detail)
            bump_resolution_generation(self.storage, conn)

    def record_reinclusion(self, service_ibi: str, at: datetime, detail: Message) -> bool:
        """An administrator includes an excluded Archive again at the address of its last
        inclusion; ``False`` (nothing written) when it has never been included, so has no address."""
        when = iso(at)
        with self.storage.write_transaction() as conn:
            changed = conn.execute(
                update(archive)
                .where(archive.c.service_ibi == service_ibi, archive.c.address.is_not(None))
                .values(included=1, updated_at=when)
            ).rowcount
            if not changed:
                return False
            _add_archive_event(conn, service_ibi, when, "included", detail)
            bump_resolution_generation(self.storage, conn)
        return True

    def record_refusal(self, service_ibi: str, reason: Message, at: datetime) -> None:
        with self.storage.write_transaction() as conn:
            _add_archive_event(conn, service_ibi, iso(at), "refused", reason)

    def record_confirmation(self, service_ibi: str, confirmation: Confirmation, at: datetime) -> None:
        """An administrator's confirmation request (§7.2 message 3) and its outcome: the
        Archive's ``last_confirmation`` and a ``confirmation`` event (the Archives page)."""
        when = iso(at)
        with self.storage.write_transaction() as conn:
            conn.execute(
                update(archive).where(archive.c.service_ibi == service_ibi)
                .values(last_confirmation=confirmation.word, updated_at=when)
            )
            _add_archive_event(
                conn, service_ibi, when, "confirmation",
                N_("confirmation request by an administrator: %(outcome)s — %(detail)s",
                   outcome=_CONFIRMATION_WORDS[confirmation.word], detail=confirmation.detail),
            )


_CONFIRMATION_WORDS = {"successful": N_("successful"), "unsuccessful": N_("unsuccessful")}
"""``status.confirmation`` (§7.2) as a history's detail says it."""


def _add_archive_event(conn: Connection, service_ibi: str, when: str, kind: str, detail: Message) -> None:
    """One line of history: its detail in English and, to show it in each reader's language, as a message."""
    record = to_record(detail)
    message = None if record is None else json.dumps(record)
    conn.execute(insert(archive_event).values(service_ibi=service_ibi, at=when, kind=kind, detail=str(detail),
                                              detail_message=message))
    kept = (
        select(archive_event.c.id).where(archive_event.c.service_ibi == service_ibi)
        .order_by(archive_event.c.id.desc()).limit(ARCHIVE_HISTORY_LIMIT)
    )
    conn.execute(
        delete(archive_event).where(archive_event.c.service_ibi == service_ibi, archive_event.c.id.not_in(kept))
    )


def _registered_archive(row: Row) -> RegisteredArchive:
    return RegisteredArchive(
        service_ibi=row.service_ibi,
        key_hash=KeyHash.decode(row.key_hash),
        registered_at=row.registered_at,
        updated_at=row.updated_at,
        included=bool(row.included),
        address=row.address,
        ip=row.ip,
        platform_version=row.platform_version,
        key_generated=None if row.key_generated is None else bool(row.key_generated),
        admin_email=row.admin_email,
        last_confirmation=row.last_confirmation,
    )


def _event(row: Row) -> ArchiveEvent:
    """An event as recorded: its detail as a message when it was kept as one, else its English text
    (an event older than ``detail_message``), which a page shows marked as English."""
    detail = from_record(row.detail, json.loads(row.detail_message)) if row.detail_message else Recorded(row.detail)
    return ArchiveEvent(row.at, row.kind, detail)
