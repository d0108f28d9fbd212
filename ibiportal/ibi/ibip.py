"""IBIp: the opaque IBI form built from an IP address (file 004, chapter 7).

``prefix "/" suffix`` over the alphabet of Table 7.1, e.g. ``8JMKD3MGP8W/34PGRBS``:

* prefix (Algorithm 5): the IP read as a numeral (numerals.py) in base 27, then ``W`` for
  IPv4 or ``X`` for IPv6, then the port in base 27 unless it is 800;
* suffix (Algorithm 6): whole seconds since 1995-08-01T00:00:00Z in base 27, then, when the
  date has a non-zero fraction of a second, ``W`` and the fraction digits read as one
  integer in base 27. This is what the Tcl ``ConvertFromRepositorySuffix`` (file 001) does:
  the fraction ``.3462`` is the integer 3462. Leading zeros cannot survive it: ``.05`` and
  ``.5`` both become ``W7``, which reads back as ``.5`` (conversion.py warns).

Normalized form: upper case, as the standard recommends. The parser accepts exactly what
Algorithms 5 and 6 can write: no numeral with a leading zero digit ``2`` (except the value
0 itself), no explicit port 800, no zero fraction. Anything else could not have been issued
and would give a second spelling of one identifier.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import ClassVar

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Message
from ibiportal.ibi.dates import EPOCH, join_date, split_date, utc_iso
from ibiportal.ibi.numerals import (
    BASE27_DIGITS,
    EXCLUDED_IBIP_CHARACTERS,
    decimal_to_ip,
    decode_base27,
    encode_base27,
    ip_to_decimal,
)
from ibiportal.ibi.syntax import MAX_PORT, MIN_PORT, SEPARATOR, check_port, check_text, separator_indexes

#: Algorithm 5 writes no port part for this port.
DEFAULT_PORT = 800
#: Algorithm 5: the separator after the coded IP says which IP version it is.
IPV4_SEPARATOR, IPV6_SEPARATOR = "W", "X"
_VERSION_OF_SEPARATOR = {IPV4_SEPARATOR: 4, IPV6_SEPARATOR: 6}
#: Algorithm 6, line 7: separates whole seconds from the coded fraction of a second.
FRACTION_SEPARATOR = "W"
#: Every character an IBIp may contain (Table 7.1), upper case.
IBIP_ALPHABET = frozenset(BASE27_DIGITS + IPV4_SEPARATOR + IPV6_SEPARATOR)
_ZERO_DIGIT = BASE27_DIGITS[0]


def ibip_prefix(ip: str, port: int = DEFAULT_PORT) -> str:
    """Algorithm 5: IP 150.163.34.243, port 800 → ``8JMKD3MGP8W``.

    Raises :class:`ParseError` with ``field="ip"`` or ``field="port"``.
    """
    if not isinstance(ip, str):
        raise ParseError(N_("IP must be a string, not %(type)s", type=type(ip).__name__), field="ip")
    check_port(port)
    value, version = ip_to_decimal(ip)
    separator = IPV4_SEPARATOR if version == 4 else IPV6_SEPARATOR
    coded_port = "" if port == DEFAULT_PORT else encode_base27(port)
    return f"{encode_base27(value)}{separator}{coded_port}"


def _check_alphabet(text: str, offset: int, part: str, separators: str) -> str:
    """Upper-case ``text``; raise naming the first character an IBIp ``part`` cannot hold.

    Each character is judged on its own, and only an ASCII one is upper-cased: ``ß`` would
    become two characters (``SS``) and ``ſ`` an ASCII ``S``, shifting or hiding the position.
    """
    for index, original in enumerate(text):
        character = original.upper() if original.isascii() else original
        if character in BASE27_DIGITS or character in separators:
            continue
        if character in EXCLUDED_IBIP_CHARACTERS:
            message = N_("character %(original)r is not in the IBIp alphabet (0 1 I O V Y Z are excluded, Table 7.1)",
                         original=original)
        elif character in IBIP_ALPHABET:
            message = _MISPLACED[part](original)
        else:
            message = N_("character %(original)r is not allowed in an IBIp (Table 7.1: letters and digits only)",
                         original=original)
        raise ParseError(message, offset + index + 1, part)
    return text.upper()


#: A character of the alphabet in the part that cannot hold it (each part's sentence whole, so
#: that a language other than English words it its own way).
_MISPLACED = {
    "prefix": lambda original: N_("character %(original)r cannot appear in an IBIp prefix", original=original),
    "suffix": lambda original: N_("character %(original)r cannot appear in an IBIp suffix", original=original),
}


def _decode_numeral(numeral: str, position: int, name: Message, part: str) -> int:
    """A canonical base-27 numeral: non-empty, no leading zero digit unless it is ``2``;
    ``name`` says which (a message: "coded IP")."""
    if not numeral:
        raise ParseError(N_("%(name)s missing", name=name), position, part)
    if len(numeral) > 1 and numeral.startswith(_ZERO_DIGIT):
        raise ParseError(
            N_("%(name)s %(numeral)r starts with the zero digit '2', which Algorithms 5-6 never write", name=name, numeral=numeral),
            position,
            part,
        )
    return decode_base27(numeral, position - 1)


@lru_cache(maxsize=1024)
def _decode_prefix(prefix: str, offset: int) -> tuple[str, str, int]:
    """Check a prefix; return ``(upper-case prefix, ip, port)``. Positions shifted by offset.

    Remembered: an Archive's items share a few prefixes, and decoding one (base 27, then the IP)
    was most of reading an IBIp, which a resolution does several times (``benchmarks/uncached.py``)."""
    upper = _check_alphabet(prefix, offset, "prefix", IPV4_SEPARATOR + IPV6_SEPARATOR)
    separators = [index for index, character in enumerate(upper) if character in _VERSION_OF_SEPARATOR]
    if not separators:
        raise ParseError(
            N_("IBIp prefix needs W (IPv4) or X (IPv6) after the coded IP (Algorithm 5)"),
            offset + len(prefix) + 1,
            "prefix",
        )
    if len(separators) > 1:
        raise ParseError(N_("only one W or X may appear in an IBIp prefix"), offset + separators[1] + 1, "prefix")
    cut = separators[0]
    value = _decode_numeral(upper[:cut], offset + 1, N_("coded IP"), "prefix")
    try:
        ip = decimal_to_ip(value, _VERSION_OF_SEPARATOR[upper[cut]])
    except ParseError as error:
        raise ParseError(N_("coded IP %(upper)s %(message)s", upper=upper[:cut], message=error.message), offset + 1, "ip") from error
    port = DEFAULT_PORT
    if cut + 1 < len(upper):
        port_position = offset + cut + 2
        port = _decode_numeral(upper[cut + 1 :], port_position, N_("port"), "prefix")
        if port == DEFAULT_PORT:
            raise ParseError(N_("port 800 is written as no port part (Algorithm 5)"), port_position, "port")
        if not MIN_PORT <= port <= MAX_PORT:
            raise ParseError(N_("port %(port)s out of range %(min_port)s-%(max_port)s", port=port, min_port=MIN_PORT, max_port=MAX_PORT), port_position, "port")
    return upper, ip, port


def decode_ibip_prefix(prefix: str) -> tuple[str, int]:
    """Algorithm 5 inverse: ``8JMKD3MGP8W`` → ``("150.163.34.243", 800)``.

    The IP comes back in canonical text (IPv6 compressed, lower case).
    """
    check_text(prefix)
    _, ip, port = _decode_prefix(prefix, 0)
    return ip, port


def ibip_suffix(date: Decimal) -> str:
    """Algorithm 6: Unix time 1234806360 → ``34PGRBS``; a fraction adds ``W`` + its digits.

    The fraction digits are those the Decimal writes (dates.py), read as one integer, so a
    fraction with leading zeros is not kept (see the module docstring). Raises
    :class:`ParseError` (field ``date``) for a date before the IBIp epoch, which has no IBIp form.
    """
    seconds, fraction = split_date(date)
    suffix = encode_base27(seconds - EPOCH)
    if fraction.strip("0"):
        return f"{suffix}{FRACTION_SEPARATOR}{encode_base27(int(fraction))}"
    return suffix


def _decode_suffix(suffix: str, offset: int) -> tuple[str, Decimal]:
    """Check a suffix; return ``(upper-case suffix, date)``. Positions shifted by offset."""
    upper = _check_alphabet(suffix, offset, "suffix", FRACTION_SEPARATOR)
    whole, separator, coded_fraction = upper.partition(FRACTION_SEPARATOR)
    seconds = EPOCH + _decode_numeral(whole, offset + 1, N_("coded date"), "suffix")
    if not separator:
        return upper, join_date(seconds, "")
    fraction_position = offset + len(whole) + 2
    if FRACTION_SEPARATOR in coded_fraction:
        second_w = fraction_position + coded_fraction.index(FRACTION_SEPARATOR)
        raise ParseError(N_("only one W may appear in an IBIp suffix"), second_w, "suffix")
    fraction = _decode_numeral(coded_fraction, fraction_position, N_("coded fraction of a second"), "suffix")
    if fraction == 0:
        raise ParseError(N_("a zero fraction of a second is written as no W part (Algorithm 6)"), fraction_position, "suffix")
    return upper, join_date(seconds, str(fraction))


def decode_ibip_suffix(suffix: str) -> Decimal:
    """Algorithm 6 inverse: ``34PGRBS`` → ``Decimal(1234806360)``; ``...W7`` adds ``.5``."""
    check_text(suffix)
    return _decode_suffix(suffix, 0)[1]


@dataclass(frozen=True)
class Ibip:
    """An IBIp (Table 7.1), e.g. ``8JMKD3MGP8W/34PGRBS``.

    Construct with :meth:`parse`, or directly from ``prefix`` and ``suffix`` (both are
    checked and upper-cased). ``ip`` and ``port`` are the decoded prefix (port 800 when
    the prefix has no port part); ``date`` is the exact Unix time of the suffix, a coded
    fraction ``n`` standing for the fraction digits ``str(n)``. Equality and hash use
    ``prefix`` and ``suffix`` only, i.e. the normalized text.
    """

    prefix: str
    suffix: str
    ip: str = field(init=False, compare=False, repr=False)
    port: int = field(init=False, compare=False, repr=False)
    date: Decimal = field(init=False, compare=False, repr=False)
    form: ClassVar[str] = "ibip"

    def __post_init__(self) -> None:
        prefix, ip, port = _decode_prefix(self.prefix, 0)
        suffix, date = _decode_suffix(self.suffix, len(self.prefix) + 1)
        object.__setattr__(self, "prefix", prefix)
        object.__setattr__(self, "suffix", suffix)
        object.__setattr__(self, "ip", ip)
        object.__setattr__(self, "port", port)
        object.__setattr__(self, "date", date)

    @classmethod
    def parse(cls, text: str) -> Ibip:
        """Parse a whole IBIp; :class:`ParseError` positions are 1-based in ``text``."""
        check_text(text)
        slashes = separator_indexes(text)
        if not slashes:
            raise ParseError(N_("missing '/' between IBIp prefix and suffix"), len(text) + 1)
        if len(slashes) > 1:
            raise ParseError(
                N_("an IBIp has 2 '/'-separated parts (prefix/suffix), found %(value)s", value=len(slashes) + 1),
                slashes[1] + 1,
            )
        return cls(text[: slashes[0]], text[slashes[0] + 1 :])

    @property
    def utc(self) -> str:
        """The suffix's date in ISO 8601 UTC, e.g. ``2009-02-16T17:46:00Z``."""
        return utc_iso(self.date)

    def __str__(self) -> str:
        return f"{self.prefix}{SEPARATOR}{self.suffix}"
