"""How each Archive has been answering: a summary of the resolver's recent traces (message (4)
of Figure 8.1, per Archive) beside the registry's state (file 003 §7).

Support staff and Archive administrators read it on the public Archive health page: counts of
answered / empty / failed exchanges, latency percentiles, the last failure with its reason
and the trace that shows it, each Archive's most recent exchanges (:data:`RECENT_ROUNDS` at
most) to draw against the resolver's limit, and its :class:`Condition`: failing, near the
timeout, answering. Pure data: the caller hands in the traces, the registry and the limit.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .diagnosis import FAILURES, failure_words
from ..i18n import Message, Recorded, from_record
from ..protocol.registry import RegisteredArchive
from .trace import Status, StepKind


RECENT_ROUNDS = 24
"""Exchanges kept per Archive to draw (newest first): enough to see a trend, few enough to read."""

NEAR_TIMEOUT_SHARE = 0.7
"""An Archive whose median answer takes this share of the resolver's limit or more is near the
timeout: on a slightly worse day, half its answers would be lost (a p50 of 4,004 ms against 5 s)."""


class ProbeOutcome(StrEnum):
    """How one exchange (message 4 of Figure 8.1) ended, as the health page counts it."""

    ANSWERED = "answered"
    EMPTY = "empty"
    FAILED = "failed"


class Condition(StrEnum):
    """What an administrator should make of an Archive, worst first."""

    FAILING = "failing"  # its newest exchange failed
    NEAR_TIMEOUT = "near-timeout"  # its median answer takes NEAR_TIMEOUT_SHARE of the limit or more
    ANSWERING = "answering"
    QUIET = "quiet"  # no exchange in the traces kept


@dataclass(frozen=True)
class Round:
    """One exchange with an Archive: how it ended, how long it took (``None``: not measured), when,
    and the trace that shows it."""

    outcome: ProbeOutcome
    elapsed_ms: float | None
    at: str
    trace_id: str


@dataclass(frozen=True)
class LastFailure:
    """The newest failed exchange of an Archive: how, when, and the trace that shows it."""

    reason: str
    at: str
    trace_id: str


@dataclass
class ArchiveHealth:
    """One Archive's recent exchanges and, for a registered one, its registry state."""

    address: str
    name: str
    registry_state: str  # "included", "excluded", "registered, never included", a local kind, "not registered"
    last_change: str | None = None
    answered: int = 0
    empty: int = 0
    failed: int = 0
    latencies_ms: list[float] = field(default_factory=list, repr=False)
    last_failure: LastFailure | None = None
    rounds: list[Round] = field(default_factory=list, repr=False)  # newest first, RECENT_ROUNDS at most

    @property
    def exchanges(self) -> int:
        return self.answered + self.empty + self.failed

    @property
    def p50_ms(self) -> float | None:
        return percentile(self.latencies_ms, 50)

    @property
    def p95_ms(self) -> float | None:
        return percentile(self.latencies_ms, 95)

    def condition(self, timeout_ms: float) -> Condition:
        """:class:`Condition` against the resolver's limit to answer (``timeout_ms``)."""
        if not self.rounds:
            return Condition.QUIET
        if self.rounds[0].outcome is ProbeOutcome.FAILED:
            return Condition.FAILING
        p50 = self.p50_ms
        if p50 is not None and p50 >= NEAR_TIMEOUT_SHARE * timeout_ms:
            return Condition.NEAR_TIMEOUT
        return Condition.ANSWERING

    def to_dict(self) -> dict[str, Any]:
        last = self.last_failure
        return {
            "name": self.name, "address": self.address, "registry_state": self.registry_state,
            "last_change": self.last_change, "answered": self.answered, "empty": self.empty,
            "failed": self.failed, "latency_ms": {"p50": self.p50_ms, "p95": self.p95_ms},
            "last_failure": None if last is None else {"reason": last.reason, "at": last.at, "trace_id": last.trace_id},
        }


def percentile(values: list[float], rank: int) -> float | None:
    """The nearest-rank percentile (no interpolation: every figure shown was measured)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(rank / 100 * len(ordered)) - 1)]


def archive_health(
    traces: Iterable[tuple[str, str, dict]], registry: Iterable[RegisteredArchive],
    local: Mapping[str, str] | None = None,
) -> list[ArchiveHealth]:
    """Every registered Archive, and every other Archive the ``traces`` (id, time, stored JSON,
    newest first) asked, with its counts; registered ones first, then by name. ``local`` names
    the state of Archives that are not in the registry by address (the portal's own, demo ones)."""
    local = {address.lower(): state for address, state in (local or {}).items()}
    rows: dict[str, ArchiveHealth] = {}
    for archive in registry:
        key = (archive.address or archive.service_ibi).lower()
        state = "included" if archive.included else "excluded" if archive.address else "registered, never included"
        rows[key] = ArchiveHealth(archive.address or "–", archive.service_ibi, state, archive.updated_at)
    for trace_id, at, body in traces:
        for step in body.get("trace", {}).get("steps", ()):
            if step.get("kind") != StepKind.URL_REQUEST.value or not step.get("archive"):
                continue
            address = step["archive"]
            state = local.get(address.lower(), "not registered")
            row = rows.setdefault(address.lower(), ArchiveHealth(address, step["receiver"], state))
            _count(row, step, trace_id, at)
    registered = {key for key in rows if key not in local}
    return sorted(rows.values(), key=lambda row: (row.address.lower() not in registered, row.name.lower()))


def _count(row: ArchiveHealth, step: dict, trace_id: str, at: str) -> None:
    status = Status(step["status"]) if step.get("status") else None
    if status in (Status.ANSWERED, Status.SET_ASIDE):  # set aside for what it said, not for failing to say it
        row.answered += 1
        outcome = ProbeOutcome.ANSWERED
    elif status is Status.EMPTY:
        row.empty += 1
        outcome = ProbeOutcome.EMPTY
    elif status in FAILURES:
        row.failed += 1
        outcome = ProbeOutcome.FAILED
        if row.last_failure is None:  # traces come newest first
            error = from_record(step.get("error"), step.get("error_i18n"))
            if error is not None and not isinstance(error, Message):  # a library's words, or stored before
                error = Recorded(error)
            reason = failure_words(status, error=error)
            row.last_failure = LastFailure(reason, at, trace_id)
    else:
        return  # not waited for: nothing measured
    elapsed = None if step.get("elapsed_ms") is None else float(step["elapsed_ms"])
    if elapsed is not None:
        row.latencies_ms.append(elapsed)
    if len(row.rounds) < RECENT_ROUNDS:
        row.rounds.append(Round(outcome, elapsed, at, trace_id))
