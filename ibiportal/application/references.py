"""Checking a reference list: every entry's resolution, each distinct request resolved once.

A thesis's bibliography holds hundreds of references and dozens of IBIs, many of them twice
(``IBI: <…>`` and ``Disponível em: <http://urlib.net/…>`` in one reference). The check:

* reads the entries ``ibiportal.ibi.extract`` found; a broken one (meant as an IBI, but none)
  is **invalid** at once, with the recogniser's reason, and nothing is asked about it;
* groups the others by the request they make, ``/<ibi><modifiers><path>?<query>`` (Table 8.1:
  the same request on any resolver), so each distinct request is resolved once and every
  entry making it gets that resolution;
* resolves them concurrently, at most ``concurrency`` at a time (each resolution is itself the
  resolver's fan-out to every Archive, Figure 8.1), through the same resolution as
  ``GET /<persistent URL>``, single flight included: a URL a reader just followed is answered
  from the cache (the check's own outcomes are not kept there: ``Resolving.answer``);
* yields each entry's :class:`EntryResolution` as soon as its request is resolved (not in text
  order; those resolved together as one batch, :meth:`ReferenceCheck.batches`), so the caller
  can stream them: what is held at any time is the entries' indices and the resolutions under
  way, never the list's resolutions;
* takes its distinct requests from ``budget`` (the per-IBI rate limit) all at once, when it
  starts: one call, not one per request (with Redis, each was a round trip); the requests beyond
  what it lets through, in text order, are **error** ``429``, "not checked", and can be checked
  again later.

The outcome words are the reader's, not the protocol's: found, deleted, not found, invalid,
error (see :data:`OUTCOME_OF_ALERT`).
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from queue import SimpleQueue

from ..i18n import N_
from ..ibi.extract import Found
from ..log_limits import LimitedLog
from ..resolver.trace import AlertReason
from .resolving import Answer

logger = logging.getLogger(__name__)
#: A failure per entry of a list (up to 5,000): one traceback a minute per kind of failure.
_FAILURES = LimitedLog(logger)

#: Resolutions under way at once for one check, by default. Each waits for its slowest Archive,
#: so a list takes at least ``requests / CONCURRENCY`` times that: with Archives that answer in
#: 100 ms, 32 at once made 200 IBIs at least 0.7 s and 5,000 at least 15.6 s, over the goals of
#: 0.6 s and 10 s before any CPU was spent; 64 make them 0.4 s and 7.8 s (benchmarks/references.py).
#: Waiting threads cost no CPU, and a thread's stack is memory reserved, mostly untouched.
CONCURRENCY = 64

#: The status of an entry whose request the rate limit stopped, as the API answers a refusal.
NOT_CHECKED_STATUS = 429


class CheckOutcome(StrEnum):
    """What a reference's IBI came to, in the reader's words."""

    FOUND = "found"
    DELETED = "deleted"
    NOT_FOUND = "not found"
    INVALID = "invalid"
    ERROR = "error"


#: How each alert (7) counts for a reference: the item is gone (deleted), is not there (not
#: found: also a translation, metadata, a file or an original that does not exist), the request itself is wrong
#: (invalid); anything else (no Archive answered, Archives that disagree, a loop) says nothing
#: about the reference and is an error worth checking again.
OUTCOME_OF_ALERT = {
    AlertReason.DELETED: CheckOutcome.DELETED,
    AlertReason.NOT_FOUND: CheckOutcome.NOT_FOUND,
    AlertReason.TRANSLATION_MISSING: CheckOutcome.NOT_FOUND,
    AlertReason.RELATION_MISSING: CheckOutcome.NOT_FOUND,
    AlertReason.NO_ORIGINAL: CheckOutcome.NOT_FOUND,
    AlertReason.BAD_REQUEST: CheckOutcome.INVALID,
}


@dataclass(frozen=True)
class EntryResolution:
    """One entry's resolution: the outcome, the HTTP status the resolver answers for its request
    (``None`` for a broken entry, which makes no request), where it redirects, the reason in
    words, the trace's permalink, and whether the cache answered."""

    outcome: CheckOutcome
    status: int | None
    location: str | None
    reason: str
    trace: str | None = None
    cache: str | None = None

    def to_dict(self) -> dict:
        return {"outcome": self.outcome.value, "status": self.status, "location": self.location,
                "reason": self.reason, "trace": self.trace, "cache": self.cache}


@dataclass(frozen=True)
class Allowance:
    """What a budget let through of the requests a check asked for: ``granted`` of them (the
    first ones), and why not the rest (``refusal``, a sentence; ``None`` when all were)."""

    granted: int
    refusal: str | None = None


#: The per-IBI rate limit of a check: ``budget(count)`` takes up to ``count`` requests at once.
Budget = Callable[[int], Allowance]


@dataclass(frozen=True)
class CheckedEntry:
    """The entry at ``index`` of the list (text order) and its resolution."""

    index: int
    entry: Found
    resolution: EntryResolution


