"""Archives over HTTP(S) through ``requests``, for one-off exchanges: :class:`HttpTransport`.

The §7.2 confirmation request, the conformance check and Cite's record fetch go one at a time,
where libcurl's multi handle (:mod:`.curl_transport`) gains nothing; here urllib3's messages
read well in a page and ``responses`` mocks them in tests. The address policy of
:mod:`ibiportal.resolver.addresses` is applied after DNS, and the connection pinned to the
checked address (:class:`_PinnedAdapter`); a watchdog thread bounds the whole exchange.
"""
from __future__ import annotations

import heapq
import itertools
import os
import socket
import threading
import time
from collections.abc import Callable

import requests
from requests.adapters import HTTPAdapter
from requests.models import PreparedRequest, Response
from requests.structures import CaseInsensitiveDict
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, ReadTimeoutError

from ibiportal.i18n import N_, Recorded, decimal
from ibiportal.resolver.addresses import AddressRefused, GetAddrInfo, check_url
from ibiportal.resolver.transport import (
    DEFAULT_MAX_ANSWER_BYTES,
    Exchange,
    Failure,
    Timeouts,
    content_type_notes,
)

_CHUNK = 8192


class _Watch:
    """One exchange's deadline, and the socket to shut when it passes (see :class:`_Watchdog`)."""

    __slots__ = ("deadline", "active", "expired", "_sockets", "_lock")

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.active = True
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def attach(self, sock: socket.socket | None) -> None:
        """The exchange now talks over ``sock``: shut it at the deadline (at once if past)."""
        if sock is None:
            return
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    """Shut both directions: a recv blocked in another thread returns at once."""
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the fd level, also under a TLS socket
    except OSError:
        pass  # already closed, or detached into its TLS socket (attached too)


class _Watchdog:
    """Ends every exchange at its deadline, whatever the Archive does.

    Socket timeouts bound each ``recv``, not their sum: an Archive sending one byte a second
    – in its status line, its headers or its body – would hold a resolver thread for hours,
    and a few such Archives would take every thread of the pool. One daemon thread per
    process keeps the deadlines of the exchanges in flight in a heap and, when one passes,
    shuts that exchange's socket, so the blocked read fails and :meth:`HttpTransport.fetch`
    returns a timeout. The exchange in flight on a thread is found through a thread-local,
    because urllib3 opens or reuses its connection deep inside ``send``.
    """

    def __init__(self) -> None:
        self._condition = threading.Condition(threading.Lock())
        self._heap: list[tuple[float, int, _Watch]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._local = threading.local()

    def watch(self, seconds: float) -> _Watch:
        """Start watching the calling thread's exchange, ``seconds`` from now."""
        watch = _Watch(time.monotonic() + seconds)
        with self._condition:
            heapq.heappush(self._heap, (watch.deadline, next(self._order), watch))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="ibi-exchange-watchdog", daemon=True)
                self._thread.start()
            if self._heap[0][2] is watch:  # an earlier deadline than the thread is waiting for
                self._condition.notify()
        self._local.watch = watch
        return watch

    def done(self, watch: _Watch) -> None:
        """The exchange is over: its socket must not be shut any more."""
        with self._condition:
            watch.active = False
        self._local.watch = None

    def current(self) -> _Watch | None:
        """The calling thread's exchange in flight, if any."""
        return getattr(self._local, "watch", None)

    def _run(self) -> None:
        with self._condition:
            while True:
                while self._heap and not self._heap[0][2].active:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._condition.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._condition.wait(wait)
                    continue
                heapq.heappop(self._heap)[2].expire()


_WATCHDOG = _Watchdog()


def _new_watchdog_after_fork() -> None:
    """A forked child (a gunicorn worker) has none of its parent's threads: a fresh watchdog."""
    global _WATCHDOG
    _WATCHDOG = _Watchdog()


os.register_at_fork(after_in_child=_new_watchdog_after_fork)


