"""Long-lived services shared by every request of one app: built once, on first use.

The resolver asks live Archives over one libcurl transport (every message of a round on the
wire at once, from one thread) and the Archives of this process on one thread pool; one-off
exchanges (the §7.2 confirmation, Cite's record fetch) keep a pooled ``requests`` transport.
The demo Archives are loaded from their data file once. Each gunicorn worker process builds its
own, after the fork (no ``preload_app``: a thread pool, a libcurl loop or a SQLite connection
must not cross a fork). The resolution cache lives here too, one per worker.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from flask import current_app

from ..application.references import CONCURRENCY
from ..archive.demo import DemoArchive, load_demo_archives
from ..archive.own import OwnArchive, own_archive_service
from ..archive.service import ArchiveService
from ..resolver.acknowledging import PendingNotices
from ..resolver.cache import Acknowledger, Changes, ResolutionCache
from ..resolver.curl_transport import CurlTransport
from ..resolver.engine import ResolverSettings
from ..resolver.single_flight import SingleFlight
from ..resolver.transport import HttpTransport, LocalTransport, Route, Transport
from ..storage.database import Storage
from ..storage.files import FileStore
from ..storage.copies import CopyStore
from ..storage.identifiers import IdentifierStore
from ..storage.redis_flight import RedisFlight
from ..storage.signal import GenerationSignal, RedisChanges, read_changes, signal_file
from ..storage.signal import write_signal_file
from .host import portal_url

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


#: Request threads of a worker may ask for a service at once on its first use: it is built once.
_BUILDING = threading.RLock()


def _service(name: str, build):
    services = current_app.extensions.setdefault("ibiportal.services", {})
    if name not in services:
        with _BUILDING:  # re-entrant: building one service may build those it uses
            if name not in services:
                services[name] = build()
    return services[name]


def get_http_transport() -> HttpTransport:
    """The shared ``requests`` transport for one-off exchanges with live Archives (the §7.2
    confirmation request, Cite's record fetch), with the address policy of
    IBIPORTAL_ALLOW_PRIVATE_ARCHIVES."""
    return _service(
        "http_transport", lambda: HttpTransport(allow_private=current_app.config["ALLOW_PRIVATE_ARCHIVES"])
    )


def get_fan_out_transport() -> CurlTransport:
    """The resolver's transport to registered Archives: every message of a round on the wire at
    once (see ibiportal.resolver.curl_transport), with the same address policy."""
    return _service(
        "fan_out_transport", lambda: CurlTransport(allow_private=current_app.config["ALLOW_PRIVATE_ARCHIVES"])
    )


def get_demo_archives() -> dict[str, DemoArchive]:
    """The demo Archives of the data file, their URLs on this portal's address (one set per
    address the portal is served at: ``web.host``)."""
    url = portal_url()
    return _service(f"demo_archives {url}", lambda: load_demo_archives(portal_url=url))


def get_own_archive() -> ArchiveService:
    """The portal's own Archive, whose items are the identifiers it minted."""
    config, url = current_app.config, portal_url()
    return _service(
        f"own_archive {url}",
        lambda: own_archive_service(
            FreshConnections(config["DATABASE"]),
            address=urlsplit(url).netloc,
            service_ibi=config["ARCHIVE_SERVICE_IBI"],
            portal_url=url,
        ),
    )


def get_own_local_archive() -> OwnArchive:
    """The own Archive as the resolver reaches it: one of the live Archives, answered in process."""
    return _service(f"own_local_archive {portal_url()}", lambda: OwnArchive(get_own_archive()))


def get_local_transport() -> LocalTransport:
    """The transport answering as the Archives this process holds: its own and the demo ones."""
    return _service(
        f"local_transport {portal_url()}",
        lambda: LocalTransport([get_own_local_archive(), *get_demo_archives().values()]),
    )


def get_transports() -> dict[Route, Transport]:
    """The engine's transports, by the route of each endpoint."""
    return {Route.LOCAL: get_local_transport(), Route.HTTP: get_fan_out_transport()}


class FreshConnections:
    """Storage reads on a connection of their own, for the own Archive's store.

    The resolver asks Archives from worker threads; each read takes a pooled connection for
    its one query and gives it back, and always sees the latest mints.
    """

    def __init__(self, path: str) -> None:
        self.path = path

    def _read(self, method: str, *args, **kwargs):
        storage = Storage(self.path)
        try:
            return getattr(IdentifierStore(storage), method)(*args, **kwargs)
        finally:
            storage.close()

    def find_minted(self, rep: str | None = None, ibip: str | None = None):
        return self._read("find_minted", rep=rep, ibip=ibip)

    def minted_items(self):
        return self._read("minted_items")

    def item_links(self, ibi: str):
        return self._read("item_links", ibi)

    def file_paths(self, ibi: str) -> list[str]:
        storage = Storage(self.path)
        try:
            return [stored.path for stored in FileStore(storage).files(ibi)]
        finally:
            storage.close()

    def links_to(self, target: str):
        return self._read("links_to", target)

    def prefix_pairs(self):
        return self._read("prefix_pairs")

    def find_copy(self, forms):
        storage = Storage(self.path)
        try:
            return CopyStore(storage).find(forms)
        finally:
            storage.close()


