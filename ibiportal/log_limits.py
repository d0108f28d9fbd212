"""Warnings rate-limited per cause: one line per cause per interval, with what was held back.

A fault that outlasts a request (Redis down, an Archive refusing) would otherwise log once per
request: 901 identical lines in 10 s while minting with Redis stopped buried everything else.
Here the first warning of a cause is written at once, later ones within ``interval`` seconds
are counted, and the next line of that cause (or its recovery) says how many were held back.
Every warning and error a request or a background loop can repeat goes through one of these
(``tests/reliability/test_log_floods.py`` floods each); a cause names a kind of fault, from a
small set (a status, an exception's type), never a value a client chose.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_INTERVAL_SECONDS = 60.0


@dataclass
class _Cause:
    written_at: float
    held_back: int = 0


class LimitedLog:
    """Writes ``logger``'s warnings at most once per cause per ``interval`` seconds (thread-safe)."""

    def __init__(self, logger: logging.Logger, interval: float = DEFAULT_INTERVAL_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self.interval = interval
        self.clock = clock
        self._causes: dict[str, _Cause] = {}
        self._lock = threading.Lock()

    def warning(self, cause: str, message: str, *args: object) -> None:
        """``message % args`` now if ``cause`` was not written in the last interval, else counted."""
        self._write(logging.WARNING, cause, message, args)

    def error(self, cause: str, message: str, *args: object) -> None:
        """As :meth:`warning`, at ERROR."""
        self._write(logging.ERROR, cause, message, args)

    def exception(self, cause: str, message: str, *args: object) -> None:
        """As :meth:`warning`, at ERROR with the traceback being handled: a defect that every
        request meets is one traceback a minute, not one per request."""
        self._write(logging.ERROR, cause, message, args, exc_info=True)

    def _write(self, level: int, cause: str, message: str, args: tuple, exc_info: bool = False) -> None:
        now = self.clock()
        with self._lock:
            known = self._causes.get(cause)
            if known is not None and now - known.written_at < self.interval:
                known.held_back += 1
                return
            self._causes[cause] = _Cause(now)
        held_back = known.held_back if known is not None else 0
        self.logger.log(level, message + self._held_back(held_back), *args, exc_info=exc_info,
                        stacklevel=3)  # the caller's line

    def recovered(self, cause: str, message: str, *args: object) -> None:
        """The fault of ``cause`` is over: ``message`` once (with what was held back), then nothing
        until the cause is warned of again. Cheap when it was not warned of: call it on success."""
        if cause not in self._causes:  # the common case, without the lock
            return
        with self._lock:
            known = self._causes.pop(cause, None)
        if known is not None:
            self.logger.warning(message + self._held_back(known.held_back), *args, stacklevel=2)

    def _held_back(self, count: int) -> str:
        if not count:
            return ""
        return f" ({count} more like it since the last one logged)"
