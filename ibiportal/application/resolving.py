"""Resolving a persistent URL for a request: which Archives, how to reach them, where the trace goes.

Used by ``GET /<persistent URL>`` (through the cache of outcomes and single flight), by
``POST /api/v1/trace``, the Trace page and Cite (never from a cache: a trace must show the
messages of that very resolution). The engine itself (``ibiportal.resolver.engine``) knows
nothing of storage or of other requests; this module adds them.
"""
from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import asdict, dataclass, replace
from datetime import timedelta
from enum import StrEnum
from typing import TYPE_CHECKING

from .. import metrics
from ..errors import ParseError
from ..i18n import N_
from ..log_limits import LimitedLog
from ..ibi.prefixes import KNOWN_PREFIX_PAIRS, ibip_prefixes_for
from ..ibi.url import ORIGINAL, PersistentUrl
from ..registry import ArchiveEvent, RegisteredArchive
from ..resolver.addresses import client_ip_list
from ..resolver.cache import CachedOutcome, CachedRedirect, CacheKey, cached_outcome, depends_on
from .usage_counting import UsageKey
from ..resolver.diagnosis import NotFoundDiagnosis, asked_ibi, diagnose
from ..resolver.engine import ClientInfo, Resolver, ResolverSettings, joined
from ..resolver.reading import proven_prefix_pairs
from ..resolver.trace import AcknowledgmentOutcome, Resolution, Status, Trace, TraceStep
from ..resolver.transport import ArchiveEndpoint, Route
from ..resolver.local_transport import local_endpoint
from ..storage.database import Storage, iso
from ..storage.identifiers import IdentifierStore
from ..storage.redis_flight import Published
from ..storage.registry import ArchiveStore
from ..storage.traces import TraceRuns, TraceStore, stored_trace

if TYPE_CHECKING:
    from . import Application

log = logging.getLogger(__name__)
#: Notices not recorded (the database down, each resolution meets it): one traceback a minute.
_NOTICE_LOG = LimitedLog(log)

#: Where a stored trace's JSON is served, under the portal's root (``GET /api/v1/trace/<id>``).
TRACE_PATH = "api/v1/trace/"

#: How long a trace may run before an identical request stops waiting for it and runs its own:
#: the resolution's deadline (10 s, ResolverSettings.deadline), its storing, and a wide margin.
TRACE_RUNNING_LIMIT = timedelta(seconds=30)

#: How often a repeated request looks whether the trace it joined is stored (a database read).
TRACE_POLL_SECONDS = 0.1


class ArchiveGroup(StrEnum):
    """The demo Archives, the live ones (registered Archives and the portal's own), or both.
    The values are what the Trace form and API take as ``archives``."""

    DEMO = "demo"
    LIVE = "live"
    ALL = "all"


@dataclass(frozen=True)
class ArchiveSet:
    """Which Archives a resolution asks: a group, and whether the faulty demo Archives
    (``DemoArchive.faulty``) join it, which only a trace asks for (they exist to show a timeout
    or garbage on the Trace page, never to a reader following a link)."""

    group: ArchiveGroup
    include_faulty: bool = False

    @classmethod
    def parse(cls, archives: object, include_faulty: object = False) -> ArchiveSet:
        """The Trace form's or API's ``archives`` and ``include_faulty`` as an Archive set, or a
        ParseError naming the field that is wrong and what it takes."""
        try:
            group = ArchiveGroup(archives)
        except ValueError:
            raise ParseError(N_("`archives` must be one of %(groups)s, not %(value)r",
                                groups=", ".join(f"`{group}`" for group in ArchiveGroup), value=archives),
                             field="archives") from None
        if not isinstance(include_faulty, bool):
            raise ParseError(N_("`include_faulty` must be `true` or `false` (whether to ask the faulty demo Archives too)"),
                             field="include_faulty")
        return cls(group, include_faulty)


@dataclass(frozen=True)
class Caller:
    """Who sent the request, as received (Table 8.6): the socket's peer address, the
    X-Forwarded-For header and the Accept-Language header. Kept raw so that a cache hit needs
    no address parsing; :meth:`Resolving.client` makes the IP list of Table 8.10 of it."""

    peer: str | None
    forwarded_for: str | None = None
    accept_language: str | None = None


