"""The Archive health page's latency chart: bars against the resolver's limit, newest on the right."""
from __future__ import annotations

from ibiportal.resolver.health import NEAR_TIMEOUT_SHARE, RECENT_ROUNDS, ProbeOutcome, Round
from ibiportal.web.health.chart import BASE_Y, LIMIT_Y, MIN_HEIGHT, WIDTH, latency_chart

TIMEOUT_MS = 5000.0


def test_each_bar_is_its_time_against_the_limit_and_the_newest_is_on_the_right():
    rounds = [Round(ProbeOutcome.FAILED, 5000.0, "at3", "t3"), Round(ProbeOutcome.ANSWERED, 4004.0, "at2", "t2"),
              Round(ProbeOutcome.EMPTY, 2500.0, "at1", "t1"), Round(ProbeOutcome.ANSWERED, 0.2, "at0", "t0")]  # newest first
    chart = latency_chart(rounds, TIMEOUT_MS)
    assert [bar.round.trace_id for bar in chart.bars] == ["t0", "t1", "t2", "t3"]
    assert [bar.kind for bar in chart.bars] == ["answered", "empty", "slow", "failed"]
    xs = [bar.x for bar in chart.bars]
    assert xs == sorted(xs) and chart.bars[-1].x + chart.bars[-1].width <= WIDTH
    assert WIDTH - (chart.bars[-1].x + chart.bars[-1].width) < WIDTH / RECENT_ROUNDS  # the newest at the right edge
    assert chart.bars[0].height == MIN_HEIGHT  # 0.2 ms is still seen
    assert chart.bars[1].y == BASE_Y - 0.5 * (BASE_Y - LIMIT_Y)  # half the limit, half the way up
    assert chart.bars[2].y < chart.near_y  # 4,004 ms is above the near-the-timeout line
    assert chart.near_y == round(BASE_Y - NEAR_TIMEOUT_SHARE * (BASE_Y - LIMIT_Y), 2)
    assert chart.bars[3].y == 0 < chart.limit_y  # a failure is drawn past the limit


def test_a_full_chart_fills_its_width():
    rounds = [Round(ProbeOutcome.ANSWERED, 10.0 * n, f"at{n}", f"t{n}") for n in range(RECENT_ROUNDS)]
    chart = latency_chart(rounds, TIMEOUT_MS)
    assert len(chart.bars) == RECENT_ROUNDS and chart.bars[0].x < WIDTH / RECENT_ROUNDS
