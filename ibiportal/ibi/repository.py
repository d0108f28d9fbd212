"""Repository names: the IBI form built from a host name (file 004, chapter 6).

``subdomain "/" word [("." | "@") port] "/" year "/" month "." day "." hour "." minute
["." second ["." fraction]]`` (Table 6.1), e.g. ``sid.inpe.br/mtc-m18@80/2009/02.16.17.46``.

Normalized form (``str()``, equality, hash): the prefix in lower case, since host names are
case-insensitive and the standard recommends lower case; everything else exactly as written.
In particular the port part is kept as issued: ``@80``, ``.80`` and no port name the same
host and port but are different identifiers (``sid.inpe.br/mtc-m18@80/...`` is the identifier
URLib issued, not ``sid.inpe.br/mtc-m18/...``). :func:`decode_rep_prefix` gives the host and
port, so callers can tell spellings of one subsystem apart from different subsystems.
Stricter than Table 6.1 in two places, each because Algorithms 1-2 never write the rejected
text: a port has no leading zero, seconds are 00-59. A year has four or more digits (STANDARD.md
§7). A name dated before the IBIp epoch 1995-08-01 is valid (it resolves); it has no IBIp form.
"""
from __future__ import annotations

import string
from dataclasses import dataclass, field
from decimal import Decimal
from typing import ClassVar

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Message
from ibiportal.ibi.dates import check_seconds, join_date, month_days, split_date, unix_seconds, utc_fields, utc_iso
from ibiportal.ibi.syntax import MAX_PORT, MIN_PORT, SEPARATOR, check_port, check_text, separator_indexes

#: Algorithm 1 omits this port from the prefix.
DEFAULT_PORT = 80
#: Separators between word and port: "." (recommended) and "@" (before August 2010).
PORT_SEPARATORS = ".@"
#: Host-name limits of RFC 1034 §3.1, to which Table 6.1 refers.
MAX_LABEL_LENGTH = 63
MAX_HOST_LENGTH = 253
#: A repository name is four "/"-separated parts (file 004 §6): four nested directories.
SEGMENTS = 4
_LABEL_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-")
_DIGITS = frozenset(string.digits)
#: The "."-separated fields of the suffix's second part, in order (Table 6.1).
_TIME_FIELDS = ("month", "day", "hour", "minute", "second", "fraction of a second")
_REQUIRED_TIME_FIELDS = 4
_FIELD_RANGES = {"month": (1, 12), "hour": (0, 23), "minute": (0, 59), "second": (0, 59)}
_FIELD_NAMES = {
    "year": N_("year"), "month": N_("month"), "day": N_("day"), "hour": N_("hour"), "minute": N_("minute"),
    "second": N_("second"), "fraction of a second": N_("fraction of a second"),
}
"""Each field of the date as a message names it (in the reader's language)."""
_FIRST_YEAR = 1970  # the Unix origin, the earliest date supported (see dates.py)
_YEAR_DIGITS = 4


def _check_label(label: str, position: int, *, last: bool, field_name: str) -> None:
    """One dot-separated word of a host name (Table 6.1 ``word`` / ``last-word``)."""
    if not label:
        raise ParseError(N_("empty label in host name (two dots in a row, or a leading dot)"), position, field_name)
    for index, character in enumerate(label):
        if character not in _LABEL_CHARACTERS:
            raise ParseError(
                N_("character %(character)r is not allowed in a host name (letters, digits, '-')", character=character),
                position + index,
                field_name,
            )
    if label.startswith("-"):
        raise ParseError(N_("label %(label)r starts with '-'", label=label), position, field_name)
    if label.endswith("-"):
        raise ParseError(N_("label %(label)r ends with '-'", label=label), position + len(label) - 1, field_name)
    if len(label) > MAX_LABEL_LENGTH:
        raise ParseError(N_("label longer than %(max_label_length)s characters (RFC 1034)", max_label_length=MAX_LABEL_LENGTH), position, field_name)
    if last and label[0] not in string.ascii_letters:
        raise ParseError(
            N_("last label %(label)r (top-level domain) must start with a letter (Table 6.1 last-word)", label=label),
            position,
            field_name,
        )


def _check_labels(text: str, position: int, *, field_name: str) -> None:
    """Dot-separated labels of a host name or subdomain (one trailing dot allowed)."""
    labels = text.split(".")
    if len(labels) > 1 and labels[-1] == "":
        labels.pop()
    for index, label in enumerate(labels):
        _check_label(label, position, last=index == len(labels) - 1, field_name=field_name)
        position += len(label) + 1