@dataclass(frozen=True)
class Site:
    """Where a request was served: ``portal_url``, the portal's own address without a trailing
    ``/`` (the demo Archives' and the own Archive's URLs are on it); ``root``, the request's
    root URL with its ``/`` (the base of trace permalinks, and the resolver's base in Table 8.11);
    ``resolver_base``, the base of the persistent URLs the portal prints
    (``IBIPORTAL_RESOLVER_BASE``, else ``root``)."""

    portal_url: str
    root: str
    resolver_base: str

    def trace_permalink(self, trace_id: str) -> str:
        """The permalink of a stored trace."""
        return f"{self.root}{TRACE_PATH}{trace_id}"

    def trace_link(self, trace_id: str | None) -> str | None:
        """The permalink of a trace if one was kept (a reference check keeps some: TraceBudget)."""
        return None if trace_id is None else self.trace_permalink(trace_id)


@dataclass(frozen=True)
class Asked:
    """One persistent URL to resolve: ``text`` as given (what the trace shows) and ``parsed``,
    the same URL read once by the caller."""

    text: str
    parsed: PersistentUrl

    def requiring_original(self) -> Asked:
        """This URL with ``ibiurl.requireditemstatus=Original`` (Table 8.3), unless it has it."""
        if self.parsed.required_item_status is not None:
            return self
        text = self.text + ("&" if "?" in self.text else "?") + "ibiurl.requireditemstatus=Original"
        return Asked(text, replace(self.parsed, required_item_status=ORIGINAL))


@dataclass(frozen=True)
class StoredResolution:
    """A resolution, the id of its stored trace (the permalink; ``None`` when a reference check
    kept no trace of it: :class:`TraceBudget`), and why it found nothing (``diagnosis``); ``joined`` when it shares the outcome of an identical request's resolution
    instead of asking the Archives itself (a follower's own, or the outcome a leader in another
    worker published, which carries the leader's trace id: :func:`from_published`)."""

    trace_id: str | None
    resolution: Resolution
    joined: bool = False
    diagnosis: NotFoundDiagnosis | None = None


