"""Long-lived services shared by every request of one app: built once, on first use.

The resolver asks Archives in parallel over one pooled HTTP session and one thread pool
(issue 4); the demo Archives are loaded from their data file once.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from flask import current_app

from ..archive.demo import DemoArchive, load_demo_archives
from ..resolver.transport import HttpTransport, InProcessTransport

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


def get_demo_transport() -> InProcessTransport:
    """The in-process transport answering as the demo Archives."""
    return _service("demo_transport", lambda: InProcessTransport(get_demo_archives().values()))


def get_executor() -> ThreadPoolExecutor:
    """The thread pool resolutions fan out on."""
    return _service(
        "executor", lambda: ThreadPoolExecutor(max_workers=RESOLVER_THREADS, thread_name_prefix="resolver")
    )
