"""The fast path of reading an IBI: well-formed text by compiled patterns and integer arithmetic.

Converting a library's catalogue means 10⁵-10⁶ identifiers, nearly all well-formed. The precise
parsers (repository.py, ibip.py) judge every character in Python to name the faulty one and
where it is; that is what an error message needs, and it cost about 100 µs per identifier.
Here one compiled pattern per form accepts the usual spelling of what Algorithms 2 and 6 write,
the fields are checked by arithmetic, and the suffix is converted to the other form directly.

This path only has to be *sound*: what it accepts it reads exactly as the precise parsers do
(tests compare the two on the standard's examples and on generated identifiers). Whatever it
does not accept — malformed text, and well-formed text in an unusual spelling (a date written
with ``.00`` seconds, a fraction with leading zeros, a prefix without a dot or dash in its first
part) — gives ``None``, and the caller takes the precise path for the result or the error.
The prefix is only matched for its shape here: its labels, port and coded IP are checked by
the precise decoders, once per distinct prefix (conversion.py caches them).
"""
from __future__ import annotations

import re
from datetime import date
from typing import NamedTuple

from ibiportal.ibi.dates import EPOCH, LAST_SECOND
from ibiportal.ibi.grammar import IBIP_PREFIX, IBIP_SUFFIX, REPOSITORY_NAME
from ibiportal.ibi.numerals import BASE27_DIGITS
from ibiportal.ibi.syntax import MAX_LENGTH

_REPOSITORY_NAME = re.compile(REPOSITORY_NAME, re.ASCII | re.IGNORECASE)
"""Table 6.1 (grammar.py); the spelling Algorithms 1-2 write (no ``.00`` seconds without a
fraction, no fraction with a leading zero, a year of four digits) is checked after the match."""

_IBIP = re.compile(f"(?P<prefix>{IBIP_PREFIX})/(?P<suffix>{IBIP_SUFFIX})", re.ASCII | re.IGNORECASE)
"""Table 7.1 (grammar.py): coded IP, ``W`` or ``X``, coded port; coded seconds, ``W`` and coded fraction."""

_VALUE = {digit: value for value, digit in enumerate(BASE27_DIGITS)}
_ZERO = BASE27_DIGITS[0]
_TWO_DIGITS = [high + low for high in BASE27_DIGITS for low in BASE27_DIGITS]
"""Every two-digit numeral by value (0-728): a coded date is written two digits per division."""
_UNIX_DAY_ONE = date(1970, 1, 1).toordinal()


class FastReading(NamedTuple):
    """A well-formed IBI: its form, normalized prefix, suffix in both forms and UTC date (a tuple:
    made once per identifier on the hot path, where a frozen dataclass's checks cost a tenth)."""

    form: str
    prefix: str
    rep_suffix: str
    ibip_suffix: str
    utc: str


def read_fast(text: str) -> FastReading | None:
    """The reading of a well-formed IBI of either form, or ``None`` (take the precise path)."""
    if len(text) > MAX_LENGTH:
        return None
    slash = text.find("/")
    if "." in text[:slash] or "-" in text[:slash]:  # never in an IBIp; what makes a repository name
        return _repository_name(text) if _REPOSITORY_NAME.fullmatch(text) else None
    match = _IBIP.fullmatch(text)
    return None if match is None else _ibip(match)


def _repository_name(text: str) -> FastReading | None:
    """Algorithm 2 inverse, then Algorithm 6, on a repository name the pattern matched."""
    subdomain, word_port, year, time = text.split("/")
    month, day, hour, minute, *rest = time.split(".")
    second, fraction = (rest + [None, None])[:2]
    if len(year) != 4 or (second == "00" and fraction is None) or (fraction or "1")[0] == "0":
        return None  # Algorithm 2 writes none of these: the precise path reads them, or warns
    prefix, suffix = f"{subdomain}/{word_port}", f"{year}/{time}"
    second = second or "00"
    hours, minutes, seconds_ = int(hour), int(minute), int(second)
    if hours > 23 or minutes > 59 or seconds_ > 59:
        return None
    try:
        days = date(int(year), int(month), int(day)).toordinal() - _UNIX_DAY_ONE
    except ValueError:  # no such month or day
        return None
    seconds = days * 86400 + hours * 3600 + minutes * 60 + seconds_
    if seconds < EPOCH:
        return None
    coded = _encode(seconds - EPOCH)
    utc = f"{year}-{month}-{day}T{hour}:{minute}:{second}"
    if fraction is None:
        return FastReading("rep", prefix.lower(), suffix, coded, f"{utc}Z")
    return FastReading("rep", prefix.lower(), suffix, f"{coded}W{_encode(int(fraction))}", f"{utc}.{fraction}Z")


def _ibip(match: re.Match[str]) -> FastReading | None:
    """Algorithm 6 inverse, then Algorithm 2, on an IBIp the pattern matched."""
    suffix = match["suffix"].upper()
    coded_seconds, _, coded_fraction = suffix.partition("W")
    if (len(coded_seconds) > 1 and coded_seconds[0] == _ZERO) or coded_fraction[:1] == _ZERO:
        return None  # a leading zero digit, or a zero fraction: never written by Algorithm 6
    seconds = EPOCH + _decode(coded_seconds)
    if seconds > LAST_SECOND:
        return None
    days, second = divmod(seconds, 86400)
    hour, second = divmod(second, 3600)
    minute, second = divmod(second, 60)
    day = date.fromordinal(days + _UNIX_DAY_ONE)
    rep = f"{day.year:04d}/{day.month:02d}.{day.day:02d}.{hour:02d}.{minute:02d}"
    utc = f"{day.year:04d}-{day.month:02d}-{day.day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    if coded_fraction:
        fraction = str(_decode(coded_fraction))
        rep, utc = f"{rep}.{second:02d}.{fraction}", f"{utc}.{fraction}Z"
    else:
        rep, utc = (f"{rep}.{second:02d}" if second else rep), f"{utc}Z"
    return FastReading("ibip", match["prefix"].upper(), rep, suffix, utc)


def _encode(value: int) -> str:
    """Algorithm 6's numeral of a non-negative integer (numerals.encode_base27, two digits a step)."""
    parts = []
    while value >= 729:
        value, low = divmod(value, 729)
        parts.append(_TWO_DIGITS[low])
    parts.append(_TWO_DIGITS[value] if value >= 27 else BASE27_DIGITS[value])
    return "".join(reversed(parts))


def _decode(numeral: str) -> int:
    """An upper-case IBIp numeral the pattern matched (every character a digit of Table 7.6)."""
    value = 0
    for digit in numeral:
        value = value * 27 + _VALUE[digit]
    return value