def rep_prefix(host: str, port: int = DEFAULT_PORT) -> str:
    """Algorithm 1: ``mtc-m18.sid.inpe.br``, 80 → ``sid.inpe.br/mtc-m18``.

    The first word of the host name becomes the second part, the rest the first part;
    port 80 is omitted, any other port is appended with ``.`` (the recommended separator).
    As printed, Algorithm 1 drops *every* dot (its lines 5-6 never enqueue one); the intent,
    and the standard's own example, is to split at the first dot only, which is done here.
    Raises :class:`ParseError` with ``field="host"`` or ``field="port"``.
    """
    if not isinstance(host, str):
        raise ParseError(N_("host must be a string, not %(type)s", type=type(host).__name__), field="host")
    name = host.lower().removesuffix(".")
    if "." not in name:
        raise ParseError(
            N_("host %(host)r needs at least two labels: its first word and a subdomain", host=host), field="host"
        )
    if len(name) > MAX_HOST_LENGTH:
        raise ParseError(N_("host name longer than %(max_host_length)s characters", max_host_length=MAX_HOST_LENGTH), field="host")
    _check_labels(name, 1, field_name="host")
    check_port(port)
    word, _, subdomain = name.partition(".")
    word_port = word if port == DEFAULT_PORT else f"{word}.{port}"
    return f"{subdomain}{SEPARATOR}{word_port}"


def _parse_prefix(prefix: str, offset: int) -> tuple[str, int]:
    """Check a prefix (Table 6.1); return ``(host, port)``. Positions shifted by ``offset``."""
    subdomain, slash, word_port = prefix.partition(SEPARATOR)
    if not slash:
        raise ParseError(N_("missing '/' between subdomain and word"), offset + len(prefix) + 1, "prefix")
    _check_labels(subdomain, offset + 1, field_name="prefix")
    word_start = offset + len(subdomain) + 2
    cut = min((word_port.find(sep) for sep in PORT_SEPARATORS if sep in word_port), default=len(word_port))
    word, port_text = word_port[:cut], word_port[cut + 1 :]
    _check_label(word, word_start, last=False, field_name="prefix")
    if cut == len(word_port):
        port = DEFAULT_PORT
    else:
        port = _parse_port(port_text, word_start + cut + 1)
    return f"{word}.{subdomain.removesuffix('.')}".lower(), port


def _parse_port(text: str, position: int) -> int:
    if not text:
        raise ParseError(N_("port number missing after the port separator"), position, "port")
    for index, character in enumerate(text):
        if character not in _DIGITS:
            raise ParseError(N_("character %(character)r in the port is not a digit", character=character), position + index, "port")
    port = int(text)
    if not MIN_PORT <= port <= MAX_PORT:
        raise ParseError(N_("port %(port)s out of range %(min_port)s-%(max_port)s", port=port, min_port=MIN_PORT, max_port=MAX_PORT), position, "port")
    if text.startswith("0"):
        raise ParseError(N_("port %(text)r has a leading zero", text=text), position, "port")
    return port


def decode_rep_prefix(prefix: str) -> tuple[str, int]:
    """Algorithm 1 inverse: ``sid.inpe.br/mtc-m18@80`` → ``("mtc-m18.sid.inpe.br", 80)``."""
    check_text(prefix)
    return _parse_prefix(prefix, 0)


def rep_suffix(date: Decimal) -> str:
    """Algorithm 2: the suffix of a date, e.g. 1234806360 → ``2009/02.16.17.46``.

    Seconds are written only when not ``00``, unless a fraction follows (lines 9-12); the
    fraction digits are those the Decimal writes (see dates.py), an all-zero fraction
    counting as none. Raises :class:`ParseError` (field ``date``) outside the supported range.
    """
    seconds, fraction = split_date(date, ibip=False)
    year, month, day, hour, minute, second = utc_fields(seconds)
    suffix = f"{year:04d}/{month:02d}.{day:02d}.{hour:02d}.{minute:02d}"
    if fraction.strip("0"):
        return f"{suffix}.{second:02d}.{fraction}"
    return f"{suffix}.{second:02d}" if second else suffix


def _parse_suffix(suffix: str, offset: int) -> Decimal:
    """Check a suffix (Table 6.1) and return its date. Positions shifted by ``offset``."""
    year_text, slash, time_text = suffix.partition(SEPARATOR)
    if not slash:
        raise ParseError(N_("missing '/' between year and month"), offset + len(suffix) + 1, "suffix")
    _check_digits(year_text, offset + 1, "year")
    if len(year_text) < _YEAR_DIGITS:
        raise ParseError(N_("year %(year_text)r must have %(year_digits)s or more digits", year_text=year_text, year_digits=_YEAR_DIGITS), offset + 1, "suffix")
    year = int(year_text)
    if year < _FIRST_YEAR:
        raise ParseError(N_("year %(year_text)s is before %(first_year)s: dates start at %(first_year)s-01-01", year_text=year_text, first_year=_FIRST_YEAR), offset + 1, "suffix")
    fields, fraction = _parse_time_fields(year, time_text, offset + len(year_text) + 2)
    seconds = unix_seconds(year, *fields)
    check_seconds(seconds, offset + 1, "suffix")
    return join_date(seconds, fraction)


