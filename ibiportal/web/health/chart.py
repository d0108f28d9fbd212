"""The Archive health page's latency chart: an Archive's recent exchanges as bars against the
resolver's limit, as geometry for an inline SVG that the template draws (no script needed).

One bar per exchange, oldest on the left, the newest always at the right edge; a bar's height
is its time as a share of the limit (the dashed line near the top); a failed exchange is drawn
to the top, whatever it measured (the resolver got nothing from it). Each bar's ``kind`` gives
its colour, and the page says the same in words: colour is never the only sign.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...resolver.health import NEAR_TIMEOUT_SHARE, RECENT_ROUNDS, ProbeOutcome, Round

WIDTH = 240
HEIGHT = 56
LIMIT_Y = 8.0
"""The limit's line: the room above it is where failed exchanges reach."""
BASE_Y = HEIGHT - 1.0
MIN_HEIGHT = 3.0
"""A bar of 1 ms is still seen (and counted) next to one of 4,000 ms."""


@dataclass(frozen=True)
class Bar:
    """One exchange drawn: where (SVG user units) and how (``kind``: answered, slow, empty, failed)."""

    x: float
    y: float
    width: float
    height: float
    kind: str
    round: Round


@dataclass(frozen=True)
class LatencyChart:
    """The bars, the limit's line and the near-the-timeout line, in a WIDTH × HEIGHT view box."""

    bars: tuple[Bar, ...]
    near_y: float
    width: int = WIDTH
    height: int = HEIGHT
    limit_y: float = LIMIT_Y


def latency_chart(rounds: Sequence[Round], timeout_ms: float) -> LatencyChart:
    """The chart of ``rounds`` (newest first, as :class:`~ibiportal.resolver.health.ArchiveHealth` keeps
    them) against ``timeout_ms``, the resolver's limit to answer."""
    slot = WIDTH / RECENT_ROUNDS
    scale = BASE_Y - LIMIT_Y
    bars = []
    for index, exchange in enumerate(reversed(rounds[:RECENT_ROUNDS])):
        x = WIDTH - (len(rounds[:RECENT_ROUNDS]) - index) * slot + slot * 0.15
        if exchange.outcome is ProbeOutcome.FAILED or exchange.elapsed_ms is None:
            top = 0.0
        else:
            top = max(0.0, min(BASE_Y - MIN_HEIGHT, BASE_Y - exchange.elapsed_ms / timeout_ms * scale))
        bars.append(Bar(round(x, 2), round(top, 2), round(slot * 0.7, 2), round(BASE_Y - top, 2),
                        _kind(exchange, timeout_ms), exchange))
    return LatencyChart(tuple(bars), round(BASE_Y - NEAR_TIMEOUT_SHARE * scale, 2))


def _kind(exchange: Round, timeout_ms: float) -> str:
    if exchange.outcome is ProbeOutcome.FAILED:
        return "failed"
    if exchange.elapsed_ms is not None and exchange.elapsed_ms >= NEAR_TIMEOUT_SHARE * timeout_ms:
        return "slow"
    return str(exchange.outcome)
