"""Single flight across gunicorn workers and nodes, through Redis.

:class:`~ibiportal.resolver.single_flight.SingleFlight` lets identical requests in one worker
share one resolution; with five workers, a burst of requests for one uncached persistent URL could
still send five ``urlRequest`` messages to every Archive (Figure 8.1 (3)). When
``IBIPORTAL_REDIS_URL`` is set, the one request per worker that would resolve (the worker's
leader) first asks Redis who resolves for every worker:

* **Lock**: ``SET <lock> <token> NX PX <lock_seconds>``. Whoever sets it leads; the expiry is a
  little longer than a resolution's deadline, so a leader killed mid-resolution blocks nobody
  past it (the lock simply vanishes), and a live leader always ends before it.
* **Outcome**: the leader stores what a follower needs (JSON, encoded by the caller) under a
  result key that lives ``result_seconds``, publishes it on the key's channel, and deletes its
  lock, all in one script (no moment where the lock is gone but the outcome is not there).
* **Waiting**: pub/sub rather than a blocking list pop, because one ``PUBLISH`` reaches every
  waiter of every worker however many there are, while a popped element reaches exactly one
  waiter, so the leader would have to count its waiters. A waiter subscribes and, once Redis has
  confirmed the subscription, reads the result key: an outcome published before is in the key,
  one published after arrives on the channel, so none is missed. It waits at most
  ``wait_seconds`` (the resolution deadline).
* **Fail open**: a leader that fails publishes nothing and releases its lock with an empty message,
  and its followers resolve by themselves at once. A wait that ends without an outcome (leader
  killed, Redis gone) resolves by itself, without Redis. With Redis down or stalled every request
  resolves as if Redis were not configured (single flight per worker still holds): the first
  failure is logged as one WARNING, and Redis is left alone for ``retry_seconds`` so that a stalled
  server costs one request its timeout, not every request (logged again once it answers).

Keys are SHA-256 digests of the caller's key text, so nothing readable about a request (its URL,
its client's IP list) is a Redis key name; outcomes hold what the shared trace database shows
anyway, never a secret.
"""
from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .. import metrics

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Prefix of every key and channel of this module.
PREFIX = "ibiportal:flight:"

#: Seconds a finished flight's outcome stays readable: enough for a waiter that subscribed just as
#: it was published (a few Redis round trips), short enough that it is no cache.
RESULT_SECONDS = 5.0

#: Seconds Redis is left alone after a failure before it is tried again.
RETRY_SECONDS = 5.0

#: Stores the outcome, publishes it, and deletes the lock only if it still holds this leader's
#: token (an expired lock may already belong to another leader).
_FINISH = """
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
redis.call('PUBLISH', KEYS[3], ARGV[2])
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""


@dataclass(frozen=True)
class Published:
    """The outcome a leader in another worker or node published, as its ``encode`` made it."""

    outcome: dict[str, Any]


class RedisFlight:
    """Runs at most one call per key at a time across every process sharing one Redis.

    ``client`` is a ``redis.Redis`` with short socket timeouts (the portal's own, from
    :class:`~ibiportal.storage.signal.RedisChanges`). Safe to share between threads.
    """

    def __init__(self, client, *, lock_seconds: float, wait_seconds: float,
                 result_seconds: float = RESULT_SECONDS, retry_seconds: float = RETRY_SECONDS) -> None:
        import redis  # only deployments with IBIPORTAL_REDIS_URL need the package loaded

        self._errors = redis.RedisError
        self.client = client
        self.lock_ms = round(lock_seconds * 1000)
        self.wait_seconds = wait_seconds
        self.result_ms = round(result_seconds * 1000)
        self.retry_seconds = retry_seconds
        self._finish = client.register_script(_FINISH)
        self._down_until: float | None = None  # set while Redis is left alone after a failure
        self._state = threading.Lock()

    def run(self, key: str, lead: Callable[[], T], encode: Callable[[T], dict[str, Any]]) -> T | Published:
        """``lead()`` if this caller leads (or Redis cannot say who does), its result published as
        ``encode(result)``; else the leader's published outcome, once it comes.

        ``lead`` is called at most once; an exception from it propagates (the followers are
        released at once and resolve by themselves)."""
        names = _names(key)
        token = secrets.token_hex(8)
        if self._resting():
            return lead()
        try:
            leads = self.client.set(names.lock, token, nx=True, px=self.lock_ms)
        except self._errors as error:
            self._failed(error)
            return lead()
        self._answered()
        if not leads:
            outcome = self._wait(names)
            return lead() if outcome is None else Published(outcome)
        text = ""
        try:
            result = lead()
            text = json.dumps(encode(result), separators=(",", ":"))
            return result
        finally:
            try:
                self._finish(keys=[names.lock, names.result, names.channel], args=[token, text, self.result_ms])
            except self._errors as error:
                self._failed(error)  # the followers' wait ends by the deadline, the lock by its expiry

    def _wait(self, names: _Names) -> dict[str, Any] | None:
        """The leader's outcome, or ``None`` when none comes within ``wait_seconds`` (or Redis fails)."""
        deadline = time.monotonic() + self.wait_seconds
        pubsub = self.client.pubsub()
        try:
            pubsub.subscribe(names.channel)
            while (left := deadline - time.monotonic()) > 0:
                message = pubsub.get_message(timeout=left)
                if message is None:
                    continue
                if message["type"] == "subscribe":  # confirmed: from now on nothing is missed
                    text = self.client.get(names.result)
                elif message["type"] == "message":
                    text = message["data"]
                else:
                    continue
                if text is not None:
                    return json.loads(text) if text else None  # empty: the leader failed
            return None
        except self._errors as error:
            self._failed(error)
            return None
        finally:
            try:
                pubsub.close()
            except self._errors:
                pass  # the connection is dropped with it

    def _resting(self) -> bool:
        with self._state:
            return self._down_until is not None and time.monotonic() < self._down_until

    def _failed(self, error: Exception) -> None:
        metrics.unreachable("redis")
        with self._state:
            first = self._down_until is None
            self._down_until = time.monotonic() + self.retry_seconds
        if first:
            logger.warning("Redis unreachable, single flight is per worker until it is back: %s", error)

    def _answered(self) -> None:
        with self._state:
            was_down, self._down_until = self._down_until is not None, None
        if was_down:
            logger.warning("Redis reachable again: single flight spans workers and nodes")


@dataclass(frozen=True)
class _Names:
    lock: str
    result: str
    channel: str


def _names(key: str) -> _Names:
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
    return _Names(f"{PREFIX}{digest}:lock", f"{PREFIX}{digest}:result", f"{PREFIX}{digest}")
