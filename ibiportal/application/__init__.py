"""The application layer: use cases as plain classes, built with their collaborators, taking
parsed values and returning facts (dataclasses). No Flask here: the web blueprints and the CLI
parse once, call a use case, and render what it returns.

:class:`Application` is made from the typed settings (``ibiportal.config.Settings``), a way to
open the database they name, the transports and one clock. It is the one door of the web layer
and the CLI: it holds the long-lived parts every request shares (the transports, the thread
pools, the resolution cache, single flight, the Archives this process answers for), the storage
of the current unit of work (:mod:`.units`), and every use case, wired: those built once
(:class:`~.resolving.Resolving` for ``GET /<persistent URL>`` and the trace,
:class:`~.citing.Citing` for Cite, registering, traces, tokens, accounts) and those built per call
on the unit's storage (minting, items, files, copies, usage, target checks, prefix pairs).

Fork safety: gunicorn imports ``app.py`` in each worker (no ``preload_app``), so ``create_app``
runs after the fork. Even so, the parts that own threads, sockets or connections (the libcurl
loop, the thread pools, the ``requests`` session, the Redis client, the signal file's map) are
made on first use, by the process and thread that needs them, under one lock of this object:
an application built in a parent process (a test, a CLI that forks) hands none of them across.
This is no service locator: every part is a named attribute of the one object create_app built.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from ..archive.demo import DemoArchive, load_demo_archives
from ..archive.own import OwnArchive, own_archive_service
from ..archive.service import ArchiveService
from ..resolver.acknowledging import PendingNotices
from ..i18n import N_
from ..ibi.prefixes import KNOWN_PREFIX_PAIRS, table_with_claims
from ..config import Settings
from ..ibi.clock import Clock, unix_time, utc_now
from ..ibi.minted import MintedItem
from ..ibi.subsystem import Subsystem
from ..resolver.cache import Acknowledger, ResolutionCache
from ..resolver.engine import ResolverSettings
from ..resolver.single_flight import SingleFlight
from ..resolver.transport import Route, Transport
from ..resolver.http_transport import HttpTransport
from ..resolver.registry_service import RegistrationService
from ..resolver.target_probe import HostPacer, TargetChecker
from ..resolver.local_transport import LocalTransport
from ..storage.database import Storage
from ..storage.identifiers import PAIR_CONFIRMED, PAIR_SUGGESTED, FreshConnections, IdentifierStore
from ..storage.redis_flight import RedisFlight
from ..storage.usage import RedisUsage, UsageStore
from ..log_limits import LimitedLog
from .usage_counting import Counts, UsageCounter, UsageTally
from ..storage.signal import Changes, GenerationSignal, RedisChanges, read_changes, signal_file
from ..storage.signal import write_signal_file
from ..storage.copies import CopyStore
from ..storage.files import FileStore, StoredFile, read_chunks
from ..storage.history import HistoryStore
from ..storage.mint_keys import MintKeyStore
from ..storage.oai_items import OaiItems
from ..storage.targets import TargetStore
from .copies import CopyService
from .demo_items import DemoItemSeeder
from .files import ItemFiles
from .idempotent_minting import IdempotentMinting
from .import_runs import ImportRuns
from .minting import Minter
from .items import ItemService
from .joining import Joining
from .prefix_pairs import PrefixPairs
from .records import Accounts, ImportRunRecords, Tokens, Traces
from .registry import Registering
from .releasing import Releasing
from .targets import TargetChecks, TargetSettings
from .units import StorageScope, UnitExecutor
from .usage import Usage
from .importing import Importer
from .references import CONCURRENCY
from .resolving import Resolving
from .citing import Citing

#: Threads asking the Archives of this process (the own and the demo ones; live Archives are
#: asked from the libcurl transport's one thread), per request thread of the worker
#: (IBIPORTAL_THREADS): every resolution asks all Archives at once, and an exchange no longer
#: waited for (a slow demo Archive) still holds its thread until it ends, so each request thread
#: may need one per Archive; with more than this many, a resolution's later messages queue.
RESOLVER_THREADS_PER_REQUEST_THREAD = 16

#: Redirects kept per worker process (least recently used dropped first): about 1 kB each.
RESOLUTION_CACHE_ENTRIES = 10_000

#: Acknowledgments of cached redirects queued or being sent, per request thread of the worker
#: (a few hundred bytes each); beyond that they are dropped (cache.Acknowledger): at 200 hits a
#: second per worker, that is five seconds of an Archive not answering.
PENDING_ACKNOWLEDGMENTS_PER_REQUEST_THREAD = 128

#: Seconds a cross-worker flight's lock outlives a resolution's deadline: time to store the
#: leader's trace and publish its outcome (a killed leader's lock is gone that long after it).
FLIGHT_LOCK_MARGIN_SECONDS = 2.0


_USAGE_LOG = LimitedLog(logging.getLogger(__name__))

#: The source conversion names for the pairs of the portal's own subsystems.
OWN_SUBSYSTEM_SOURCE = N_("this portal's identification subsystem, which minted the IBI (IBIPORTAL_MINT_*)")


def _subsystem(settings: Settings) -> Subsystem:
    """The portal's own identification subsystem, from its ``MINT_*`` settings (validated)."""
    return Subsystem.validated(settings.mint_host, settings.mint_port, settings.mint_ip, settings.mint_ibip_port,
                               settings.granularity)


