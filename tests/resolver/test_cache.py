"""The resolution cache: lifetime on a fake clock, the LRU bound, every part of the key,
generations, what may be cached, and the acknowledgment a hit still sends (Table 8.11)."""
from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from ibiportal.resolver.cache import (
    Acknowledger,
    AcknowledgmentMessage,
    CachedAlert,
    CachedRedirect,
    CacheKey,
    ResolutionCache,
    cached_outcome,
)
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver
from ibiportal.storage.signal import Changes
from ibiportal.resolver.trace import Resolution
from ibiportal.resolver.transport import ArchiveEndpoint, Exchange, Failure, Timeouts

ENDPOINT = ArchiveEndpoint("mtc-m16c.sid.inpe.br", "sid.inpe.br/mtc-m18@80/2008/03.17.15.17", "mtc-m16c", "local", 1.0, 2.0)
ACK = f"http://{ENDPOINT.address}/{ENDPOINT.service_ibi}?clientinformation.ipaddress=192.0.2.5&servicesubject=acknowledgment"
KEY = CacheKey("http://urlib.net/8JMKD3MGP8W/35MMLL8", "192.0.2.5", None, (), "pt-BR", "all")
MESSAGE = AcknowledgmentMessage(ENDPOINT, ACK)
TRACE = "http://localhost/api/v1/trace/t1"
REDIRECT = CachedRedirect("http://mtc-m16c.sid.inpe.br/col/x/doc/a.pdf", "mtc-m16c", TRACE, MESSAGE)
IBIS = frozenset({"8jmkd3mgp8w/35mmll8"})  # what KEY's outcome depends on


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_an_entry_lives_for_its_ttl_only(clock):
    cache = ResolutionCache(30, 10, clock)
    cache.put(KEY, Changes(0), REDIRECT, IBIS)
    clock.now += 29.9
    assert cache.get(KEY, Changes(0)) == REDIRECT
    clock.now += 0.1
    assert cache.get(KEY, Changes(0)) is None
    clock.now += cache.stale_seconds  # kept only while it may still be served stale
    assert cache.get(KEY, Changes(0)) is None
    assert len(cache) == 0  # the expired entry is gone, not just hidden


def test_a_hit_does_not_extend_the_lifetime(clock):
    cache = ResolutionCache(30, 10, clock)
    cache.put(KEY, Changes(0), REDIRECT, IBIS)
    for _ in range(3):
        clock.now += 10
        hit = cache.get(KEY, Changes(0))
    assert hit is None  # 30 s after the resolution, however often it was used


def test_least_recently_used_entry_is_dropped_beyond_the_bound(clock):
    cache = ResolutionCache(30, 2, clock)
    keys = [KEY._replace(persistent_url=f"http://urlib.net/8JMKD3MGP8W/35MMLL{n}") for n in range(3)]
    cache.put(keys[0], Changes(0), REDIRECT, IBIS)
    cache.put(keys[1], Changes(0), REDIRECT, IBIS)
    assert cache.get(keys[0], Changes(0)) is not None  # keys[1] is now the least recently used
    cache.put(keys[2], Changes(0), REDIRECT, IBIS)
    assert len(cache) == 2
    assert cache.get(keys[1], Changes(0)) is None
    assert cache.get(keys[0], Changes(0)) is not None and cache.get(keys[2], Changes(0)) is not None


@pytest.mark.parametrize(
    "change",
    [
        {"persistent_url": "http://urlib.net/8JMKD3MGP8W/35MMLL8!"},  # a modifier
        {"persistent_url": "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.requireditemstatus=Original"},
        {"persistent_url": "http://urlib.net/8JMKD3MGP8W/35MMLL8?page=2"},  # a query passed on to the item
        {"persistent_url": "http://example.org/8JMKD3MGP8W/35MMLL8"},  # another resolver host
        {"peer": "192.0.2.6"},  # CRIARPARURL may choose by the user's IP (§9)
        {"forwarded_for": "172.16.44.200"},  # a trusted proxy's user (Table 8.10)
        {"trusted_proxies": ("192.0.2.5",)},  # the same request, the IP list read differently
        {"language_preference": "en"},  # chooses the translation of "+"
        {"language_preference": None},
        {"archives": "live"},
    ],
)
def test_every_part_of_the_key_counts(clock, change):
    cache = ResolutionCache(30, 10, clock)
    cache.put(KEY, Changes(0), REDIRECT, IBIS)
    assert cache.get(KEY._replace(**change), Changes(0)) is None
    assert cache.get(CacheKey(*KEY), Changes(0)) == REDIRECT  # an equal key still hits


