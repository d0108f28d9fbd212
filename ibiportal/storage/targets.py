"""What the target checks found (``application.targets``): per own item the last check and its
streak of consecutive failures (``target_check``), and every check's result, the newest
:data:`RESULTS_KEPT` per item (``target_check_result``).

A row is about the target URL it names: once an item's target changes, the row no longer
matches it and the item counts as unchecked until its next check starts a new streak.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, delete, exists, func, insert, not_, or_, select

from ..ibi.history import IMPORTED, MINTED
from ..i18n import Message, Recorded, from_record, to_record
from ..ibi.target_check import TargetOutcome, TargetProbe
from .database import Storage
from .schema import item_history, minted_item, target_check, target_check_result

#: Results kept per item: a month of daily checks.
RESULTS_KEPT = 30

#: The states an own item's target can be in, as the admin list filters them.
WORKING, MOVED, FAILING, UNCHECKED = "working", "moved", "failing", "unchecked"
STATES = (WORKING, MOVED, FAILING, UNCHECKED)


@dataclass(frozen=True)
class TargetRecord:
    """The last check of an item's target: ``target_url`` checked, when, what it found (its
    ``outcome``, HTTP ``status`` and ``detail``), the URL and status of the last permanent
    redirect a working check followed (``moved_to``, ``redirect_status``), the consecutive
    ``failures`` since ``failing_since``, and when it last answered (``working_at``)."""

    ibi: str
    target_url: str
    checked_at: str
    outcome: str
    status: int | None
    detail: Message | Recorded | None
    moved_to: str | None
    redirect_status: int | None
    failures: int
    failing_since: str | None
    working_at: str | None


@dataclass(frozen=True)
class DueTarget:
    """An own item whose target is to be checked."""

    ibi: str
    target_url: str


_MATCHING = and_(target_check.c.ibi == minted_item.c.ibip, target_check.c.target_url == minted_item.c.target_url)
_LIVE = and_(minted_item.c.target_url.is_not(None), minted_item.c.deleted_at.is_(None),
             minted_item.c.released_at.is_(None))


def state_condition(state: str, failures: int) -> ColumnElement[bool]:
    """Which own items (rows of ``minted_item``) are in ``state`` (one of :data:`STATES`) when
    ``failures`` consecutive failures make one failing: for the admin list's filter. Only items
    that are checked (a target URL, not deleted, not released) are in any state."""
    failing = target_check.c.failures >= failures
    answered = and_(target_check.c.failures < failures, target_check.c.working_at.is_not(None))
    conditions = {
        FAILING: failing,
        MOVED: and_(answered, target_check.c.moved_to.is_not(None)),
        WORKING: and_(answered, target_check.c.moved_to.is_(None)),
    }
    if state == UNCHECKED:
        return and_(_LIVE, not_(exists().where(_MATCHING, or_(failing, answered))))
    return and_(_LIVE, exists().where(_MATCHING, conditions[state]))


class TargetStore:
    """Target checks over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def due(self, checked_before: str) -> list[DueTarget]:
        """The own items to check now: every one with a target URL, not deleted nor released, that
        was not checked at or after ``checked_before`` (ISO 8601 UTC), or whose target changed
        since; oldest check first (never checked first of all)."""
        last = (select(target_check.c.checked_at).where(_MATCHING).scalar_subquery())
        rows = self.storage.read(
            select(minted_item.c.ibip, minted_item.c.target_url, last.label("checked_at"))
            .where(_LIVE, or_(last.is_(None), last < checked_before))
            .order_by(last.is_not(None), last, minted_item.c.id)
        )
        return [DueTarget(row.ibip, row.target_url) for row in rows]

    def record(self, ibi: str, target_url: str, probe: TargetProbe, at: str) -> TargetRecord:
        """Keep a check's result and carry the item's streak on: a failure adds one to the
        failures since the last answer of this same target, an answer ends the streak."""
        with self.storage.write_transaction() as conn:
            row = conn.execute(select(target_check).where(target_check.c.ibi == ibi).with_for_update()).first()
            same = row is not None and row.target_url == target_url
            values: dict[str, object] = {
                "target_url": target_url, "checked_at": at, "outcome": probe.outcome.value, "status": probe.status,
                "detail": None if probe.detail is None else str(probe.detail),
                "detail_message": json.dumps(record) if (record := to_record(probe.detail)) is not None else None,
            }
            if probe.outcome is TargetOutcome.FAILED:
                values["failures"] = (row.failures if same else 0) + 1
                values["failing_since"] = row.failing_since if same and row.failures else at
                if not same:
                    values.update(working_at=None, moved_to=None, redirect_status=None)
            else:
                moved = probe.outcome is TargetOutcome.MOVED
                values.update(failures=0, failing_since=None, working_at=at,
                              moved_to=probe.location if moved else None,
                              redirect_status=probe.redirect_status if moved else None)
            conn.execute(self.storage.insert(target_check).values(ibi=ibi, **values)
                         .on_conflict_do_update(index_elements=[target_check.c.ibi], set_=values))
            conn.execute(insert(target_check_result).values(
                ibi=ibi, target_url=target_url, checked_at=at, outcome=probe.outcome.value, status=probe.status,
                detail=values["detail"], location=probe.location))
            kept = (select(target_check_result.c.id).where(target_check_result.c.ibi == ibi)
                    .order_by(target_check_result.c.id.desc()).limit(RESULTS_KEPT))
            conn.execute(delete(target_check_result).where(target_check_result.c.ibi == ibi,
                                                           target_check_result.c.id.not_in(kept)))
        found = self.records([ibi]).get(ibi)
        assert found is not None
        return found

    def count(self, only: ColumnElement[bool]) -> int:
        """How many own items ``only`` holds for (:func:`state_condition`)."""
        return self.storage.read(select(func.count()).select_from(minted_item).where(only)).scalar_one()

    def records(self, ibis: list[str]) -> dict[str, TargetRecord]:
        """The last check of each of ``ibis`` (IBIps) that was checked."""
        if not ibis:
            return {}
        rows = self.storage.read(select(target_check).where(target_check.c.ibi.in_(ibis)))
        return {row.ibi: _record(row) for row in rows}

    def results(self, ibi: str) -> list[dict]:
        """The item's kept results, newest first (``checked_at``, ``target_url``, ``outcome``,
        ``status``, ``detail``, ``location``)."""
        rows = self.storage.read(select(target_check_result).where(target_check_result.c.ibi == ibi)
                                 .order_by(target_check_result.c.id.desc()))
        return [{name: getattr(row, name) for name in ("checked_at", "target_url", "outcome", "status", "detail",
                                                      "location")} for row in rows]

    def owners(self, ibis: list[str]) -> dict[str, str]:
        """Who minted or imported each of ``ibis`` (its history's first such entry): the actor as
        ``kind name`` (``token library``, ``administrator ada``); items minted before the history
        was kept have none."""
        if not ibis:
            return {}
        rows = self.storage.read(
            select(item_history.c.ibi, item_history.c.actor_kind, item_history.c.actor_name)
            .where(item_history.c.ibi.in_(ibis), item_history.c.action.in_((MINTED, IMPORTED)))
            .order_by(item_history.c.id.desc()))
        return {row.ibi: f"{row.actor_kind} {row.actor_name}".strip() for row in rows}  # the first one wins


def _record(row) -> TargetRecord:
    values = dict(row._mapping)
    message, text = values.pop("detail_message"), values["detail"]
    values["detail"] = None if text is None else from_record(text, json.loads(message)) if message else Recorded(text)
    return TargetRecord(**values)
