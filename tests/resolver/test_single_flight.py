"""SingleFlight: identical concurrent calls share one call's result, its exception included."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from ibiportal.resolver.single_flight import SingleFlight


def test_concurrent_callers_with_one_key_share_one_call():
    flight: SingleFlight[str] = SingleFlight()
    started, release, calls = threading.Event(), threading.Event(), []

    def call() -> str:
        calls.append(1)
        started.set()
        release.wait(5)
        return "outcome"

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(flight.run, "key", call) for _ in range(8)]
        started.wait(5)
        threading.Timer(0.2, release.set).start()  # the seven others have had time to join
        shared = [future.result(5) for future in futures]
    assert len(calls) == 1 and {each.result for each in shared} == {"outcome"}
    assert sorted(each.joined for each in shared) == [False] + [True] * 7
    assert len(flight) == 0


def test_other_keys_and_later_callers_run_their_own_call():
    flight: SingleFlight[int] = SingleFlight()
    counter = iter(range(10))
    assert flight.run("a", lambda: next(counter)).result == 0
    assert flight.run("a", lambda: next(counter)).result == 1  # the first one had ended
    assert flight.run("b", lambda: next(counter)).joined is False


def test_the_leaders_exception_reaches_every_follower_and_the_key_is_freed():
    flight: SingleFlight[str] = SingleFlight()
    started, release = threading.Event(), threading.Event()

    def failing() -> str:
        started.set()
        release.wait(5)
        raise RuntimeError("store unavailable")

    with ThreadPoolExecutor(2) as pool:
        leader = pool.submit(flight.run, "key", failing)
        started.wait(5)
        follower = pool.submit(flight.run, "key", lambda: "never run")
        threading.Timer(0.2, release.set).start()
        for future in (leader, follower):
            with pytest.raises(RuntimeError, match="store unavailable"):
                future.result(5)
    assert flight.run("key", lambda: "fresh").result == "fresh"