def test_a_newer_generation_empties_the_cache(clock):
    cache = ResolutionCache(30, 10, clock)
    cache.put(KEY, Changes(4), REDIRECT, IBIS)
    assert cache.get(KEY, Changes(5)) is None
    assert len(cache) == 0
    assert cache.get(KEY, Changes(4)) is None  # an older number read late does not bring it back


def test_a_redirect_resolved_before_the_archive_set_changed_is_not_kept(clock):
    cache = ResolutionCache(30, 10, clock)
    assert cache.get(KEY, Changes(7)) is None  # a request meanwhile saw generation 7
    cache.put(KEY, Changes(6), REDIRECT, IBIS)  # a resolution that read 6 before it started
    assert len(cache) == 0 and cache.get(KEY, Changes(7)) is None
    cache.put(KEY, Changes(8), REDIRECT, IBIS)  # the newest number wins
    assert cache.get(KEY, Changes(8)) == REDIRECT


def test_an_ibi_change_drops_only_the_outcomes_that_depend_on_it(clock):
    cache = ResolutionCache(30, 10, clock, alert_ttl=10)
    other = KEY._replace(persistent_url="http://urlib.net/8JMKD3MGP8W/34PGRBS!")
    before = Changes(3, last=10, known_after=10)
    cache.put(KEY, before, REDIRECT, IBIS)
    cache.put(other, before, REDIRECT, frozenset({"8jmkd3mgp8w/34pgrbs", "sid.inpe.br/mtc-m18/2009/02.16.17.46"}))
    after = Changes(3, last=12, recent=((11, "sid.inpe.br/mtc-m18/2009/02.16.17.46"), (12, "j8lnkb5r7w/3fuqhc5")), known_after=10)
    assert cache.get(other, after) is None  # changed under its other form
    assert cache.get(KEY, after) == REDIRECT and len(cache) == 1


def test_an_outcome_resolved_while_its_ibi_changed_is_not_kept(clock):
    cache = ResolutionCache(30, 10, clock)
    assert cache.get(KEY, Changes(3, last=11, recent=((11, "8jmkd3mgp8w/35mmll8"),), known_after=10)) is None
    cache.put(KEY, Changes(3, last=10), REDIRECT, IBIS)  # read change 10 before it started
    assert len(cache) == 0
    cache.put(KEY._replace(persistent_url="http://urlib.net/x"), Changes(3, last=10), REDIRECT, frozenset({"x"}))
    assert len(cache) == 1  # another IBI changed meanwhile: kept


def test_changes_no_longer_remembered_empty_the_cache(clock):
    cache = ResolutionCache(30, 10, clock)
    cache.put(KEY, Changes(3, last=10), REDIRECT, frozenset({"x"}))
    assert cache.get(KEY, Changes(3, last=2000, recent=((2000, "y"),), known_after=1999)) is None
    cache.put(KEY, Changes(3, last=10), REDIRECT, frozenset({"x"}))  # whether x changed is unknown
    assert len(cache) == 0


def test_the_index_of_ibis_forgets_what_the_cache_dropped(clock):
    cache = ResolutionCache(30, 2, clock)
    for n in range(50):
        cache.put(KEY._replace(persistent_url=f"http://urlib.net/{n}"), Changes(0), REDIRECT, frozenset({f"ibi{n}"}))
    assert len(cache) == 2 and len(cache._keys_by_ibi) == 2  # memory stays bounded by max_entries


