"""The resolver's fan-out over libcurl: every exchange of a round on the wire at once.

Figure 8.1 (3) sends one ``urlRequest`` to every Archive and waits for the first usable answer;
with 50 Archives that each take 100 ms, the round should end shortly after 100 ms. With one
thread per exchange (:class:`~ibiportal.resolver.http_transport.HttpTransport` on the executor) it
ended at 120 ms: the requests left over 10–20 ms, one thread waking after another on a shared
interpreter, and their answers were read the same way (``benchmarks/resolution.py``).

:class:`CurlTransport` hands every exchange to one thread per process that drives a libcurl
*multi* handle (through ``pycurl``): the requests of a round are written in one pass, the
answers are read by libcurl's C code, and Python runs once per finished exchange. It is also
where libcurl's own limits replace hand-made ones: ``CURLOPT_TIMEOUT_MS`` bounds the whole
exchange (no watchdog needed), ``CURLOPT_CONNECT_TO`` pins the connection to the address the
policy checked, the header and write callbacks cap the answer, redirects are
never followed, proxies from the environment are never used, and only http and https are
spoken. The address policy is the same as :class:`HttpTransport`'s
(:func:`~ibiportal.resolver.addresses.check_host`, every address of the host).

Only the resolver's messages to Archives (the fan-out and the acknowledgment) use it;
``requests`` keeps the one-off exchanges, where its error messages and ``responses`` mocking
serve better than speed (the §7.2 confirmation, the conformance check, Cite's record fetch).
"""
from __future__ import annotations

import functools
import logging
import math
import os
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

import certifi
import pycurl

from ibiportal.i18n import N_, Message, Recorded, decimal
from ibiportal.log_limits import LimitedLog
from ibiportal.resolver.addresses import AddressRefused, GetAddrInfo, check_url
from ibiportal.resolver.transport import (
    DEFAULT_MAX_ANSWER_BYTES,
    Exchange,
    Failure,
    Handover,
    Timeouts,
    content_type_notes,
)

logger = logging.getLogger(__name__)
#: A defect that ends every loop (each started anew for the next exchanges): one traceback a minute.
_LOOP_FAILURES = LimitedLog(logger)
#: A round that failed to take its replies (each round of every resolution may): the same.
_HANDOVER_FAILURES = LimitedLog(logger)

#: Why the exchanges of a closed transport end.
_CLOSED = N_("the transport was closed")
#: How libcurl's error codes read in a trace (its own message follows in parentheses).
_FAILURES: dict[int, tuple[Failure, str]] = {
    pycurl.E_COULDNT_CONNECT: (Failure.CONNECTION, N_("could not connect")),
    pycurl.E_COULDNT_RESOLVE_HOST: (Failure.CONNECTION, N_("could not resolve the host")),
    pycurl.E_RECV_ERROR: (Failure.CONNECTION, N_("connection broken while reading")),
    pycurl.E_SEND_ERROR: (Failure.CONNECTION, N_("connection broken while sending")),
    pycurl.E_GOT_NOTHING: (Failure.CONNECTION, N_("the Archive closed the connection without answering")),
    pycurl.E_PARTIAL_FILE: (Failure.CONNECTION, N_("the answer ended before its announced length")),
    pycurl.E_FTP_WEIRD_SERVER_REPLY: (Failure.CONNECTION, N_("the answer is not HTTP")),  # 8: CURLE_WEIRD_SERVER_REPLY
    pycurl.E_UNSUPPORTED_PROTOCOL: (Failure.CONNECTION, N_("the answer is not HTTP")),  # "Received HTTP/0.9"
    pycurl.E_SSL_CONNECT_ERROR: (Failure.CONNECTION, N_("TLS handshake failed")),
    pycurl.E_PEER_FAILED_VERIFICATION: (Failure.CONNECTION, N_("the Archive's TLS certificate was not accepted")),
    pycurl.E_ABORTED_BY_CALLBACK: (Failure.CONNECTION, N_("ended by the portal")),  # close(), or a failed loop
}


