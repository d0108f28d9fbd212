"""A short-lived cache of the outcomes of ``GET /<persistent URL>``, and the acknowledgment
that every redirect served from it still sends (Table 8.11).

Pure: no Flask, no SQL; the clock, the transports and the thread pool are given.

Decisions:

* **Redirects** (outcome (7) with a URL) are kept ``ttl`` seconds.
* **Stable alerts** are kept ``alert_ttl`` seconds, far shorter, like DNS negative caching
  (RFC 2308): ``deleted`` (410) and ``not found`` (404), and only when no Archive failed in
  the resolution (no timeout, refusal, transport error, HTTP error or malformed answer: every
  Archive asked either answered or was not waited for because a usable answer had come). Such
  an alert is what the Archives will say again a moment later, and asking all of them again
  for every request for a deleted item is what made its requests queue behind each other under
  load. A "not found" with an Archive failing may be that Archive's item; conflicting originals
  (409) need investigation and are judged afresh; "no Archive answered" is passing trouble.
  What drops redirects drops alerts too: an item minted or linked here, or an Archive included,
  can turn a 404 into a redirect at once.
* **The key is everything the outcome depends on** (:class:`CacheKey`): the persistent URL as
  received, modifiers and query included and not normalised (so a cached acknowledgment's
  ``url.persistent`` is the one this request sent, Table 8.11); what the user's IP list is made
  of, because an Archive may choose the URL by the user's IP (file 003 §9, CRIARPARURL:
  "dependendo do IP do usuário", e.g. the item for a licensed institution, its metadata for
  others) and the resolver must not hand one user the answer meant for another; the
  Accept-Language header, which chooses the translation of ``+`` (§8.2); and which Archives
  are asked.
* **What changed** (:class:`Changes`): the caller passes, on every lookup, what it last read of
  the changes committed. A new generation (an Archive included, excluded or removed: any IBI
  may now resolve elsewhere) empties the cache; an IBI change (an item minted, edited, deleted,
  copied, its files or links changed) drops only the outcomes that depend on that IBI: the IBI
  asked, in the form asked and with any modifier, every IBI a hop of the §10.2 loop followed,
  and the forms the Archives' ``ibi`` pairs gave (:func:`depends_on`), redirects and alerts
  alike. Each gunicorn worker has its own cache and passes what it read on every lookup, so all
  of them drop stale outcomes at their next request; the other items' entries stay hits.
* **Refreshing**: when an entry's lifetime ends, the next request resolves again; identical
  requests that arrive while it does are served the previous outcome (:meth:`ResolutionCache.
  get_stale`, ``X-IBI-Cache: stale``) for at most ``stale_seconds`` (a resolution's deadline),
  rather than each waiting for it: under load, every expiry otherwise made a burst of requests
  wait a whole resolution (benchmarks/load.py). A change drops stale entries too.
* **Lifetime and size**: an entry lives ``ttl`` (or ``alert_ttl``) seconds (an Archive's own
  changes, an item moved or deleted, show within that time) and at most ``max_entries`` are kept, the least
  recently used dropped first, so memory stays bounded whatever clients ask.
* **Acknowledgment on a hit**: every redirect is acknowledged to the Archive whose URL is used
  (Figure 8.1 (5)), so that its access statistics count each one. A hit sends again the very
  acknowledgment of the resolution that filled the entry, ``urlkey`` included: the key the
  Archive gave with the answer being used (§9, Algorithm 2 line 19). An Archive that accepts a
  key only once counts at most one hit per entry lifetime; asking it for a fresh answer on
  every hit would put back the load the cache removes. When that resolution could send no
  acknowledgment, a hit sends none either. A message that travels over the network leaves
  from a thread pool, in small batches, so the redirect does not wait for the notice (6); one
  to an Archive in this process is a function call, made at once (:class:`Acknowledger`).
"""
from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import NamedTuple, Protocol

from ibiportal import metrics
from ibiportal.protocol.pairlist import PairList, read_answer
from ibiportal.protocol.status import ACKNOWLEDGMENT_NOTICE, carries_notice
from ibiportal.resolver.diagnosis import NotFoundDiagnosis
from ibiportal.resolver.reading import ibi_forms
from ibiportal.resolver.trace import AcknowledgmentMessage, AlertReason, Resolution, Status, StepKind, Trace
from ibiportal.resolver.transport import Exchange, Timeouts, Transport

log = logging.getLogger(__name__)


