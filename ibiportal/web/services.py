"""Long-lived services shared by every request of one app: built once, on first use.

The resolver asks Archives in parallel over one pooled HTTP transport and one thread pool
(issue 4); the demo Archives are loaded from their data file once.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from flask import current_app

from ..archive.demo import Behaviour, DemoArchive, load_demo_archives
from ..archive.own import own_archive_service
from ..archive.service import ArchiveService
from ..resolver.transport import HttpTransport, InProcessTransport
from ..storage import Storage

#: The own Archive's name among the in-process Archives (traces show it).
OWN_ARCHIVE_NAME = "portal"

#: Threads asking Archives at once, for all requests of one worker process.
RESOLVER_THREADS = 64


def _service(name: str, build):
    services = current_app.extensions.setdefault("ibiportal.services", {})
    if name not in services:
        services[name] = build()
    return services[name]


def get_http_transport() -> HttpTransport:
    """The shared HTTP transport to live Archives (address policy per IBIPORTAL_ALLOW_PRIVATE_ARCHIVES)."""
    return _service(
        "http_transport", lambda: HttpTransport(allow_private=current_app.config["ALLOW_PRIVATE_ARCHIVES"])
    )


def get_demo_archives() -> dict[str, DemoArchive]:
    """The demo Archives of the data file, their URLs on this portal's configured address."""
    return _service("demo_archives", lambda: load_demo_archives(portal_url=current_app.config["PORTAL_URL"]))


def get_own_archive() -> ArchiveService:
    """The portal's own Archive, whose items are the identifiers it minted (issue 3)."""
    config = current_app.config
    return _service(
        "own_archive",
        lambda: own_archive_service(
            FreshConnections(config["DATABASE"]),
            address=urlsplit(config["PORTAL_URL"]).netloc,
            service_ibi=config["ARCHIVE_SERVICE_IBI"],
            portal_url=config["PORTAL_URL"],
        ),
    )


def get_in_process_transport() -> InProcessTransport:
    """The in-process transport answering as the demo Archives and as the own Archive."""
    own = DemoArchive(OWN_ARCHIVE_NAME, "this portal's own Archive", get_own_archive(), Behaviour())
    return _service(
        "in_process_transport", lambda: InProcessTransport([*get_demo_archives().values(), own])
    )


class FreshConnections:
    """Storage reads on a connection of their own, for the own Archive's store.

    The resolver asks Archives from worker threads, and a SQLite connection belongs to the
    thread that opened it; opening one per read is cheap and always sees the latest mints.
    """

    def __init__(self, path: str) -> None:
        self.path = path

    def _read(self, method: str, *args, **kwargs):
        storage = Storage(self.path)
        try:
            return getattr(storage, method)(*args, **kwargs)
        finally:
            storage.close()

    def find_minted(self, rep: str | None = None, ibip: str | None = None):
        return self._read("find_minted", rep=rep, ibip=ibip)

    def minted_items(self):
        return self._read("minted_items")

    def item_links(self, ibi: str):
        return self._read("item_links", ibi)


def get_executor() -> ThreadPoolExecutor:
    """The thread pool resolutions fan out on."""
    return _service(
        "executor", lambda: ThreadPoolExecutor(max_workers=RESOLVER_THREADS, thread_name_prefix="resolver")
    )