@dataclass(eq=False)
class _Transfer:
    """One exchange in flight: its handle, what has been read, and what to call with its outcome
    (``done``, with ``index``, the message's place in the ``send`` that started it).

    ``last_byte`` is when the Archive was last heard from (``time.monotonic()``): set when the
    request leaves, then whenever its connection has bytes to read and whenever libcurl hands
    over a header line or a piece of body. The loop ends the exchange once it is ``read``
    seconds old (:meth:`_Loop._end_stalled`); ``None`` while connecting, which the connect
    timeout bounds."""

    curl: pycurl.Curl
    cap: int
    timeouts: Timeouts
    done: Handover
    index: int
    body: bytearray = field(default_factory=bytearray)
    too_long: bool = False
    announced: int | None = None
    header_lines: int = 0
    headers_ended: bool = False
    last_byte: float | None = None
    socket: int | None = None
    stalled: bool = False

    @property
    def read_timeout(self) -> float:
        return min(self.timeouts.read, self.timeouts.total)

    def header(self, line: bytes) -> int | None:
        """libcurl's header callback (once per complete line, the status line and the blank line
        that ends the headers included): note how far the answer got, and abort one that
        announces more than the cap (return 0)."""
        self.last_byte = time.monotonic()
        self.header_lines += 1
        self.headers_ended = line in (b"\r\n", b"\n")
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit() and int(value) > self.cap:
            self.announced = int(value)
            return 0
        return None

    def write(self, data: bytes) -> int | None:
        """libcurl's write callback: keep up to the cap, then abort the transfer (return 0)."""
        self.last_byte = time.monotonic()
        room = self.cap - len(self.body)
        if len(data) > room:
            self.body.extend(data[:room])
            self.too_long = True
            return 0
        self.body.extend(data)
        return None


