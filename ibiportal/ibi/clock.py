"""The portal's one clock: a function answering the current time as an aware UTC ``datetime``.

``create_app`` (or a command) builds the :class:`~ibiportal.application.Application` with one
clock, and every part that reads the time (minting's Algorithm 4, idempotency keys, the times
storage writes, registration) is handed that one, so a test that moves it moves them all. This
module only names the type, the real clock, and the two readings the standard's algorithms and
the database take of it.

Durations (timeouts, deadlines, the pace of probes) are measured on ``time.monotonic`` instead:
they must not jump when the wall clock is set, and nothing stored or issued depends on them.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from decimal import Decimal

Clock = Callable[[], datetime]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def utc_now() -> datetime:
    """The real clock, in UTC."""
    return datetime.now(timezone.utc)


def unix_time(at: datetime) -> Decimal:
    """``at`` as an exact decimal Unix time, microseconds included (no binary float error): the
    ``current date`` input of Algorithm 4 (file 004 §7.2)."""
    delta = at - _EPOCH
    return Decimal(delta.days * 86400 + delta.seconds) + Decimal(delta.microseconds).scaleb(-6)