class Changes(Protocol):
    """What changed in what resolutions answer, as the caller last read it (the storage's
    ``storage.signal.Changes``: this cache reads only these three, and the resolver does not
    depend on the storage that produces them).

    ``generation`` grows with every change of the Archive set (everything is dropped); ``last``
    numbers the newest IBI change read; :meth:`ibis_after` gives the IBIs changed after a number,
    ``None`` when they are no longer all known."""

    @property
    def generation(self) -> int: ...

    @property
    def last(self) -> int: ...

    def ibis_after(self, change: int) -> frozenset[str] | None: ...


def depends_on(resolution: Resolution, asked: str) -> frozenset[str]:
    """The IBIs, casefolded, whose change may change this outcome: ``asked`` (the IBI of the
    persistent URL, as written), every IBI the §10.2 loop followed, and the forms of the item
    the Archives' ``ibi`` pairs name (Table 9.4), so that a change naming the other form drops
    it too."""
    ibis = {asked}
    for step in resolution.trace.steps:
        if step.onward_ibi:
            ibis.add(step.onward_ibi)
        for name, value in step.pairs or ():
            if name == "ibi":
                ibis.update(ibi_forms(value))
    return frozenset(ibi.casefold() for ibi in ibis)


class CacheKey(NamedTuple):
    """What a redirect depends on: see the module's decisions.

    ``peer``, ``forwarded_for`` and ``trusted_proxies`` are what the IP list of Table 8.10 is made
    of (the socket's peer address and the X-Forwarded-For header as received, the configured
    proxies), so that a hit needs no address parsing.

    A named tuple, not a dataclass: a hit makes one key and hashes and compares it twice (the
    lookup, then the move to the recent end), which a tuple does in C; as a frozen dataclass
    that was 3 µs of the few dozen a hit's view takes (benchmarks/cache.py).
    """

    persistent_url: str
    peer: str | None
    forwarded_for: str | None
    trusted_proxies: tuple[str, ...]
    language_preference: str | None
    archives: str


@dataclass(frozen=True)
class CachedRedirect:
    """A redirect to serve again: the URL, the permalink of the trace of the resolution that
    found it, the acknowledgment to send each time it is served (``None`` when that
    resolution could send none, e.g. the Archive's answer lacked a pair Table 8.11 needs: its
    trace says why), and the key its servings are counted under (``usage``)."""

    url: str
    archive: str | None
    trace_url: str
    acknowledgment: AcknowledgmentMessage | None
    #: What each serving counts for in the item's usage (``application.usage_counting.UsageKey``),
    #: made once with the entry: a hit only adds one to it.
    usage: object | None = None

    @classmethod
    def of(cls, resolution: Resolution, trace_url: str) -> CachedRedirect | None:
        """The entry for a finished resolution, or ``None`` for an alert. The acknowledgment is
        the message the resolution sent, to the endpoint it went to; an Archive excluded
        meanwhile changed the generation, so the entry is not kept (:meth:`ResolutionCache.put`)."""
        if not resolution.found:
            return None
        return cls(resolution.url, resolution.archive, trace_url, resolution.acknowledgment)


#: Alerts that are kept when nothing failed (module decisions): the item is gone, or nobody has it.
STABLE_ALERTS = frozenset({AlertReason.DELETED, AlertReason.NOT_FOUND})

#: How an exchange may have ended for its resolution's alert to be stable: an answer, or not
#: waited for once another Archive's usable answer had come.
_STABLE_STATUSES = frozenset({Status.ANSWERED, Status.EMPTY, Status.NOT_WAITED_FOR})


@dataclass(frozen=True)
class CachedAlert:
    """A stable alert to serve again: the resolution that ended with it (its page shows the
    alert and the persistent URL), the permalink of that resolution's trace, and why it found
    nothing as its trace says (``diagnosis``): serving it again reads no registry, so that a
    cached alert costs what a cached redirect costs (benchmarks/load.py).

    The resolution is kept without the Archives' answers (raw, parsed pairs, request URLs): the
    alert page and the diagnosis read the steps' facts only, the whole trace is behind the
    permalink, and a reference list of 5,000 unknown IBIs otherwise kept over 100 MiB of answers
    in each worker for as long as the entries stayed in the cache."""

    resolution: Resolution
    trace_url: str
    diagnosis: NotFoundDiagnosis | None = None

    @classmethod
    def of(cls, resolution: Resolution, trace_url: str, diagnosis: NotFoundDiagnosis | None = None) -> CachedAlert | None:
        """The entry for a finished resolution, or ``None`` unless it ended with a stable alert."""
        if resolution.alert is None or resolution.alert.reason not in STABLE_ALERTS:
            return None
        asked = [step for step in resolution.trace.steps if step.kind is StepKind.URL_REQUEST]
        if not asked or any(step.status not in _STABLE_STATUSES for step in asked):
            return None
        light = Trace(tuple(replace(step, raw_answer=None, pairs=None, request_url=None)
                            for step in resolution.trace.steps))
        return cls(replace(resolution, trace=light), trace_url, diagnosis)


