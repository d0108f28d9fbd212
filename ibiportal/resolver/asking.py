"""Asking the Archives (3): each message through its endpoint's transport, timed, within the
resolution's deadline; a round's ``urlRequest`` to every Archive in parallel (Figure 8.1).

Only this module touches the executor and the transports: the engine decides what to send and
what the replies mean, and records both in the trace.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field

from ibiportal.resolver.transport import ArchiveEndpoint, Exchange, Failure, Timeouts, Transport

#: Seconds before the resolution deadline at which each exchange is ended (the transport's
#: total), so that the trace records how it ended rather than "no answer before the deadline".
EXCHANGE_MARGIN = 0.1


def milliseconds(seconds: float) -> float:
    """A duration as the trace records it: milliseconds to one decimal."""
    return round(seconds * 1000, 1)


@dataclass(frozen=True)
class Reply:
    """One Archive's exchange, as it came back (timing from the worker thread)."""

    endpoint: ArchiveEndpoint
    url: str
    exchange: Exchange
    elapsed_ms: float
    finished: float


@dataclass(frozen=True)
class Sender:
    """Sends one message to one Archive before ``deadline`` (on ``clock``, monotonic seconds)."""

    transports: Mapping[str, Transport]
    clock: Callable[[], float]
    deadline: float

    def send(self, endpoint: ArchiveEndpoint, url: str) -> Reply:
        """One request through the endpoint's transport, timed; runs on a worker thread."""
        started = self.clock()
        transport = self.transports.get(endpoint.transport)
        total = self.deadline - started - EXCHANGE_MARGIN
        if transport is None:
            exchange = Exchange(failure=Failure.UNKNOWN_ARCHIVE, error=f"no transport named {endpoint.transport!r}")
        elif total <= 0:
            exchange = Exchange(failure=Failure.TIMEOUT, error="the resolution deadline had passed before sending")
        else:
            exchange = transport.fetch(url, Timeouts(endpoint.connect_timeout, endpoint.read_timeout, total))
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
    _asked: dict[Future[Reply], ArchiveEndpoint] = field(default_factory=dict)
    _pending: set[Future[Reply]] = field(default_factory=set)

    def ask(self, endpoint: ArchiveEndpoint, url: str) -> None:
        future = self.executor.submit(self.sender.send, endpoint, url)
        self._asked[future] = endpoint
        self._pending.add(future)

    def batches(self) -> Iterator[list[Reply]]:
        """The replies that completed together, in the order they finished, until none is pending
        or the deadline passes."""
        while self._pending:
            remaining = self.sender.deadline - self.sender.clock()
            if remaining <= 0:
                return
            done, self._pending = wait(self._pending, timeout=remaining, return_when=FIRST_COMPLETED)
            yield sorted((future.result() for future in done), key=lambda reply: reply.finished)

    @property
    def unanswered(self) -> list[ArchiveEndpoint]:
        return [self._asked[future] for future in self._pending]
