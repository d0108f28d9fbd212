"""The reference check as a use case (``ibiportal.application.references``): entries grouped by
the request they make, resolved concurrently but never more than the bound at once, broken
entries invalid without a request, the per-IBI budget, one failure kept to its own entries."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ibiportal.application.references import NOT_CHECKED_STATUS, OUTCOME_OF_ALERT, Allowance, CheckOutcome, ReferenceCheck, request_of
from ibiportal.application.resolving import Answer
from ibiportal.ibi.extract import extract
from ibiportal.resolver.trace import Alert, AlertReason
from ibiportal.resolver.statuses import ALERT_STATUS, FOUND_STATUS

LIST = """A. IBI: <8JMKD3MGP8W/35MMLL8>. Disponível em: <http://urlib.net/ibi/8JMKD3MGP8W/35MMLL8>.
B. IBI: <8JMKD3MGP8W/34PGRBS>.
C. <http://urlib.net/8JMKD3MGP8W/ZZZZZZZ>
D. \\url{http://urlib.net/8JMKD3MGP8W/35MMLL8!}
E. (sid.inpe.br/mtc-m18@80/2009/07.21.14.43) deleted: LK47B6W/362SFKH
"""


class FakeResolver:
    """Answers by IBI, counts each request, and records how many ran at once."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.asked: list[str] = []
        self.running = 0
        self.most = 0
        self.lock = threading.Lock()

    def __call__(self, entry) -> Answer:
        with self.lock:
            self.asked.append(request_of(entry))
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(self.delay)
        with self.lock:
            self.running -= 1
        ibi = entry.reading.ibi
        if ibi == "LK47B6W/362SFKH":
            return Answer(alert=Alert(AlertReason.DELETED, "deleted on 2010-01-01", "2010-01-01"), trace_url="t/2", cache="miss")
        if ibi == "8JMKD3MGP8W/34PGRBS":
            return Answer(alert=Alert(AlertReason.NOT_FOUND, "no Archive holds it"), trace_url="t/3", cache="miss")
        return Answer(f"http://archive.test/{request_of(entry)}", trace_url="t/1", cache="hit")


@pytest.fixture
def executor():
    pool = ThreadPoolExecutor(max_workers=8)
    yield pool
    pool.shutdown()


def check(resolver, executor, concurrency=32) -> ReferenceCheck:
    return ReferenceCheck(resolver, executor, alert_status=ALERT_STATUS, found_status=FOUND_STATUS,
                          concurrency=concurrency)


def test_every_entry_gets_its_resolution_each_request_asked_once(executor):
    entries = extract(LIST).found
    resolver = FakeResolver()
    checked = sorted(check(resolver, executor).run(entries, Allowance), key=lambda item: item.index)
    assert [item.index for item in checked] == list(range(len(entries)))
    outcomes = [(item.entry.text, item.resolution.outcome, item.resolution.status) for item in checked]
    assert outcomes == [
        ("8JMKD3MGP8W/35MMLL8", CheckOutcome.FOUND, 302),
        ("http://urlib.net/ibi/8JMKD3MGP8W/35MMLL8", CheckOutcome.FOUND, 302),
        ("8JMKD3MGP8W/34PGRBS", CheckOutcome.NOT_FOUND, 404),
        ("http://urlib.net/8JMKD3MGP8W/ZZZZZZZ", CheckOutcome.INVALID, None),
        ("http://urlib.net/8JMKD3MGP8W/35MMLL8!", CheckOutcome.FOUND, 302),
        ("sid.inpe.br/mtc-m18@80/2009/07.21.14.43", CheckOutcome.FOUND, 302),
        ("LK47B6W/362SFKH", CheckOutcome.DELETED, 410),
    ]
    # Both spellings of 35MMLL8 make one request; its last edition (!) is another request.
    assert sorted(resolver.asked) == sorted(["/8JMKD3MGP8W/35MMLL8", "/8JMKD3MGP8W/34PGRBS", "/8JMKD3MGP8W/35MMLL8!",
                                             "/sid.inpe.br/mtc-m18@80/2009/07.21.14.43", "/LK47B6W/362SFKH"])
    invalid = checked[3].resolution
    assert invalid.reason == "not an IBI: character 'Z' is not in the IBIp alphabet (0 1 I O V Y Z are excluded, Table 7.1) (at character 30)" and invalid.trace is None
    found = checked[4].resolution.to_dict()
    assert found == {"outcome": "found", "status": 302, "location": "http://archive.test//8JMKD3MGP8W/35MMLL8!",
                     "reason": "redirects to http://archive.test//8JMKD3MGP8W/35MMLL8!", "trace": "t/1", "cache": "hit"}


def test_resolutions_run_concurrently_within_the_bound(executor):
    text = "\n".join(f"IBI: <8JMKD3MGP8W/{suffix}>" for suffix in ("34PGRBS", "35MMLL8", "3C9EP6P", "35MME4E",
                                                                        "3EPGUE5", "362SFKH"))
    entries = extract(text).found
    resolver = FakeResolver(delay=0.2)
    started = time.monotonic()
    results = list(check(resolver, executor, concurrency=3).run(entries, Allowance))
    assert len(results) == 6 and resolver.most == 3
    # Six requests three at a time are two rounds of the delay, not six (the bound is what is tested).
    assert time.monotonic() - started < 6 * 0.2


def test_the_budget_stops_the_rest_as_not_checked(executor):
    entries = extract(LIST).found
    resolver = FakeResolver()
    checked = list(check(resolver, executor).run(entries, lambda count: Allowance(min(count, 2), "at most 2/minute")))
    assert len(resolver.asked) == 2 and len(checked) == len(entries)
    refused = [item.resolution for item in checked if item.resolution.status == NOT_CHECKED_STATUS]
    assert len(refused) == 3  # the three requests after the two allowed
    assert all(item.outcome is CheckOutcome.ERROR and item.reason == "not checked: at most 2/minute" for item in refused)


def test_a_failure_is_an_error_on_its_own_entries_only(executor, caplog):
    entries = extract(LIST).found

    def resolve(entry) -> Answer:
        if entry.reading.ibi == "8JMKD3MGP8W/34PGRBS":
            raise RuntimeError("storage went away")
        return FakeResolver()(entry)

    checked = {item.entry.text: item.resolution for item in check(resolve, executor).run(entries, Allowance)}
    assert checked["8JMKD3MGP8W/34PGRBS"].outcome is CheckOutcome.ERROR and checked["8JMKD3MGP8W/34PGRBS"].status == 500
    assert "storage went away" not in checked["8JMKD3MGP8W/34PGRBS"].reason  # the cause is logged, not shown
    assert "storage went away" in caplog.text
    assert checked["LK47B6W/362SFKH"].outcome is CheckOutcome.DELETED


def test_a_reference_to_what_an_item_does_not_have_is_not_found():
    # X: of an item without metadata, X/file.pdf of one without that file: the item is held, the
    # reference still leads nowhere (not "an error worth checking again").
    assert OUTCOME_OF_ALERT[AlertReason.RELATION_MISSING] is CheckOutcome.NOT_FOUND
    assert OUTCOME_OF_ALERT[AlertReason.TRANSLATION_MISSING] is CheckOutcome.NOT_FOUND


class CountingExecutor(ThreadPoolExecutor):
    """A pool that counts the resolutions started (as they are submitted, not as they run)."""

    def __init__(self) -> None:
        super().__init__(max_workers=2)
        self.started = 0

    def submit(self, fn, /, *args, **kwargs):
        self.started += 1
        return super().submit(fn, *args, **kwargs)


def test_batches_hand_on_the_unresolved_at_once_and_start_the_next_request_first():
    entries = extract(LIST).found
    with CountingExecutor() as pool:
        batches = check(FakeResolver(), pool, concurrency=1).batches(entries, lambda count: Allowance(min(count, 4), "at most 4"))
        first = next(batches)  # the broken entry and the request over the budget, before anything is resolved
        assert sorted(item.resolution.outcome for item in first) == [CheckOutcome.ERROR, CheckOutcome.INVALID]
        assert pool.started == 0
        resolved = next(batches)  # one request at a time: the next is started before its entries come
        assert len({request_of(item.entry) for item in resolved}) == 1 and pool.started == 2
        rest = [item for batch in batches for item in batch]
    assert len(first) + len(resolved) + len(rest) == len(entries) and pool.started == 4