CachedOutcome = CachedRedirect | CachedAlert


def cached_outcome(resolution: Resolution, trace_url: str, diagnosis: NotFoundDiagnosis | None = None) -> CachedOutcome | None:
    """What of a finished resolution may be served again: its redirect, its stable alert (with
    the ``diagnosis`` of its trace), or nothing."""
    return CachedRedirect.of(resolution, trace_url) or CachedAlert.of(resolution, trace_url, diagnosis)


@dataclass
class _Entry:
    outcome: CachedOutcome
    expires: float
    ibis: frozenset[str]


class ResolutionCache:
    """Outcomes by :class:`CacheKey`: redirects for ``ttl`` seconds, stable alerts for
    ``alert_ttl`` (``0`` keeps none of that kind), at most ``max_entries`` in all; an expired one
    is kept ``stale_seconds`` more for :meth:`get_stale`. Every call passes the :class:`Changes`
    the caller read; the entries they make stale are dropped first.

    Safe to share between the request threads of one process.
    """

    def __init__(self, ttl: float, max_entries: int, clock: Callable[[], float] = time.monotonic, *,
                 alert_ttl: float = 0.0, stale_seconds: float = 10.0) -> None:
        if ttl < 0 or alert_ttl < 0 or ttl + alert_ttl <= 0 or max_entries <= 0:
            raise ValueError("a resolution cache needs a positive lifetime and size; use no cache to turn it off")
        self.ttl = ttl
        self.alert_ttl = alert_ttl
        self.stale_seconds = stale_seconds
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[CacheKey, _Entry] = OrderedDict()
        self._keys_by_ibi: dict[str, set[CacheKey]] = {}
        self._changes: Changes | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def lifetime(self, found: bool) -> float:
        """Seconds an outcome is kept: a redirect's (``found``) or a stable alert's; 0 = not kept."""
        return self.ttl if found else self.alert_ttl

    def get(self, key: CacheKey, changes: Changes) -> CachedOutcome | None:
        """The live outcome for ``key``, ``changes`` being the newest the caller read, else ``None``."""
        with self._lock:
            self._adopt(changes)
            entry = self._entries.get(key)
            if entry is None:
                return None
            if self.clock() >= entry.expires:
                if self.clock() >= entry.expires + self.stale_seconds:
                    self._remove(key)
                return None
            self._entries.move_to_end(key)
            return entry.outcome

    def get_stale(self, key: CacheKey, changes: Changes) -> CachedOutcome | None:
        """The outcome for ``key`` whose lifetime ended less than ``stale_seconds`` ago, to serve
        while the same request is being resolved again (module decisions); else ``None``."""
        with self._lock:
            self._adopt(changes)
            entry = self._entries.get(key)
            if entry is None or not entry.expires <= self.clock() < entry.expires + self.stale_seconds:
                return None
            return entry.outcome

    def put(self, key: CacheKey, changes: Changes, outcome: CachedOutcome, ibis: frozenset[str]) -> None:
        """Keep ``outcome``, which depends on ``ibis`` (:func:`depends_on`), found with ``changes``
        read BEFORE resolving: if the Archive set or one of ``ibis`` changed while it was being
        resolved, the cache already knows it and the outcome is not kept."""
        ttl = self.lifetime(isinstance(outcome, CachedRedirect))
        if ttl <= 0:
            return
        with self._lock:
            self._adopt(changes)
            seen = self._changes
            if changes.generation != seen.generation:
                return
            changed = seen.ibis_after(changes.last)
            if changed is None or not changed.isdisjoint(ibis):
                return
            if key in self._entries:
                self._remove(key)
            self._entries[key] = _Entry(outcome, self.clock() + ttl, ibis)
            for ibi in ibis:
                self._keys_by_ibi.setdefault(ibi, set()).add(key)
            while len(self._entries) > self.max_entries:
                self._remove(next(iter(self._entries)))

    def _adopt(self, changes: Changes) -> None:
        """Drop what ``changes`` makes stale, when they are newer than the last seen (they only grow)."""
        seen = self._changes
        if changes is seen:
            return
        if seen is None or changes.generation > seen.generation:
            self._entries.clear()
            self._keys_by_ibi.clear()
        elif changes.generation < seen.generation or changes.last < seen.last:
            return  # read before the ones already seen
        elif changes.last > seen.last:
            changed = changes.ibis_after(seen.last)
            if changed is None:
                self._entries.clear()
                self._keys_by_ibi.clear()
            else:
                for ibi in changed:
                    for key in list(self._keys_by_ibi.get(ibi, ())):
                        self._remove(key)
        self._changes = changes

    def _remove(self, key: CacheKey) -> None:
        entry = self._entries.pop(key)
        for ibi in entry.ibis:
            keys = self._keys_by_ibi[ibi]
            keys.discard(key)
            if not keys:
                del self._keys_by_ibi[ibi]