class TraceBudget:
    """How many traces one reference check may still keep (thread-safe: its resolutions run at once).

    Traces are kept for their permalinks within ``IBIPORTAL_TRACE_RETENTION`` traces, whoever
    made them. A 5,000-IBI check keeping one per request pushed out every other trace, and its own
    first 4,000 before it ended: the links it handed out led nowhere. So a check keeps at most
    ``limit`` (half the retention: what it keeps outlives it, and others' traces keep the other
    half), the ones a reader looks into first: a resolution that found nothing takes any trace
    left, one that found a URL (whose entry shows where it leads) only while more than half of
    the budget is left. The others' entries have no trace link; storing 5,000 traces and their
    diagnoses was also most of the check's time (``benchmarks/references.py``)."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, limit)
        self._left = self.limit
        self._lock = threading.Lock()

    def take(self, found: bool) -> bool:
        """Whether a resolution (``found``: it found a URL) keeps its trace; it is counted if so."""
        with self._lock:
            if self._left <= 0 or (found and self._left * 2 <= self.limit):
                return False
            self._left -= 1
            return True


@dataclass(frozen=True)
class Batch:
    """What the resolutions of one reference check share, read once when the check starts rather
    than by each resolution (a 5,000-IBI list read the registry 10,000 times, a sixth of the
    check's time: ``benchmarks/references.py``): the endpoints of the Archives asked, and what a
    not-found's diagnosis compares the answers with (the registry, the prefix table and the last
    exclusions), as they were when the check started (:meth:`Resolving.batch`); and how many
    traces the check may still keep (:class:`TraceBudget`)."""

    endpoints: tuple[ArchiveEndpoint, ...]
    registry: tuple[RegisteredArchive, ...]
    prefix_pairs: tuple[tuple[str, ...], ...]
    exclusions: Mapping[str, ArchiveEvent]
    traces: TraceBudget


@dataclass(frozen=True)
class TraceRequest:
    """A trace asked for on the Trace page: who asks (``requester``: their session, else their
    address), the persistent URL, the Archives and the client it is resolved for, and the earlier
    trace it is to be compared with (``previous``)."""

    requester: str
    asked: Asked
    archives: ArchiveSet
    client: ClientInfo
    previous: str | None = None

    @property
    def fingerprint(self) -> str:
        """What makes two requests identical: the same requester asking the same normalised URL
        (its canonical spelling, whatever resolver it was pasted with) with the same options."""
        identity = [self.requester, self.asked.parsed.canonical_symbols(""), self.archives.group.value,
                    self.archives.include_faulty, list(self.client.ip_addresses), self.client.language_preference,
                    self.previous]
        return hashlib.sha256(json.dumps(identity).encode("utf-8")).hexdigest()


_EVERY_ARCHIVE, _LIVE_ARCHIVES = ArchiveSet(ArchiveGroup.ALL), ArchiveSet(ArchiveGroup.LIVE)


class Resolving:
    """The resolve use case: resolve and keep the trace; for ``GET /<persistent URL>``, first
    the cache of outcomes, and single flight among identical requests."""

    def __init__(self, application: Application) -> None:
        self.application = application
        self.config = application.config
        self._pairs_seen: set[tuple[str, str]] = set()  # prefix pairs answered, looked up once per worker
        #: The endpoints of each Archive set at each portal address, with the generation they were read at.
        self._endpoints: dict[tuple[ArchiveSet, str], tuple[int, tuple[ArchiveEndpoint, ...]]] = {}

    # -- values a request is made of ---------------------------------------------------------

    @property
    def default_archives(self) -> ArchiveSet:
        """What ``GET /<persistent URL>`` asks: every Archive, or only live ones when the demo is
        off (one of two values made once: a cache hit reads it for its key)."""
        return _EVERY_ARCHIVE if self.config["DEMO_ARCHIVES"] else _LIVE_ARCHIVES

    def client(self, caller: Caller) -> ClientInfo:
        """Table 8.6 from the request: the client then its proxies (trusted ones only), and Accept-Language."""
        ips = client_ip_list(caller.peer, caller.forwarded_for, self.config["TRUSTED_PROXIES"])
        return ClientInfo(ips, caller.accept_language)

    def archive_endpoints(self, archives: ArchiveSet, portal_url: str) -> list[ArchiveEndpoint]:
        """The endpoints of the Archives of ``archives``, in the order they are asked: read once
        per worker for each generation of the Archive set (an Archive included, excluded or
        removed makes a new one, as it empties the resolution caches: ``storage/signal.py``),
        not from the registry on every resolution (``benchmarks/uncached.py``)."""
        generation = self.application.resolution_changes().generation
        known = self._endpoints.get((archives, portal_url))
        if known is not None and known[0] == generation:
            return list(known[1])
        endpoints = self._read_endpoints(archives, portal_url)
        self._endpoints[(archives, portal_url)] = (generation, tuple(endpoints))
        return endpoints

    def _read_endpoints(self, archives: ArchiveSet, portal_url: str) -> list[ArchiveEndpoint]:
        holdings = self.application.holdings(portal_url)
        demo = [local_endpoint(archive) for archive in holdings.demo.values()
                if archives.include_faulty or not archive.faulty]
        if archives.group is ArchiveGroup.DEMO:
            return demo
        live = [replace(local_endpoint(holdings.own_local), own=True)]  # its originals win (resolver.selecting)
        live += [
            ArchiveEndpoint(archive.address, archive.service_ibi, archive.address, Route.HTTP,
                            read_timeout=self.config["ARCHIVE_READ_TIMEOUT"])
            for archive in ArchiveStore(self.application.storage()).included_archives()
        ]
        return live if archives.group is ArchiveGroup.LIVE else demo + live

    def batch(self, site: Site) -> Batch:
        """The registry as the resolutions of one reference check use it: the default Archives."""
        store = ArchiveStore(self.application.storage())
        return Batch(tuple(self.archive_endpoints(self.default_archives, site.portal_url)), tuple(store.archives()),
                     tuple(self.application.known_prefix_pairs()), store.last_exclusions(),
                     TraceBudget(self.config["TRACE_RETENTION"] // 2))

    # -- a resolution that is traced, never cached ---------------------------------------------

    def trace_once(self, request: TraceRequest, site: Site) -> str:
        """The id of the trace of ``request``: :meth:`trace`, unless an identical request's trace is running or ended less than
        ``TRACE_REPEAT_SECONDS`` ago: then that trace, once it is stored. Impatient clicks on
        Trace make one trace, and every click ends at it. The claim is a row of the database
        (TraceRuns), so identical requests reaching other workers or nodes of one PostgreSQL
        join it too; a request whose trace failed or outran :data:`TRACE_RUNNING_LIMIT` leaves
        the next identical one to run its own."""
        window = self.config["TRACE_REPEAT_SECONDS"]
        if window <= 0:
            return self.trace(request.asked, request.archives, request.client, site).trace_id
        runs, fingerprint = TraceRuns(self.application.storage()), request.fingerprint
        while True:
            now = self.application.clock()
            trace_id, leader = runs.claim(fingerprint, secrets.token_urlsafe(12), iso(now),
                                          fresh_after=iso(now - timedelta(seconds=window)),
                                          running_after=iso(now - TRACE_RUNNING_LIMIT))
            if leader:
                try:
                    self.trace(request.asked, request.archives, request.client, site, trace_id=trace_id)
                except BaseException:
                    runs.abandon(fingerprint, trace_id)
                    raise
                runs.finish(fingerprint, trace_id, iso(self.application.clock()))
                return trace_id
            waited_until = time.monotonic() + TRACE_RUNNING_LIMIT.total_seconds()
            while (state := runs.state(fingerprint, trace_id)) == "running" and time.monotonic() < waited_until:
                time.sleep(TRACE_POLL_SECONDS)
            if state == "stored":
                return trace_id

    def trace(self, asked: Asked, archives: ArchiveSet, client: ClientInfo, site: Site,
              batch: Batch | None = None, trace_id: str | None = None) -> StoredResolution:
        """Resolve (never from a cache) and keep the trace for its permalink.

        The stored trace is the resolution's JSON plus ``request``: how it was asked for (the
        Archives chosen, whether the faulty demo ones were included, the client's IP list and
        Accept-Language, the time), so that the Trace page can show it and run it again with the
        same options; and for a not-found, ``diagnosis``: why, with the registry as it was then
        (a permalink read later must still explain that resolution, not today's registry). A
        reference check's resolution reads the registry from its ``batch`` (``archives`` must be
        the default ones then), and keeps its trace only within the check's budget (else its
        ``trace_id`` is ``None``, and no diagnosis is made: only the trace shows it).
        """
        application = self.application
        resolver = Resolver(
            self.archive_endpoints(archives, site.portal_url) if batch is None else batch.endpoints,
            application.transports(site.portal_url),
            settings=ResolverSettings(resolver_base=site.root),
            executor=application.executor,
            notices=application.pending_notices,
            prefix_pairs=application.known_prefix_pairs if batch is None else lambda: batch.prefix_pairs,
        )
        resolution = resolver.resolve(asked.text, client, parsed=asked.parsed)
        if metrics.counting():
            _count_exchanges(resolution, resolver.archives)
        self._learn_prefix_pairs(resolution)
        if batch is not None and not batch.traces.take(resolution.found):
            return StoredResolution(None, resolution)
        stored = self._store(archives, client, resolution, batch=batch, trace_id=trace_id)
        if resolution.pending_notice is not None:
            self._record_when_it_comes(stored.trace_id, resolution.pending_notice)
        return stored

    def _learn_prefix_pairs(self, resolution: Resolution) -> None:
        """Keep the prefix pairs the Archives' answers claim and the table does not know, as
        suggestions with the Archive and date as their source, for an administrator to confirm or
        reject (STANDARD.md §7: an answer is one Archive's word, not a fact). The worker remembers
        the pairs it has seen, so a pair costs a look at the table once per worker."""
        new = [pair for pair in proven_prefix_pairs(resolution.trace.steps)
               if (pair.rep_prefix, pair.ibip_prefix) not in self._pairs_seen]
        if not new:
            return
        store = IdentifierStore(self.application.storage())
        table = [*KNOWN_PREFIX_PAIRS, *store.minting_pairs(), *store.prefix_pairs()]
        for pair in new:
            self._pairs_seen.add((pair.rep_prefix, pair.ibip_prefix))
            if pair.ibip_prefix not in ibip_prefixes_for(pair.rep_prefix, table):
                store.learn_prefix_pair(pair.rep_prefix, pair.ibip_prefix, pair.archive, pair.evidence)

    def _record_when_it_comes(self, trace_id: str, notice: Future[TraceStep]) -> None:
        """Once the notice (6) the redirect went out without comes, it replaces the stored trace's
        "acknowledgment pending" step (from the notice recorder's thread)."""
        setting, recorder = self.config["DATABASE"], self.application.notice_recorder

        def arrived(done: Future[TraceStep]) -> None:
            step = done.result()
            metrics.notice(step.acknowledgment)
            recorder.submit(_record_notice, setting, trace_id, step)

        notice.add_done_callback(arrived)

    def _store(self, archives: ArchiveSet, client: ClientInfo, resolution: Resolution,
               known_diagnosis: NotFoundDiagnosis | None = None, batch: Batch | None = None,
               trace_id: str | None = None) -> StoredResolution:
        """Keep the trace (under ``trace_id`` when it was reserved); a joined resolution asked no
        Archive itself, so it keeps the diagnosis of the resolution it joined (``known_diagnosis``)."""
        trace_id = trace_id or secrets.token_urlsafe(12)
        outcome = "found" if resolution.found else resolution.alert.reason.value
        asked = {
            "archives": archives.group,
            "include_faulty": archives.include_faulty,
            "client_ip": " ".join(client.ip_addresses),
            "accept_language": client.language_preference,
            "traced_at": self.application.clock().isoformat(timespec="seconds").replace("+00:00", "Z"),
        }
        diagnosis = known_diagnosis or self.diagnosis(resolution, batch)
        body = {**resolution.to_dict(), "request": asked}
        if diagnosis is not None:
            body["diagnosis"] = diagnosis.to_dict()
        TraceStore(self.application.storage()).save_trace(
            trace_id, resolution.persistent_url, outcome, stored_trace(body),
            self.config["TRACE_RETENTION"], self.config["TRACE_BYTES"], ibi=asked_ibi(resolution),
        )
        return StoredResolution(trace_id, resolution, diagnosis=diagnosis)

    def diagnosis(self, resolution: Resolution, batch: Batch | None = None) -> NotFoundDiagnosis | None:
        """Why a resolution found nothing, against the registry as it is now, or as ``batch``
        read it (``None`` if it found)."""
        if resolution.found:
            return None
        if batch is not None:
            return diagnose(resolution, batch.registry, batch.prefix_pairs, batch.exclusions)
        store = ArchiveStore(self.application.storage())
        return diagnose(resolution, store.archives(), self.application.known_prefix_pairs(), store.last_exclusions())

    # -- GET /<persistent URL> only: the cache of outcomes and single flight -------------------

    def cached(self, received: str, caller: Caller, site: Site) -> tuple[CachedOutcome, str] | None:
        """The outcome cached for this request and ``"hit"``, or the previous one and ``"stale"``
        while an identical request is resolving it again; a redirect's acknowledgment (5) is sent
        again to the Archive whose URL it is. ``None`` on a miss or with the cache off
        (ibiportal.resolver.cache). Only resolutions of URLs that parsed are cached, so
        ``received`` is looked up before it is parsed: a hit is a few dozen microseconds."""
        cache = self.application.resolution_cache
        if cache is None:
            return None
        key, changes = self._cache_key(received, caller), self.application.resolution_changes()
        outcome, state = cache.get(key, changes), "hit"
        if outcome is None and self.application.single_flight.running(key):
            outcome, state = cache.get_stale(key, changes), "stale"
        if outcome is None:
            return None
        if isinstance(outcome, CachedRedirect):
            metrics.resolved("found", state)
            if outcome.usage is not None and (usage := self.application.usage) is not None:
                usage.count(outcome.usage)
            if outcome.acknowledgment is not None:
                self.application.acknowledger(site.portal_url).send(outcome.acknowledgment)
        else:
            metrics.resolved(outcome.resolution.alert.reason, state)
        return outcome, state

    def resolve(self, asked: Asked, caller: Caller, site: Site, batch: Batch | None = None) -> StoredResolution:
        """After a miss: :meth:`trace` with the default Archives, its redirect or stable alert kept
        for the next identical requests with its trace permalink. Identical requests that arrive
        while it runs wait for it and share its outcome (ibiportal.resolver.single_flight; with
        Redis, across workers and nodes too: ibiportal.storage.redis_flight); each of them stores
        a trace that says so and links the one it joined.

        A reference check's resolutions (``batch``) are not kept: its thousands of outcomes, each
        asked once, would fill the cache and push out, least recently used first, the outcomes
        readers follow; and its memory would grow with the list."""
        key = self._cache_key(asked.text, caller)
        client = self.client(caller)
        started = time.monotonic()
        shared = self.application.single_flight.run(
            key, lambda: self._resolve_and_keep(key, asked, client, site, batch))
        leader = shared.result
        if batch is None and leader.resolution.found and (usage := self.application.usage) is not None:
            usage.count(UsageKey.of(asked.parsed))
        if not (shared.joined or leader.joined):
            _count_resolution(leader.resolution, self.cache_state(leader))
            return leader
        resolution = joined(leader.resolution, site.trace_link(leader.trace_id),
                            round((time.monotonic() - started) * 1000, 1))
        if resolution.acknowledgment is not None:
            self.application.acknowledger(site.portal_url).send(resolution.acknowledgment)
        stored = self._store(self.default_archives, client, resolution, known_diagnosis=leader.diagnosis)
        _count_resolution(resolution, "joined")
        return StoredResolution(stored.trace_id, resolution, joined=True, diagnosis=leader.diagnosis)

    def cache_state(self, stored: StoredResolution) -> str:
        """``X-IBI-Cache`` of a request that was not a hit: ``joined``, ``miss``, or ``off`` when
        the cache keeps no outcome of this kind."""
        if stored.joined:
            return "joined"
        cache = self.application.resolution_cache
        return "miss" if cache is not None and cache.lifetime(stored.resolution.found) > 0 else "off"

    def _resolve_and_keep(self, key: CacheKey, asked: Asked, client: ClientInfo, site: Site,
                          batch: Batch | None = None) -> StoredResolution:
        """This worker's resolution of ``key``, or, with Redis, the outcome of the identical one
        another worker or node is running (``joined``); kept in this worker's cache either way
        (unless it is a reference check's, ``batch``), so that every worker the burst reached
        answers the next identical requests itself."""
        cache, flight = None if batch is not None else self.application.resolution_cache, self.application.redis_flight
        archives = self.default_archives
        if cache is None and flight is None:
            return self.trace(asked, archives, client, site, batch)
        changes = self.application.resolution_changes()  # read first: an Archive included or the item changed meanwhile wins
        if flight is None:
            stored = self.trace(asked, archives, client, site, batch)
        else:
            # the cache's key as of these changes: an Archive included meanwhile starts a new flight
            shared = flight.run(json.dumps([*key, changes.generation, changes.last]),
                                lambda: self.trace(asked, archives, client, site, batch), published)
            stored = from_published(shared.outcome) if isinstance(shared, Published) else shared
        if cache is not None:
            outcome = cached_outcome(stored.resolution, site.trace_permalink(stored.trace_id), stored.diagnosis)
            if isinstance(outcome, CachedRedirect):
                outcome = replace(outcome, usage=UsageKey.of(asked.parsed))
            if outcome is not None:
                cache.put(key, changes, outcome, depends_on(stored.resolution, str(asked.parsed.ibi)))
        return stored

    def _cache_key(self, received: str, caller: Caller) -> CacheKey:
        """The request's key: what :meth:`client` and :attr:`default_archives` are made of."""
        return CacheKey(received, caller.peer, caller.forwarded_for, tuple(self.config["TRUSTED_PROXIES"]),
                        caller.accept_language, self.default_archives.group)


def _count_resolution(resolution: Resolution, cache: str) -> None:
    metrics.resolved("found" if resolution.found else resolution.alert.reason, cache)


def _count_exchanges(resolution: Resolution, archives: tuple[ArchiveEndpoint, ...]) -> None:
    """The metrics of the messages a resolution exchanged, read from its trace: each urlRequest (3)
    to a registered Archive (the ones asked over the network, by address) timed and, when it
    failed, counted by how; each acknowledgment (5) sent or not; each notice (6) come (a pending
    one is counted when it comes, :meth:`Resolving._record_when_it_comes`)."""
    registered = {endpoint.address: endpoint.service_ibi for endpoint in archives if endpoint.transport is Route.HTTP}
    for step in resolution.trace.steps:
        if step.number == 3 and step.archive in registered and step.status is not Status.NOT_WAITED_FOR:
            seconds = None if step.elapsed_ms is None else step.elapsed_ms / 1000
            metrics.exchanged(registered[step.archive], seconds, step.status)
        elif step.number == 5:
            metrics.acknowledgment("not-sent" if step.acknowledgment is AcknowledgmentOutcome.NOT_SENT else "sent")
        elif step.number == 6 and step.acknowledgment not in (None, AcknowledgmentOutcome.PENDING):
            metrics.notice(step.acknowledgment)


def _record_notice(setting: str, trace_id: str, notice: TraceStep) -> None:
    """Write the notice into the stored trace, cut as every stored answer is; a failure is logged
    (a pool thread would otherwise drop it silently)."""
    step = stored_trace({"trace": {"steps": [notice.to_dict()]}})["trace"]["steps"][0]
    try:
        storage = Storage(setting)
        try:
            TraceStore(storage).record_notice(trace_id, step)
        finally:
            storage.close()
    except Exception:  # noqa: BLE001 - any failure: logged with its traceback, the trace keeps "pending"
        _NOTICE_LOG.exception("notice not recorded", "the notice for trace %s could not be recorded", trace_id)


def published(stored: StoredResolution) -> dict:
    """What a follower in another worker or node needs of a leader's resolution, as JSON: the
    outcome, the id of the trace it links, the diagnosis, and the Archive its redirect
    acknowledges again (the endpoint, which a rebuilt resolution otherwise lacks). Of the trace only
    the (2) step (the IBI asked, which the diagnosis reads), the (3) steps, without the Archives'
    answers and the request URLs, and the (7) steps travel: the cache and the diagnosis read the
    former's statuses, :func:`joined` the latter; and the (4) steps, which name the IBIs the loop
    followed (the cache drops the outcome when one changes). The whole trace is in the shared
    database, behind the permalink."""
    resolution = stored.resolution
    light = Trace(tuple(replace(step, raw_answer=None, pairs=None, request_url=None)
                        for step in resolution.trace.steps if step.number in (2, 3, 4, 7)))
    endpoint = resolution.acknowledged
    return {
        "trace_id": stored.trace_id,
        "resolution": replace(resolution, trace=light).to_dict(),
        "acknowledged": None if endpoint is None else asdict(endpoint),
        "diagnosis": None if stored.diagnosis is None else stored.diagnosis.to_dict(),
    }


def from_published(outcome: dict) -> StoredResolution:
    """The inverse of :func:`published`, as the leader's ``joined`` resolution."""
    resolution = Resolution.from_dict(outcome["resolution"])
    endpoint = outcome["acknowledged"]
    if endpoint is not None:
        archive = ArchiveEndpoint(**{**endpoint, "transport": Route(endpoint["transport"])})
        resolution = replace(resolution, acknowledged=archive)
    diagnosis = outcome["diagnosis"]
    return StoredResolution(outcome["trace_id"], resolution, joined=True,
                            diagnosis=None if diagnosis is None else NotFoundDiagnosis.from_dict(diagnosis))