def resolver_threads(request_threads: int) -> int:
    """Size of the pool resolutions fan out on, for a worker with ``request_threads`` threads."""
    return max(1, request_threads) * RESOLVER_THREADS_PER_REQUEST_THREAD


def get_executor() -> ThreadPoolExecutor:
    """The thread pool resolutions fan out on."""
    size = resolver_threads(current_app.config["THREADS"])
    return _service("executor", lambda: ThreadPoolExecutor(max_workers=size, thread_name_prefix="resolver"))


def get_reference_executor() -> ThreadPoolExecutor:
    """The threads reference checks resolve their requests on (ibiportal.application.references):
    one check keeps at most ``CONCURRENCY`` resolutions under way; several checks share them."""
    return _service("reference_executor",
                    lambda: ThreadPoolExecutor(max_workers=CONCURRENCY, thread_name_prefix="reference-check"))


def get_resolution_cache() -> ResolutionCache | None:
    """This worker's cache of redirects and stable alerts, or ``None`` when both
    IBIPORTAL_RESOLUTION_CACHE_SECONDS and IBIPORTAL_NEGATIVE_CACHE_SECONDS are 0."""
    seconds = current_app.config["RESOLUTION_CACHE_SECONDS"]
    alert_seconds = current_app.config["NEGATIVE_CACHE_SECONDS"]
    return _service(
        "resolution_cache",
        lambda: ResolutionCache(seconds, RESOLUTION_CACHE_ENTRIES, alert_ttl=alert_seconds)
        if seconds or alert_seconds else None,
    )


def get_single_flight() -> SingleFlight:
    """This worker's resolutions under way, shared by identical requests (resolver.single_flight)."""
    return _service("single_flight", SingleFlight)


def get_redis_flight() -> RedisFlight | None:
    """Single flight across workers and nodes (storage.redis_flight) when IBIPORTAL_REDIS_URL is
    set: followers wait at most a resolution's deadline, then resolve by themselves."""
    changes = get_redis_changes()
    deadline = ResolverSettings().deadline

    def build() -> RedisFlight | None:
        if changes is None:
            return None
        return RedisFlight(changes.client, lock_seconds=deadline + FLIGHT_LOCK_MARGIN_SECONDS, wait_seconds=deadline)

    return _service("redis_flight", build)


def get_acknowledger() -> Acknowledger:
    """Sends the acknowledgments of cached redirects: to local Archives (the own one and the demo
    ones) at once, to those over HTTP from a pool of its own, so that a slow Archive's
    acknowledgments never hold the threads resolutions fan out on."""
    threads = max(1, current_app.config["THREADS"])

    def build() -> Acknowledger:
        executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="acknowledgment")
        return Acknowledger(get_transports(), executor, threads * PENDING_ACKNOWLEDGMENTS_PER_REQUEST_THREAD,
                            in_process={Route.LOCAL})

    return _service(f"acknowledger {portal_url()}", build)


def get_pending_notices() -> PendingNotices:
    """The notices (6) this worker awaits after redirects went out without them, at most
    IBIPORTAL_PENDING_NOTICES per Archive; those of the Archives in this process (the own one,
    the demo ones) are waited for, a function call."""
    return _service("pending_notices", lambda: PendingNotices(current_app.config["PENDING_NOTICES"],
                                                              in_process={Route.LOCAL}))


def get_notice_recorder() -> ThreadPoolExecutor:
    """The thread that writes notices into the stored traces as they come: a notice completes
    on the transport's thread, which must not wait on the database."""
    return _service("notice_recorder", lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="notice-recorder"))


def get_redis_changes() -> RedisChanges | None:
    """This process's link to the other nodes through Redis, when IBIPORTAL_REDIS_URL is set."""
    url = current_app.config["REDIS_URL"]
    return _service("redis_changes", lambda: RedisChanges(url) if url else None)


def change_announcer():
    """What a commit that empties resolution caches calls: the node's signal file, then Redis."""
    path = _signal_file()
    redis = get_redis_changes()

    def announce(generation: int) -> None:
        write_signal_file(path, generation)
        if redis is not None:
            redis.publish(generation)

    return announce


def resolution_changes() -> Changes:
    """What changed in what resolutions answer, as this worker process sees it (GenerationSignal)."""
    setting = current_app.config["DATABASE"]

    def read(seen: Changes | None) -> Changes:
        storage = Storage(setting)
        try:
            return read_changes(storage, seen)
        finally:
            storage.close()

    return _service("generation_signal", lambda: GenerationSignal(_signal_file(), read, get_redis_changes())).current()


def _signal_file() -> str:
    return signal_file(current_app.config["DATABASE"], current_app.instance_path)