class Acknowledger:
    """Sends the acknowledgments (5) of redirects served from the cache.

    To an Archive answered in this process (a transport named in ``in_process``: the demo
    Archives, the portal's own) the message is sent at once, in the request's thread: there is
    no network to wait for, and a function call costs less than any hand-off to another thread.

    Over the network, ``send`` only queues the message. A sender thread wakes when the first one
    is queued, waits ``batch_seconds`` for more to gather, and hands the batch to ``executor``,
    whose threads exchange them in parallel (an Archive far away does not hold up the others).
    At most ``max_pending`` are queued or being sent; beyond that a message is dropped and
    counted (logged at most once a minute): so many outstanding means an Archive is not
    answering, and waiting for it would stall redirects for everyone.

    Handing each message to a pool thread by itself cost more CPU than the rest of a cache hit;
    batching, and sending in-process ones at once, are what benchmarks/cache.py measured best.
    """

    def __init__(self, transports: Mapping[str, Transport], executor: Executor, max_pending: int, *,
                 in_process: Iterable[str] = (), batch_seconds: float = 0.02,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.transports = dict(transports)
        self.in_process = frozenset(in_process)
        self.executor = executor
        self.max_pending = max_pending
        self.batch_seconds = batch_seconds
        self.clock = clock
        self.dropped = 0
        self._slots = threading.BoundedSemaphore(max_pending)
        self._queue: deque[AcknowledgmentMessage] = deque()
        self._wake = threading.Event()
        self._sender: threading.Thread | None = None
        self._lock = threading.Lock()
        self._last_warning = -math.inf

    def send(self, message: AcknowledgmentMessage) -> None:
        if message.endpoint.transport in self.in_process:
            self._exchange(message)
            return
        if not self._slots.acquire(blocking=False):
            self._drop(message)
            return
        self._queue.append(message)
        if not self._wake.is_set():
            self._wake.set()
        if self._sender is None:
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._sender is None:
                self._sender = threading.Thread(target=self._send_batches, name="acknowledgment-sender", daemon=True)
                self._sender.start()

    def _send_batches(self) -> None:
        while True:
            self._wake.wait()
            time.sleep(self.batch_seconds)
            self._wake.clear()  # before taking the batch: a message queued from now on wakes the next round
            while self._queue:
                self.executor.submit(self._exchange_and_free, self._queue.popleft())

    def _drop(self, message: AcknowledgmentMessage) -> None:
        metrics.acknowledgment("dropped")
        with self._lock:
            self.dropped += 1
            now = self.clock()
            if now - self._last_warning >= 60:
                self._last_warning = now
                log.warning("acknowledgment to %s dropped: %d outstanding already (%d dropped so far)",
                            message.endpoint.name, self.max_pending, self.dropped)

    def _exchange_and_free(self, message: AcknowledgmentMessage) -> None:
        try:
            self._exchange(message)
        finally:
            self._slots.release()

    def _exchange(self, message: AcknowledgmentMessage) -> None:
        endpoint = message.endpoint
        transport = self.transports[endpoint.transport]  # the one the filling resolution used
        limits = Timeouts(endpoint.connect_timeout, endpoint.read_timeout, endpoint.connect_timeout + endpoint.read_timeout)
        metrics.acknowledgment("sent")
        exchange = transport.fetch(message.url, limits)
        if _is_notice(exchange):
            metrics.notice("notice")
            return
        answer = None if exchange.failure or exchange.body is None else read_answer(exchange.body)
        if isinstance(answer, PairList) and carries_notice(answer):
            metrics.notice("notice")
        else:
            metrics.notice("no-answer" if exchange.failure else "unexpected")
            log.info("acknowledgment of a cached redirect to %s: no notice (%s)", endpoint.name,
                     exchange.error or f"HTTP {exchange.status}")


def _is_notice(exchange: Exchange) -> bool:
    """Whether the answer is exactly ``notice {acknowledgment received}`` (Algorithm 1, line 20),
    told without parsing the pair list: what nearly every answer to (5) is."""
    return exchange.failure is None and exchange.status == 200 and (exchange.body or b"").split() == _NOTICE_WORDS


_NOTICE_WORDS = ACKNOWLEDGMENT_NOTICE.serialize(" ").encode("ascii").split()