def resolver_threads(request_threads: int) -> int:
    """Size of the pool resolutions fan out on, for a worker with ``request_threads`` threads."""
    return max(1, request_threads) * RESOLVER_THREADS_PER_REQUEST_THREAD


class Holdings:
    """The Archives this process answers for at one address of the portal: the demo Archives
    (their URLs point into the portal) and the portal's own Archive, with the transport that
    reaches them in process. One set per address the portal is served at (``web.host``)."""

    def __init__(self, portal_url: str, settings: Settings, clock: Clock) -> None:
        self.portal_url = portal_url
        self.demo: dict[str, DemoArchive] = load_demo_archives(portal_url=portal_url)
        self.own: ArchiveService = own_archive_service(
            FreshConnections(settings.database),
            address=urlsplit(portal_url).netloc,
            service_ibi=settings.archive_service_ibi,
            portal_url=portal_url,
            clock=clock,
        )
        self.own_local = OwnArchive(self.own)
        self.local_transport = LocalTransport([self.own_local, *self.demo.values()])


@dataclass(frozen=True)
class Transports:
    """How the application reaches the world: each made on first use, by the process that uses
    it (module docstring: fork safety). ``http``: one-off exchanges with live Archives (the §7.2
    confirmation request, Cite's record fetch, a release); ``fan_out``: the resolver's transport to
    registered Archives, every message of a round on the wire at once; ``target_check``: the dead
    target check's own, with a user agent naming it."""

    http: Callable[[], HttpTransport]
    fan_out: Callable[[], Transport]
    target_check: Callable[[], HttpTransport]


