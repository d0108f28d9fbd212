"""Positional numerals of the IBIp (file 004, §7, Tables 7.4-7.6).

An IBIp is opaque because its parts are integers re-written in base 27 over an alphabet
without the look-alike characters 0 1 I O V and the reserved Y Z (Table 7.6). The integers
themselves come from reading an IP address *as a numeral*: IPv4 text in base 11 over
``0123456789.`` (Table 7.4), IPv6 text in base 17 over ``0123456789abcdef:`` (Table 7.5).
The routines CONVERTTODECIMAL and CONVERTFROMDECIMAL of §7 are :func:`decode` and
:func:`encode`.

A numeral's value does not remember leading zero digits, so ``encode(decode(s))`` gives
back ``s`` only when ``s`` does not start with the alphabet's zero digit. That is why an IPv4
address starting with ``0`` cannot survive Algorithm 5 (see :func:`ip_to_decimal`).
"""
from __future__ import annotations

import ipaddress

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Message

#: Table 7.6: the 27 digits of an IBIp numeral, value 0 to 26.
BASE27_DIGITS = "23456789ABCDEFGHJKLMNPQRSTU"
#: Table 7.4: an IPv4 address read as a base-11 numeral ("." is the digit 10).
IPV4_DIGITS = "0123456789."
#: Table 7.5: an IPv6 address read as a base-17 numeral (":" is the digit 16).
IPV6_DIGITS = "0123456789abcdef:"
#: Characters Table 7.1 leaves out of the IBIp alphabet (look-alikes, and Y Z reserved).
EXCLUDED_IBIP_CHARACTERS = "01IOVYZ"
IPV6_HEXTETS = 8


def encode(value: int, digits: str) -> str:
    """CONVERTFROMDECIMAL: the numeral of a non-negative integer in base ``len(digits)``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"a numeral encodes a non-negative integer, not {value!r}")
    base = len(digits)
    out: list[str] = []
    while True:
        value, remainder = divmod(value, base)
        out.append(digits[remainder])
        if value == 0:
            return "".join(reversed(out))


def decode(numeral: str, digits: str, offset: int = 0) -> int:
    """CONVERTTODECIMAL: the integer a numeral over ``digits`` stands for.

    Raises :class:`ParseError` naming the first character outside the alphabet; positions
    are 1-based and shifted by ``offset`` so callers can report them in their whole input.
    """
    if not numeral:
        raise ParseError(N_("empty numeral"), position=offset + 1)
    base = len(digits)
    value = 0
    for index, character in enumerate(numeral):
        digit = digits.find(character)
        if digit < 0:
            raise ParseError(
                N_("character %(character)r is not a digit of this numeral (digits: %(digits)s)", character=character, digits=digits),
                position=offset + index + 1,
            )
        value = value * base + digit
    return value


def encode_base27(value: int) -> str:
    """An integer as an IBIp numeral (Table 7.6), e.g. ``19050`` → ``U5H`` (Table 7.3)."""
    return encode(value, BASE27_DIGITS)


def decode_base27(numeral: str, offset: int = 0) -> int:
    """The value of an IBIp numeral, case-insensitive (Table 7.1), e.g. ``U5H`` → 19050.

    The error for a character Table 7.1 excludes says so, since that is the usual mistake
    (an ``O`` typed for ``0``...).
    """
    upper = numeral.upper()
    for index, character in enumerate(upper):
        if character not in BASE27_DIGITS:
            raise ParseError(_not_a_digit(numeral[index]), position=offset + index + 1)
    return decode(upper, BASE27_DIGITS, offset)


def _not_a_digit(character: str) -> Message:
    if character.upper() in EXCLUDED_IBIP_CHARACTERS:
        return N_("character %(character)r is not in the IBIp alphabet (0 1 I O V Y Z are excluded, Table 7.1)",
                  character=character)
    if character.upper() in "WX":
        return N_("character %(character)r is a separator here, not a base-27 digit (Table 7.6)", character=character)
    return N_("character %(character)r is not a base-27 digit (Table 7.6: %(digits)s)", character=character,
              digits=BASE27_DIGITS)


def canonical_ip(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """Dotted-decimal IPv4; IPv6 compressed in lower-case hexadecimal (RFC 5952).

    Written out here rather than taken from ``IPv6Address.compressed`` because Python 3.13
    changed that text for IPv4-mapped addresses (``::ffff:1.2.3.4``): the numeral, and so
    the IBIp prefix, must not depend on the Python version.
    """
    if address.version == 4:
        return str(address)
    hextets = [f"{int(hextet, 16):x}" for hextet in address.exploded.split(":")]
    best_start, best_length, start = 0, 0, None
    for index, hextet in enumerate([*hextets, "end"]):
        if hextet == "0":
            start = index if start is None else start
            continue
        if start is not None and index - start > best_length:
            best_start, best_length = start, index - start
        start = None
    if best_length > 1:
        hextets[best_start : best_start + best_length] = [""]
        if best_start == 0:
            hextets.insert(0, "")
        if best_start + best_length == IPV6_HEXTETS:
            hextets.append("")
    return ":".join(hextets)


def ip_to_decimal(ip: str) -> tuple[int, int]:
    """The IP read as a numeral (Algorithm 5, lines 6 and 10): ``(value, version)``.

    IPv4 is read over Table 7.4 in dotted-decimal; IPv6 over Table 7.5 in its canonical
    compressed lower-case text (:func:`canonical_ip`), whatever form was typed (the standard's own example
    ``2001:252:0:1::2008:6`` is in that form). Raises :class:`ParseError` (field ``ip``) for
    an invalid address, a scoped IPv6 address, or one whose text starts with the digit ``0``
    (``0.0.0.0/8``, or an IPv6 text such as ``0:1::``): its leading zero would be lost.
    """
    try:
        address = ipaddress.ip_address(ip.strip())
    except ValueError as error:
        raise ParseError(N_("%(ip)r is not an IPv4 or IPv6 address", ip=ip), field="ip") from error
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
        raise ParseError(N_("scoped IPv6 address %(ip)r cannot be encoded", ip=ip), field="ip")
    text = canonical_ip(address)
    if text.startswith("0"):
        raise ParseError(
            N_("IP %(text)s cannot be encoded: read as a numeral its leading 0 would be lost", text=text),
            field="ip",
        )
    digits = IPV4_DIGITS if address.version == 4 else IPV6_DIGITS
    return decode(text, digits), address.version


def decimal_to_ip(value: int, version: int) -> str:
    """The inverse of :func:`ip_to_decimal`: the canonical text of the IP a value stands for.

    Any text the address parser accepts is taken (an IPv6 numeral need not be in compressed
    form); the canonical text is returned. Raises :class:`ParseError` (field ``ip``) when
    the numeral is not a valid address.
    """
    digits, address_class = (
        (IPV4_DIGITS, ipaddress.IPv4Address) if version == 4 else (IPV6_DIGITS, ipaddress.IPv6Address)
    )
    text = encode(value, digits)
    try:
        return canonical_ip(address_class(text))
    except ValueError as error:
        raise ParseError(N_("decodes to %(text)r, which is not an IPv%(version)s address", text=text, version=version), field="ip") from error
