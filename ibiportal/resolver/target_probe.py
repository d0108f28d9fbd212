"""Asking an own item's target URL whether it still answers, as a polite checker does.

What the portal tells its readers is "the persistent URL leads to the item": a target that died
breaks that promise, and readers find it before the Archive does unless someone asks first. The
standard leaves the how to the Archive (file 003 §9 only has the Archive answer ``url``); the
portal's decisions, after what link checkers of identifier services do (EZID's, W3C's):

* **HEAD first**, nothing but the status line and headers; **then GET** where HEAD is refused or
  mishandled (:data:`GET_AFTER_HEAD`: 405 and 501 say the method is not served, and servers and
  CDNs that mishandle HEAD answer 400, 403 or 404 to it). The GET's body is never read: its
  connection is dropped once the headers came.
* **One request per second per host** at most (:class:`HostPacer`), redirect hops and the GET
  after a HEAD included; hosts are asked side by side.
* **The resolver's address policy** (``resolver.addresses``, checked after DNS and pinned):
  a target on a loopback, private or otherwise non-public address is not asked unless
  IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1, and a redirect cannot lead the checker there either.
* **At most** :data:`MAX_REDIRECTS` **redirects**, each to an http(s) URL. A chain that passes a
  permanent redirect (301, 308) to an answer is *moved*: the item's target URL should say where
  it ended. Temporary ones (302, 303, 307) are how many sites work: *working*.
* An answer 2xx at the end is *working*; anything else (4xx, 5xx, no answer, refused) *failed*.

Pure of storage and Flask; the transport, the clock and the sleeper are given, so tests pace
without sleeping.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol
from urllib.parse import urljoin, urlsplit

from ibiportal.i18n import N_, Message, Recorded
from ibiportal.ibi.target_check import TargetOutcome, TargetProbe
from ibiportal.resolver.addresses import redirect_problem
from ibiportal.resolver.transport import Exchange, Failure, Timeouts

#: What one request to a target may take: the item's own server, perhaps slow to start a large
#: download, is given more than an Archive's protocol answer (transport.ARCHIVE_TIMEOUTS).
TARGET_TIMEOUTS = Timeouts(connect=5.0, read=10.0, total=15.0)

#: Redirects followed from a target URL before the chain is a failure (browsers allow 20; a
#: target that needs more than a few is broken for people too).
MAX_REDIRECTS = 5

#: Seconds between two requests to one host.
HOST_INTERVAL_SECONDS = 1.0

#: A HEAD answered with one of these is asked again with GET (module decisions).
GET_AFTER_HEAD = frozenset({400, 403, 404, 405, 501})

#: The redirects that say the resource moved for good (RFC 9110 §15.4.2, RFC 9111 / RFC 7538).
PERMANENT_REDIRECTS = frozenset({301, 308})


class Prober(Protocol):
    """What the checker needs of a transport: :meth:`~ibiportal.resolver.http_transport.HttpTransport.probe`."""

    def probe(self, url: str, method: str, timeouts: Timeouts) -> Exchange: ...


class HostPacer:
    """At most one request per ``interval`` seconds to each host, whichever thread sends it.

    :meth:`wait` reserves the host's next free slot under a lock and sleeps outside it until
    then, so threads asking other hosts never wait for this one. ``clock`` and ``sleep`` are
    ``time.monotonic`` and ``time.sleep`` unless a test gives its own.
    """

    def __init__(self, interval: float = HOST_INTERVAL_SECONDS, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.interval = interval
        self.clock = clock
        self.sleep = sleep
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, url: str) -> None:
        """Return when a request to ``url``'s host may leave."""
        host = host_of(url)
        with self._lock:
            now = self.clock()
            slot = max(now, self._next.get(host, now))
            self._next[host] = slot + self.interval
        if slot > now:
            self.sleep(slot - now)


def host_of(url: str) -> str:
    """The host a request to ``url`` goes to, as the pacer keys it (case-blind, port left out)."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


class TargetChecker:
    """Checks target URLs through ``transport`` (its address policy included), paced by ``pacer``."""

    def __init__(self, transport: Prober, pacer: HostPacer, timeouts: Timeouts = TARGET_TIMEOUTS,
                 max_redirects: int = MAX_REDIRECTS) -> None:
        self.transport = transport
        self.pacer = pacer
        self.timeouts = timeouts
        self.max_redirects = max_redirects

    def check(self, url: str) -> TargetProbe:
        """Ask ``url`` (module decisions) and say what it found; never raises for the network."""
        current, permanent = url, None
        for hop in range(self.max_redirects + 1):
            exchange = self._ask(current)
            if exchange.failure is not Failure.REDIRECT:
                break
            if exchange.location is None:
                return _failed(exchange, N_("HTTP %(status)s redirects without a Location", status=exchange.status),
                               current, url)
            following = urljoin(current, exchange.location.strip())
            problem = redirect_problem(following)
            if problem is not None:
                return _failed(exchange, N_("HTTP %(status)s redirects to %(location)s: %(problem)s",
                                            status=exchange.status, location=Recorded(following[:200]),
                                            problem=problem), current, url)
            if exchange.status in PERMANENT_REDIRECTS and permanent is None:
                permanent = exchange.status
            current = following
        else:
            return _failed(exchange, N_("more than %(count)s redirects", count=self.max_redirects), current, url)
        reached = None if current == url else current
        if exchange.failure is not None:
            return _failed(exchange, exchange.problem, current, url)
        if exchange.status is not None and 200 <= exchange.status < 300:
            if permanent is not None:
                return TargetProbe(TargetOutcome.MOVED, exchange.status, None, reached, permanent)
            return TargetProbe(TargetOutcome.WORKING, exchange.status, None, reached)
        return _failed(exchange, N_("HTTP %(status)s", status=exchange.status), current, url)

    def _ask(self, url: str) -> Exchange:
        """HEAD ``url``, then GET it where the HEAD was refused (:data:`GET_AFTER_HEAD`)."""
        self.pacer.wait(url)
        exchange = self.transport.probe(url, "HEAD", self.timeouts)
        if exchange.failure is None and exchange.status in GET_AFTER_HEAD:
            self.pacer.wait(url)
            exchange = self.transport.probe(url, "GET", self.timeouts)
        return exchange


def _failed(exchange: Exchange, why: Message | str | None, reached: str, asked: str) -> TargetProbe:
    return TargetProbe(TargetOutcome.FAILED, exchange.status, why, None if reached == asked else reached)
