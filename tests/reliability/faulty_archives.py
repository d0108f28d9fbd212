"""Archives that misbehave, on real loopback sockets, for the fault and security tests.

A :class:`RawArchive` is a plain TCP server on 127.0.0.1: it reads the request head and then
runs its ``behaviour`` on the socket – answer late, reset, stream forever, answer garbage,
never accept. Nothing here is an HTTP library: the bytes on the wire are exactly the ones
written, so the portal's transport meets what a hostile or broken Archive would send.

:func:`include` registers and includes an Archive in a portal's database at an address, as
§7.2 would after an ``inclusionRequest`` (the confirmation is not what these tests are about).
"""
from __future__ import annotations

import functools
import socket
import ssl
import struct
import subprocess
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone

from ibiportal.protocol.registry import ArchiveDetails, Confirmation, KeyHash
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.storage.database import Storage
from ibiportal.storage.registry import ArchiveStore

#: The service IBI every faulty Archive answers as (Example 7.1's Archive).
SERVICE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"

Behaviour = Callable[[socket.socket, bytes], None]


class RawArchive:
    """A TCP server on 127.0.0.1 running ``behaviour(connection, request_head)`` per connection.

    ``accept=False`` makes a blackhole: the port listens with a backlog of 0, which this
    object fills with connections of its own, so the kernel drops every further SYN – a
    connection to it is never even established (like a firewall that drops packets).
    ``host`` and ``port`` place it elsewhere on loopback (``::1``, or ``127.0.0.2`` on another
    Archive's port). ``requests`` holds the request heads received, ``accepted`` counts the
    connections accepted.
    """

    def __init__(self, behaviour: Behaviour | None = None, *, accept: bool = True, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        self.behaviour = behaviour
        self.host = host
        self.server = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((host, port))
        self.server.listen(16 if accept else 0)
        self.server.settimeout(0.1)  # here, not in the thread: it may be closed before the thread runs
        self.port = self.server.getsockname()[1]
        self.requests: list[bytes] = []
        self.accepted = 0
        self._connections: list[socket.socket] = []
        if not accept:
            for _ in range(4):  # the accept queue (backlog + 1) and the SYN queue, full
                filler = socket.socket(self.server.family, socket.SOCK_STREAM)
                filler.setblocking(False)
                filler.connect_ex((host, self.port))
                self._connections.append(filler)
            time.sleep(0.05)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True) if accept else None
        if self._thread:
            self._thread.start()

    @property
    def address(self) -> str:
        """``archiveaddress`` (Table 7.2): host and port."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._connections.append(connection)
            self.accepted += 1
            threading.Thread(target=self._handle, args=(connection,), daemon=True).start()

    def _handle(self, connection: socket.socket) -> None:
        try:
            tls = getattr(self.behaviour, "tls", None)
            if tls is not None:  # an HTTPS Archive: the handshake, then the request head
                secured = tls(connection)
                if secured is None:
                    return
                connection, head = secured
            else:
                head = _read_head(connection)
            if head is None:
                return
            self.requests.append(head)
            if self.behaviour is not None:
                self.behaviour(connection, head)
                if getattr(self.behaviour, "keeps_alive", False):
                    while (head := _read_head(connection)) is not None:
                        self.requests.append(head)
                        self.behaviour(connection, head)
        except OSError:
            pass  # the portal gave up on us: that is what the tests want
        finally:
            try:
                connection.close()
            except OSError:
                pass

    def close(self) -> None:
        self._stop.set()
        for connection in self._connections:
            try:
                connection.close()
            except OSError:
                pass
        try:
            self.server.shutdown(socket.SHUT_RDWR)  # wakes the accept() under way at once (Linux)
        except OSError:
            pass
        self.server.close()
        if self._thread:
            self._thread.join(timeout=5)

    def __enter__(self) -> RawArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_head(connection: socket.socket) -> bytes | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(4096)
        if not chunk:
            return None
        data += chunk
    return data


def http_answer(body: bytes, *, status: str = "200 OK", content_type: str | None = "text/plain",
                extra: str = "", length: int | None = None) -> bytes:
    """An HTTP/1.1 answer; ``length`` overrides Content-Length (a lie about the body)."""
    headers = f"HTTP/1.1 {status}\r\n"
    if content_type is not None:
        headers += f"Content-Type: {content_type}\r\n"
    headers += f"Content-Length: {len(body) if length is None else length}\r\n{extra}Connection: close\r\n\r\n"
    return headers.encode("latin-1") + body


# -- behaviours ----------------------------------------------------------------------------------


def answers(body: bytes, **options) -> Behaviour:
    """Answers at once with ``body`` (see :func:`http_answer` for the options)."""
    return lambda connection, head: connection.sendall(http_answer(body, **options))


def keeps_alive(body: bytes) -> Behaviour:
    """Answers ``body`` to every request of a kept-alive connection (HTTP/1.1's default), until
    the client closes it."""

    def behaviour(connection: socket.socket, head: bytes) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                           + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)

    behaviour.keeps_alive = True  # type: ignore[attr-defined]  (RawArchive reads the next request)
    return behaviour


def answers_late(delay: float, body: bytes = b"") -> Behaviour:
    """Answers correctly, but only after ``delay`` seconds."""

    def behaviour(connection: socket.socket, head: bytes) -> None:
        time.sleep(delay)
        connection.sendall(http_answer(body))

    return behaviour


def resets(connection: socket.socket, head: bytes) -> None:
    """Closes with SO_LINGER 0: the portal gets a TCP RST instead of an answer."""
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


def endless(connection: socket.socket, head: bytes) -> None:
    """Gigabytes: a 200 text/plain answer without length whose body never ends."""
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
    block = b"url http://example.org/" + b"a" * (64 * 1024 - 25) + b"\r\n"
    while True:
        connection.sendall(block)


def trickles(where: str, every: float = 0.2, count: int | None = None) -> Behaviour:
    """Sends one byte every ``every`` seconds, in the ``"headers"`` or in the ``"body"``: each
    byte comes well within the read timeout, so only the exchange deadline can end it. With a
    ``count``, it falls silent after that many bytes (until the portal hangs up), and only the
    read timeout can. ``behaviour.sent`` holds when each byte was about to leave
    (``time.monotonic()`` before the send: the client cannot have it any earlier)."""
    sent: list[float] = []

    def behaviour(connection: socket.socket, head: bytes) -> None:
        if where == "headers":
            connection.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        else:
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nurl ")
        while count is None or len(sent) < count:
            if sent:
                time.sleep(every)
            leaving = time.monotonic()
            connection.sendall(b"a")
            sent.append(leaving)
        while connection.recv(4096):
            pass

    behaviour.sent = sent  # type: ignore[attr-defined]
    return behaviour


def garbage(data: bytes) -> Behaviour:
    """Answers bytes that are not HTTP at all."""
    return lambda connection, head: connection.sendall(data)


def closes_early(body: bytes, announced: int) -> Behaviour:
    """Announces ``announced`` bytes, sends ``body`` (fewer) and closes."""
    return lambda connection, head: connection.sendall(http_answer(body, length=announced))


def says_nothing(connection: socket.socket, head: bytes) -> None:
    """Accepts, reads the request, and never answers (until the portal hangs up)."""
    while connection.recv(4096):
        pass


def by_ibi(answers: dict[str, bytes]) -> Behaviour:
    """Answers the urlRequest about each IBI with its bytes (a raw body, as given), an empty
    pair list about any other, and ``notice {acknowledgment received}`` to an acknowledgment."""

    def behaviour(connection: socket.socket, head: bytes) -> None:
        request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        body = b""
        if "servicesubject=acknowledgment" in request_line:
            body = b"notice {acknowledgment received}\r\n"
        else:
            body = next((answer for ibi, answer in answers.items() if f"parsedibiurl.ibi={ibi}" in request_line), b"")
        connection.sendall(http_answer(body))

    return behaviour


# -- the portal's side ---------------------------------------------------------------------------


@functools.cache
def _key_hash(key: str) -> KeyHash:
    """Hashing a key costs an scrypt: once per key per test session."""
    return KeyHash.of(RegistrationKey(key))


def include(database: str, address: str, service_ibi: str = SERVICE_IBI, key: str = "1234567890") -> None:
    """Register the Archive and record it included at ``address`` (§7.1, §7.2)."""
    now = datetime.now(timezone.utc)
    storage = Storage(database)
    try:
        archives = ArchiveStore(storage)
        if archives.find_archive(service_ibi) is None:
            archives.register_archive(service_ibi, _key_hash(key), now)
        details = ArchiveDetails(address, address.rsplit(":", 1)[0], "URLib test", "adm@example.org")
        archives.record_inclusion(service_ibi, details, Confirmation(True, "test"), now)
    finally:
        storage.close()


def tls_files(folder) -> tuple[str, str]:
    """A self-signed certificate and key for ``archive.test`` (openssl), valid one day."""
    cert, key = f"{folder}/archive.pem", f"{folder}/archive.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
         "-subj", "/CN=archive.test", "-addext", "subjectAltName=DNS:archive.test"],
        check=True, capture_output=True,
    )
    return cert, key


def over_tls(behaviour: Behaviour, cert: str, key: str) -> Behaviour:
    """``behaviour`` behind a TLS handshake with the given certificate (an HTTPS Archive)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    def wrapped(connection: socket.socket, head: bytes) -> None:
        behaviour(connection, head)

    def tls(connection: socket.socket) -> tuple[socket.socket, bytes] | None:
        secure = context.wrap_socket(connection, server_side=True, do_handshake_on_connect=False)
        try:
            secure.do_handshake()
            head = _read_head(secure)
        except OSError:  # the client refused the certificate, or left
            secure.close()
            return None
        if head is None:
            secure.close()
            return None
        return secure, head

    wrapped.tls = tls  # type: ignore[attr-defined]  (RawArchive handshakes first)
    return wrapped
