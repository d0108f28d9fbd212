"""Archive health from stored traces and the registry: counts, nearest-rank latency, last failure."""
from __future__ import annotations

from ibiportal.resolver.health import (
    NEAR_TIMEOUT_SHARE,
    RECENT_ROUNDS,
    Condition,
    ProbeOutcome,
    Round,
    archive_health,
    percentile,
)
from ibiportal.protocol.registry import KeyHash, RegisteredArchive

KEY = KeyHash(b"salt", b"digest")


def step(address: str, status: str, ms: float, error: str | None = None) -> dict:
    return {"number": 3, "kind": "urlRequest", "receiver": address, "archive": address, "status": status,
            "elapsed_ms": ms, "error": error}


def trace(*steps: dict) -> dict:
    return {"trace": {"steps": [{"number": 2, "kind": "capture", "receiver": "Resolver"}, *steps]}}


def test_percentiles_are_measured_values():
    assert percentile([], 50) is None
    assert percentile([30.0, 10.0, 20.0, 40.0], 50) == 20.0
    assert percentile([float(n) for n in range(1, 101)], 95) == 95.0
    assert percentile([7.0], 95) == 7.0


def test_counts_latency_and_the_newest_failure_with_its_trace():
    traces = [  # newest first, as the storage returns them
        ("t3", "2026-11-22T10:03:00Z", trace(step("a.org", "timeout", 2000.0, "no answer within 2 s"))),
        ("t2", "2026-11-22T10:02:00Z", trace(step("a.org", "malformed", 5.0), step("b.org", "empty", 3.0))),
        ("t1", "2026-11-22T10:01:00Z", trace(step("a.org", "answered", 10.0), step("b.org", "not-waited-for", 1.0))),
    ]
    registry = [RegisteredArchive("B/SERVICE", KEY, "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", True, "b.org", "203.0.113.2"),
                RegisteredArchive("C/SERVICE", KEY, "2026-11-01T00:00:00Z", "2026-11-03T00:00:00Z", False, "c.org", "203.0.113.3")]
    rows = {row.address: row for row in archive_health(traces, registry, {"a.org": "demo, in-process"})}
    a, b, c = rows["a.org"], rows["b.org"], rows["c.org"]
    assert (a.answered, a.empty, a.failed) == (1, 0, 2)
    assert (a.p50_ms, a.p95_ms) == (10.0, 2000.0)
    assert a.last_failure.trace_id == "t3" and a.last_failure.reason == "did not answer in time (no answer within 2 s)"
    assert a.registry_state == "demo, in-process"
    assert (b.name, b.registry_state, b.empty, b.exchanges) == ("B/SERVICE", "included", 1, 1)  # not waited for: not counted
    assert (c.registry_state, c.exchanges, c.p50_ms, c.last_failure) == ("excluded", 0, None, None)
    assert [row.address for row in archive_health(traces, registry, {"a.org": "demo"})] == ["b.org", "c.org", "a.org"]


def test_json_shape():
    (row,) = archive_health([("t1", "2026-11-22T10:01:00Z", trace(step("a.org", "empty", 4.0)))], [])
    assert row.to_dict() == {"name": "a.org", "address": "a.org", "registry_state": "not registered", "last_change": None,
                             "answered": 0, "empty": 1, "failed": 0, "latency_ms": {"p50": 4.0, "p95": 4.0},
                             "last_failure": None}


def test_recent_rounds_are_bounded_newest_first_and_say_the_condition():
    traces = [(f"t{n}", f"2026-11-22T10:{n:02d}:00Z", trace(step("a.org", "answered", 4004.0 + n)))
              for n in reversed(range(RECENT_ROUNDS + 5))]
    (row,) = archive_health(traces, [])
    assert len(row.rounds) == RECENT_ROUNDS and row.exchanges == RECENT_ROUNDS + 5
    assert row.rounds[0] == Round(ProbeOutcome.ANSWERED, 4004.0 + RECENT_ROUNDS + 4, row.rounds[0].at, f"t{RECENT_ROUNDS + 4}")
    timeout_ms = 5000.0
    assert row.p50_ms >= NEAR_TIMEOUT_SHARE * timeout_ms
    assert row.condition(timeout_ms) is Condition.NEAR_TIMEOUT  # a median of 4,004 ms against 5 s
    assert row.condition(10_000.0) is Condition.ANSWERING
    failing = [("t9", "2026-11-22T11:00:00Z", trace(step("a.org", "timeout", 5000.0))), *traces]
    assert archive_health(failing, [])[0].condition(timeout_ms) is Condition.FAILING
    recovered = [("t10", "2026-11-22T11:01:00Z", trace(step("a.org", "answered", 10.0))), *failing]
    assert archive_health(recovered, [])[0].condition(10_000.0) is Condition.ANSWERING
    quiet = RegisteredArchive("C/SERVICE", KEY, "2026-11-01T00:00:00Z", "2026-11-03T00:00:00Z", True, "c.org", "203.0.113.3")
    assert archive_health([], [quiet])[0].condition(timeout_ms) is Condition.QUIET