class Application:
    """The one object the web layer and the CLI call: settings, long-lived parts and use cases.

    ``settings``: the portal's typed settings, given once: nothing here reads Flask's
    configuration, so a test that needs another setting builds its app with it. ``open_storage``
    opens a connection to the database the settings name; :attr:`storage` gives the current unit
    of work's (a request, a command, a pool thread's job: :mod:`.units`), opened on first use,
    and :meth:`close_storage` ends it. ``transports``: how the world is reached; ``clock`` the
    current time, in UTC; ``timer`` the seconds of CPU the calling thread has used, for a
    request's budget of work (its reading of a text: ``ibi.extract.Bounds``), which tests move.
    ``testing``: a test's app, whose usage counts are flushed when the test looks, with no thread
    writing into its database meanwhile.
    """

    def __init__(self, settings: Settings, open_storage: Callable[..., Storage], transports: Transports,
                 clock: Clock = utc_now, timer: Callable[[], float] = time.thread_time, *,
                 testing: bool = False) -> None:
        self.settings = settings
        self.testing = testing
        self.instance_path = settings.instance
        self.open_storage = open_storage
        self.storage = StorageScope(lambda: open_storage(announce=self.announce))
        self._transports = transports
        self.clock = clock
        self.timer = timer
        self.subsystem = _subsystem(settings)  # the portal's own, validated at start-up
        self._lock = threading.RLock()  # re-entrant: making one part may make those it uses
        self._parts: dict[str, Any] = {}
        self.traces = Traces(self.storage)
        self.tokens = Tokens(self.storage)
        self.accounts = Accounts(self.storage)
        self.registering = Registering(self.storage, clock)
        self.import_records = ImportRunRecords(self.storage)

    def close_storage(self) -> None:
        """End the calling unit of work: close the connection it opened, if any."""
        self.storage.close()

    # -- use cases over the current unit of work's storage (cheap: a few objects per call) -----

    def minter(self) -> Minter:
        """The portal's identification subsystem, as configured (validated at start-up)."""
        return Minter(IdentifierStore(self.storage()), self.subsystem, self.unix_clock)

    def idempotent_minting(self) -> IdempotentMinting:
        """Minting that a client may retry with the same ``Idempotency-Key`` (API and Mint page)."""
        storage = self.storage()
        return IdempotentMinting(self.minter(), MintKeyStore(storage), IdentifierStore(storage), self.clock)

    def items(self) -> ItemService:
        """The own Archive's items, to read, change and delete (API, administrator's pages, CLI)."""
        storage = self.storage()
        return ItemService(IdentifierStore(storage), HistoryStore(storage))

    def releasing(self) -> Releasing:
        """Releasing own items to successor Archives, over the guarded ``requests`` transport."""
        return Releasing(self.items(), self.http_transport, self.settings.archive_service_ibi)

    def item_files(self) -> ItemFiles:
        """The files of the own Archive's items."""
        storage = self.storage()
        return ItemFiles(IdentifierStore(storage), FileStore(storage), self.settings.max_file_bytes)

    def importing(self, extra_pairs: Iterable[Sequence[str]] = ()) -> Importer:
        """Imports into the own Archive (``items import``, ``POST /api/v1/items/import``), with the
        known prefix pairs and ``extra_pairs`` (given for one import)."""
        return self.importer(self.storage(), self.known_prefix_pairs(extra_pairs))

    def copies(self) -> CopyService:
        """The copies the own Archive holds of other Archives' items."""
        storage = self.storage()
        return CopyService(CopyStore(storage), IdentifierStore(storage), self.known_prefix_pairs(),
                           self.settings.archive_service_ibi)

    def usage_report(self) -> Usage:
        """How often items were resolved."""
        storage = self.storage()
        return Usage(UsageStore(storage), IdentifierStore(storage), self.clock)

    def target_checks(self) -> TargetChecks:
        """The own items' target checks and their states (IBIPORTAL_TARGET_FAILURES, _RECHECK_HOURS)."""
        storage = self.storage()
        settings = TargetSettings(self.settings.target_failures, self.settings.target_recheck_hours)
        return TargetChecks(TargetStore(storage), IdentifierStore(storage), settings, self.clock)

    def target_checker(self) -> TargetChecker:
        """A checker of target URLs, over the target check's own transport, paced per host."""
        return TargetChecker(self._transports.target_check(), HostPacer())

    def prefix_pairs(self) -> PrefixPairs:
        """The prefix pairs administrators add, confirm or reject (Convert's table, ``flask ibi prefix-pair``)."""
        return PrefixPairs(IdentifierStore(self.storage()))

    def oai_items(self) -> OaiItems:
        """The own items as the OAI-PMH data provider lists them."""
        return OaiItems(self.storage())

    def minted(self, ibips: Iterable[str]) -> list[MintedItem]:
        """The own items minted with these IBIP forms, in their order (those since deleted left out)."""
        store = IdentifierStore(self.storage())
        return [item for ibip in ibips if (item := store.find_minted(ibip=ibip)) is not None]

    def stored_files(self, ibip: str) -> list[StoredFile]:
        """The files the own item ``ibip`` holds, as stored (an item's package writes them whole)."""
        return FileStore(self.storage()).files(ibip)

    def file_chunks(self, stored: StoredFile, start: int, stop: int) -> Iterator[bytes]:
        """Bytes ``start`` to ``stop`` of a stored file, each chunk read on a connection of its own
        (``storage.files``: a download outlives its request's unit of work)."""
        return read_chunks(self.open_storage, stored, start, stop)

    def demo_seeder(self, demo_subsystem: bool) -> DemoItemSeeder:
        """What gives a new demo portal's own Archive its demo items (``flask demo seed``)."""
        return DemoItemSeeder(self.minter(), IdentifierStore(self.storage()), self.item_files(), demo_subsystem)

    def joining(self) -> Joining:
        """The own Archive joining outside resolvers: its settings (IBIPORTAL_PORTAL_URL,
        _ARCHIVE_SERVICE_IBI, _ADMIN_EMAIL), the one-off ``requests`` transport, the unit's storage."""
        return Joining(portal_url=self.settings.portal_url, service_ibi=self.settings.archive_service_ibi,
                       admin_email=self.settings.admin_email, transport=self.http_transport, storage=self.storage,
                       clock=self.clock)

    def registration_service(self) -> RegistrationService:
        """The resolver's registration service (§7.2), with the address policy of IBIPORTAL_ALLOW_PRIVATE_ARCHIVES."""
        return self.registering.service(self.http_transport, self.settings.allow_private_archives)

    def unix_clock(self) -> Decimal:
        """The one clock as a decimal Unix time: the ``current date`` Algorithm 4 and an import read."""
        return unix_time(self.clock())

    def _part(self, name: str, make: Callable[..., Any], *args: Any) -> Any:
        """The part ``name``, made by ``make(*args)`` on its first use (module docstring: fork
        safety). The parts a cache hit reads pass a method, not a closure made on every call."""
        parts = self._parts
        if name not in parts:
            with self._lock:
                if name not in parts:
                    parts[name] = make(*args)
        return parts[name]

    @property
    def citing(self) -> Citing:
        """The Cite use case, given the parts it uses (made on first use, as :attr:`resolving`)."""
        return self._part("citing", lambda: Citing(
            clock=self.clock, resolving=self.resolving, holdings=self.holdings,
            demo_archives=self.settings.demo_archives, http=self.http_transport, prefix_pairs=self.known_prefix_pairs))

    @property
    def resolving(self) -> Resolving:
        """The resolve use case, given the parts it uses (made with them on first use: module
        docstring, fork safety)."""
        return self._part("resolving", self._new_resolving)

    def _new_resolving(self) -> Resolving:
        return Resolving(
            settings=self.settings, storage=self.storage, clock=self.clock, holdings=self.holdings,
            transports=self.transports, acknowledger=self.acknowledger, prefix_pairs=self.known_prefix_pairs,
            changes=self.resolution_changes, executor=self.executor, notices=self.pending_notices,
            notice_recorder=self.notice_recorder, cache=self.resolution_cache, single_flight=self.single_flight,
            redis_flight=self.redis_flight, usage=self.usage,
        )

    def known_prefix_pairs(self, given: Iterable[Sequence[str]] = ()) -> list[tuple[str, ...]]:
        """The facts first: the standard's pairs, the portal's own subsystems (the configured one
        and every one that has minted here: what the portal minted always converts both ways),
        the pairs administrators confirmed, and those ``given`` for one task (an import's
        ``--prefix-pair``), each with its source; then the pairs Archives' answers reported and
        no administrator decided on, where they contradict none of those (a claim, never a fact)."""
        store = IdentifierStore(self.storage())
        own = self.subsystem
        minted = [(own.rep_prefix, own.ibip_prefix), *store.minting_pairs()]
        facts = [
            *KNOWN_PREFIX_PAIRS,
            *((rep, ibip, OWN_SUBSYSTEM_SOURCE) for rep, ibip in dict.fromkeys(minted)),
            *((record.rep_prefix, record.ibip_prefix, record.source)
              for record in store.prefix_pair_records(PAIR_CONFIRMED)),
            *(tuple(pair) for pair in given),
        ]
        claims = [(record.rep_prefix, record.ibip_prefix, record.source)
                  for record in store.prefix_pair_records(PAIR_SUGGESTED)]
        return table_with_claims(facts, claims)

    def importer(self, storage: Storage, pairs: Sequence[Sequence[str]]) -> Importer:
        """Imports into the own Archive over ``storage``, with ``pairs`` to give each record's other form."""
        return Importer(IdentifierStore(storage), FileStore(storage), self.subsystem, pairs, self.settings.max_file_bytes,
                        self.unix_clock)

    @property
    def import_runs(self) -> ImportRuns:
        """The imports the Import page starts, each in a thread of this process (``.import_runs``)."""
        return self._part("import_runs", lambda: ImportRuns(
            lambda: self.open_storage(announce=self.announce), self.importer))

    # -- transports and pools --------------------------------------------------------------

    @property
    def http_transport(self) -> HttpTransport:
        """The ``requests`` transport for one-off exchanges with live Archives (the §7.2
        confirmation request, Cite's record fetch), with the address policy of
        IBIPORTAL_ALLOW_PRIVATE_ARCHIVES."""
        return self._part("http_transport", self._transports.http)

    @property
    def fan_out_transport(self) -> Transport:
        """The resolver's transport to registered Archives: every message of a round on the wire
        at once (ibiportal.resolver.curl_transport), with the same address policy."""
        return self._part("fan_out_transport", self._transports.fan_out)

    @property
    def executor(self) -> ThreadPoolExecutor:
        """The thread pool resolutions fan out on (to the Archives of this process)."""
        size = resolver_threads(self.settings.threads)
        return self._part("executor", lambda: ThreadPoolExecutor(max_workers=size, thread_name_prefix="resolver"))

    @property
    def reference_executor(self) -> UnitExecutor:
        """The threads reference checks resolve their requests on (.references): one check keeps
        at most ``CONCURRENCY`` resolutions under way; several checks share them. Each resolution
        is a unit of work of its own: it opens its storage through :attr:`storage` and the thread
        closes it when it ends."""
        return self._part("reference_executor", lambda: UnitExecutor(
            ThreadPoolExecutor(max_workers=CONCURRENCY, thread_name_prefix="reference-check"), self.storage))

    @property
    def pending_notices(self) -> PendingNotices:
        """The notices (6) this worker awaits after redirects went out without them, at most
        IBIPORTAL_PENDING_NOTICES per Archive; those of the Archives in this process (the own one,
        the demo ones) are waited for, a function call."""
        return self._part("pending_notices",
                          lambda: PendingNotices(self.settings.pending_notices, in_process={Route.LOCAL}))

    @property
    def notice_recorder(self) -> ThreadPoolExecutor:
        """The thread that writes notices into the stored traces as they come: a notice completes
        on the transport's thread, which must not wait on the database."""
        return self._part("notice_recorder",
                          lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="notice-recorder"))

    def holdings(self, portal_url: str) -> Holdings:
        """The Archives this process answers for at ``portal_url``."""
        return self._part(f"holdings {portal_url}", Holdings, portal_url, self.settings, self.clock)

    def transports(self, portal_url: str) -> dict[Route, Transport]:
        """The engine's transports, by the route of each endpoint."""
        return {Route.LOCAL: self.holdings(portal_url).local_transport, Route.HTTP: self.fan_out_transport}

    def acknowledger(self, portal_url: str) -> Acknowledger:
        """Sends the acknowledgments of cached redirects: to local Archives at once, to those over
        HTTP from a pool of its own, so that a slow Archive's acknowledgments never hold the
        threads resolutions fan out on."""
        return self._part(f"acknowledger {portal_url}", self._new_acknowledger, portal_url)

    def _new_acknowledger(self, portal_url: str) -> Acknowledger:
        threads = max(1, self.settings.threads)
        executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="acknowledgment")
        return Acknowledger(self.transports(portal_url), executor,
                            threads * PENDING_ACKNOWLEDGMENTS_PER_REQUEST_THREAD, in_process={Route.LOCAL})

    # -- the cache, single flight and the news of changes --------------------------------------

    @property
    def resolution_cache(self) -> ResolutionCache | None:
        """This worker's cache of redirects and stable alerts, or ``None`` when both
        IBIPORTAL_RESOLUTION_CACHE_SECONDS and IBIPORTAL_NEGATIVE_CACHE_SECONDS are 0."""
        return self._part("resolution_cache", self._new_resolution_cache)

    def _new_resolution_cache(self) -> ResolutionCache | None:
        seconds, alert_seconds = self.settings.resolution_cache_seconds, self.settings.negative_cache_seconds
        if not (seconds or alert_seconds):
            return None
        return ResolutionCache(seconds, RESOLUTION_CACHE_ENTRIES, alert_ttl=alert_seconds)

    @property
    def single_flight(self) -> SingleFlight:
        """This worker's resolutions under way, shared by identical requests (resolver.single_flight)."""
        return self._part("single_flight", SingleFlight)

    @property
    def redis_changes(self) -> RedisChanges | None:
        """This process's link to the other nodes through Redis, when IBIPORTAL_REDIS_URL is set."""
        url = self.settings.redis_url
        return self._part("redis_changes", lambda: RedisChanges(url) if url else None)

    @property
    def redis_flight(self) -> RedisFlight | None:
        """Single flight across workers and nodes (storage.redis_flight) when IBIPORTAL_REDIS_URL
        is set: followers wait at most a resolution's deadline, then resolve by themselves."""
        deadline = ResolverSettings().deadline

        def make() -> RedisFlight | None:
            changes = self.redis_changes
            if changes is None:
                return None
            return RedisFlight(changes.client, lock_seconds=deadline + FLIGHT_LOCK_MARGIN_SECONDS, wait_seconds=deadline)

        return self._part("redis_flight", make)

    # -- usage ---------------------------------------------------------------------------------

    @property
    def usage(self) -> UsageCounter | None:
        """This worker's count of resolutions per item (``usage_counting``), flushed every
        IBIPORTAL_USAGE_FLUSH_SECONDS to the database, or through Redis when IBIPORTAL_REDIS_URL is
        set; ``None`` with IBIPORTAL_USAGE=0."""
        return self._part("usage", self._new_usage_counter)

    def _new_usage_counter(self) -> UsageCounter | None:
        if not self.settings.usage:
            return None
        # A test's app flushes when the test looks: no thread writing into its database meanwhile.
        # The day a resolution is counted on is read from the one clock.
        return UsageCounter(self._flush_usage, self.settings.usage_flush_seconds,
                            UsageTally(lambda: self.clock().timestamp()), background=not self.testing)

    def _flush_usage(self, counts: Counts) -> None:
        """A flush's sums into Redis, then moved into the database by whichever worker's turn it
        is; straight into the database without Redis, or while Redis fails."""
        storage = self.open_storage(retry_pause=None)
        try:
            store = UsageStore(storage)
            redis = self.redis_usage
            if redis is not None:
                try:
                    redis.add(counts)
                except redis.errors as error:
                    _USAGE_LOG.warning("usage redis", "Redis unreachable, usage counts go to the database: %s", error)
                else:
                    try:
                        redis.drain(store)
                    except Exception:  # noqa: BLE001 - the counts wait in Redis for the next drain
                        _USAGE_LOG.exception("usage drain", "usage counts not moved from Redis; kept there")
                    return
            store.add(counts)
        finally:
            storage.close()

    @property
    def redis_usage(self) -> RedisUsage | None:
        """Usage sums shared through Redis (storage.usage), when IBIPORTAL_REDIS_URL is set."""
        def make() -> RedisUsage | None:
            changes = self.redis_changes
            return None if changes is None else RedisUsage(changes.client, self.settings.usage_flush_seconds)

        return self._part("redis_usage", make)

    @property
    def signal_file(self) -> str:
        """The node's file through which its workers learn that resolution caches are stale."""
        return signal_file(self.settings.database, self.instance_path)

    def announce(self, generation: int) -> None:
        """What a commit that empties resolution caches calls: the node's signal file, then Redis."""
        write_signal_file(self.signal_file, generation)
        redis = self.redis_changes
        if redis is not None:
            redis.publish(generation)

    def resolution_changes(self) -> Changes:
        """What changed in what resolutions answer, as this worker process sees it (GenerationSignal)."""
        return self._part("generation_signal", self._new_generation_signal).current()

    def _new_generation_signal(self) -> GenerationSignal:
        return GenerationSignal(self.signal_file, self._read_changes, self.redis_changes,
                                stale_seconds=self.settings.outage_stale_seconds)

    def _read_changes(self, seen: Changes | None) -> Changes:
        # No retry: while this read waits, every lookup waits for its lock; the signal serves
        # the changes last read instead, for OUTAGE_STALE_SECONDS.
        storage = self.open_storage(retry_pause=None)
        try:
            return read_changes(storage, seen)
        finally:
            storage.close()
