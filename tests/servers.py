"""Throwaway PostgreSQL and Redis servers on loopback, for the tests that need the real thing.

PostgreSQL: a cluster made by Debian's ``initdb`` in a temporary folder, on a free port, run as
the unprivileged ``postgres`` user when the tests run as root (PostgreSQL refuses root); no
fsync (nothing in it outlives the session). A migrated template database is made once; each
test gets a fresh copy (``CREATE DATABASE … TEMPLATE``: a file copy, milliseconds).

Redis: ``redis-server`` without persistence (no RDB, no AOF).

The portal itself, where a test needs it on a socket: werkzeug in a thread (``loopback_server``).
"""
from __future__ import annotations

import itertools
import os
import pwd
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psycopg
import requests
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from ibiportal.protocol.messages import RegistrationKey
from ibiportal.protocol.registry import ArchiveDetails, Confirmation, KeyHash
from ibiportal.storage.database import Storage
from ibiportal.storage.migrations import upgrade
from ibiportal.storage.registry import ArchiveStore

#: Debian's PostgreSQL binaries, newest version first (``/usr/local/bin/initdb`` may be a link
#: to them, or missing; ``/usr/bin`` has only the client wrappers).
POSTGRES_BIN = max(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda path: int(path.parent.name), default=None)
TEMPLATE = "ibiportal_template"
#: How a test's database is copied from the template: file by file (a checkpoint first, which
#: costs nothing without fsync) instead of PostgreSQL 15's default of writing every block through
#: the write-ahead log, twice as slow (0.08 s against 0.16 s a database, measured on the shared
#: machine; a file has up to 63 such databases).
_COPY = " STRATEGY FILE_COPY" if POSTGRES_BIN is not None and int(POSTGRES_BIN.parent.name) >= 15 else ""


_SQLITE_TEMPLATE: list[Path] = []


def fresh_sqlite(path: Path | str) -> str:
    """A new SQLite database at ``path`` at the current schema (what ``flask db upgrade``
    makes, 0600 included): a copy of one migrated once per test process."""
    if not _SQLITE_TEMPLATE:
        template = Path(tempfile.mkdtemp(prefix="ibiportal-template-")) / "template.sqlite"
        upgrade(str(template))
        _SQLITE_TEMPLATE.append(template)
    shutil.copyfile(_SQLITE_TEMPLATE[0], path)
    os.chmod(path, 0o600)
    return str(path)


def sqlite_dump(path: str) -> str:
    """Everything a SQLite database holds, as SQL text, its write-ahead log folded in first (so
    that the files on disk hold it all too)."""
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return "\n".join(connection.iterdump())


_RESPONSE = "tests.servers.response"


class _HangUpHandler(WSGIRequestHandler):
    """werkzeug's request handler, closing the response when the client hangs up. werkzeug closes
    it in a ``finally`` that first drains the socket, and a reset there skips the close: a file
    response (a favicon Chromium stopped waiting for) stayed open, and its ResourceWarning, raised
    when it was collected, failed whichever test came next."""

    def connection_dropped(self, error: BaseException, environ: dict | None = None) -> None:
        response = (environ or {}).get(_RESPONSE)
        if hasattr(response, "close"):
            response.close()


def remembering_response(app):
    """``app``, leaving the response it returns in ``environ`` for :class:`_HangUpHandler`."""
    def wsgi(environ, start_response):
        response = environ[_RESPONSE] = app(environ, start_response)
        return response
    return wsgi


def loopback_server(app=None) -> BaseWSGIServer:
    """A threaded werkzeug server for ``app`` on a free loopback port, not yet serving; without
    ``app``, set ``server.app = remembering_response(app)`` before it serves."""
    return make_server("127.0.0.1", 0, None if app is None else remembering_response(app), threaded=True,
                       request_handler=_HangUpHandler)


