"""Dead targets found before readers find them: the own items' target URLs checked on a
schedule (``flask items check-targets``), their state, and the report per owner or creator.

Each run checks the items that are due: never checked, target changed, or last checked at least
``IBIPORTAL_TARGET_RECHECK_HOURS`` ago (0: every run checks every item), so that a schedule more
frequent than that (the systemd timer runs hourly) checks each item as soon as it is due and
never sooner. Hosts are asked side by side, each host's items one after the other, politely
(``resolver.target_probe``). Every result is kept (``storage.targets``).

An item is reported **failing** only after ``IBIPORTAL_TARGET_FAILURES`` consecutive failed
checks, each at least the recheck interval after the one before: a host's bad hour, or a bad
day, reports nothing. Until then it keeps the state of its last answer: **working**, or
**moved** when that answer came after a permanent redirect (the item's target URL should be
changed to where it led); **unchecked** before its first answer.
"""
from __future__ import annotations

import csv
import io
import queue
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement

from ..ibi.batch import neutralise
from ..ibi.minted import MintedItem
from ..ibi.target_check import TargetProbe
from ..resolver.target_probe import TargetChecker, host_of
from ..storage.database import iso
from ..storage.identifiers import IdentifierStore
from ..storage.targets import (
    FAILING, MOVED, UNCHECKED, WORKING, DueTarget, TargetRecord, TargetStore, state_condition,
)
from ..storage.targets import STATES  # noqa: F401 - the states the item list filters by, for the web layer


#: Hosts asked at once by one run (each host's own items go one at a time, a second apart).
PARALLEL_HOSTS = 8

#: What the CSV report lists unless asked for more: the items whose link needs someone's attention.
REPORTED_STATES = (FAILING, MOVED)

#: The report's columns.
REPORT_COLUMNS = ("ibip", "rep", "title", "owner", "creators", "target_url", "state", "failing_since",
                  "failures", "checked_at", "status", "detail", "moved_to")


@dataclass(frozen=True)
class TargetSettings:
    """``IBIPORTAL_TARGET_FAILURES`` and ``IBIPORTAL_TARGET_RECHECK_HOURS``."""

    failures: int = 3
    recheck_hours: float = 24.0


@dataclass(frozen=True)
class TargetState:
    """An item's target as its pages show it: ``state`` (one of ``storage.targets.STATES``) and
    the last check behind it (``None`` while unchecked)."""

    state: str
    record: TargetRecord | None = None

    @property
    def failing_since(self) -> str | None:
        return self.record.failing_since if self.state == FAILING and self.record else None

    @property
    def failures(self) -> int:
        """Consecutive failed checks so far (a few below the threshold are shown, not reported)."""
        return self.record.failures if self.record else 0


def target_state(minted: MintedItem, record: TargetRecord | None, settings: TargetSettings) -> TargetState | None:
    """The state of ``minted``'s target given its last check ``record``; ``None`` for an item
    that has no target to check (its landing page is the portal's own), or is deleted or released."""
    if minted.target_url is None or minted.deleted or minted.released:
        return None
    if record is None or record.target_url != minted.target_url:
        return TargetState(UNCHECKED)
    if record.failures >= settings.failures:
        return TargetState(FAILING, record)
    if record.working_at is None:
        return TargetState(UNCHECKED, record)
    return TargetState(MOVED if record.moved_to else WORKING, record)


@dataclass
class RunTotals:
    """What one run did."""

    due: int = 0
    by_outcome: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    failing: int = 0  # own items whose target is failing, after this run


@dataclass(frozen=True)
class ReportRow:
    """One line of the report: the item, its target's state and who minted or imported it."""

    minted: MintedItem
    state: TargetState
    owner: str


