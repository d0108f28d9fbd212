"""One resolution at a time per request: concurrent identical requests share it.

When a persistent URL nobody asked for a moment ago becomes popular (a link in a mailing list,
a crawler and its retries), many requests for it arrive before the first resolution has ended.
Each would send its own ``urlRequest`` to every Archive (Figure 8.1 (3)) and wait as long as the
first; the Archives would see the same question dozens of times. :class:`SingleFlight` lets the
first request (the *leader*) resolve and hands its result to every request with the same key
that arrives while it runs (the *followers*), which then answer at once.

Pure: no Flask, no clock; keys are whatever identifies an outcome (the resolution cache's
:class:`~ibiportal.resolver.cache.CacheKey`). One instance serves the request threads of one
process, so sharing is per gunicorn worker.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass
class _Flight(Generic[T]):
    """A call under way: followers wait for ``done``; then ``result`` or ``error`` is set."""

    done: threading.Event = field(default_factory=threading.Event)
    result: T | None = None
    error: BaseException | None = None


@dataclass(frozen=True)
class Shared(Generic[T]):
    """What a caller of :meth:`SingleFlight.run` gets: the result, and whether it joined a call
    another caller had started (``False`` for the caller that ran it)."""

    result: T
    joined: bool


class SingleFlight(Generic[T]):
    """Runs at most one call per key at a time; callers that arrive meanwhile share its result.

    A follower gets exactly what the leader got, an exception included (it is raised in every
    waiting thread): a resolution never raises for Archive trouble, so an exception is a fault
    of this process that a second attempt would meet too. Once a call has ended, the next caller
    with its key starts a new one: results are not kept (that is the cache's job).
    """

    def __init__(self) -> None:
        self._flights: dict[Hashable, _Flight[T]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Calls under way."""
        return len(self._flights)

    def running(self, key: Hashable) -> bool:
        """Whether a call for ``key`` is under way."""
        return key in self._flights

    def run(self, key: Hashable, call: Callable[[], T]) -> Shared[T]:
        with self._lock:
            flight = self._flights.get(key)
            leader = flight is None
            if leader:
                flight = self._flights[key] = _Flight()
        if not leader:
            flight.done.wait()
            if flight.error is not None:
                raise flight.error
            return Shared(flight.result, joined=True)
        try:
            flight.result = call()
        except BaseException as error:
            flight.error = error
            raise
        finally:
            with self._lock:
                del self._flights[key]
            flight.done.set()
        return Shared(flight.result, joined=False)