class _Pinned:
    """Mixin of a urllib3 connection that dials the address the policy checked, whatever DNS says now."""

    _dns_host: str

    def __init__(self, *args: object, pinned_ip: str, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        self._pinned_ip = pinned_ip

    def _new_conn(self):  # type: ignore[no-untyped-def]
        # urllib3 dials ``_dns_host``; ``host`` (Host header, TLS SNI and certificate name)
        # is restored as soon as the socket exists.
        name = self._dns_host
        self._dns_host = self._pinned_ip
        try:
            sock = super()._new_conn()  # type: ignore[misc]
        finally:
            self._dns_host = name
        watch = _WATCHDOG.current()
        if watch is not None:
            watch.attach(sock)
            if watch.expired:
                raise ConnectTimeoutError(self, "the exchange deadline passed while connecting")
        return sock


class _PinnedPool:
    """Mixin of a pool whose connections, new or reused, are watched by the :class:`_Watchdog`."""

    def _get_conn(self, timeout: float | None = None):  # type: ignore[no-untyped-def]
        conn = super()._get_conn(timeout)  # type: ignore[misc]
        watch = _WATCHDOG.current()
        if watch is not None:
            watch.attach(conn.sock)  # None for a new connection: _Pinned._new_conn attaches it
        return conn


class _PinnedHTTPConnection(_Pinned, HTTPConnection):
    """An HTTP connection to the pinned address."""


class _PinnedHTTPSConnection(_Pinned, HTTPSConnection):
    """The HTTPS twin of :class:`_PinnedHTTPConnection` (SNI and certificate check use the name).

    The TLS socket made by the handshake (which the connect timeout bounds) replaces the one
    dialed; the watchdog must shut that one, which the answer is read from.
    """

    def connect(self) -> None:
        super().connect()
        watch = _WATCHDOG.current()
        if watch is not None:
            watch.attach(self.sock)


class _PinnedHTTPPool(_PinnedPool, HTTPConnectionPool):
    ConnectionCls = _PinnedHTTPConnection


class _PinnedHTTPSPool(_PinnedPool, HTTPSConnectionPool):
    ConnectionCls = _PinnedHTTPSConnection


class _PinnedAdapter(HTTPAdapter):
    """A requests adapter whose connections go only to addresses pinned by :meth:`pin`.

    Pools are kept per (scheme, host, port, pinned address), so connections are reused
    across requests and a new pin never reuses a socket to the old address. A request for
    a host that was not pinned cannot connect at all.
    """

    def __init__(self, pool_maxsize: int) -> None:
        super().__init__(pool_maxsize=pool_maxsize, max_retries=0)
        self._pins: dict[tuple[str, int], str] = {}
        self._pools: dict[tuple, HTTPConnectionPool] = {}
        self._lock = threading.Lock()
        self._maxsize = pool_maxsize

    def pin(self, host: str, port: int, ip: str) -> None:
        with self._lock:
            self._pins[(host.lower(), port)] = ip

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):  # type: ignore[no-untyped-def]
        host_params, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)
        scheme, host = host_params["scheme"], host_params["host"]
        port = host_params["port"] or (443 if scheme == "https" else 80)
        with self._lock:
            ip = self._pins.get((host.lower(), port))
            if ip is None:
                raise requests.exceptions.ConnectionError(
                    f"{host}:{port} was not checked by the address policy", request=request
                )
            key = (scheme, host.lower(), port, ip, tuple(sorted(pool_kwargs.items())))
            pool = self._pools.get(key)
            if pool is None:
                if scheme == "https":
                    pool = _PinnedHTTPSPool(host, port, maxsize=self._maxsize, pinned_ip=ip, **pool_kwargs)
                else:
                    pool = _PinnedHTTPPool(host, port, maxsize=self._maxsize, pinned_ip=ip)
                self._pools[key] = pool
        return pool

    def build_response(self, req: PreparedRequest, resp) -> Response:  # type: ignore[no-untyped-def]
        """requests' own, less the cookie jar: the protocol has no cookies, and reading every
        answer's headers into one cost a tenth of an exchange (benchmarks/resolution.py)."""
        response = Response()
        response.status_code = resp.status
        response.headers = CaseInsensitiveDict(resp.headers)
        response.raw = resp
        response.reason = resp.reason
        response.url = req.url
        response.request = req
        response.connection = self
        return response

    def close(self) -> None:
        with self._lock:
            for pool in self._pools.values():
                pool.close()
            self._pools.clear()
        super().close()


