"""Two runs of the same trace side by side: did the outcome change, and which Archive behaved differently?

Support staff rerun a trace after someone fixed an Archive, or to see whether a timeout
was a fluke; the comparison lists every (round, Archive) with its status and time in both
runs, the changed ones first.
"""
from __future__ import annotations

from dataclasses import dataclass


from ..i18n import gettext
from ...resolver.trace import Resolution, StepKind
from .alerts import alert_words
from .report import status_words


@dataclass(frozen=True)
class ArchiveRun:
    """One Archive in one round of both runs (``None`` where a run did not ask it)."""

    hop: int
    archive: str
    before: str | None
    after: str | None
    before_ms: float | None
    after_ms: float | None

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass(frozen=True)
class Comparison:
    before_id: str
    before: str
    after: str
    before_ms: float
    after_ms: float
    runs: tuple[ArchiveRun, ...]

    @property
    def same_outcome(self) -> bool:
        return self.before == self.after

    @property
    def changed(self) -> int:
        return sum(1 for run in self.runs if run.changed)


def outcome_words(resolution: Resolution) -> str:
    """``redirect to <url>`` or ``alert <reason>``: what the browser gets, in the reader's words."""
    if resolution.alert is None:
        return gettext("redirect to %(url)s", url=resolution.url)
    return gettext("alert %(reason)s", reason=alert_words(resolution.alert.reason))


def _statuses(resolution: Resolution) -> dict[tuple[int, str], tuple[str, float | None]]:
    found: dict[tuple[int, str], tuple[str, float | None]] = {}
    for step in resolution.trace.steps:
        if step.kind is StepKind.URL_REQUEST and step.status is not None:
            found[(step.hop, step.receiver)] = (status_words(step.status), step.elapsed_ms)
    return found


def compare(before_id: str, before: Resolution, after: Resolution) -> Comparison:
    """How ``after`` differs from the earlier run ``before`` (stored as ``before_id``)."""
    old, new = _statuses(before), _statuses(after)
    keys = sorted(set(old) | set(new), key=lambda key: (key[0], key[1].casefold()))
    runs = [
        ArchiveRun(hop, name, old.get((hop, name), (None, None))[0], new.get((hop, name), (None, None))[0],
                   old.get((hop, name), (None, None))[1], new.get((hop, name), (None, None))[1])
        for hop, name in keys
    ]
    runs.sort(key=lambda run: not run.changed)  # stable: changed first, each group in (round, name) order
    return Comparison(before_id, outcome_words(before), outcome_words(after), before.elapsed_ms, after.elapsed_ms,
                      tuple(runs))
