"""Counting how often each item is resolved, without touching the database on a request.

Every ``GET /<persistent URL>`` that ends in a redirect counts once for the IBI asked, cache hits
and stale or joined answers included (``application.resolving``), by its modifier kind
(:func:`usage_kind`); one that carries ``ibiurl.clientinformation.citingitem=<rep>`` with
``linktype=relative`` (the pairs URLib adds to the relative links of an item's page, STANDARD.md
§6) counts too as an activation of that link, per citing item (:func:`citing_item`). Alerts are
not counted: an IBI that names nothing is no item, and counting it would let anyone grow the
table with invented IBIs. Reference checks, traces and Cite resolve to check or explain, not to
follow a link, and are not counted. No address, user agent or time finer than the UTC day is kept.

On the request, a count is one dictionary increment under a lock (:class:`UsageTally`); a cached
hit's key is made once, when its entry is (``CachedRedirect.usage``). A thread of each worker
hands the sums to a sink every few seconds (:class:`UsageCounter`): the database, or Redis, which
one worker at a time moves into the database (``storage.usage``). A worker that exits (gunicorn
replaces it, a deploy stops it) flushes first; one killed outright loses at most the seconds
since its last flush.
"""
from __future__ import annotations

import atexit
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ParseError
from ..ibi.identifier import parse_ibi
from ..ibi.modifiers import GET_FILE_LIST, GET_LAST_EDITION, GET_METADATA, GET_TRANSLATION
from ..ibi.url import PersistentUrl
from ..log_limits import LimitedLog

log = logging.getLogger(__name__)
_FLUSH_LOG = LimitedLog(log)

#: The modifier kinds, in the order pages list them (:func:`usage_kind`).
PLAIN, METADATA, TRANSLATION, EDITION, FILE_LIST, FILE = "plain", "metadata", "translation", "edition", "file-list", "file"
KINDS = (PLAIN, METADATA, TRANSLATION, EDITION, FILE_LIST, FILE)

#: URLib's pairs on a relative link (STANDARD.md §6): the citing item, and the link's kind.
CITING_ITEM = "ibiurl.clientinformation.citingitem"
LINK_TYPE = "linktype"
RELATIVE = "relative"

#: Distinct keys a worker sums between two flushes; beyond, new ones are dropped (and logged):
#: memory stays bounded whatever URLs are asked.
MAX_KEYS = 100_000

SECONDS_PER_DAY = 86_400


def usage_kind(url: PersistentUrl) -> str:
    """What the persistent URL asks of its item, as usage counts it: the metadata (any ``:``),
    the file list (``GetFileList``), a translation (``+``), the last edition (``!``), a file (a
    path after the IBI), or the item itself (``plain``). A composition counts once, under the
    first kind of that list it asks for (``!:`` is metadata, ``!+`` a translation)."""
    names = {verb.name for verb in url.verbs}
    for verb, kind in ((GET_METADATA, METADATA), (GET_FILE_LIST, FILE_LIST), (GET_TRANSLATION, TRANSLATION),
                       (GET_LAST_EDITION, EDITION)):
        if verb in names:
            return kind
    return FILE if url.filepath else PLAIN


def citing_item(url: PersistentUrl) -> str | None:
    """The item whose page holds the relative link this URL came from: the value of
    ``ibiurl.clientinformation.citingitem`` when ``linktype=relative`` is there too, read as an
    IBI (normalised); ``None`` for any other URL, or a value that is no IBI."""
    pairs = dict(url.query)
    value = pairs.get(CITING_ITEM)
    if not value or pairs.get(LINK_TYPE, "").strip().lower() != RELATIVE:
        return None
    try:
        return str(parse_ibi(value.strip()))
    except ParseError:
        return None


@dataclass(frozen=True, eq=False)
class UsageKey:
    """What one resolution counts for: the IBI as asked (normalised), the modifier kind, and the
    citing item of a relative link. Compared by identity while summed (a cached entry's key is one
    object, hashed as cheaply as can be), by value when flushed (:meth:`values`)."""

    ibi: str
    kind: str
    citing: str | None = None

    @classmethod
    def of(cls, url: PersistentUrl) -> UsageKey:
        return cls(str(url.ibi), usage_kind(url), citing_item(url))

    def values(self) -> tuple[str, str, str | None]:
        return self.ibi, self.kind, self.citing


#: Sums as flushed: ``(UTC day number, (ibi, kind, citing)) -> count``.
Counts = dict[tuple[int, tuple[str, str, str | None]], int]


class UsageTally:
    """Counts summed in memory, by UTC day and key, until :meth:`take` hands them over."""

    def __init__(self, clock: Callable[[], float] = time.time, max_keys: int = MAX_KEYS) -> None:
        self.clock = clock
        self.max_keys = max_keys
        self.dropped = 0
        self._counts: dict[tuple[int, UsageKey], int] = {}
        self._lock = threading.Lock()

    def add(self, key: UsageKey) -> None:
        slot = (int(self.clock() // SECONDS_PER_DAY), key)
        with self._lock:
            count = self._counts.get(slot)
            if count is not None:
                self._counts[slot] = count + 1
            elif len(self._counts) < self.max_keys:
                self._counts[slot] = 1
            else:
                self.dropped += 1

    def take(self) -> Counts:
        """Everything summed since the last take, by value, and start again from nothing."""
        with self._lock:
            counts, self._counts = self._counts, {}
        summed: Counts = {}
        for (day, key), count in counts.items():
            slot = (day, key.values())
            summed[slot] = summed.get(slot, 0) + count
        return summed

    def put_back(self, counts: Counts) -> None:
        """Counts a flush could not hand over, to go with the next one."""
        with self._lock:
            for (day, values), count in counts.items():
                slot = (day, UsageKey(*values))
                if len(self._counts) < self.max_keys:
                    self._counts[slot] = count
                else:
                    self.dropped += count


class UsageCounter:
    """One worker's counting: :meth:`count` on the request, and a daemon thread that hands the
    sums to ``sink`` every ``seconds`` (and once more when the process exits). A sink that fails
    (the database down) keeps the counts for the next flush, and the failure is logged once a
    minute. The thread starts with the first count, in the process that counts (fork safety);
    with ``background=False`` (a test's app) there is none: what was counted waits for :meth:`flush`."""

    def __init__(self, sink: Callable[[Counts], None], seconds: float, tally: UsageTally | None = None,
                 background: bool = True) -> None:
        self.sink = sink
        self.seconds = seconds
        self.tally = tally or UsageTally()
        self._waiting = background  # for the thread to start: checked by every count until then
        self._start_lock = threading.Lock()
        self._flush_lock = threading.Lock()

    def count(self, key: UsageKey) -> None:
        self.tally.add(key)
        if self._waiting:
            self._start()

    def flush(self) -> int:
        """Hand what was summed to the sink now; how many resolutions it held."""
        with self._flush_lock:
            counts = self.tally.take()
            if not counts:
                return 0
            try:
                self.sink(counts)
            except Exception:  # noqa: BLE001 - any failure: the counts wait for the next flush
                self.tally.put_back(counts)
                _FLUSH_LOG.exception("usage not flushed", "usage counts not flushed; kept for the next flush")
                return 0
            return sum(counts.values())

    def _start(self) -> None:
        with self._start_lock:
            if self._waiting:
                threading.Thread(target=self._run, name="usage-flush", daemon=True).start()
                atexit.register(self.flush)
                self._waiting = False

    def _run(self) -> None:
        while True:
            time.sleep(self.seconds)
            self.flush()
