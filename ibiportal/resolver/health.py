"""How each Archive has been answering: a summary of the resolver's recent traces (message (4)
of Figure 8.1, per Archive) beside the registry's state (file 003 §7).

Support staff and Archive administrators read it on the public Archive health page: counts of
answered / empty / failed exchanges, latency percentiles, and the last failure with its reason
and the trace that shows it. Pure data: the caller hands in the traces and the registry.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .diagnosis import FAILURES
from ..registry import RegisteredArchive
from .trace import Status, StepKind


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

    @property
    def exchanges(self) -> int:
        return self.answered + self.empty + self.failed

    @property
    def p50_ms(self) -> float | None:
        return percentile(self.latencies_ms, 50)

    @property
    def p95_ms(self) -> float | None:
        return percentile(self.latencies_ms, 95)

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
    if status is Status.ANSWERED:
        row.answered += 1
    elif status is Status.EMPTY:
        row.empty += 1
    elif status in FAILURES:
        row.failed += 1
        if row.last_failure is None:  # traces come newest first
            reason = FAILURES[status] + (f" ({step['error']})" if step.get("error") else "")
            row.last_failure = LastFailure(reason, at, trace_id)
    else:
        return  # not waited for: nothing measured
    if step.get("elapsed_ms") is not None:
        row.latencies_ms.append(float(step["elapsed_ms"]))
