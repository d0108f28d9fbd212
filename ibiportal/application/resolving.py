"""Resolving a persistent URL for a request: which Archives, how to reach them, where the trace goes.

``GET /<persistent URL>`` and the reference check call :meth:`Resolving.answer`, one call from
the request as received to the answer to render: the cache of outcomes, the URL read (or refused,
saying why), single flight, the resolution and the cache state. ``POST /api/v1/trace``, the Trace
page and Cite call :meth:`Resolving.trace` (never from a cache: a trace must show the messages of
that very resolution). The engine itself (``ibiportal.resolver.engine``) knows nothing of storage
or of other requests; this module adds them.
"""
from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING
from urllib.parse import unquote

from .. import metrics
from ..errors import ParseError
from ..i18n import N_
from ..log_limits import LimitedLog
from ..ibi.identifier import split_ibi
from ..ibi.prefixes import KNOWN_PREFIX_PAIRS, ibip_prefixes_for
from ..ibi.recognise import direct_link_path, recognise, without_pasted_resolver, without_resolver_segment
from ..ibi.url import PersistentUrl, parse_persistent_url
from ..resolver.acknowledging import PendingNotices
from ..resolver.addresses import client_ip_list
from ..resolver.cache import (
    Acknowledger, CachedOutcome, CachedRedirect, CacheKey, Changes, ResolutionCache, cached_outcome, depends_on,
)
from ..resolver.diagnosis import NotFoundDiagnosis, RegistryView, asked_ibi, diagnose
from ..resolver.engine import Asked, ClientInfo, Resolver, ResolverSettings, joined
from ..resolver.reading import proven_prefix_pairs
from ..resolver.single_flight import SingleFlight
from ..resolver.trace import Alert, AcknowledgmentOutcome, Resolution, Status, Trace, TraceStep
from ..resolver.transport import ArchiveEndpoint, Route, Transport
from ..resolver.local_transport import local_endpoint
from ..storage.database import Storage, iso
from ..storage.identifiers import IdentifierStore, reads_on
from ..storage.redis_flight import Published, RedisFlight
from ..storage.registry import ArchiveStore
from ..storage.traces import TraceRuns, TraceStore, stored_trace
from ..config import Settings
from .usage_counting import UsageCounter, UsageKey