class _Loop:
    """The thread that drives one libcurl multi handle for the whole process.

    libcurl's multi interface is not thread-safe, so only this thread touches it: other
    threads queue transfers and wake it through a socket pair. Sockets are watched with a
    :mod:`selectors` selector (epoll) as libcurl asks (``M_SOCKETFUNCTION``), and its timer
    (``M_TIMERFUNCTION``) or the first read timeout due sets how long the selector may wait.

    The read timeout is kept here, not by libcurl: its low-speed limit (``LOW_SPEED_TIME``)
    samples the speed once a second, in whole seconds, and counts body bytes only, so an HTTPS
    Archive trickling its answer was cut at 1 s instead of living to its deadline, and headers
    trickling in ended as if nothing came. A connection with bytes to read is the Archive
    speaking, header or body, complete line or not: the loop knows each transfer's connection
    (``CURLINFO_ACTIVESOCKET``, once ``CURLOPT_PREREQFUNCTION`` says the request is leaving)
    and stamps the transfer whenever the selector reports it readable.
    """

    def __init__(self) -> None:
        self._multi = pycurl.CurlMulti()
        self._multi.setopt(pycurl.M_SOCKETFUNCTION, self._on_socket)
        self._multi.setopt(pycurl.M_TIMERFUNCTION, self._on_timer)
        self._selector = selectors.DefaultSelector()
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)
        self._selector.register(self._wake_read, selectors.EVENT_READ)
        self._watched: set[int] = set()  # libcurl's sockets in the selector (its map's lookup is slow)
        self._incoming: deque[_Transfer] = deque()
        self._running: dict[pycurl.Curl, _Transfer] = {}
        self._by_socket: dict[int, _Transfer] = {}
        self._unplaced: list[_Transfer] = []
        self._timer: float | None = None
        self._idle: list[pycurl.Curl] = []  # handles of finished transfers, for the next ones
        self._ended: dict[Handover, list[tuple[int, Exchange]]] = {}  # this turn's outcomes, by whom they go to
        self._next_stall = math.inf  # no running transfer's read timeout falls due before this
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="ibi-curl-fan-out", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        return not self._closed

    def handle(self) -> tuple[pycurl.Curl, bool]:
        """A libcurl handle for a new transfer, and whether it is new (an idle one keeps the
        options every transfer shares: only the transfer's own are set again). Making and
        configuring a handle for each of a reference check's 50,000 exchanges was a tenth of
        the loop's work (``benchmarks/references.py``)."""
        try:
            return self._idle.pop(), False  # list.pop and append are atomic: no lock
        except IndexError:
            return pycurl.Curl(), True

    def _release(self, curl: pycurl.Curl) -> None:
        """Keep a finished transfer's handle for the next one (up to :data:`MAX_IDLE_HANDLES`)."""
        if len(self._idle) < MAX_IDLE_HANDLES and not self._closed:
            self._idle.append(curl)
        else:
            curl.close()

    def add(self, transfers: list[_Transfer]) -> None:
        self._incoming.extend(transfers)
        self._wake()
        if self._closed:  # closed meanwhile: the loop may not look again
            self._abandon_incoming(_CLOSED)

    def close(self) -> None:
        self._closed = True
        self._wake()
        self._thread.join(timeout=5)

    def _wake(self) -> None:
        try:
            self._wake_write.send(b"\0")
        except BlockingIOError:
            pass  # the pipe is full of wake-ups already: the loop is bound to look
        except OSError:
            pass  # closed: the loop has ended

    def _on_socket(self, what: int, fd: int, multi: object, data: object) -> None:
        if what == pycurl.POLL_REMOVE:
            if fd in self._watched:
                self._watched.discard(fd)
                self._selector.unregister(fd)
            return
        events = {pycurl.POLL_IN: selectors.EVENT_READ, pycurl.POLL_OUT: selectors.EVENT_WRITE,
                  pycurl.POLL_INOUT: selectors.EVENT_READ | selectors.EVENT_WRITE}[what]
        if fd in self._watched:
            try:
                self._selector.modify(fd, events)
                return
            except OSError:  # the descriptor was closed and its number reused: watch it afresh
                self._selector.unregister(fd)
        self._selector.register(fd, events)
        self._watched.add(fd)

    def _on_timer(self, milliseconds: int) -> None:
        self._timer = None if milliseconds < 0 else time.monotonic() + milliseconds / 1000

    def _run(self) -> None:
        """Turn until closed. If a turn fails (a defect: an Archive's doing ends one exchange,
        not the loop), every exchange of this loop ends as a failure instead of waiting for
        ever, and the transport starts a new loop for the next ones."""
        why = _CLOSED
        try:
            while not self._closed:
                self._turn()
        except Exception:
            _LOOP_FAILURES.exception("loop failed", "the fan-out loop failed; its exchanges end as failures")
            why, self._closed = N_("the portal's fan-out loop failed, see its log"), True
        for transfer in list(self._running.values()):
            self._finish(transfer, pycurl.E_ABORTED_BY_CALLBACK, why)
        self._hand_over()
        self._abandon_incoming(why)
        while self._idle:
            self._idle.pop().close()
        self._multi.close()
        self._selector.close()
        self._wake_read.close()
        self._wake_write.close()

    def _on_request(self, transfer: _Transfer, *connection: object) -> int:
        """``CURLOPT_PREREQFUNCTION``: connected (TLS included), the request is about to leave.
        The read timeout counts from here; the loop learns the connection after this turn."""
        transfer.last_byte = time.monotonic()
        self._next_stall = min(self._next_stall, transfer.last_byte + transfer.read_timeout)
        self._unplaced.append(transfer)
        return pycurl.PREREQFUNC_OK

    def _turn(self) -> None:
        """Wait for a socket, a wake-up, libcurl's timer or a read timeout, and act on it."""
        wait = self._wait()
        events = self._selector.select(wait)
        now = time.monotonic()
        for key, mask in events:
            if key.fileobj is self._wake_read:
                self._drain_wake_ups()
                continue
            if mask & selectors.EVENT_READ and (heard := self._by_socket.get(key.fd)) is not None:
                heard.last_byte = now
            flags = (pycurl.CSELECT_IN if mask & selectors.EVENT_READ else 0) | \
                    (pycurl.CSELECT_OUT if mask & selectors.EVENT_WRITE else 0)
            self._multi.socket_action(key.fd, flags)
        while self._incoming:
            transfer = self._incoming.popleft()
            self._running[transfer.curl] = transfer
            transfer.curl.setopt(pycurl.PREREQFUNCTION, functools.partial(self._on_request, transfer))
            self._multi.add_handle(transfer.curl)
        if self._timer is not None and time.monotonic() >= self._timer:
            self._timer = None
            self._multi.socket_action(pycurl.SOCKET_TIMEOUT, 0)
        self._place()
        self._finish_done()
        self._end_stalled(time.monotonic())
        self._hand_over()

    def _hand_over(self) -> None:
        """Give each ``send`` the outcomes of its transfers that ended this turn, in one call:
        a round's replies mostly end together, and handing each over on its own woke the
        resolution waiting for them once per reply, an eighth of a reference check's time."""
        ended, self._ended = self._ended, {}
        for done, outcomes in ended.items():
            try:
                done(outcomes)
            except Exception:  # a receiver's defect: its round goes without them, the loop and the others go on
                _HANDOVER_FAILURES.exception("handover failed", "a fan-out round failed to take its replies")

    def _wait(self) -> float | None:
        """Seconds until libcurl's timer or the first read timeout due (``None``: neither)."""
        due = self._next_stall if self._timer is None else min(self._timer, self._next_stall)
        return None if due == math.inf else max(0.0, due - time.monotonic())

    def _place(self) -> None:
        """Note the connection of each transfer whose request left (outside libcurl's
        callbacks: pycurl allows ``getinfo`` only there). HTTP/1.1: one transfer per connection."""
        for transfer in self._unplaced:
            if transfer.curl in self._running and (socket_ := transfer.curl.getinfo(pycurl.ACTIVESOCKET)) >= 0:
                transfer.socket = socket_
                self._by_socket[socket_] = transfer
        self._unplaced.clear()

    def _end_stalled(self, now: float) -> None:
        """End every exchange that heard nothing from its Archive for its read timeout.

        The transfers are looked at only once the earliest read timeout noted may be due: a
        transfer's last byte only moves later, so that moment is never later than the first one
        really due (a new transfer lowers it when its request leaves). Looking at all of them
        every turn cost a quarter of the loop's time with a reference check's 320 exchanges
        under way."""
        if now < self._next_stall:
            return
        self._next_stall = math.inf
        for transfer in list(self._running.values()):
            if transfer.last_byte is None:
                continue
            due = transfer.last_byte + transfer.read_timeout
            if now >= due:
                transfer.stalled = True
                self._finish(transfer, pycurl.E_OPERATION_TIMEDOUT, Recorded(""))
            else:
                self._next_stall = min(self._next_stall, due)

    def _abandon_incoming(self, why: Message) -> None:
        """End the transfers that never reached libcurl."""
        while True:
            try:
                transfer = self._incoming.popleft()
            except IndexError:
                return
            transfer.curl.close()
            transfer.done([(transfer.index, Exchange(failure=Failure.CONNECTION, error=why))])

    def _drain_wake_ups(self) -> None:
        try:
            while self._wake_read.recv(4096):
                pass
        except BlockingIOError:
            pass

    def _finish_done(self) -> None:
        while True:
            queued, finished, failed = self._multi.info_read()
            for curl in finished:
                self._finish(self._running[curl], None, Recorded(""))
            for curl, code, message in failed:
                self._finish(self._running[curl], code, Recorded(message))
            if not queued:
                return

    def _finish(self, transfer: _Transfer, code: int | None, message: Message | Recorded) -> None:
        curl = transfer.curl
        self._multi.remove_handle(curl)
        del self._running[curl]
        if self._by_socket.get(transfer.socket) is transfer:
            del self._by_socket[transfer.socket]
        exchange = _exchange(transfer, code, message)
        transfer.body = bytearray()  # the idle handle's callbacks still hold the transfer until its next one
        self._release(curl)
        self._ended.setdefault(transfer.done, []).append((transfer.index, exchange))


