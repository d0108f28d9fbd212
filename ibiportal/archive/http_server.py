"""An Archive service over real HTTP, standalone (``demo-archive serve``, live tests, benchmarks).

A plain ``http.server``: ``GET /<archive service IBI>?<query>`` answers Algorithm 1 of §9
as ``text/plain`` (§6.2); anything else is a 404. The portal itself answers as its own
Archive through Flask; this server is for running an Archive *elsewhere*, on a given port.
"""
from __future__ import annotations

import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from .service import ArchiveService


def with_address(service: ArchiveService, address: str) -> ArchiveService:
    """The same Archive answering as ``address`` (its ``archiveaddress``, Table 9.3)."""
    return ArchiveService(
        replace(service.identity, address=address),
        service.store,
        relations=service.relations,
        clock=service.clock,
        filtering=service.filtering,
    )


class ArchiveHTTPServer(ThreadingHTTPServer):
    """Serves one :class:`ArchiveService`; every answer takes at least ``delay`` seconds (slow Archives).

    ``malformed``, when given, is sent instead of every answer's body, as the demo data's
    ``behaviour.malformed`` asks (the ``garbled`` demo Archive, a target for the conformance check).
    """

    daemon_threads = True

    def __init__(
        self,
        service: ArchiveService,
        host: str = "127.0.0.1",
        port: int = 0,
        delay: float = 0.0,
        malformed: str | None = None,
    ):
        super().__init__((host, port), _Handler)
        self.service = with_address(service, f"{host}:{self.server_address[1]}")
        self.delay = delay
        self.malformed = malformed
        self.paths = {f"/{form}" for form in self.service.identity.service_ibi.folded}

    @property
    def base_url(self) -> str:
        """``http://<address>/<archive service IBI>`` (§6.1)."""
        return f"http://{self.service.identity.address}/{self.service.identity.service_ibi.forms()[0]}"


class _Handler(BaseHTTPRequestHandler):
    server: ArchiveHTTPServer
    protocol_version = "HTTP/1.1"  # keep-alive: the resolver's pooled connections are reused
    # Headers and body are written separately: without TCP_NODELAY, Nagle's algorithm holds the
    # body until the client's delayed ACK (~40 ms per answer on a kept-alive connection).
    disable_nagle_algorithm = True

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        parts = urlsplit(self.path)
        if parts.path.casefold() not in self.server.paths:
            self._send(404, f"status.request refused status.reason {{no archive service at {parts.path}}}")
            return
        started = time.monotonic()
        answer = self.server.service.respond(parts.query)
        # The delay is the whole time to answer, the Archive's own work included.
        time.sleep(max(0.0, self.server.delay - (time.monotonic() - started)))
        self._send(answer.status, answer.text if self.server.malformed is None else self.server.malformed)

    def _send(self, status: int, text: str) -> None:
        body = text.encode("ascii")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=us-ascii")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - http.server's signature
        """Quiet: a test or benchmark runs many of these."""
