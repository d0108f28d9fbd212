"""Minting: the portal's identification subsystem, Algorithms 1-7 over persisted state.

The pure algorithms live in ``ibiportal.ibi`` (the request in ``ibi.mint_request``, the subsystem
and Algorithm 4's step in ``ibi.subsystem``); this use case adds what they leave to the
implementer: the GLOBAL ``last-date-for-suffix`` of Algorithm 4, persisted per subsystem and
advanced in one write transaction, so two workers, a restart or a clock stepping backwards
can never issue the same or an earlier date (STANDARD.md §1.3 decision).

The slot is *reserved* under the database lock (``IdentifierStore.reserve_then_store``), then the
item is stored in it; the WAIT(delay) of Algorithm 4 (line 7) happens after that commit, before
the identifier is handed out. So the lock is held briefly, every identifier handed to a user is
already in the database, and nobody receives an identifier before its date. Requests that
arrive together queue up: each reserves the next slot and waits for it.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ..ibi.history import MINTED, Actor, Change
from ..ibi.dates import utc_iso
from ..ibi.distributor import DistributorStep
from ..ibi.ibip import ibip_suffix
from ..ibi.mint_request import MintRequest
from ..ibi.minted import NEXT_EDITION, TRANSLATION, ItemLink, MintedItem, SubsystemClock
from ..ibi.repository import rep_suffix
from ..ibi.subsystem import Subsystem, ibip_safe_step
from ..storage.history import record_change
from ..storage.identifiers import IdentifierStore, SubsystemRaced
from .item_links import link, linked_item

AlsoStored = Callable[[Any, MintedItem], None]
"""What else a mint stores in its transaction, given the transaction's connection and the item."""


class Minter:
    """Issues identifiers of one subsystem. ``clock`` is the application's one clock read as a
    decimal Unix time (``ibi.clock.unix_time``); it and the sleep are injectable for tests."""

    def __init__(
        self,
        store: IdentifierStore,
        subsystem: Subsystem,
        clock: Callable[[], Decimal],
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.store = store
        self.subsystem = subsystem
        self.clock = clock
        self.sleep = sleep

    def mint(self, request: MintRequest = MintRequest(), also: AlsoStored | None = None, *, actor: Actor) -> MintedItem:
        """One identifier, both forms from the same date, stored before it is returned, its
        minting recorded in its history as ``actor``'s.

        The subsystem's state is read under a row lock and advanced (the slot reserved), and the
        item is stored with its links; ``also`` (an idempotency key recording it) runs in the
        item's transaction with the new item: if it raises, nothing was minted. Only a subsystem's
        very first mint has no row to lock; when two nodes make it at once, one of them finds the
        other's row on its second attempt.
        """
        try:
            item, step, offset = self._mint_once(request, also, actor)
        except SubsystemRaced:
            item, step, offset = self._mint_once(request, also, actor)
        # Algorithm 4 line 7, after the commit (no lock is held): what is left of the delay once the
        # item is stored, never more than the delay (a clock stepping back meanwhile adds nothing)
        delay = min(step.delay, item.date - (self.clock() + offset))
        if delay > 0:
            self.sleep(float(delay))
        return item

    def _mint_once(self, request: MintRequest, also: AlsoStored | None, actor: Actor) -> tuple[MintedItem, DistributorStep, Decimal]:
        """The slot reserved and the item stored: Algorithm 4's step and the clock's offset."""

        def keep(conn, reserved: tuple[DistributorStep, Decimal]) -> tuple[MintedItem, DistributorStep, Decimal]:
            step, offset = reserved
            item = self._item(step.date_for_suffix, request)
            self._store(conn, item, request, also, actor)
            return item, step, offset

        return self.store.reserve_then_store(self._advance_clock, keep)

    def _advance_clock(self, conn) -> tuple[DistributorStep, Decimal]:
        """Inside a write transaction: the next slot, the subsystem's state locked and advanced."""
        state = self.store.lock_subsystem_clock(conn, self.subsystem.key)
        now, offset = self._monotonic_now(state)
        step = ibip_safe_step(now, state.last_date if state else None, self.subsystem.granularity)
        clock = SubsystemClock(step.date_for_suffix, now, offset)
        self.store.advance_subsystem_clock(conn, self.subsystem.key, clock, first=state is None)
        return step, offset

    def _item(self, suffix_date: Decimal, request: MintRequest) -> MintedItem:
        return MintedItem(
            rep=f"{self.subsystem.rep_prefix}/{rep_suffix(suffix_date)}",
            ibip=f"{self.subsystem.ibip_prefix}/{ibip_suffix(suffix_date)}",
            date=suffix_date,
            utc=utc_iso(suffix_date),
            subsystem=self.subsystem.key,
            title=request.title,
            target_url=request.target_url,
            creators=request.creators,
            item_date=request.item_date,
            language=request.language,
            bibliographic=request.bibliographic,
        )

    def _store(self, conn, item: MintedItem, request: MintRequest, also: AlsoStored | None, actor: Actor) -> None:
        """Inside a write transaction: the item of a reserved slot, its history, its links, and ``also``."""
        self.store.record_minted(conn, item)
        record_change(conn, item.ibip, Change(actor, MINTED, {"rep": item.rep, "ibip": item.ibip}))
        self._link(conn, item, request, actor)
        if also is not None:
            also(conn, item)

    def _link(self, conn, item: MintedItem, request: MintRequest, actor: Actor) -> None:
        """Make the new item the next edition or a translation of an earlier own item.

        Inside the minting transaction: a bad link rolls the whole mint back (nothing is
        half-written), and the earlier item then answers ``ibi.nextedition`` /
        ``ibi.translation(xx)`` (Algorithm 2 of §9).
        """
        if request.previous_edition is not None:
            earlier = linked_item(self.store, request.previous_edition, "previous_edition", item.ibip)
            link(self.store, conn, earlier, ItemLink(NEXT_EDITION, item.ibip), "previous_edition", actor)
        if request.translation_of is not None:
            original = linked_item(self.store, request.translation_of, "translation_of", item.ibip)
            link(self.store, conn, original, ItemLink(TRANSLATION, item.ibip, request.language or ""), "translation_of", actor)

    def _monotonic_now(self, state: SubsystemClock | None) -> tuple[Decimal, Decimal]:
        """The current-date input of Algorithm 4, never earlier than the previous request's.

        When the system clock reads earlier than the last request did, it stepped back: the
        step joins the persisted offset, so dates keep advancing with real elapsed time and a
        request never WAITs out the step (an hour back must not mean an hour's wait).
        """
        reading = self.clock()
        if state is None:
            return reading, Decimal(0)
        now = reading + state.offset
        if now < state.last_reading:
            return state.last_reading, state.offset + (state.last_reading - now)
        return now, state.offset

    def mint_many(self, count: int, request: MintRequest = MintRequest(), also: AlsoStored | None = None, *,
                  actor: Actor) -> list[MintedItem]:
        """``count`` identifiers, each committed on its own so other workers interleave."""
        return [self.mint(request, also, actor=actor) for _ in range(count)]