def _exchange(transfer: _Transfer, code: int | None, message: Message | Recorded) -> Exchange:
    """What a finished transfer brought back, in the terms of :class:`Exchange`; ``message`` is
    libcurl's (its own words, recorded) or the portal's."""
    curl = transfer.curl
    status = curl.getinfo(pycurl.RESPONSE_CODE) or None
    content_type = curl.getinfo(pycurl.CONTENT_TYPE)
    notes = content_type_notes(content_type) if status else ()
    body = bytes(transfer.body)
    if transfer.too_long:
        return Exchange(status, content_type, body, Failure.TOO_LARGE,
                        N_("answer longer than the cap of %(cap)s bytes; stopped reading", cap=transfer.cap), notes)
    if transfer.announced is not None:
        return Exchange(status, content_type, None, Failure.TOO_LARGE,
                        N_("answer announces %(size)s bytes, more than the cap of %(cap)s", size=transfer.announced,
                           cap=transfer.cap), notes)
    if transfer.stalled:
        return Exchange(status, content_type, body or None, Failure.TIMEOUT, _stall_words(transfer), notes)
    if code == pycurl.E_OPERATION_TIMEDOUT:
        return Exchange(status, content_type, body or None, Failure.TIMEOUT,
                        N_("%(words)s (%(message)s)", words=_timeout_words(transfer, message), message=message), notes)
    if code is not None:
        failure, words = _FAILURES.get(code, (Failure.CONNECTION, N_("exchange failed")))
        return Exchange(status, content_type, body or None, failure,
                        N_("%(words)s (%(message)s)", words=words, message=message), notes)
    if status is not None and 300 <= status < 400:
        target = curl.getinfo(pycurl.REDIRECT_URL)
        if not target:
            return Exchange(status, content_type, None, Failure.REDIRECT, N_("redirect to (no Location) not followed"),
                            notes)
        return Exchange(status, content_type, None, Failure.REDIRECT,
                        N_("redirect to %(target)s not followed", target=target[:200]), notes)
    return Exchange(status, content_type, body, notes=notes)