@pytest.mark.parametrize("ttl, size, alert_ttl", [(0, 10, 0), (-1, 10, 10), (30, 0, 10), (30, 10, -1)])
def test_a_cache_needs_a_positive_lifetime_and_size(ttl, size, alert_ttl):
    with pytest.raises(ValueError, match="positive lifetime and size"):
        ResolutionCache(ttl, size, alert_ttl=alert_ttl)


# -- what is cached -------------------------------------------------------------------------------


def resolve_demo(demo_resolver, path: str):
    return demo_resolver.resolve(Asked.parse(f"http://urlib.net/{path}"), ClientInfo(("172.16.44.200",), None))


def test_a_found_url_is_cached_with_the_acknowledgment_the_engine_sent(demo_resolver):
    resolution = resolve_demo(demo_resolver, "8JMKD3MGP8W/35MMLL8")
    redirect = CachedRedirect.of(resolution, TRACE)
    assert (redirect.url, redirect.archive, redirect.trace_url) == (resolution.url, "mtc-m16c", TRACE)
    sent = resolution.trace.numbered(5)[0]
    assert redirect.acknowledgment.url == sent.request_url == resolution.acknowledgment_url
    chosen = next(endpoint for endpoint in demo_resolver.archives if endpoint.name == "mtc-m16c")
    assert redirect.acknowledgment.endpoint is chosen  # the engine's own endpoint, not looked up again


@pytest.mark.parametrize("path", ["8JMKD3MGP8W/34PGRBS", "D7N2U8HW/3GBBQK2"])  # not found; deleted
def test_alerts_are_not_cached_as_redirects(demo_resolver, path):
    resolution = resolve_demo(demo_resolver, path)
    assert resolution.alert is not None
    assert CachedRedirect.of(resolution, TRACE) is None


def well_behaved(demo_resolver, *names: str) -> Resolver:
    """The demo Archives named (all but the faulty ones), every one answering in time."""
    kept = [endpoint for endpoint in demo_resolver.archives if endpoint.name in names]
    return Resolver(kept, demo_resolver.transports, settings=demo_resolver.settings, executor=demo_resolver.executor)


@pytest.mark.parametrize("path, reason", [("D7N2U8HW/3GBBQK2", "deleted"), ("8JMKD3MGP8W/34PGRBS", "not-found")])
def test_a_stable_alert_is_cached_when_no_archive_failed(demo_resolver, path, reason):
    resolution = resolve_demo(well_behaved(demo_resolver, "mtc-m16c", "mtc-m16d", "tombstone", "origin"), path)
    kept = cached_outcome(resolution, TRACE)
    assert isinstance(kept, CachedAlert) and kept.trace_url == TRACE
    assert resolution.alert.reason == reason
    # Kept without the Archives' answers; every fact the alert page and the diagnosis read stays.
    assert (kept.resolution.alert, kept.resolution.persistent_url) == (resolution.alert, resolution.persistent_url)
    light = [(step.number, step.archive, step.status, step.hop, step.elapsed_ms) for step in kept.resolution.trace.steps]
    assert light == [(step.number, step.archive, step.status, step.hop, step.elapsed_ms) for step in resolution.trace.steps]
    assert any(step.request_url for step in resolution.trace.steps)
    assert not any(step.raw_answer or step.pairs or step.request_url for step in kept.resolution.trace.steps)


@pytest.mark.parametrize("faulty", ["slow", "garbled"])
def test_a_not_found_is_not_cached_when_an_archive_failed(demo_resolver, faulty):
    resolution = resolve_demo(well_behaved(demo_resolver, "mtc-m16c", faulty), "8JMKD3MGP8W/34PGRBS")
    assert resolution.alert.reason == "not-found"
    assert cached_outcome(resolution, TRACE) is None


@pytest.mark.parametrize("path", ["D7N2U8HW/3MP9QLE?ibiurl.requireditemstatus=Original",  # conflicting originals
                                  "D7N2U8HW/3J5AC3H+(de)"])  # translation does not exist
def test_other_alerts_are_never_cached(demo_resolver, path):
    resolution = resolve_demo(well_behaved(demo_resolver, "rival-a", "rival-b", "origin"), path)
    assert resolution.alert is not None and resolution.alert.reason not in ("deleted", "not-found")
    assert cached_outcome(resolution, TRACE) is None