class HttpTransport:
    """Archives over HTTP(S) through one shared requests transport adapter (connection pooling).

    The adapter is used without a :class:`requests.Session` on top: the session layer adds
    cookies, environment proxies and redirect handling, none of which the protocol wants,
    and costs about 0.3 ms of interpreter time per request (benchmarks/resolution.py measures
    this transport as the reference for the libcurl fan-out). For the same reason the request
    is prepared directly (:meth:`_prepared`) and the adapter builds responses without a cookie jar.

    For each request: the host is resolved and EVERY address checked by
    :func:`~ibiportal.resolver.addresses.check_host` (refusing loopback, private, link-local,
    multicast, reserved and unspecified addresses, and those IANA's special-purpose registries
    do not call globally reachable, unless ``allow_private``), and the
    connection is pinned to a checked address, so a DNS rebind between check and connect
    cannot redirect it. Redirects are not followed (a 3xx is a failure). The answer is
    streamed and reading stops past ``max_answer_bytes``. Connect and read timeouts come
    from :class:`Timeouts`, and the whole exchange – connecting, status line, headers and
    body – is bounded by ``Timeouts.total``: at that deadline :class:`_Watchdog` shuts its
    socket, however slowly the Archive trickles bytes. Environment proxy settings are never
    read (they would bypass the pinning).
    """

    def __init__(
        self,
        *,
        allow_private: bool = False,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        pool_maxsize: int = 32,
        getaddrinfo: GetAddrInfo | None = None,
        user_agent: str = "IBI-Portal-resolver",
    ) -> None:
        self.allow_private = allow_private
        self.max_answer_bytes = max_answer_bytes
        self._getaddrinfo = getaddrinfo
        self._adapter = _PinnedAdapter(pool_maxsize)
        self._headers = {"User-Agent": user_agent, "Accept": "text/plain"}

    def close(self) -> None:
        self._adapter.close()

    def _check(self, url: str) -> None:
        checked = check_url(url, allow_private=self.allow_private, getaddrinfo=self._getaddrinfo)
        self._adapter.pin(checked.host, checked.port, checked.addresses[0])

    def fetch(self, url: str, timeouts: Timeouts) -> Exchange:
        """GET ``url``; see the class docstring. Never raises for a network problem."""
        return self._guarded(url, timeouts, lambda: self._exchange(url, timeouts))

    def probe(self, url: str, method: str, timeouts: Timeouts) -> Exchange:
        """Send ``method`` (``HEAD`` or ``GET``) to ``url`` and keep only the status line and
        headers: the answer's ``status``, its ``content_type`` and, for a redirect, its
        ``location`` (not followed, as by :meth:`fetch`); no body is read (a GET's is dropped with
        its connection). The same address policy, pinning and deadline as :meth:`fetch`: what a
        target check (``application.targets``) asks of an item's target URL."""
        return self._guarded(url, timeouts, lambda: self._status(url, method, timeouts))

    def _guarded(self, url: str, timeouts: Timeouts, exchange_with: Callable[[], Exchange]) -> Exchange:
        """``exchange_with()`` once the address policy let ``url``'s host through, within the
        deadline of ``timeouts.total`` (the watchdog)."""
        try:
            self._check(url)
        except AddressRefused as refused:
            return Exchange(failure=Failure.REFUSED, error=refused.message)
        except ValueError as invalid:  # check_url: a port out of range or not a number
            return Exchange(failure=Failure.REFUSED, error=N_("invalid URL: %(error)s", error=Recorded(invalid)))
        watch = _WATCHDOG.watch(timeouts.total)
        try:
            exchange = exchange_with()
        finally:
            _WATCHDOG.done(watch)
        if watch.expired and exchange.failure in (None, Failure.CONNECTION, Failure.TIMEOUT):
            # A read cut short by the watchdog looks like the Archive closing: say what happened.
            error = N_("the exchange deadline (%(seconds)s s) passed; connection closed",
                       seconds=decimal(timeouts.total, ".3g"))
            if exchange.error:
                error = N_("%(words)s (%(message)s)", words=error, message=exchange.error)
            return Exchange(exchange.status, exchange.content_type, exchange.body, Failure.TIMEOUT, error,
                            exchange.notes)
        return exchange

    def _exchange(self, url: str, timeouts: Timeouts) -> Exchange:
        response = self._send(url, "GET", timeouts)
        if isinstance(response, Exchange):
            return response
        with response:
            content_type = response.headers.get("Content-Type")
            notes = content_type_notes(content_type)
            redirect = _redirect(response, content_type, notes)
            return redirect if redirect is not None else self._read(response, content_type, notes)

    def _status(self, url: str, method: str, timeouts: Timeouts) -> Exchange:
        response = self._send(url, method, timeouts, accept="*/*")
        if isinstance(response, Exchange):
            return response
        with response:  # closed unread: the connection goes with the body
            content_type = response.headers.get("Content-Type")
            return _redirect(response, content_type, ()) or Exchange(response.status_code, content_type)

    def _send(self, url: str, method: str, timeouts: Timeouts, accept: str | None = None) -> Response | Exchange:
        """The streamed answer to ``method url``, or the exchange that failed to get one."""
        connect = min(timeouts.connect, timeouts.total)
        read = min(timeouts.read, timeouts.total)
        try:
            return self._adapter.send(self._prepared(url, method, accept), stream=True, timeout=(connect, read))
        except requests.exceptions.Timeout as error:
            return Exchange(failure=Failure.TIMEOUT, error=Recorded(f"{type(error).__name__}: {error}"))
        except requests.exceptions.RequestException as error:
            return Exchange(failure=Failure.CONNECTION, error=Recorded(f"{type(error).__name__}: {error}"))

    def _prepared(self, url: str, method: str = "GET", accept: str | None = None) -> PreparedRequest:
        """A ``method`` (GET) of ``url`` with this transport's headers (``accept`` instead of its
        Accept), as ``requests.Request(...).prepare()`` makes it for a URL the engine built
        (ASCII, §6.1) but without its cookie, auth and body steps; a URL that requests would
        refuse is refused the same way."""
        prepared = PreparedRequest()
        prepared.method = method
        prepared.prepare_url(url, None)
        prepared.headers = CaseInsensitiveDict(self._headers)
        if accept is not None:
            prepared.headers["Accept"] = accept
        prepared.body = None
        prepared.hooks = {"response": []}
        return prepared

    def _read(self, response: requests.Response, content_type: str | None, notes: tuple[str, ...]) -> Exchange:
        """Stream the body, stopping past the size cap (the watchdog stops it at the deadline)."""
        status = response.status_code
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self.max_answer_bytes:
            return Exchange(status, content_type, None, Failure.TOO_LARGE,
                            N_("answer announces %(size)s bytes, more than the cap of %(cap)s", size=declared,
                               cap=self.max_answer_bytes), notes)
        body = bytearray()
        try:
            for chunk in response.iter_content(_CHUNK):
                body.extend(chunk)
                if len(body) > self.max_answer_bytes:
                    return Exchange(status, content_type, bytes(body[: self.max_answer_bytes]), Failure.TOO_LARGE,
                                    N_("answer longer than the cap of %(cap)s bytes; stopped reading",
                                       cap=self.max_answer_bytes), notes)
        except requests.exceptions.RequestException as error:
            # requests wraps a read timeout met while streaming in a ConnectionError.
            cause = error.args[0] if error.args else None
            timed_out = isinstance(error, requests.exceptions.Timeout) or isinstance(cause, ReadTimeoutError)
            failure = Failure.TIMEOUT if timed_out else Failure.CONNECTION
            return Exchange(status, content_type, bytes(body), failure, Recorded(f"{type(error).__name__}: {error}"), notes)
        return Exchange(status, content_type, bytes(body), notes=notes)


def _redirect(response: Response, content_type: str | None, notes: tuple[str, ...]) -> Exchange | None:
    """A 3xx answer as the exchange of a redirect not followed, with its ``Location``; else ``None``."""
    if not (response.is_redirect or 300 <= response.status_code < 400):
        return None
    target = response.headers.get("Location")
    why = (N_("redirect to %(target)s not followed", target=target[:200]) if target is not None
           else N_("redirect to (no Location) not followed"))
    return Exchange(response.status_code, content_type, None, Failure.REDIRECT, why, notes, location=target)
