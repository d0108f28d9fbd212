"""Stored traces stay within a count and a byte budget, whatever the Archives answer."""
from __future__ import annotations

import json

import pytest

from ibiportal.storage.database import Storage
from ibiportal.storage.traces import PRUNE_FRACTION, STORED_ANSWER_CHARS, TraceStore, stored_trace
from tests.storage.trace_measure import stored_bytes


@pytest.fixture
def traces(database_setting):
    storage = Storage(database_setting)
    yield TraceStore(storage)
    storage.close()


def body(size: int, tag: str) -> dict:
    return {"persistent_url": tag, "padding": "x" * size}


def test_the_oldest_traces_go_beyond_the_count(traces):
    for number in range(7):
        traces.save_trace(f"t{number}", "u", "found", body(10, str(number)), keep=5, budget_bytes=10**6)
    assert stored_bytes(traces.storage)[0] == 5
    assert traces.load_trace("t1") is None and traces.load_trace("t2")["persistent_url"] == "2"


def test_the_oldest_traces_go_beyond_the_byte_budget(traces):
    one = len(json.dumps(body(1000, "0")).encode())
    for number in range(10):  # a retention under PRUNE_FRACTION: every save prunes
        traces.save_trace(f"t{number}", "u", "found", body(1000, str(number)), keep=60, budget_bytes=3 * one + 10)
    count, stored = stored_bytes(traces.storage)
    assert (count, stored) == (3, 3 * one)
    assert [traces.load_trace(f"t{n}") is not None for n in range(10)] == [False] * 7 + [True] * 3


def test_a_large_retention_is_pruned_in_batches_back_to_exactly_the_newest(traces):
    keep = 2 * PRUNE_FRACTION  # a pruning every 2 saves, the first save's included
    counts = []
    for number in range(keep + 6):
        traces.save_trace(f"t{number}", "u", "found", body(10, str(number)), keep=keep, budget_bytes=10**6)
        counts.append(stored_bytes(traces.storage)[0])
    # pruned at the even saves: at most one more between prunings, then exactly the newest again
    assert counts[keep:] == [keep, keep + 1, keep, keep + 1, keep, keep + 1]
    assert traces.load_trace("t4") is None and traces.load_trace("t5") is not None


def test_the_byte_budget_is_kept_at_a_pruning_the_newest_whole(traces):
    one = len(json.dumps(body(1000, "0")).encode())
    keep = 3 * PRUNE_FRACTION  # a pruning every 3 saves
    for number in range(7):
        traces.save_trace(f"t{number}", "u", "found", body(1000, str(number)), keep=keep, budget_bytes=2 * one + 10)
    # pruned after t0, t3 and t6: the two newest fit the budget
    assert [traces.load_trace(f"t{n}") is not None for n in range(7)] == [False] * 5 + [True] * 2


def test_the_newest_trace_is_kept_even_beyond_the_budget(traces):
    traces.save_trace("small", "u", "found", body(10, "s"), keep=10, budget_bytes=100)
    traces.save_trace("big", "u", "found", body(500, "b"), keep=10, budget_bytes=100)
    assert traces.load_trace("big") is not None and traces.load_trace("small") is None


def test_utf8_bytes_are_what_counts(traces):
    traces.save_trace("accents", "u", "found", {"text": "ç" * 100}, keep=10, budget_bytes=10**6)
    assert stored_bytes(traces.storage)[1] == len(json.dumps({"text": "ç" * 100}).encode("utf-8"))


def test_a_stored_trace_keeps_only_the_start_of_each_huge_answer():
    huge = "a" * (STORED_ANSWER_CHARS * 10)
    pairs = [[f"name{n}", "v" * 1000] for n in range(100)]
    trace = {"trace": {"steps": [
        {"raw_answer": huge, "pairs": pairs, "notes": []},
        {"raw_answer": "short", "pairs": [["a", "b"]], "notes": ["kept"]},
    ]}}
    first, second = stored_trace(trace)["trace"]["steps"]
    assert first["raw_answer"] == huge[:STORED_ANSWER_CHARS]
    assert sum(len(name) + len(value) for name, value in first["pairs"]) == STORED_ANSWER_CHARS
    kept = first["pairs"]
    assert kept[:-1] == pairs[:len(kept) - 1]  # whole pairs, in order, then the one cut short
    assert kept[-1][0] == pairs[len(kept) - 1][0] and 0 < len(kept[-1][1]) < 1000
    assert first["notes"] == [
        f"the stored answer is cut at {STORED_ANSWER_CHARS:,} of its {len(huge):,} characters",
        f"the stored pairs are cut at {STORED_ANSWER_CHARS:,} of their 100,590 characters",
    ]
    assert second == {"raw_answer": "short", "pairs": [["a", "b"]], "notes": ["kept"]}


def test_recent_traces_are_the_newest_first(traces):
    for number in range(5):
        traces.save_trace(f"t{number}", "u", "found", body(10, str(number)), keep=10, budget_bytes=10**6)
    recent = traces.recent_traces(3)
    assert [trace_id for trace_id, _, _ in recent] == ["t4", "t3", "t2"]
    assert recent[0][2]["persistent_url"] == "4" and recent[0][1].endswith("Z")


def test_a_notice_that_came_later_replaces_the_pending_step(traces):
    pending = {"number": 6, "hop": 1, "acknowledgment": "pending", "decision": "acknowledgment pending"}
    others = [{"number": 5, "hop": 1, "acknowledgment": None}, {"number": 7, "hop": 1, "acknowledgment": None}]
    traces.save_trace("t", "u", "found", {"trace": {"steps": [others[0], pending, others[1]]}}, keep=5, budget_bytes=10**6)
    notice = {**pending, "acknowledgment": "notice", "decision": "notice {acknowledgment received}", "elapsed_ms": 2001.5}
    assert traces.record_notice("t", notice)
    assert traces.load_trace("t")["trace"]["steps"] == [others[0], notice, others[1]]
    assert stored_bytes(traces.storage)[1] == len(json.dumps(traces.load_trace("t")).encode())
    assert not traces.record_notice("t", notice)  # recorded once
    assert not traces.record_notice("gone", notice)  # a trace dropped meanwhile
