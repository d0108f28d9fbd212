"""How the portal reaches Archives: one :class:`Transport` interface, three implementations.

Every message of Figure 8.1 from the resolver to an Archive – "Solicitar URL" (3) and
"Agradecer" (5) – is an HTTP GET of a request URL (§6.1); the answer (4)/(6) is a
``text/plain`` pair list (§6.2). A transport sends one request URL and returns an
:class:`Exchange`: what came back, or why nothing usable did. It never raises for a network
problem; the engine records the exchange in the trace either way.

* :class:`~ibiportal.resolver.curl_transport.CurlTransport` – the resolver's messages to live
  Archives over HTTP(S), a round's messages handed over together (a
  :class:`MultiplexingTransport`) and driven by libcurl on one thread.
* :class:`~ibiportal.resolver.http_transport.HttpTransport` – one-off exchanges with live Archives over HTTP(S) through
  ``requests`` (the §7.2 confirmation, the conformance check, Cite's record fetch).
  Both live transports apply the address policy of :mod:`ibiportal.resolver.addresses`
  (checked after DNS, pinned against rebinding).
* :class:`~ibiportal.resolver.local_transport.LocalTransport` – the Archives this process answers for itself: the portal's own
  Archive and the demo Archives, each an :class:`~ibiportal.archive.service.ArchiveService`.

Which one reaches an Archive is its endpoint's :class:`Route`. This module holds the interface
and the values every transport shares; each implementation is a module of its own.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

from ibiportal.i18n import N_, Message, Recorded
from ibiportal.protocol.pairlist import PairList

DEFAULT_MAX_ANSWER_BYTES = 256 * 1024
"""Cap on an answer's size: a URL list (Example 9.2) is a few kilobytes."""



class Failure(StrEnum):
    """Why an exchange produced no answer to read."""

    TIMEOUT = "timeout"
    REFUSED = "refused"
    CONNECTION = "connection"
    TOO_LARGE = "too-large"
    REDIRECT = "redirect"
    UNKNOWN_ARCHIVE = "unknown-archive"


FAILURE_WORDS = {
    Failure.TIMEOUT: N_("timeout"),
    Failure.REFUSED: N_("refused"),
    Failure.CONNECTION: N_("connection failed"),
    Failure.TOO_LARGE: N_("answer too large"),
    Failure.REDIRECT: N_("redirect"),
    Failure.UNKNOWN_ARCHIVE: N_("unknown Archive"),
}
"""How each way for an exchange to end without an answer reads for people."""


class Route(StrEnum):
    """How the resolver reaches an Archive: the key of its transport among the engine's."""

    LOCAL = "local"  # answered in this process (LocalTransport): the own Archive, the demo ones
    HTTP = "http"  # a registered Archive, over the network (HttpTransport)


@dataclass(frozen=True)
class Timeouts:
    """Per-Archive limits, in seconds: to connect, between bytes read, and for the whole exchange."""

    connect: float
    read: float
    total: float


ARCHIVE_TIMEOUTS = Timeouts(connect=3.0, read=5.0, total=8.0)
"""What the portal gives any Archive it contacts over the network: the resolver asking an
included Archive, the resolver service's confirmation request (§7.2), Cite fetching a record
and the conformance check. One value, so an operator reading a trace knows the limits."""


@dataclass(frozen=True)
class ArchiveEndpoint:
    """An included Archive as the engine sees it (§6.1 base URL ``http://<address>/<service_ibi>``).

    ``transport`` is the :class:`Route` that reaches it. ``own`` marks the portal's own
    Archive: an item it holds as Original is not taken from another Archive claiming the
    original too (:mod:`ibiportal.resolver.selecting`).
    """

    address: str
    service_ibi: str
    name: str
    transport: Route = Route.HTTP
    connect_timeout: float = ARCHIVE_TIMEOUTS.connect
    read_timeout: float = ARCHIVE_TIMEOUTS.read
    own: bool = False


@dataclass(frozen=True)
class Exchange:
    """What one request URL brought back.

    ``body`` is the raw answer (bytes as received, up to the cap), ``None`` when nothing was
    read; ``failure`` and ``error`` say why there is no answer to use; ``notes`` record what is
    wrong but not fatal (e.g. a content type other than ``text/plain``, §6.2); ``location`` is a
    redirect's ``Location`` as sent (a target check follows it, the resolver never does).
    ``pairs`` is the pair list ``body`` was written from, when the transport has it (an Archive
    answered in this process): the resolver takes it instead of reading the body back.
    """

    status: int | None = None
    content_type: str | None = None
    body: bytes | None = None
    failure: Failure | None = None
    error: str | None = None
    notes: tuple[str, ...] = ()
    location: str | None = None
    pairs: PairList | None = None

    @property
    def problem(self) -> Message | None:
        """Why there is no answer, for people: the failure in words, then the transport's own
        words (a message where the portal wrote them, else kept as written: libcurl's, requests')."""
        if self.failure is None:
            return None
        error = self.error or ""
        if not error:
            return FAILURE_WORDS[self.failure]
        said = error if isinstance(error, Message) else Recorded(error)
        if error.startswith(str(self.failure)):  # "refused to contact …": the transport's words say it all
            return Message("%(error)s", {"error": said})
        return Message("%(failure)s: %(error)s", {"failure": FAILURE_WORDS[self.failure], "error": said})


#: Where a multiplexing transport hands outcomes over: ``(index, exchange)`` pairs, ``index`` the
#: message's place in the ``send`` that started it.
Handover = Callable[[list[tuple[int, Exchange]]], None]


class Transport(Protocol):
    """Sends one request URL (§6.1) to an Archive and returns what came back (§6.2)."""

    def fetch(self, url: str, timeouts: Timeouts) -> Exchange:
        """GET ``url`` within ``timeouts``; network problems are an :class:`Exchange` with a ``failure``."""
        ...


@runtime_checkable
class MultiplexingTransport(Transport, Protocol):
    """A transport that starts an exchange and returns at once, so that a round's messages
    leave together instead of one thread each (:class:`~ibiportal.resolver.curl_transport.CurlTransport`)."""

    def submit(self, messages: Sequence[tuple[str, Timeouts]]) -> list[Future[Exchange]]:
        """Start a GET of every ``(url, timeouts)`` together; each future's result is what
        :meth:`fetch` would return."""
        ...

    def send(self, messages: Sequence[tuple[str, Timeouts]], done: Handover) -> None:
        """:meth:`submit` without futures: ``done([(index, exchange), …])`` is called with the
        messages' outcomes (``index`` in ``messages``) as they end, those that end together in
        one call, from the transport's thread, or before this returns for a message that ends
        before it starts."""
        ...


@runtime_checkable
class InProcessTransport(Transport, Protocol):
    """A transport whose Archives answer in this process, without a network
    (:class:`~ibiportal.resolver.local_transport.LocalTransport`)."""

    def answers_at_once(self, url: str) -> bool:
        """Whether ``url``'s Archive answers without waiting for anything (no delay of its own),
        so that the resolver may ask it on its own thread."""
        ...


def content_type_notes(content_type: str | None) -> tuple[str, ...]:
    """The note an answer gets when its content type is not ``text/plain`` (§6.2)."""
    media = (content_type or "").split(";")[0].strip().lower()
    if media == "text/plain":
        return ()
    if not content_type:
        return (N_("the answer has no content type, not text/plain (§6.2); read anyway"),)
    return (N_("content type is %(content_type)s, not text/plain (§6.2); read anyway", content_type=repr(content_type)),)