if TYPE_CHECKING:
    from . import Holdings

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
    exclusions, indexed once: :class:`~ibiportal.resolver.diagnosis.RegistryView`, whose prefix
    table the resolutions read too), as they were when the check started (:meth:`Resolving.batch`); and how many traces the check may still
    keep (:class:`TraceBudget`)."""

    endpoints: tuple[ArchiveEndpoint, ...]
    registry: RegistryView
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


@dataclass(frozen=True)
class Received:
    """A persistent URL as ``GET /<persistent URL>`` received it, read only as far as a cache
    lookup needs: a hit is answered before any parse (a few dozen microseconds in all).

    ``url`` is message (2): the request's address, then its path and query as sent (undecoded),
    less a whole persistent URL's resolver pasted after the portal's address and a leading
    ``/ibi`` or ``/rep`` segment (``/ibi/<…>``, as urlib.net's links are printed, is ``/<…>``:
    its redirect, alert, trace and cache are those of ``/<…>``; so are ``/ibi:<…>`` and URLib's
    ``/upn:<ResolverID>:<…>``, STANDARD.md §8). A URLib Archive's direct link
    (``/col/<rep>/doc/<file>``, ``/attachment.cgi/…``, ``/archive.cgi/<rep>``) is the persistent
    URL of its item, resolved to wherever the item lives now (STANDARD.md §6): ``rescued`` is then
    the link's path. ``path`` is the request's path as sent, read again only to say why it is no
    persistent URL (:func:`refusal`). ``parsed`` is ``url`` read already by whoever received it
    (a reference list's entry, read from its text), else :meth:`Resolving.answer` reads it after a
    cache miss."""

    url: str
    path: str = ""
    rescued: str | None = None
    parsed: PersistentUrl | None = None

    @classmethod
    def request(cls, path: str, address: str) -> Received:
        """What a GET of ``path`` (the request URI as sent, path and query) at ``address`` (the
        request's ``scheme://host``) asks."""
        unpasted = without_pasted_resolver(path)
        bare = without_resolver_segment(unpasted)
        direct = direct_link_path(bare)
        return cls(f"{address}{direct or bare}", path, None if direct is None else unpasted.split("?", 1)[0])


@dataclass(frozen=True)
class Refusal:
    """Why a ``GET /<…>`` is no persistent URL, so that nothing is resolved: the sentence, the
    HTTP status (404 for a path that names no item: a page that is not there, a URLib link to no
    item this portal can read; 400 for a persistent URL that does not read), the character of the
    request at fault and the field it is in, as every error of the portal says them."""

    message: str
    status: int
    position: int | None = None
    field: str | None = None


@dataclass(frozen=True)
class Answer:
    """What ``GET /<persistent URL>`` answers, as facts to render: the redirect's ``url`` (7), or
    the ``alert`` (7) with the ``resolution`` that ended with it (the alert page reads its trace's
    facts: the Archives asked, a deleted item's record) and why it found nothing
    (``diagnosis``); the trace's permalink (``None`` when a reference check kept none of it:
    :class:`TraceBudget`); the cache state, as ``X-IBI-Cache`` says it (``hit``, ``stale``,
    ``miss``, ``joined`` or ``off``); ``rescued``, the direct Archive link the request was
    (:class:`Received`). A request that is no persistent URL has only its ``refusal``."""

    url: str | None = None
    alert: Alert | None = None
    resolution: Resolution | None = None
    diagnosis: NotFoundDiagnosis | None = None
    trace_url: str | None = None
    cache: str | None = None
    rescued: str | None = None
    refusal: Refusal | None = None

    @property
    def found(self) -> bool:
        return self.url is not None


_EVERY_ARCHIVE, _LIVE_ARCHIVES = ArchiveSet(ArchiveGroup.ALL), ArchiveSet(ArchiveGroup.LIVE)


class Resolving:
    """The resolve use case: :meth:`answer` for ``GET /<persistent URL>`` (the cache of outcomes,
    the URL read, single flight, the resolution and its trace), :meth:`trace` for a resolution
    that is traced and never cached.

    Its collaborators, each named: ``settings``, the ``IBIPORTAL_*`` settings it reads (demo
    Archives, trusted proxies, an Archive's read timeout, the traces' retention, size and repeat
    window, the database a late notice is written to); ``storage``, the storage of the current
    unit of work; ``clock``, the time in UTC; per address of the portal, ``holdings`` (the
    Archives this process answers for), ``transports`` (the engine's, by route) and
    ``acknowledger`` (sends a cached redirect's acknowledgment again); ``prefix_pairs``, the
    prefix table as conversion knows it; ``changes``, what changed in what resolutions answer
    (the cache's generation); ``executor``, the threads a resolution fans out on; ``notices``, the
    notices (6) awaited after a redirect went out without them, and ``notice_recorder``, the
    thread that writes them into their traces; ``cache``, the cache of outcomes (``None`` when
    off); ``single_flight`` and ``redis_flight``, identical requests sharing one resolution in
    this worker and across workers and nodes (``None`` without Redis); ``usage``, the count of
    resolutions per item (``None`` when off)."""

    def __init__(
        self,
        *,
        settings: Settings,
        storage: Callable[[], Storage],
        clock: Callable[[], datetime],
        holdings: Callable[[str], Holdings],
        transports: Callable[[str], Mapping[Route, Transport]],
        acknowledger: Callable[[str], Acknowledger],
        prefix_pairs: Callable[[], list[tuple[str, ...]]],
        changes: Callable[[], Changes],
        executor: Executor,
        notices: PendingNotices,
        notice_recorder: Executor,
        cache: ResolutionCache | None,
        single_flight: SingleFlight,
        redis_flight: RedisFlight | None,
        usage: UsageCounter | None,
    ) -> None:
        self.settings = settings
        self.storage = storage
        self.clock = clock
        self.holdings = holdings
        self.transports = transports
        self.acknowledger = acknowledger
        self.prefix_pairs = prefix_pairs
        self.changes = changes
        self.executor = executor
        self.notices = notices
        self.notice_recorder = notice_recorder
        self.cache = cache
        self.single_flight = single_flight
        self.redis_flight = redis_flight
        self.usage = usage
        self._pairs_seen: set[tuple[str, str]] = set()  # prefix pairs answered, looked up once per worker
        #: The endpoints of each Archive set at each portal address, with the generation they were read at.
        self._endpoints: dict[tuple[ArchiveSet, str], tuple[int, tuple[ArchiveEndpoint, ...]]] = {}

    # -- values a request is made of ---------------------------------------------------------

    @property
    def default_archives(self) -> ArchiveSet:
        """What ``GET /<persistent URL>`` asks: every Archive, or only live ones when the demo is
        off (one of two values made once: a cache hit reads it for its key)."""
        return _EVERY_ARCHIVE if self.settings.demo_archives else _LIVE_ARCHIVES

    def client(self, caller: Caller) -> ClientInfo:
        """Table 8.6 from the request: the client then its proxies (trusted ones only), and Accept-Language."""
        ips = client_ip_list(caller.peer, caller.forwarded_for, self.settings.trusted_proxies)
        return ClientInfo(ips, caller.accept_language)

    def archive_endpoints(self, archives: ArchiveSet, portal_url: str) -> list[ArchiveEndpoint]:
        """The endpoints of the Archives of ``archives``, in the order they are asked: read once
        per worker for each generation of the Archive set (an Archive included, excluded or
        removed makes a new one, as it empties the resolution caches: ``storage/signal.py``),
        not from the registry on every resolution (``benchmarks/uncached.py``)."""
        generation = self.changes().generation
        known = self._endpoints.get((archives, portal_url))
        if known is not None and known[0] == generation:
            return list(known[1])
        endpoints = self._read_endpoints(archives, portal_url)
        self._endpoints[(archives, portal_url)] = (generation, tuple(endpoints))
        return endpoints

    def _read_endpoints(self, archives: ArchiveSet, portal_url: str) -> list[ArchiveEndpoint]:
        holdings = self.holdings(portal_url)
        demo = [local_endpoint(archive) for archive in holdings.demo.values()
                if archives.include_faulty or not archive.faulty]
        if archives.group is ArchiveGroup.DEMO:
            return demo
        live = [replace(local_endpoint(holdings.own_local), own=True)]  # its originals win (resolver.selecting)
        live += [
            ArchiveEndpoint(archive.address, archive.service_ibi, archive.address, Route.HTTP,
                            read_timeout=self.settings.archive_read_timeout)
            for archive in ArchiveStore(self.storage()).included_archives()
        ]
        return live if archives.group is ArchiveGroup.LIVE else demo + live

    def batch(self, site: Site) -> Batch:
        """The registry as the resolutions of one reference check use it: the default Archives."""
        store = ArchiveStore(self.storage())
        return Batch(tuple(self.archive_endpoints(self.default_archives, site.portal_url)),
                     RegistryView(store.archives(), self.prefix_pairs(), store.last_exclusions()),
                     TraceBudget(self.settings.trace_retention // 2))

    # -- a resolution that is traced, never cached ---------------------------------------------

    def trace_once(self, request: TraceRequest, site: Site) -> str:
        """The id of the trace of ``request``: :meth:`trace`, unless an identical request's trace is running or ended less than
        ``TRACE_REPEAT_SECONDS`` ago: then that trace, once it is stored. Impatient clicks on
        Trace make one trace, and every click ends at it. The claim is a row of the database
        (TraceRuns), so identical requests reaching other workers or nodes of one PostgreSQL
        join it too; a request whose trace failed or outran :data:`TRACE_RUNNING_LIMIT` leaves
        the next identical one to run its own."""
        window = self.settings.trace_repeat_seconds
        if window <= 0:
            return self.trace(request.asked, request.archives, request.client, site).trace_id
        runs, fingerprint = TraceRuns(self.storage()), request.fingerprint
        while True:
            now = self.clock()
            trace_id, leader = runs.claim(fingerprint, secrets.token_urlsafe(12), iso(now),
                                          fresh_after=iso(now - timedelta(seconds=window)),
                                          running_after=iso(now - TRACE_RUNNING_LIMIT))
            if leader:
                try:
                    self.trace(request.asked, request.archives, request.client, site, trace_id=trace_id)
                except BaseException:
                    runs.abandon(fingerprint, trace_id)
                    raise
                runs.finish(fingerprint, trace_id, iso(self.clock()))
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
        resolver = Resolver(
            self.archive_endpoints(archives, site.portal_url) if batch is None else batch.endpoints,
            self.transports(site.portal_url),
            settings=ResolverSettings(resolver_base=site.root),
            executor=self.executor,
            notices=self.notices,
            prefix_pairs=self.prefix_pairs if batch is None else lambda: batch.registry.prefix_pairs,
        )
        with reads_on(self.storage()):  # the own Archive reads on this unit's connection, as the trace is stored
            resolution = resolver.resolve(asked, client)
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
        store = IdentifierStore(self.storage())
        table = [*KNOWN_PREFIX_PAIRS, *store.minting_pairs(), *store.prefix_pairs()]
        for pair in new:
            self._pairs_seen.add((pair.rep_prefix, pair.ibip_prefix))
            if pair.ibip_prefix not in ibip_prefixes_for(pair.rep_prefix, table):
                store.learn_prefix_pair(pair.rep_prefix, pair.ibip_prefix, pair.archive, pair.evidence)

    def _record_when_it_comes(self, trace_id: str, notice: Future[TraceStep]) -> None:
        """Once the notice (6) the redirect went out without comes, it replaces the stored trace's
        "acknowledgment pending" step (from the notice recorder's thread)."""
        setting, recorder = self.settings.database, self.notice_recorder

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
            "traced_at": self.clock().isoformat(timespec="seconds").replace("+00:00", "Z"),
        }
        diagnosis = known_diagnosis or self._diagnosis(resolution, batch)
        body = {**resolution.to_dict(), "request": asked}
        if diagnosis is not None:
            body["diagnosis"] = diagnosis.to_dict()
        TraceStore(self.storage()).save_trace(
            trace_id, resolution.persistent_url, outcome, stored_trace(body),
            self.settings.trace_retention, self.settings.trace_bytes, ibi=asked_ibi(resolution),
        )
        return StoredResolution(trace_id, resolution, diagnosis=diagnosis)

    def _diagnosis(self, resolution: Resolution, batch: Batch | None = None) -> NotFoundDiagnosis | None:
        """Why a resolution found nothing, against the registry as it is now, or as ``batch``
        read it (``None`` if it found)."""
        if resolution.found:
            return None
        if batch is not None:
            return batch.registry.diagnose(resolution)
        store = ArchiveStore(self.storage())
        return diagnose(resolution, store.archives(), self.prefix_pairs(), store.last_exclusions())

    # -- GET /<persistent URL>: one call from the request to the answer -----------------------

    def answer(self, received: Received, caller: Caller, site: Site, batch: Batch | None = None) -> Answer:
        """What ``GET /<persistent URL>`` answers ``received`` for ``caller`` at ``site``, each
        stop once:

        1. the cache of outcomes (:meth:`_cached`), looked up before the URL is read (only
           resolutions of URLs that read are kept): a redirect or a stable alert served again;
        2. the URL read, unless its receiver read it (``received.parsed``); a request that is no
           persistent URL is refused, saying why (:func:`refusal`), and nothing is resolved;
        3. the resolution with the default Archives, which identical requests under way share
           (single flight), its trace kept and its outcome cached for the next ones (:meth:`_resolve`);
        4. the cache state the answer says.

        A reference check's resolutions (``batch``) read the registry the check read once, and
        their outcomes are not kept in the cache."""
        key = self._cache_key(received.url, caller)
        hit = self._cached(key)
        if hit is not None:
            outcome, state = hit
            self._serve(outcome, state, site)
            if isinstance(outcome, CachedRedirect):
                return Answer(outcome.url, trace_url=outcome.trace_url, cache=state, rescued=received.rescued)
            resolution = outcome.resolution
            return Answer(alert=resolution.alert, resolution=resolution, diagnosis=outcome.diagnosis,
                          trace_url=outcome.trace_url, cache=state, rescued=received.rescued)
        parsed = received.parsed
        if parsed is None:
            try:
                parsed = parse_persistent_url(received.url)
            except ParseError as error:
                return Answer(refusal=refusal(received, error))
        stored, state = self._resolve(key, Asked(received.url, parsed), caller, site, batch)
        resolution = stored.resolution
        return Answer(resolution.url, resolution.alert, resolution, stored.diagnosis, site.trace_link(stored.trace_id),
                      state, received.rescued)

    def _cached(self, key: CacheKey) -> tuple[CachedOutcome, str] | None:
        """The outcome cached for ``key`` and ``"hit"``, or the previous one and ``"stale"``
        while an identical request is resolving it again; ``None`` on a miss or with the cache
        off (ibiportal.resolver.cache). Nothing is sent or counted yet (:meth:`_serve`)."""
        cache = self.cache
        if cache is None:
            return None
        changes = self.changes()
        outcome, state = cache.get(key, changes), "hit"
        if outcome is None and self.single_flight.running(key):
            outcome, state = cache.get_stale(key, changes), "stale"
        return None if outcome is None else (outcome, state)

    def _serve(self, outcome: CachedOutcome, state: str, site: Site) -> None:
        """A cached outcome served: counted; a redirect's acknowledgment (5) sent again to the
        Archive whose URL it is (Table 8.11), and its serving counted in the item's usage."""
        if isinstance(outcome, CachedRedirect):
            metrics.resolved("found", state)
            if outcome.usage is not None and (usage := self.usage) is not None:
                usage.count(outcome.usage)
            if outcome.acknowledgment is not None:
                self.acknowledger(site.portal_url).send(outcome.acknowledgment)
        else:
            metrics.resolved(outcome.resolution.alert.reason, state)

    def _resolve(self, key: CacheKey, asked: Asked, caller: Caller, site: Site,
                 batch: Batch | None) -> tuple[StoredResolution, str]:
        """After a miss: :meth:`trace` with the default Archives, its redirect or stable alert kept
        for the next identical requests with its trace permalink; and the cache state. Identical
        requests that arrive while it runs wait for it and share its outcome
        (ibiportal.resolver.single_flight; with Redis, across workers and nodes too:
        ibiportal.storage.redis_flight); each of them stores a trace that says so and links the
        one it joined.

        A reference check's resolutions (``batch``) are not kept: its thousands of outcomes, each
        asked once, would fill the cache and push out, least recently used first, the outcomes
        readers follow; and its memory would grow with the list."""
        client = self.client(caller)
        started = time.monotonic()
        shared = self.single_flight.run(key, lambda: self._resolve_and_keep(key, asked, client, site, batch))
        leader = shared.result
        if batch is None and leader.resolution.found and (usage := self.usage) is not None:
            usage.count(UsageKey.of(asked.parsed))
        if not (shared.joined or leader.joined):
            state = self._cache_state(leader.resolution)
            _count_resolution(leader.resolution, state)
            return leader, state
        resolution = joined(leader.resolution, site.trace_link(leader.trace_id),
                            round((time.monotonic() - started) * 1000, 1))
        if resolution.acknowledgment is not None:
            self.acknowledger(site.portal_url).send(resolution.acknowledgment)
        stored = self._store(self.default_archives, client, resolution, known_diagnosis=leader.diagnosis)
        _count_resolution(resolution, "joined")
        return StoredResolution(stored.trace_id, resolution, joined=True, diagnosis=leader.diagnosis), "joined"

    def _cache_state(self, resolution: Resolution) -> str:
        """``X-IBI-Cache`` of a resolution this request ran: ``miss``, or ``off`` when the cache
        keeps no outcome of this kind."""
        cache = self.cache
        return "miss" if cache is not None and cache.lifetime(resolution.found) > 0 else "off"

    def _resolve_and_keep(self, key: CacheKey, asked: Asked, client: ClientInfo, site: Site,
                          batch: Batch | None = None) -> StoredResolution:
        """This worker's resolution of ``key``, or, with Redis, the outcome of the identical one
        another worker or node is running (``joined``); kept in this worker's cache either way
        (unless it is a reference check's, ``batch``), so that every worker the burst reached
        answers the next identical requests itself."""
        cache, flight = None if batch is not None else self.cache, self.redis_flight
        archives = self.default_archives
        if cache is None and flight is None:
            return self.trace(asked, archives, client, site, batch)
        changes = self.changes()  # read first: an Archive included or the item changed meanwhile wins
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
        return CacheKey(received, caller.peer, caller.forwarded_for, self.settings.trusted_proxies,
                        caller.accept_language, self.default_archives.group)


def refusal(received: Received, error: ParseError) -> Refusal:
    """Why ``received``, whose URL does not read (``error``), is no persistent URL to resolve: a
    direct Archive link whose item's name does not read; a URLib link that names no item this
    portal can read (a mirror's own page, a ``upn:`` whose local part is URLib's compact code:
    the recogniser's refusal, STANDARD.md §8); a path that is not even an IBI, which a reader most
    likely typed meaning a page (a 404 that says both, with the character where reading it as an
    IBI stopped); else the persistent URL's own error, a 400 naming the character at fault."""
    if received.rescued is not None:
        return Refusal(N_("%(link)s is a direct link to an Archive's copy of an item, but the item's "
                          "repository name does not read: %(problem)s", link=received.rescued, problem=error.message),
                       404, None, "path")
    recognition = recognise(without_pasted_resolver(received.path))
    if recognition.refusal is not None:
        return Refusal(recognition.refusal, 404, recognition.refusal_at and recognition.refusal_at[0], "path")
    route = _route_path(received.path)
    ibi_part = without_resolver_segment(without_pasted_resolver("/" + route))[1:]
    try:
        split_ibi(ibi_part)
    except ParseError as not_ibi:
        skipped = len(route) - len(ibi_part)  # a resolver segment such as ``ibi/`` before the part read as an IBI
        position = None if not_ibi.position is None else not_ibi.position + 1 + skipped  # + the path's "/"
        return Refusal(N_("There is no page /%(path)s on this portal, and it is not a persistent URL: %(problem)s",
                          path=route, problem=not_ibi.message), 404, position, "path")
    return Refusal(error.message, error.status, error.position, error.field)


def _route_path(path: str) -> str:
    """The request's path as the router reads it for its pages: decoded, without the query and
    the leading ``/`` (a reader who mistyped a page's address reads it so)."""
    return unquote(path.split("?", 1)[0])[1:]


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
