"""Asking the Archives (3): each message through its endpoint's transport, timed, within the
resolution's deadline; a round's ``urlRequest`` to every Archive in parallel (Figure 8.1).

Only this module touches the executor and the transports: the engine decides what to send and
what the replies mean, and records both in the trace.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from functools import cache, partial
from queue import Empty, SimpleQueue

from ibiportal.i18n import N_
from ibiportal.resolver.transport import (
    ArchiveEndpoint,
    Exchange,
    Failure,
    InProcessTransport,
    MultiplexingTransport,
    Timeouts,
    Transport,
)

#: Seconds before the resolution deadline at which each exchange is ended (the transport's
#: total), so that the trace records how it ended rather than "no answer before the deadline".
EXCHANGE_MARGIN = 0.1


def milliseconds(seconds: float) -> float:
    """A duration as the trace records it: milliseconds to one decimal."""
    return round(seconds * 1000, 1)


@cache
def _multiplexes(kind: type) -> bool:
    """Whether a transport class is a :class:`MultiplexingTransport`: asked once per class, since
    a Protocol check costs about 15 µs, and once per round it was a tenth of a reference check's
    time with 32 resolutions under way (``benchmarks/references.py``)."""
    return issubclass(kind, MultiplexingTransport)


@cache
def _in_process(kind: type) -> bool:
    """Whether a transport class is an :class:`InProcessTransport` (asked once per class, as
    :func:`_multiplexes`)."""
    return issubclass(kind, InProcessTransport)


@dataclass(frozen=True)
class Reply:
    """One Archive's exchange, as it came back (timed by the thread that saw it end)."""

    endpoint: ArchiveEndpoint
    url: str
    exchange: Exchange
    elapsed_ms: float
    finished: float


#: A message's index in its round and its reply (or the exception sending it raised in the portal).
Arrived = tuple[int, Reply | BaseException]
#: Where :meth:`Sender.send_all` delivers replies: those that ended together, in one call.
Deliver = Callable[[list[Arrived]], None]


@dataclass(frozen=True)
class Sender:
    """Sends one message to one Archive before ``deadline`` (on ``clock``, monotonic seconds)."""

    transports: Mapping[str, Transport]
    clock: Callable[[], float]
    deadline: float

    def send(self, endpoint: ArchiveEndpoint, url: str) -> Reply:
        """One request through the endpoint's transport, timed; blocks until it ends."""
        started = self.clock()
        transport = self.transports.get(endpoint.transport)
        exchange = self._unsendable(endpoint, transport, started)
        if exchange is None:
            exchange = transport.fetch(url, self._timeouts(endpoint, started))
        return self._reply(endpoint, url, exchange, started)

    def start(self, executor: Executor, messages: Sequence[tuple[ArchiveEndpoint, str]]) -> list[Future[Reply]]:
        """Start every message without waiting for any; a future per message, in order
        (:meth:`send_all`)."""
        replies: list[Future[Reply]] = [Future() for _ in messages]

        def deliver(arrivals: list[Arrived]) -> None:
            for index, reply in arrivals:
                if isinstance(reply, BaseException):
                    replies[index].set_exception(reply)
                else:
                    replies[index].set_result(reply)

        self.send_all(executor, messages, deliver)
        return replies

    def send_all(self, executor: Executor, messages: Sequence[tuple[ArchiveEndpoint, str]],
                 deliver: Deliver) -> None:
        """Start every message without waiting for any; ``deliver([(index, reply), …])`` is
        called with the replies as they end (``index`` in ``messages``; those a transport saw end
        together in one call), from whichever thread saw them end, with the exception instead of
        the reply if sending failed in the portal itself.

        The messages for a multiplexing transport are handed to it together, so that its own
        thread writes them all in one pass and hands each reply over as it ends, without a
        future (``MultiplexingTransport.send``); those to an Archive answered in this process at
        once (``InProcessTransport.answers_at_once``: the own Archive, a demo Archive that does
        not misbehave) are answered on this thread once the others are on their way (a thread of
        the pool and its hand-over cost more than the answer: a twentieth of a reference check's
        time); any other message is sent on a thread of ``executor``.
        """
        started = self.clock()
        together: dict[str, list[tuple[int, ArchiveEndpoint, str]]] = {}
        here: list[tuple[int, ArchiveEndpoint, str]] = []
        for index, (endpoint, url) in enumerate(messages):
            transport = self.transports.get(endpoint.transport)
            if transport is not None and _in_process(type(transport)) and transport.answers_at_once(url):
                here.append((index, endpoint, url))
                continue
            if transport is None or not _multiplexes(type(transport)):
                executor.submit(self._send_one, index, endpoint, url, deliver)
                continue
            exchange = self._unsendable(endpoint, transport, started)
            if exchange is None:
                together.setdefault(endpoint.transport, []).append((index, endpoint, url))
            else:
                deliver([(index, self._reply(endpoint, url, exchange, started))])
        for route, batch in together.items():
            self.transports[route].send([(url, self._timeouts(endpoint, started)) for _, endpoint, url in batch],
                                        partial(self._completed, batch, started, deliver))
        for index, endpoint, url in here:
            self._send_one(index, endpoint, url, deliver)

    def _send_one(self, index: int, endpoint: ArchiveEndpoint, url: str, deliver: Deliver) -> None:
        try:
            reply: Reply | BaseException = self.send(endpoint, url)
        except BaseException as error:  # a defect of the portal: raised where the reply is read
            reply = error
        deliver([(index, reply)])

    def _completed(self, batch: list[tuple[int, ArchiveEndpoint, str]], started: float, deliver: Deliver,
                   outcomes: list[tuple[int, Exchange]]) -> None:
        finished = self.clock()  # one moment for the replies that ended together
        elapsed = milliseconds(finished - started)
        replies: list[Arrived] = []
        for position, exchange in outcomes:
            index, endpoint, url = batch[position]
            replies.append((index, Reply(endpoint, url, exchange, elapsed, finished)))
        deliver(replies)

    def _unsendable(self, endpoint: ArchiveEndpoint, transport: Transport | None, started: float) -> Exchange | None:
        """Why the message cannot be sent at all, if it cannot."""
        if transport is None:
            return Exchange(failure=Failure.UNKNOWN_ARCHIVE, error=f"no transport named {endpoint.transport!r}")
        if self.deadline - started - EXCHANGE_MARGIN <= 0:
            return Exchange(failure=Failure.TIMEOUT, error=N_("the resolution deadline had passed before sending"))
        return None

    def _timeouts(self, endpoint: ArchiveEndpoint, started: float) -> Timeouts:
        return Timeouts(endpoint.connect_timeout, endpoint.read_timeout, self.deadline - started - EXCHANGE_MARGIN)

    def _reply(self, endpoint: ArchiveEndpoint, url: str, exchange: Exchange, started: float) -> Reply:
        finished = self.clock()
        return Reply(endpoint, url, exchange, milliseconds(finished - started), finished)