def test_alerts_live_their_own_lifetime_and_a_new_generation_empties_them(demo_resolver):
    clock = FakeClock()
    cache = ResolutionCache(30, 10, clock, alert_ttl=10)
    alert = cached_outcome(resolve_demo(well_behaved(demo_resolver, "tombstone"), "D7N2U8HW/3GBBQK2"), TRACE)
    cache.put(KEY, Changes(1), alert, IBIS)
    cache.put(KEY._replace(persistent_url="http://urlib.net/x"), Changes(1), REDIRECT, IBIS)
    clock.now += 9.9
    assert cache.get(KEY, Changes(1)) == alert
    clock.now += 0.1
    assert cache.get(KEY, Changes(1)) is None and cache.get(KEY._replace(persistent_url="http://urlib.net/x"), Changes(1)) == REDIRECT
    cache.put(KEY, Changes(1), alert, IBIS)
    assert cache.get(KEY, Changes(2)) is None  # an inclusion, exclusion, mint or link


def test_a_cache_of_alerts_only_keeps_no_redirect(demo_resolver):
    cache = ResolutionCache(0, 10, FakeClock(), alert_ttl=10)
    cache.put(KEY, Changes(1), REDIRECT, IBIS)
    assert cache.get(KEY, Changes(1)) is None and (cache.lifetime(True), cache.lifetime(False)) == (0, 10)


def test_a_redirect_that_sent_no_acknowledgment_is_cached_without_one(demo_resolver):
    resolution = replace(resolve_demo(demo_resolver, "8JMKD3MGP8W/35MMLL8"), acknowledgment_url=None)
    redirect = CachedRedirect.of(resolution, TRACE)
    assert redirect.url == resolution.url and redirect.acknowledgment is None


def test_a_resolution_rebuilt_from_its_record_has_no_endpoint_to_acknowledge(demo_resolver):
    resolution = resolve_demo(demo_resolver, "8JMKD3MGP8W/35MMLL8")
    rebuilt = Resolution.from_dict(resolution.to_dict())
    assert rebuilt == resolution and rebuilt.acknowledgment_url == resolution.acknowledgment_url
    assert rebuilt.acknowledgment is None and resolution.acknowledgment is not None


# -- the acknowledgment of a hit ------------------------------------------------------------------


class RecordingTransport:
    """Answers every acknowledgment with the notice (6), after ``gate`` opens; records who sent it."""

    def __init__(self, body: bytes = b"notice {acknowledgment received}\r\n") -> None:
        self.body = body
        self.gate = threading.Event()
        self.gate.set()
        self.sent: list[tuple[str, str, Timeouts]] = []
        self.lock = threading.Lock()

    def fetch(self, url: str, timeouts: Timeouts) -> Exchange:
        self.gate.wait(10)
        with self.lock:
            self.sent.append((url, threading.current_thread().name, timeouts))
        return Exchange(200, "text/plain", self.body)


def wait_until(condition, seconds: float = 5.0) -> bool:
    """The sender thread works on its own: wait (bounded) for what it should have done."""
    deadline = time.monotonic() + seconds
    while not (met := condition()) and time.monotonic() < deadline:
        time.sleep(0.005)
    return met


def test_a_hit_sends_the_acknowledgment_from_the_pool(caplog):
    caplog.set_level(logging.INFO, "ibiportal.resolver.cache")
    transport = RecordingTransport()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ack") as executor:
        Acknowledger({"local": transport}, executor, max_pending=4, batch_seconds=0).send(MESSAGE)
        assert wait_until(lambda: len(transport.sent) == 1)
    ((url, thread, timeouts),) = transport.sent
    assert url == ACK and thread.startswith("ack")
    assert timeouts == Timeouts(1.0, 2.0, 3.0)  # the Archive's own limits
    assert caplog.records == []  # the notice came back


