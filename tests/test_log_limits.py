"""LimitedLog: one warning per cause per interval, and the count of those held back."""
from __future__ import annotations

import logging

from ibiportal.log_limits import LimitedLog


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def lines(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records]


def test_one_line_per_cause_per_interval_then_the_count_held_back(caplog):
    clock = Clock()
    log = LimitedLog(logging.getLogger("test.limited"), interval=10, clock=clock)
    with caplog.at_level(logging.WARNING, "test.limited"):
        for number in range(901):
            log.warning("redis", "Redis unreachable: change %d", number)
            clock.now += 0.01  # 901 in 9 s
        log.warning("other", "another cause is written at once")
        clock.now += 1.5
        log.warning("redis", "Redis unreachable: change %d", 901)
    assert lines(caplog) == ["Redis unreachable: change 0", "another cause is written at once",
                             "Redis unreachable: change 901 (900 more like it since the last one logged)"]


def test_recovery_is_one_line_with_the_count_and_only_after_a_warning(caplog):
    clock = Clock()
    log = LimitedLog(logging.getLogger("test.limited"), interval=60, clock=clock)
    with caplog.at_level(logging.WARNING, "test.limited"):
        log.recovered("redis", "never warned of: not written")
        log.warning("redis", "down")
        log.warning("redis", "down")
        log.recovered("redis", "back")
        log.recovered("redis", "back")
        log.warning("redis", "down again")  # a new fault: written at once, within the interval
    assert lines(caplog) == ["down", "back (1 more like it since the last one logged)", "down again"]


def test_an_exception_is_one_traceback_per_cause_per_interval(caplog):
    clock = Clock()
    log = LimitedLog(logging.getLogger("test.limited"), interval=60, clock=clock)
    with caplog.at_level(logging.WARNING, "test.limited"):
        for _ in range(50):
            try:
                raise KeyError("broken")
            except KeyError:
                log.exception("KeyError", "the view failed")
        clock.now += 60
        try:
            raise KeyError("broken")
        except KeyError:
            log.exception("KeyError", "the view failed")
    assert lines(caplog) == ["the view failed", "the view failed (49 more like it since the last one logged)"]
    assert all(record.levelno == logging.ERROR and record.exc_info[0] is KeyError for record in caplog.records)
    assert all(record.funcName == "test_an_exception_is_one_traceback_per_cause_per_interval"
               for record in caplog.records)  # the caller's line, not LimitedLog's
