"""The temporal distributor: Algorithm 4 of file 004 (§6, Table 6.2) as a pure function.

Each identification subsystem issues its suffix dates on a grid of granularity ``r``
seconds, strictly increasing, and writes each date as short as the previous one allows.
:func:`next_date` is one run of Algorithm 4 with its global ``last-date-for-suffix``
passed in and its ``WAIT(delay)`` handed back: the caller waits ``delay`` seconds, then
issues ``date_for_suffix`` and persists it as the next ``last`` (STANDARD.md §1.3: persisted,
so no restart or second worker issues a date twice). No clock is read here.

Lines 8-16 shorten the date: starting from ``creation_date``, it is truncated to ever
coarser grids (r, 10r, ... up to 1 s, then 60 s) while the truncated date stays later than
``last``; the coarsest such date is issued. So a request long after the previous one gets
a whole minute (``2010/10.20.15.20``) and one in the same minute gets seconds.
All arithmetic is exact (:mod:`decimal`), as in the Tcl ``CreateSuffix`` of file 001.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, localcontext

from ibiportal.ibi.dates import split_date

#: The granularities this project supports (file 004 §6: G = {60, 1, 1/10, 1/100, ...}),
#: down to the microsecond.
GRANULARITIES = tuple(Decimal(value) for value in ("60", "1", "0.1", "0.01", "0.001", "0.0001", "0.00001", "0.000001"))
#: Algorithm 4 line 12: after 1 second, the next coarser grid is the minute.
_MINUTE = Decimal(60)
_TEN = Decimal(10)
#: Enough digits for any supported date at the finest granularity, with room to spare.
_PRECISION = 40


@dataclass(frozen=True)
class DistributorStep:
    """One run of Algorithm 4.

    ``creation_date`` is t'(i) (line 5), the instant the identifier is created;
    ``date_for_suffix`` is t(i) (line 16), the date to write in the suffix and to persist as
    the next ``last``; ``delay`` is ``max(0, creation_date - current)``, the WAIT of line 7.
    Dates are in shortest decimal form (no trailing zeros after the point).
    """

    creation_date: Decimal
    date_for_suffix: Decimal
    delay: Decimal


def _int(value: Decimal) -> Decimal:
    """Algorithm 4's INT: the integer part."""
    return value.to_integral_value(rounding=ROUND_DOWN)


def _shortest(value: Decimal) -> Decimal:
    """The same value without trailing zeros after the point, so suffixes are shortest."""
    return value.quantize(Decimal(1)) if value == _int(value) else value.normalize()


def validate_granularity(r: Decimal) -> Decimal:
    """Return ``r`` if it is one of :data:`GRANULARITIES`, else raise :class:`ValueError`."""
    if not isinstance(r, Decimal) or r not in GRANULARITIES:
        allowed = ", ".join(str(value) for value in GRANULARITIES)
        raise ValueError(f"granularity r must be a Decimal among {allowed}; got {r!r}")
    return r


def next_date(current: Decimal, last: Decimal | None, r: Decimal) -> DistributorStep:
    """Algorithm 4 (CREATEDATETOMOUNTSUFFIXOFIBIOFANITEM) for one request.

    ``current`` is the request date t_i (Unix time), ``last`` the previously issued
    ``date_for_suffix`` of this subsystem (``None`` on the very first request), ``r`` the
    granularity, one of :data:`GRANULARITIES` (it may change between calls: line 4 puts
    ``last`` on the new grid). Dates must be Decimals in the supported range (dates.py);
    a ``last`` later than ``current`` (clock stepped back) simply gives a longer delay.
    Raises :class:`ValueError` (``ParseError`` for the dates) on bad input.
    """
    validate_granularity(r)
    split_date(current, field="current")
    if last is not None:
        split_date(last, field="last")
    with localcontext() as context:
        context.prec = _PRECISION
        rounded = r * _int(current / r)  # line 1
        if last is None:  # lines 2-3
            last = rounded - r
        last = r * _int(last / r)  # line 4
        creation = max(last + r, rounded)  # line 5
        delay = creation - current  # line 6; line 7 (WAIT) is the caller's
        short, s = creation, r  # lines 8-9
        while last < short:  # line 10
            s = _TEN * s  # line 11
            if s == _TEN:  # line 12
                s = _MINUTE
            issued = short  # line 13
            if s > _MINUTE:  # line 14
                break
            short = s * _int(creation / s)  # line 15
        return DistributorStep(
            creation_date=_shortest(creation),
            date_for_suffix=_shortest(issued),  # line 16
            delay=max(Decimal(0), _shortest(delay)),
        )