def _timeout_words(transfer: _Transfer, message: str) -> Message:
    """Which of libcurl's two limits ended the exchange, told apart by its message (the error
    code is the same for both: CURLE_OPERATION_TIMEDOUT)."""
    connect, total = min(transfer.timeouts.connect, transfer.timeouts.total), transfer.timeouts.total
    if message.startswith("Connection timed out"):
        if transfer.curl.getinfo(pycurl.CONNECT_TIME) > 0:  # TCP connected: libcurl's connect includes TLS
            return N_("connect timeout: connected, but the TLS handshake did not end within %(seconds)s s",
                      seconds=decimal(connect, ".3g"))
        return N_("connect timeout: no connection within %(seconds)s s", seconds=decimal(connect, ".3g"))
    return N_("the exchange deadline (%(seconds)s s) passed", seconds=decimal(total, ".3g"))


def _stall_words(transfer: _Transfer) -> Message:
    """The read timeout (kept by the loop), and how far the answer got before the silence."""
    seconds = decimal(transfer.read_timeout, ".3g")
    if not transfer.header_lines:
        return N_("read timeout: the Archive sent no answer within %(seconds)s s", seconds=seconds)
    if not transfer.headers_ended:
        return N_("read timeout: the Archive's headers stalled, nothing received for %(seconds)s s", seconds=seconds)
    return N_("read timeout: the Archive's answer stalled, nothing received for %(seconds)s s", seconds=seconds)


#: Seconds an Archive's checked address serves further messages to it before its host is looked
#: up and checked again. A reference check sends thousands of messages to each Archive in a few
#: seconds, and looking the host up and checking it for each was a fifth of the fan-out's time
#: (``benchmarks/references.py``). The address used is always one the policy accepted; a new
#: DNS answer is followed within this time, as a DNS cache would.
ADDRESS_SECONDS = 1.0

