"""Usage kept (``application.usage_counting`` sums it, ``application.usage`` reads it): resolutions
per item, UTC day and modifier kind (``usage_day``), relative-link activations per item and citing
item (``usage_citing``). Only ever added to, by a worker's flush, never on a request.

With Redis (``IBIPORTAL_REDIS_URL``) the workers of every node add their sums to one Redis hash
(:class:`RedisUsage`), and one worker at a time, under a short lock, moves the hash into the
database: one writer of usage instead of every worker of every node.
"""
from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import func, select, update

from .database import Storage
from .schema import usage_citing, usage_day

#: Citing items kept per item (the most an item's page shows is far fewer); activations from
#: further citing items are counted under :data:`OTHER_CITING`, so that invented citing items
#: cannot grow the table without bound.
CITING_KEPT = 500
OTHER_CITING = ""

#: ``(UTC day number, (ibi, kind, citing)) -> count``, as ``usage_counting.UsageTally.take`` hands it.
Counts = Mapping[tuple[int, tuple[str, str, "str | None"]], int]


def day_text(day: int) -> str:
    """A UTC day number (days since 1970-01-01) as the table keeps it: ``2026-05-17``."""
    return (date(1970, 1, 1) + timedelta(days=day)).isoformat()


@dataclass(frozen=True)
class ItemUsage:
    """What is kept of one item (its IBIs, summed): resolutions per day (``YYYY-MM-DD`` -> count,
    since the day asked), all-time totals per modifier kind, activations per citing item."""

    days: dict[str, int]
    kinds: dict[str, int]
    citing: dict[str, int]


class UsageStore:
    """Usage over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def add(self, counts: Counts) -> None:
        """Add a flush's sums, in one transaction (a commit that need not wait for the disk: lost
        in a crash, they are seconds of counts)."""
        per_day: dict[tuple[str, str, str], int] = {}
        per_citing: dict[tuple[str, str], int] = {}
        for (day, (ibi, kind, citing)), count in counts.items():
            slot = (ibi, day_text(day), kind)
            per_day[slot] = per_day.get(slot, 0) + count
            if citing is not None:
                per_citing[(ibi, citing)] = per_citing.get((ibi, citing), 0) + count
        with self.storage.write_transaction(durable=False) as conn:
            statement = self.storage.insert(usage_day)
            statement = statement.on_conflict_do_update(
                index_elements=[usage_day.c.ibi, usage_day.c.day, usage_day.c.kind],
                set_={"count": usage_day.c["count"] + statement.excluded["count"]})
            conn.execute(statement, [{"ibi": ibi, "day": day, "kind": kind, "count": count}
                                     for (ibi, day, kind), count in sorted(per_day.items())])
            for (ibi, citing), count in sorted(per_citing.items()):
                self._add_citing(conn, ibi, citing, count)

    def _add_citing(self, conn, ibi: str, citing: str, count: int) -> None:
        added = conn.execute(update(usage_citing).where(usage_citing.c.ibi == ibi, usage_citing.c.citing == citing)
                             .values(count=usage_citing.c["count"] + count))
        if added.rowcount:
            return
        kept = conn.execute(select(func.count()).where(usage_citing.c.ibi == ibi)).scalar_one()
        statement = self.storage.insert(usage_citing)
        conn.execute(statement.values(ibi=ibi, citing=citing if kept < CITING_KEPT else OTHER_CITING, count=count)
                     .on_conflict_do_update(index_elements=[usage_citing.c.ibi, usage_citing.c.citing],
                                            set_={"count": usage_citing.c["count"] + statement.excluded["count"]}))

    def item(self, ibis: Iterable[str], since: str) -> ItemUsage:
        """The usage of one item named by ``ibis`` (its forms): per day from ``since`` on, totals
        per kind, activations per citing item (most first)."""
        ibis = list(ibis)
        days = self.storage.read(
            select(usage_day.c.day, func.sum(usage_day.c["count"]))
            .where(usage_day.c.ibi.in_(ibis), usage_day.c.day >= since).group_by(usage_day.c.day))
        kinds = self.storage.read(
            select(usage_day.c.kind, func.sum(usage_day.c["count"])).where(usage_day.c.ibi.in_(ibis))
            .group_by(usage_day.c.kind))
        citing = self.storage.read(
            select(usage_citing.c.citing, func.sum(usage_citing.c["count"])).where(usage_citing.c.ibi.in_(ibis))
            .group_by(usage_citing.c.citing).order_by(func.sum(usage_citing.c["count"]).desc(), usage_citing.c.citing))
        return ItemUsage({day: int(count) for day, count in days}, {kind: int(count) for kind, count in kinds},
                         {name: int(count) for name, count in citing})

    def count(self, ibis: Iterable[str], since: str | None = None) -> int:
        """The resolutions of ``ibis`` (an item's forms) from the day ``since`` on (all time for ``None``)."""
        query = select(func.coalesce(func.sum(usage_day.c["count"]), 0)).where(usage_day.c.ibi.in_(list(ibis)))
        if since is not None:
            query = query.where(usage_day.c.day >= since)
        return int(self.storage.read(query).scalar_one())

    def most_resolved(self, limit: int, since: str | None = None) -> list[tuple[str, int]]:
        """The IBIs resolved most (as asked: each form apart), with their counts, from the day
        ``since`` on (all time for ``None``)."""
        total = func.sum(usage_day.c["count"])
        query = select(usage_day.c.ibi, total).group_by(usage_day.c.ibi).order_by(total.desc(), usage_day.c.ibi)
        if since is not None:
            query = query.where(usage_day.c.day >= since)
        return [(ibi, int(count)) for ibi, count in self.storage.read(query.limit(limit))]


#: The Redis hash the workers add to, and the lock of the one worker that moves it.
PENDING_KEY = "ibiportal:usage:pending"
DRAIN_LOCK = "ibiportal:usage:drain"


class RedisUsage:
    """The workers' sums through one Redis hash (fields: JSON ``[day, ibi, kind, citing]``).

    :meth:`add` adds a worker's sums (HINCRBY, one round trip); :meth:`drain` moves the hash into
    the database: the worker that takes the lock renames the hash (atomic: the workers' next
    sums start a new one), adds what it held to the database, and deletes it. Should the database
    refuse, the counts go back into the hash for the next drain.
    """

    def __init__(self, client, lock_seconds: float) -> None:
        import redis  # only deployments with IBIPORTAL_REDIS_URL need the package loaded

        self.errors = redis.RedisError
        self.client = client
        self.lock_ms = max(1, round(lock_seconds * 1000))

    def add(self, counts: Counts) -> None:
        pipe = self.client.pipeline(transaction=False)
        for (day, values), count in counts.items():
            pipe.hincrby(PENDING_KEY, json.dumps([day, *values]), count)
        pipe.execute()

    def drain(self, store: UsageStore) -> bool:
        """Move the pending sums into ``store`` unless another worker did within the lock's time;
        whether this one did."""
        if not self.client.set(DRAIN_LOCK, "1", nx=True, px=self.lock_ms):
            return False
        taken = f"{PENDING_KEY}:{secrets.token_hex(8)}"
        try:
            self.client.rename(PENDING_KEY, taken)
        except self.errors as error:
            if "no such key" in str(error).lower():  # nothing pending
                return True
            raise
        fields = self.client.hgetall(taken)
        counts = {}
        for field, count in fields.items():
            day, ibi, kind, citing = json.loads(field)
            counts[(day, (ibi, kind, citing))] = int(count)
        try:
            store.add(counts)
        except BaseException:
            self.add(counts)
            raise
        finally:
            self.client.delete(taken)
        return True