class ReferenceCheck:
    """Resolves the entries of a reference list (module docstring).

    ``resolve`` answers one entry's request (it is called with the first entry making it, from
    ``executor``'s threads); ``alert_status`` is the HTTP status of each alert and
    ``found_status`` that of a redirect, as the resolver answers them.
    """

    def __init__(
        self,
        resolve: Callable[[Found], Answer],
        executor: Executor,
        *,
        alert_status: Mapping[AlertReason, int],
        found_status: int,
        concurrency: int = CONCURRENCY,
    ) -> None:
        self.resolve = resolve
        self.executor = executor
        self.alert_status = alert_status
        self.found_status = found_status
        self.concurrency = max(1, concurrency)

    def run(self, entries: Iterable[Found], budget: Budget) -> Iterator[CheckedEntry]:
        """Each entry with its resolution, as they are resolved (:meth:`batches`, one by one)."""
        for batch in self.batches(entries, budget):
            yield from batch

    def batches(self, entries: Iterable[Found], budget: Budget) -> Iterator[list[CheckedEntry]]:
        """The entries with their resolutions, those ready together as one list: first the
        invalid ones and those ``budget`` did not let through (it is asked once, for every
        distinct request), then, as requests are resolved, the entries of those that ended
        together. A caller that writes each list at once writes once per list, not per entry.

        The slots freed by the requests that ended are filled again before their entries are
        handed on: the caller's writing (a socket's, under the interpreter lock that the
        resolutions' threads share) does not keep the next requests from starting."""
        entries = list(entries)
        requests: dict[str, list[int]] = {}
        ready: list[CheckedEntry] = []
        for index, entry in enumerate(entries):
            if entry.broken:
                ready.append(CheckedEntry(index, entry, self.invalid(entry)))
            else:
                requests.setdefault(request_of(entry), []).append(index)
        groups = list(requests.values())
        allowance = budget(len(groups)) if groups else Allowance(0)
        if allowance.granted < len(groups):
            not_checked = EntryResolution(CheckOutcome.ERROR, NOT_CHECKED_STATUS, None,
                                          N_("not checked: %(reason)s", reason=allowance.refusal))
            ready += [CheckedEntry(index, entries[index], not_checked)
                      for indices in groups[allowance.granted:] for index in indices]
        if ready:
            yield ready
        # Each resolution puts itself in one queue as it ends: ``concurrent.futures.wait`` put a
        # waiter on each of the resolutions under way at every call.
        finished: SimpleQueue[tuple[Future, list[int]]] = SimpleQueue()
        waiting = iter(groups[:allowance.granted])
        running = self._start(islice(waiting, self.concurrency), entries, finished)
        while running:
            done = [finished.get()]
            while not finished.empty():
                done.append(finished.get_nowait())
            running += self._start(islice(waiting, len(done)), entries, finished) - len(done)
            batch: list[CheckedEntry] = []
            for future, indices in done:
                resolution = self._outcome(future, entries[indices[0]])
                batch += [CheckedEntry(index, entries[index], resolution) for index in indices]
            yield batch

    def _start(self, groups: Iterable[list[int]], entries: list[Found],
               finished: SimpleQueue[tuple[Future, list[int]]]) -> int:
        """Start resolving the request of each group of entries; how many were started."""
        started = 0
        for indices in groups:
            future = self.executor.submit(self.resolve, entries[indices[0]])
            future.add_done_callback(functools.partial(_put, finished, indices))
            started += 1
        return started

    def _outcome(self, future: Future, entry: Found) -> EntryResolution:
        try:
            answer = future.result()
        except Exception as error:  # one request's failure must not end the check of the others: logged with its cause
            _FAILURES.exception(type(error).__name__, "reference check: resolving %s failed", request_of(entry))
            return EntryResolution(CheckOutcome.ERROR, 500, None,
                                   N_("the portal failed while resolving it (logged); check it again"))
        return self.of_answer(answer)

    def of_answer(self, answer: Answer) -> EntryResolution:
        """The resolver's answer as an entry's resolution."""
        if answer.alert is None:
            return EntryResolution(CheckOutcome.FOUND, self.found_status, answer.url,
                                   N_("redirects to %(url)s", url=answer.url), answer.trace_url, answer.cache)
        alert = answer.alert
        return EntryResolution(OUTCOME_OF_ALERT.get(alert.reason, CheckOutcome.ERROR), self.alert_status[alert.reason],
                               None, alert.message, answer.trace_url, answer.cache)

    @staticmethod
    def invalid(entry: Found) -> EntryResolution:
        """A broken entry: invalid, with the recogniser's reason and where in the entry's text."""
        error = entry.reading.error
        if error is None:
            return EntryResolution(CheckOutcome.INVALID, None, None, N_("not an IBI"))
        if error.position is None:
            return EntryResolution(CheckOutcome.INVALID, None, None, N_("not an IBI: %(reason)s", reason=error.message))
        return EntryResolution(CheckOutcome.INVALID, None, None, N_("not an IBI: %(reason)s (at character %(position)s)",
                                                               reason=error.message, position=error.position))


def _put(queue: SimpleQueue, indices: list[int], future: Future) -> None:
    queue.put((future, indices))


def request_of(entry: Found) -> str:
    """The request an entry makes, on any resolver: ``/<ibi><modifiers><path>?<query>``."""
    return entry.reading.resolver_path or ""