#: Handles of finished transfers a loop keeps for the next ones: a reference check's 320 exchanges
#: under way, and some room.
MAX_IDLE_HANDLES = 512


#: Hosts whose checked address is kept at most (all are forgotten when more come): the included
#: Archives, a few hundred at most.
MAX_PINS = 4096


class CurlTransport:
    """Archives over HTTP(S) through libcurl, every exchange of the process on one thread.

    :meth:`submit` starts an exchange and returns at once; :meth:`fetch` waits for it (the
    :class:`~ibiportal.resolver.transport.Transport` interface). For each request the host is
    resolved and every address checked as :class:`HttpTransport` does (the answer serving the
    same scheme, host and port for ``address_seconds``: :data:`ADDRESS_SECONDS`), and libcurl
    connects only to the checked address (``CURLOPT_CONNECT_TO``; the URL's name still goes in
    the Host header, the TLS SNI and the certificate check). Timeouts: ``connect`` to connect,
    ``total`` for the whole exchange, and ``read`` as "no byte, header or body, for that many
    seconds", kept by the loop to the millisecond. Never raises for a network problem.
    """

    def __init__(
        self,
        *,
        allow_private: bool = False,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        getaddrinfo: GetAddrInfo | None = None,
        user_agent: str = "IBI-Portal-resolver",
        ca_file: str | None = None,
        address_seconds: float = ADDRESS_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.allow_private = allow_private
        self.address_seconds = address_seconds
        self._clock = clock
        self._pins: dict[str, tuple[str, float]] = {}  # scheme://netloc -> (pin, until when it serves)
        self.max_answer_bytes = max_answer_bytes
        self._getaddrinfo = getaddrinfo
        self._headers = [f"User-Agent: {user_agent}", "Accept: text/plain"]
        self._ca_file = ca_file or certifi.where()
        self._loop: _Loop | None = None
        self._loop_pid = 0
        self._lock = threading.Lock()

    def fetch(self, url: str, timeouts: Timeouts) -> Exchange:
        """GET ``url`` and wait for the outcome (see the class docstring)."""
        return self.submit([(url, timeouts)])[0].result()

    def submit(self, messages: Sequence[tuple[str, Timeouts]]) -> list[Future[Exchange]]:
        """Start a GET of every ``(url, timeouts)``; each future's result is its :class:`Exchange`."""
        futures: list[Future[Exchange]] = [Future() for _ in messages]

        def done(outcomes: list[tuple[int, Exchange]]) -> None:
            for index, exchange in outcomes:
                futures[index].set_result(exchange)

        self.send(messages, done)
        return futures

    def send(self, messages: Sequence[tuple[str, Timeouts]], done: Handover) -> None:
        """Start a GET of every ``(url, timeouts)``; ``done([(index, exchange), …])`` is called
        with the outcomes as they come, those that ended together in one call, from the loop's
        thread (or at once for a message refused before it starts).

        No future per exchange: the resolver's fan-out hands each reply straight to its round,
        and a future's lock and condition, set and waited on from two threads, were a fifth of
        a reference check's time with 320 exchanges under way (``benchmarks/references.py``).
        The transfers reach the loop together, with one wake-up: waking it once per message
        made the thread that submits and the loop take turns, and the last message of a round
        of 50 left 10 ms after the first.
        """
        loop, transfers = self._running_loop(), []
        for index, (url, timeouts) in enumerate(messages):
            started = self._started(loop, url, timeouts, done, index)
            if isinstance(started, Exchange):
                done([(index, started)])
            else:
                transfers.append(started)
        if transfers:
            loop.add(transfers)

    def _started(self, loop: _Loop, url: str, timeouts: Timeouts, done: Handover, index: int) -> _Transfer | Exchange:
        """A transfer ready for the loop, or the exchange that ends it before it starts."""
        try:
            pin = self._check(url)
        except AddressRefused as refused:
            return Exchange(failure=Failure.REFUSED, error=refused.message)
        except ValueError as invalid:  # check_url: a port out of range or not a number
            return Exchange(failure=Failure.REFUSED, error=N_("invalid URL: %(error)s", error=Recorded(invalid)))
        curl, new = loop.handle()
        transfer = _Transfer(curl, self.max_answer_bytes, timeouts, done, index)
        try:
            if new:
                self._configure_handle(curl)
            self._configure(transfer, url, pin, timeouts)
        except (pycurl.error, ValueError) as error:  # a URL libcurl will not take (a control character,
            transfer.curl.close()                    # say), or pycurl will not pass it (a NUL byte)
            return Exchange(failure=Failure.REFUSED, error=N_("invalid URL: %(error)s", error=Recorded(error.args[-1])))
        return transfer

    def close(self) -> None:
        with self._lock:
            loop, self._loop = self._loop, None
        if loop is not None and self._loop_pid == os.getpid():
            loop.close()

    def _check(self, url: str) -> str:
        """``host:port:address:port`` for ``CURLOPT_CONNECT_TO``, once the policy accepted every
        address of the host.

        Not ``CURLOPT_RESOLVE``: that fills the multi handle's DNS cache, and libcurl reuses a
        kept-alive connection by host name and port – after a new DNS answer, the exchange went
        to the address checked the time before, not to the one checked now. A connection made
        through ``CONNECT_TO`` is reused only by an exchange pinned to the same address
        (``tests/resolver/test_curl_transport.py``).

        The pin is kept for the URL's ``scheme://netloc`` (all the host and port depend on) for
        ``address_seconds``; a refusal is not kept."""
        parts = url.split("/", 3)
        origin = "/".join(parts[:3]) if len(parts) == 4 else None
        now = self._clock()
        kept = self._pins.get(origin) if origin is not None else None
        if kept is not None and now < kept[1]:
            return kept[0]
        checked = check_url(url, allow_private=self.allow_private, getaddrinfo=self._getaddrinfo)
        host, address = (f"[{name}]" if ":" in name else name for name in (checked.host, checked.addresses[0]))
        pin = f"{host}:{checked.port}:{address}:{checked.port}"
        if origin is not None and self.address_seconds > 0:
            if len(self._pins) >= MAX_PINS:
                self._pins.clear()
            self._pins[origin] = (pin, now + self.address_seconds)
        return pin

    def _configure_handle(self, curl: pycurl.Curl) -> None:
        """What every transfer of this transport shares (kept by a handle used again)."""
        curl.setopt(pycurl.PROTOCOLS, pycurl.PROTO_HTTP | pycurl.PROTO_HTTPS)
        curl.setopt(pycurl.PROXY, "")  # never a proxy from the environment: it would bypass the pin
        curl.setopt(pycurl.HTTP_VERSION, pycurl.CURL_HTTP_VERSION_1_1)
        curl.setopt(pycurl.HTTPHEADER, self._headers)
        curl.setopt(pycurl.CAINFO, self._ca_file)
        curl.setopt(pycurl.NOSIGNAL, 1)

    def _configure(self, transfer: _Transfer, url: str, pin: str, timeouts: Timeouts) -> None:
        """What is this transfer's own: every option a handle used before had set differently."""
        curl = transfer.curl
        curl.setopt(pycurl.URL, url)
        curl.setopt(pycurl.CONNECT_TO, [pin])
        curl.setopt(pycurl.CONNECTTIMEOUT_MS, _milliseconds(min(timeouts.connect, timeouts.total)))
        curl.setopt(pycurl.TIMEOUT_MS, _milliseconds(timeouts.total))
        curl.setopt(pycurl.HEADERFUNCTION, transfer.header)
        curl.setopt(pycurl.WRITEFUNCTION, transfer.write)

    def _running_loop(self) -> _Loop:
        """This process's loop; a forked child (a gunicorn worker) starts its own."""
        with self._lock:
            if self._loop is None or self._loop_pid != os.getpid() or not self._loop.alive:
                self._loop, self._loop_pid = _Loop(), os.getpid()
            return self._loop


def _milliseconds(seconds: float) -> int:
    return max(1, math.ceil(seconds * 1000))

