"""The instant an IBI suffix stands for, as an exact :class:`~decimal.Decimal` Unix time.

Both suffix forms encode the same UTC date (file 004, Algorithms 2 and 6), possibly with a
fraction of a second. Dates are decimals, never binary floats (STANDARD.md §1.3), and a
date's *fraction digits* are the digits after the point exactly as the Decimal writes them:
``Decimal("1287588115.10")`` has fraction digits ``10``. Both suffix forms are functions of
the whole seconds and those digits, which is how the original Tcl (``CreateSuffix`` and
``ConvertFromRepositorySuffix``, file 001) treats them.

Dates run from the Unix origin 1970-01-01T00:00:00Z, with years of four or more digits (Table
6.1 ``year = 4*DIGIT``: five-digit years too, STANDARD.md §7); calendar arithmetic is done on
integers here (proleptic Gregorian), since Python's ``datetime`` stops at year 9999. A date before
the IBIp epoch 1995-08-01T00:00:00Z (Unix 807235200, Algorithm 6 line 2) is a valid repository
name, which resolves as any other; only its IBIp form does not exist (:func:`check_ibip_seconds`).
"""
from __future__ import annotations

from decimal import Decimal

from ibiportal.errors import ParseError
from ibiportal.i18n import N_

#: 1995-08-01T00:00:00Z in Unix time: the origin of IBIp suffixes (Algorithm 6, line 2).
EPOCH = 807235200
#: 9999-12-31T23:59:59Z in Unix time: the last second Python's ``datetime`` writes (fast.py stops there).
LAST_SECOND = 253402300799
_DAY = 86400
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def check_seconds(seconds: int, position: int | None = None, field: str | None = None) -> None:
    """Raise :class:`ParseError` for whole seconds before the Unix origin (no supported date)."""
    if seconds < 0:
        raise ParseError(N_("date is before 1970-01-01T00:00:00Z, the earliest date supported"), position=position, field=field)


def check_ibip_seconds(seconds: int, position: int | None = None, field: str | None = None) -> None:
    """Raise :class:`ParseError` for a date that has no IBIp form: one before the IBIp epoch."""
    if seconds < EPOCH:
        raise ParseError(
            N_("date is before 1995-08-01T00:00:00Z, the origin of IBIp suffixes (Algorithm 6 counts seconds from it): this repository name has no IBIp form, though it is an IBI and resolves"),
            position=position,
            field=field,
        )


def split_date(date: Decimal, field: str = "date", *, ibip: bool = True) -> tuple[int, str]:
    """``(whole seconds, fraction digits)`` of a date, checked (from the IBIp epoch unless
    ``ibip`` is False); digits ``""`` when none."""
    if not isinstance(date, Decimal) or not date.is_finite():
        raise ParseError(N_("a date is a finite decimal.Decimal Unix time, not %(date)r", date=date), field=field)
    whole, _, fraction = format(date, "f").partition(".")
    seconds = int(whole)
    check_seconds(seconds, field=field)
    if ibip:
        check_ibip_seconds(seconds, field=field)
    return seconds, fraction


def join_date(seconds: int, fraction: str) -> Decimal:
    """The date with these whole seconds and fraction digits (inverse of :func:`split_date`)."""
    return Decimal(f"{seconds}.{fraction}") if fraction else Decimal(seconds)


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def month_days(year: int, month: int) -> int:
    """Days in a month of the proleptic Gregorian calendar."""
    return 29 if month == 2 and is_leap(year) else _MONTH_DAYS[month - 1]


def unix_seconds(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> int:
    """Whole Unix seconds of a UTC calendar time (days from civil: H. Hinnant's algorithm, on integers)."""
    shifted = year - (month <= 2)
    era = shifted // 400
    year_of_era = shifted - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    days = era * 146097 + day_of_era - 719468
    return days * _DAY + hour * 3600 + minute * 60 + second


def utc_fields(seconds: int) -> tuple[int, int, int, int, int, int]:
    """``(year, month, day, hour, minute, second)`` of whole Unix seconds (inverse of :func:`unix_seconds`)."""
    days, rest = divmod(seconds, _DAY)
    days += 719468
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + (3 if month_index < 10 else -9)
    year = year_of_era + era * 400 + (month <= 2)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    return year, month, day, hour, minute, second


def utc_iso(date: Decimal) -> str:
    """ISO 8601 UTC text of a date, e.g. ``2009-02-16T17:46:00Z``, with its fraction digits."""
    whole, _, fraction = format(date, "f").partition(".")
    year, month, day, hour, minute, second = utc_fields(int(whole))
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    return f"{text}.{fraction}Z" if fraction else f"{text}Z"
