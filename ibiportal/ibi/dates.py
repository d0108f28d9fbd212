"""The instant an IBI suffix stands for, as an exact :class:`~decimal.Decimal` Unix time.

Both suffix forms encode the same UTC date (file 004, Algorithms 2 and 6), possibly with a
fraction of a second. Dates are decimals, never binary floats (STANDARD.md §1.3), and a
date's *fraction digits* are the digits after the point exactly as the Decimal writes them:
``Decimal("1287588115.10")`` has fraction digits ``10``. Both suffix forms are functions of
the whole seconds and those digits, which is how the original Tcl (``CreateSuffix`` and
``ConvertFromRepositorySuffix``, file 001) treats them.

Supported dates run from the IBIp epoch 1995-08-01T00:00:00Z (Unix 807235200, Algorithm 6
line 2: earlier dates have no IBIp suffix, so this project rejects them in both forms) to
9999-12-31T23:59:59Z (the largest date with a 4-digit year, Table 6.1 ``year = 4*DIGIT``).
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal

from ibiportal.errors import ParseError

#: 1995-08-01T00:00:00Z in Unix time: the origin of IBIp suffixes (Algorithm 6, line 2).
EPOCH = 807235200
#: 9999-12-31T23:59:59Z in Unix time: the last whole second with a 4-digit year.
LAST_SECOND = 253402300799
_UNIX_ORIGIN = datetime(1970, 1, 1, tzinfo=timezone.utc)


def check_seconds(seconds: int, position: int | None = None, field: str | None = None) -> None:
    """Raise :class:`ParseError` when whole seconds fall outside the supported range."""
    if seconds < EPOCH:
        raise ParseError(
            f"date is before 1995-08-01T00:00:00Z (Unix {EPOCH}), the origin of IBI suffixes",
            position=position,
            field=field,
        )
    if seconds > LAST_SECOND:
        raise ParseError("date after 9999-12-31T23:59:59Z is not supported", position=position, field=field)


def split_date(date: Decimal, field: str = "date") -> tuple[int, str]:
    """``(whole seconds, fraction digits)`` of a date, checked; digits ``""`` when none."""
    if not isinstance(date, Decimal) or not date.is_finite():
        raise ParseError(f"a date is a finite decimal.Decimal Unix time, not {date!r}", field=field)
    whole, _, fraction = format(date, "f").partition(".")
    seconds = int(whole)
    check_seconds(seconds, field=field)
    return seconds, fraction


def join_date(seconds: int, fraction: str) -> Decimal:
    """The date with these whole seconds and fraction digits (inverse of :func:`split_date`)."""
    return Decimal(f"{seconds}.{fraction}") if fraction else Decimal(seconds)


def utc_datetime(seconds: int) -> datetime:
    """The UTC calendar date and time of whole Unix seconds (exact integer arithmetic)."""
    return _UNIX_ORIGIN + timedelta(seconds=seconds)


def unix_seconds(moment: datetime) -> int:
    """Whole Unix seconds of an aware UTC datetime (inverse of :func:`utc_datetime`)."""
    return (moment - _UNIX_ORIGIN) // timedelta(seconds=1)


def utc_iso(date: Decimal) -> str:
    """ISO 8601 UTC text of a date, e.g. ``2009-02-16T17:46:00Z``, with its fraction digits."""
    whole, _, fraction = format(date, "f").partition(".")
    text = utc_datetime(int(whole)).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{fraction}Z" if fraction else f"{text}Z"