def test_messages_sent_together_leave_in_one_batch():
    transport = RecordingTransport()
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="ack") as executor:
        acknowledger = Acknowledger({"local": transport}, executor, max_pending=100, batch_seconds=0.2)
        for _ in range(20):
            acknowledger.send(MESSAGE)
        assert transport.sent == []  # the batch is still gathering: the requests did not wait
        assert wait_until(lambda: len(transport.sent) == 20)
    assert {thread.split("_")[0] for _, thread, _ in transport.sent} == {"ack"}
    assert acknowledger.dropped == 0


def test_beyond_the_pending_bound_a_message_is_dropped_and_logged(caplog):
    caplog.set_level(logging.INFO, "ibiportal.resolver.cache")
    transport = RecordingTransport()
    transport.gate.clear()  # the Archive does not answer: the first acknowledgment stays outstanding
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ack") as executor:
        acknowledger = Acknowledger({"local": transport}, executor, max_pending=1, batch_seconds=0)
        acknowledger.send(MESSAGE)
        acknowledger.send(MESSAGE)  # returns at once: nothing waits for a silent Archive
        acknowledger.send(MESSAGE)
        assert acknowledger.dropped == 2
        transport.gate.set()
        assert wait_until(lambda: len(transport.sent) == 1)
        assert wait_until(lambda: acknowledger._slots.acquire(blocking=False))  # the slot came back
        acknowledger._slots.release()
        acknowledger.send(MESSAGE)
        assert wait_until(lambda: len(transport.sent) == 2)
    assert [record.getMessage() for record in caplog.records] == [  # once a minute, not per message
        "acknowledgment to mtc-m16c dropped: 1 outstanding already (1 dropped so far)"
    ]


def test_a_missing_notice_is_logged(caplog):
    caplog.set_level(logging.INFO, "ibiportal.resolver.cache")

    class Down:
        def fetch(self, url, timeouts):
            return Exchange(failure=Failure.TIMEOUT, error="no answer within 2 s")

    with ThreadPoolExecutor(max_workers=1) as executor:
        Acknowledger({"local": Down()}, executor, max_pending=4, batch_seconds=0).send(MESSAGE)
        assert wait_until(lambda: len(caplog.records) == 1)
    assert [record.getMessage() for record in caplog.records] == [
        "acknowledgment of a cached redirect to mtc-m16c: no notice (no answer within 2 s)"
    ]


@pytest.mark.parametrize("body", [b"notice {acknowledgment received}\r\n", b"notice\r\n{acknowledgment received}"])
def test_a_notice_in_other_layout_is_still_a_notice(caplog, body):
    caplog.set_level(logging.INFO, "ibiportal.resolver.cache")
    with ThreadPoolExecutor(max_workers=1) as executor:
        transport = RecordingTransport(body)
        Acknowledger({"local": transport}, executor, max_pending=4, batch_seconds=0).send(MESSAGE)
        assert wait_until(lambda: len(transport.sent) == 1)
    assert caplog.records == []


def test_to_an_archive_in_this_process_the_message_goes_at_once_from_the_request_thread():
    transport = RecordingTransport()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ack") as executor:
        Acknowledger({"local": transport}, executor, max_pending=4, in_process={"local"}).send(MESSAGE)
        assert [(url, thread) for url, thread, _ in transport.sent] == [(ACK, threading.current_thread().name)]


def test_an_expired_outcome_is_kept_a_little_for_requests_that_arrive_while_it_is_refreshed():
    clock = FakeClock()
    cache = ResolutionCache(30, 10, clock, stale_seconds=10)
    cache.put(KEY, Changes(1), REDIRECT, IBIS)
    assert cache.get_stale(KEY, Changes(1)) is None  # still fresh: nothing stale to give
    clock.now += 30
    assert cache.get(KEY, Changes(1)) is None and cache.get_stale(KEY, Changes(1)) == REDIRECT
    clock.now += 9.9
    assert cache.get_stale(KEY, Changes(1)) == REDIRECT
    assert cache.get_stale(KEY, Changes(2)) is None  # a new generation: nothing old is served
    cache.put(KEY, Changes(2), REDIRECT, IBIS)
    clock.now += 40
    assert cache.get(KEY, Changes(2)) is None and cache.get_stale(KEY, Changes(2)) is None and len(cache) == 0