class TargetChecks:
    """The use case: run the checks that are due, read states, make the report."""

    def __init__(self, store: TargetStore, items: IdentifierStore, settings: TargetSettings,
                 clock: Callable[[], datetime]) -> None:
        self.store = store
        self.items = items
        self.settings = settings
        self.clock = clock

    def run(self, checker: TargetChecker, parallel: int = PARALLEL_HOSTS,
            on_checked: Callable[[DueTarget, TargetRecord], None] | None = None) -> RunTotals:
        """Check every item that is due, hosts side by side (at most ``parallel`` at once), and
        keep each result as it comes (a run stopped half-way keeps what it checked);
        ``on_checked`` hears of each."""
        now = self.clock()
        hours = self.settings.recheck_hours
        due = self.store.due(iso(now - timedelta(hours=hours)) if hours > 0 else iso(now))
        totals = RunTotals(due=len(due))
        by_host: dict[str, list[DueTarget]] = defaultdict(list)
        for target in due:
            by_host[host_of(target.target_url)].append(target)
        checked: queue.Queue[tuple[DueTarget, TargetProbe, str] | BaseException] = queue.Queue()

        def check_host(targets: list[DueTarget]) -> None:
            try:
                for target in targets:
                    probe = checker.check(target.target_url)
                    checked.put((target, probe, iso(self.clock())))
            except BaseException as error:  # the run stops with it instead of waiting for the rest
                checked.put(error)

        with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="target-check") as pool:
            for targets in by_host.values():
                pool.submit(check_host, targets)
            for _ in range(len(due)):
                outcome = checked.get()
                if isinstance(outcome, BaseException):
                    raise outcome
                target, probe, at = outcome
                record = self.store.record(target.ibi, target.target_url, probe, at)
                totals.by_outcome[probe.outcome.value] += 1
                if on_checked is not None:
                    on_checked(target, record)
        totals.failing = self.store.count(self.in_state(FAILING))
        return totals

    def results(self, ibi: str) -> list[dict]:
        """The item's kept check results, newest first (``storage.targets.TargetStore.results``)."""
        return self.store.results(ibi)

    def in_state(self, state: str) -> ColumnElement[bool]:
        """The filter of the items whose target is in ``state`` (one of ``storage.targets.STATES``),
        for :meth:`~.items.ItemService.search`."""
        return state_condition(state, self.settings.failures)

    def states(self, items: Iterable[MintedItem]) -> dict[str, TargetState | None]:
        """The target state of each item, by IBIp."""
        items = list(items)
        records = self.store.records([item.ibip for item in items])
        return {item.ibip: target_state(item, records.get(item.ibip), self.settings) for item in items}

    def report(self, owner: str | None = None, creator: str | None = None,
               states: Iterable[str] = REPORTED_STATES) -> list[ReportRow]:
        """The items in one of ``states`` (failing and moved by default), oldest first, of one
        ``owner`` (who minted or imported them, by name: an administrator's user name, an API
        token's name; or as ``kind name``) or ``creator`` (a part of a creator's name, any
        case), or of everyone."""
        wanted = set(states)
        items = [item for item in self.items.minted_items() if item.target_url]
        if creator:
            needle = creator.strip().casefold()
            items = [item for item in items if any(needle in name.casefold() for name in item.creators)]
        owners = self.store.owners([item.ibip for item in items])
        if owner:
            who = owner.strip().casefold()
            items = [item for item in items
                     if who in (owners.get(item.ibip, "").casefold(), owners.get(item.ibip, "").partition(" ")[2].casefold())]
        states_by_item = self.states(items)
        return [ReportRow(item, state, owners.get(item.ibip, "")) for item in items
                if (state := states_by_item[item.ibip]) is not None and state.state in wanted]


def report_csv(rows: Iterable[ReportRow]) -> str:
    """The report as CSV (RFC 4180; formulas neutralised, as every CSV the portal writes)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(REPORT_COLUMNS)
    for row in rows:
        minted, record = row.minted, row.state.record
        cells = (minted.ibip, minted.rep, minted.title, row.owner, "; ".join(minted.creators), minted.target_url,
                 row.state.state, row.state.failing_since, row.state.failures,
                 record.checked_at if record else None, record.status if record else None,
                 record.detail if record else None, record.moved_to if record else None)
        writer.writerow([neutralise("" if cell is None else str(cell)) for cell in cells])
    return out.getvalue()