@dataclass
class FanOut:
    """One round's messages sent in parallel, their replies handed back as they arrive.

    The caller stops reading :meth:`batches` once it has selected an answer (or the deadline
    passes); :attr:`unanswered` are then the Archives whose reply it did not wait for.
    """

    executor: Executor
    sender: Sender
    _messages: list[tuple[ArchiveEndpoint, str]] = field(default_factory=list)
    _pending: dict[int, ArchiveEndpoint] = field(default_factory=dict)

    def ask(self, endpoint: ArchiveEndpoint, url: str) -> None:
        """Add a message to the round; the round is sent when its replies are first read."""
        self._messages.append((endpoint, url))

    def batches(self) -> Iterator[list[Reply]]:
        """Send the round, then yield the replies that completed together, in the order they
        finished, until none is pending or the deadline passes.

        The replies are put in one queue as they end, those that ended together as one list
        (:meth:`Sender.send_all`).
        ``concurrent.futures.wait`` instead put a waiter on every pending future at each call, a
        call per reply: with 32 resolutions of 11 Archives under way (a reference check), that
        was a fifth of the resolutions' own time (``benchmarks/references.py``)."""
        arrived: SimpleQueue[list[Arrived]] = SimpleQueue()
        messages, self._messages = self._messages, []
        self._pending = {index: endpoint for index, (endpoint, _) in enumerate(messages)}
        self.sender.send_all(self.executor, messages, arrived.put)
        while self._pending:
            remaining = self.sender.deadline - self.sender.clock()
            if remaining <= 0:
                return
            try:
                done = arrived.get(timeout=remaining)
            except Empty:
                return
            while not arrived.empty():
                done += arrived.get_nowait()
            replies = []
            for index, reply in done:
                del self._pending[index]
                if isinstance(reply, BaseException):
                    raise reply
                replies.append(reply)
            yield sorted(replies, key=lambda reply: reply.finished)

    @property
    def unanswered(self) -> list[ArchiveEndpoint]:
        return list(self._pending.values())
