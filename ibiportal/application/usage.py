"""How often items were resolved, as pages and the API show it (``usage_counting`` counts it).

An own item's usage sums the counts of both its forms (its repository name and its IBIp are
each counted as asked). The most resolved items are listed by IBI as asked, the two forms of an
own item merged under its IBIp.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from ..ibi.minted import MintedItem
from ..storage.identifiers import IdentifierStore
from ..storage.usage import UsageStore
from .usage_counting import KINDS

#: Days the item page's chart and the API's daily series cover, today included.
CHART_DAYS = 90


@dataclass(frozen=True)
class UsageReport:
    """One item's usage: ``days`` (each of the last :data:`CHART_DAYS` UTC days, oldest first,
    with its resolutions), ``kinds`` (all-time resolutions per modifier kind, every kind named),
    ``citing`` (relative-link activations per citing item, most first; ``""`` for those beyond
    the citing items kept) and ``total`` (all time)."""

    days: tuple[tuple[date, int], ...]
    kinds: dict[str, int]
    citing: tuple[tuple[str, int], ...]

    @property
    def total(self) -> int:
        return sum(self.kinds.values())

    @property
    def recent(self) -> int:
        """Resolutions in the days of :attr:`days`."""
        return sum(count for _, count in self.days)

    @property
    def busiest(self) -> int:
        return max((count for _, count in self.days), default=0)

    @property
    def activations(self) -> int:
        return sum(count for _, count in self.citing)


@dataclass(frozen=True)
class Ranked:
    """A line of the most resolved items: the IBI (an own item's IBIp), how often it was resolved,
    and the own item when it is one."""

    ibi: str
    count: int
    item: MintedItem | None


class Usage:
    """The usage use case: an item's report, the most resolved items."""

    def __init__(self, store: UsageStore, items: IdentifierStore, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.items = items
        self.clock = clock

    def report(self, ibis: tuple[str, ...]) -> UsageReport:
        """The usage of the item whose forms are ``ibis``."""
        today = self.clock().date()
        first = today - timedelta(days=CHART_DAYS - 1)
        kept = self.store.item(ibis, first.isoformat())
        days = tuple((first + timedelta(days=offset), kept.days.get((first + timedelta(days=offset)).isoformat(), 0))
                     for offset in range(CHART_DAYS))
        kinds = {kind: kept.kinds.get(kind, 0) for kind in KINDS}
        kinds.update((kind, count) for kind, count in kept.kinds.items() if kind not in kinds)
        return UsageReport(days, kinds, tuple(kept.citing.items()))

    def most_resolved(self, limit: int, days: int | None = None) -> list[Ranked]:
        """The ``limit`` IBIs resolved most in the last ``days`` UTC days (all time for ``None``),
        an own item's two forms counted together."""
        since = None if days is None else (self.clock().date() - timedelta(days=days - 1)).isoformat()
        merged: dict[str, Ranked] = {}
        for ibi, count in self.store.most_resolved(limit * 2, since):  # an own item's two forms may both be there
            item = self.items.find_minted(rep=ibi, ibip=ibi)
            if item is None:
                merged[ibi] = Ranked(ibi, count, None)
            elif item.ibip not in merged:
                merged[item.ibip] = Ranked(item.ibip, self.store.count((item.rep, item.ibip), since), item)
        return sorted(merged.values(), key=lambda ranked: (-ranked.count, ranked.ibi))[:limit]