class _QuietHTTPServer(ThreadingHTTPServer):
    """A test Archive: a client that hung up on it – a timeout test's client, on purpose – is not
    an error to print. A handler still sleeping when its test ended printed its BrokenPipeError
    later: into another test's output, or after pytest's summary."""

    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` (an ``http.server`` handler class) served on a loopback port until the block
    ends, as ``127.0.0.1:PORT``."""
    server = _QuietHTTPServer(("127.0.0.1", 0), handler)
    # shutdown() waits for the loop's next poll: 0.05 s instead of 0.5 s per server
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(ready, what: str, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with status {process.returncode}")
        try:
            if ready():
                return
        except Exception:  # noqa: BLE001 - not up yet
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not start within {timeout} s")


@dataclass
class PostgresServer:
    folder: Path
    port: int
    process: subprocess.Popen
    command: list[str]
    as_owner: Callable[[], None]
    _names: itertools.count = field(default_factory=lambda: itertools.count(1))

    @classmethod
    def start(cls, durable: bool = False) -> PostgresServer:
        """``durable``: fsync on, as in production (benchmarks); tests need not wait for disks."""
        if POSTGRES_BIN is None:
            raise RuntimeError("Debian's postgresql is not installed: bash bin/test installs it")
        folder = Path(tempfile.mkdtemp(prefix="ibiportal-pg-"))
        user = pwd.getpwnam("postgres") if os.geteuid() == 0 else None

        def as_owner() -> None:
            if user is not None:
                os.setgid(user.pw_gid)
                os.setuid(user.pw_uid)

        if user is not None:
            os.chown(folder, user.pw_uid, user.pw_gid)
        data = folder / "data"
        made = subprocess.run(
            [str(POSTGRES_BIN / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
             "--locale=C", "--no-sync"],
            capture_output=True, text=True, preexec_fn=as_owner,
        )
        if made.returncode != 0:
            # initdb's own words: a failure named only by its exit status cannot be told apart.
            raise RuntimeError(f"initdb failed ({made.returncode}) in {data}:\n{made.stdout}{made.stderr}")
        port = free_port()
        command = [str(POSTGRES_BIN / "postgres"), "-D", str(data), "-p", str(port), "-k", str(folder),
                   "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300",
                   *(() if durable else ("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"))]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=as_owner)
        server = cls(folder, port, process, command, as_owner)
        _wait_for(lambda: server.admin().close() is None, "PostgreSQL", process)
        with server.admin() as connection:
            connection.execute(f"CREATE DATABASE {TEMPLATE}")
        upgrade(server.url(TEMPLATE))
        return server

    def url(self, name: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def admin(self) -> psycopg.Connection:
        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres", autocommit=True)

    def new_database(self, migrated: bool = True) -> str:
        """A fresh database's URL: a copy of the migrated template, or empty."""
        name = f"test_{next(self._names)}"
        with self.admin() as connection:
            connection.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {TEMPLATE}{_COPY}" if migrated else ""))
        return self.url(name)

    def halt(self) -> None:
        """Stop the server, keeping its data (an outage: :meth:`resume` starts it again)."""
        self.process.send_signal(signal.SIGINT)  # "fast" shutdown: pooled connections are not waited for
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def resume(self) -> None:
        """Start the halted server again, on the same port and data, and wait until it answers."""
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        preexec_fn=self.as_owner)
        _wait_for(lambda: self.admin().close() is None, "PostgreSQL", self.process)

    def stop(self) -> None:
        self.halt()
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class RedisServer:
    port: int
    process: subprocess.Popen

    @classmethod
    def start(cls) -> RedisServer:
        port = free_port()
        process = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        server = cls(port, process)
        _wait_for(server._answers, "redis-server", process)
        return server

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _answers(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")

    def flush(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
            sock.sendall(b"FLUSHALL\r\n")
            sock.recv(16)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=20)


def include_archive(database: str, service_ibi: str, address: str) -> None:
    """Make the Archive ``service_ibi`` at ``address`` (``host:port``) one the portal of
    ``database`` has registered and included (file 003 §7.1-§7.2), as its resolver then asks it."""
    storage = Storage(database)
    try:
        archives, now = ArchiveStore(storage), datetime.now(timezone.utc)
        archives.register_archive(service_ibi, KeyHash.of(RegistrationKey("1234567890-0987654321")), now)
        archives.record_inclusion(service_ibi, ArchiveDetails(address, "127.0.0.1", "IBI-Portal", "admin@example.org"),
                                  Confirmation(True, "confirmation yes"), now)
    finally:
        storage.close()


class Reader:
    """A reader following citations all along, in a thread: each of ``urls`` asked in turn (GET, its
    redirect not followed), then the ``Location`` it answered asked; ``answers`` are ``(url,
    status, location, the location's status)``. ``read_on(count)`` lets it ask ``count`` more
    times: a loaded machine asks slower, not fewer times. Used as a context manager."""

    def __init__(self, urls: list[str], pause: float = 0.05) -> None:
        self.urls, self.pause = urls, pause
        self.answers: list[tuple[str, int, str, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read)

    def __enter__(self) -> Reader:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _read(self) -> None:
        with requests.Session() as session:
            while not self._stop.is_set():
                for url in self.urls:
                    answer = session.get(url, allow_redirects=False, timeout=10)
                    location = answer.headers.get("Location", "")
                    followed = session.get(location, timeout=10).status_code if answer.status_code == 302 else 0
                    self.answers.append((url, answer.status_code, location, followed))
                self._stop.wait(self.pause)

    def read_on(self, count: int) -> None:
        until = len(self.answers) + count
        while len(self.answers) < until and self._thread.is_alive():
            self._stop.wait(0.02)