def decode_rep_suffix(suffix: str) -> Decimal:
    """Algorithm 2 inverse: ``2009/02.16.17.46`` → ``Decimal(1234806360)``."""
    check_text(suffix)
    return _parse_suffix(suffix, 0)


def _check_digits(text: str, position: int, name: str) -> None:
    if not text:
        raise ParseError(N_("%(name)s missing", name=_FIELD_NAMES[name]), position, "suffix")
    for index, character in enumerate(text):
        if character not in _DIGITS:
            raise ParseError(N_("character %(character)r in the %(name)s is not a digit", character=character,
                                name=_FIELD_NAMES[name]), position + index, "suffix")


def _parse_time_fields(year: int, text: str, position: int) -> tuple[list[int], str]:
    """``month.day.hour.minute[.second[.fraction]]`` → (month..second values, fraction digits)."""
    parts = text.split(".")
    if len(parts) > len(_TIME_FIELDS):
        extra_dot = position + sum(len(part) + 1 for part in parts[: len(_TIME_FIELDS)]) - 1
        raise ParseError(N_("nothing may follow the fraction of a second"), extra_dot, "suffix")
    if len(parts) < _REQUIRED_TIME_FIELDS:
        missing = _TIME_FIELDS[len(parts)]
        raise ParseError(N_("%(missing)s missing (month.day.hour.minute required)", missing=_FIELD_NAMES[missing]),
                         position + len(text), "suffix")
    values: list[int] = []
    fraction = ""
    for name, part in zip(_TIME_FIELDS, parts):
        _check_digits(part, position, name)
        if name == _TIME_FIELDS[-1]:
            fraction = part
        elif len(part) != 2:
            raise ParseError(N_("%(name)s %(part)r must have 2 digits", name=_FIELD_NAMES[name], part=part), position, "suffix")
        else:
            value = int(part)
            low, high = _field_range(name, year, values)
            if not low <= value <= high:
                raise ParseError(_out_of_range(name, part, low, high, year, values), position, "suffix")
            values.append(value)
        position += len(part) + 1
    return values, fraction


def _out_of_range(name: str, part: str, low: int, high: int, year: int, earlier: list[int]) -> Message:
    """A field out of its range; a day's range names its month, which decides it."""
    if name == "day":
        return N_("day %(part)s out of range %(low)02d-%(high)02d in %(year)04d-%(month)02d",
                  part=part, low=low, high=high, year=year, month=earlier[0])
    return N_("%(name)s %(part)s out of range %(low)02d-%(high)02d", name=_FIELD_NAMES[name], part=part, low=low, high=high)


def _field_range(name: str, year: int, earlier: list[int]) -> tuple[int, int]:
    """Allowed values of a time field; the day's depends on year and month (leap years)."""
    if name == "day":
        return 1, month_days(year, earlier[0])
    return _FIELD_RANGES[name]


@dataclass(frozen=True)
class RepositoryName:
    """A repository name (Table 6.1), e.g. ``sid.inpe.br/mtc-m18@80/2009/02.16.17.46``.

    Construct with :meth:`parse`, or directly from ``prefix`` and ``suffix`` (both are
    checked and the prefix lower-cased). ``host`` and ``port`` are the prefix read back
    through Algorithm 1 (port 80 when omitted); ``date`` is the exact Unix time of the
    suffix. Equality and hash use ``prefix`` and ``suffix`` only, i.e. the normalized text.
    """

    prefix: str
    suffix: str
    host: str = field(init=False, compare=False, repr=False)
    port: int = field(init=False, compare=False, repr=False)
    date: Decimal = field(init=False, compare=False, repr=False)
    form: ClassVar[str] = "rep"

    def __post_init__(self) -> None:
        host, port = _parse_prefix(self.prefix, 0)
        date = _parse_suffix(self.suffix, len(self.prefix) + 1)
        object.__setattr__(self, "prefix", self.prefix.lower())
        object.__setattr__(self, "host", host)
        object.__setattr__(self, "port", port)
        object.__setattr__(self, "date", date)

    @classmethod
    def parse(cls, text: str) -> RepositoryName:
        """Parse a whole repository name; :class:`ParseError` positions are 1-based in ``text``."""
        check_text(text)
        slashes = separator_indexes(text)
        if len(slashes) != SEGMENTS - 1:
            position = len(text) + 1 if len(slashes) < SEGMENTS - 1 else slashes[SEGMENTS - 1] + 1
            raise ParseError(
                N_("a repository name has %(segments)s '/'-separated parts (subdomain/word/year/month.day.hour.minute), found %(value)s", segments=SEGMENTS, value=len(slashes) + 1),
                position,
            )
        cut = slashes[1]
        return cls(text[:cut], text[cut + 1 :])

    @property
    def utc(self) -> str:
        """The suffix's date in ISO 8601 UTC, e.g. ``2009-02-16T17:46:00Z``."""
        return utc_iso(self.date)

    def __str__(self) -> str:
        return f"{self.prefix}{SEPARATOR}{self.suffix}"
