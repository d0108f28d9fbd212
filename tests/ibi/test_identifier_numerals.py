"""Numerals of file 004 §7: Tables 7.2 and 7.3, and the alphabets of Tables 7.4-7.6."""
from __future__ import annotations

import ipaddress

import pytest

from ibiportal.errors import ParseError
from ibiportal.ibi.numerals import (
    BASE27_DIGITS,
    IPV4_DIGITS,
    IPV6_DIGITS,
    canonical_ip,
    decimal_to_ip,
    decode,
    decode_base27,
    encode,
    encode_base27,
    ip_to_decimal,
)


def test_alphabets_are_the_standards_tables():
    assert BASE27_DIGITS == "23456789ABCDEFGHJKLMNPQRSTU"
    assert len(BASE27_DIGITS) == 27 and not set(BASE27_DIGITS) & set("01IOVYZWX")
    assert IPV4_DIGITS == "0123456789."
    assert IPV6_DIGITS == "0123456789abcdef:"


def test_base27_vectors(vectors):
    assert len(vectors["base27"]) == 5
    for entry in vectors["base27"]:
        assert encode_base27(entry["decimal"]) == entry["ibip"], entry
        assert decode_base27(entry["ibip"]) == entry["decimal"], entry
        assert decode_base27(entry["ibip"].lower()) == entry["decimal"], entry


def test_ip_numeral_vectors(vectors):
    assert len(vectors["ip_numerals"]) == 2
    for entry in vectors["ip_numerals"]:
        value, version = ip_to_decimal(entry["ip"])
        assert value == entry["decimal"], entry
        assert decimal_to_ip(value, version) == entry["ip"], entry


def test_ipv6_is_read_in_canonical_compressed_form_whatever_was_typed():
    typed = "2001:0252:0000:0001:0000:0000:2008:0006"
    assert ip_to_decimal(typed) == ip_to_decimal("2001:252:0:1::2008:6") == (478239719325051908572237, 6)
    assert ip_to_decimal("2001:252:0:1::2008:6".upper())[0] == 478239719325051908572237


def test_ipv4_mapped_ipv6_is_read_in_hexadecimal_on_every_python():
    assert canonical_ip(ipaddress.IPv6Address("::ffff:1.2.3.4")) == "::ffff:102:304"
    assert ip_to_decimal("::ffff:1.2.3.4") == ip_to_decimal("::ffff:102:304")
    assert decimal_to_ip(ip_to_decimal("::ffff:1.2.3.4")[0], 6) == "::ffff:102:304"


@pytest.mark.parametrize(("value", "digits", "numeral"), [(0, BASE27_DIGITS, "2"), (26, BASE27_DIGITS, "U"), (27, BASE27_DIGITS, "32"), (10, IPV4_DIGITS, "."), (16, IPV6_DIGITS, ":")])
def test_encode_small_values(value, digits, numeral):
    assert encode(value, digits) == numeral
    assert decode(numeral, digits) == value


@pytest.mark.parametrize("bad", [-1, True, 1.5])
def test_encode_rejects_non_natural_numbers(bad):
    with pytest.raises(ValueError, match="non-negative integer"):
        encode(bad, BASE27_DIGITS)


@pytest.mark.parametrize(
    ("numeral", "position", "words"),
    [("U5O", 3, "excluded"), ("3W", 2, "separator"), ("A-B", 2, "not a base-27 digit"), ("", 1, "empty")],
)
def test_decode_base27_names_the_bad_character(numeral, position, words):
    with pytest.raises(ParseError, match=words) as caught:
        decode_base27(numeral)
    assert caught.value.position == position


@pytest.mark.parametrize(
    ("ip", "words"),
    [("0.1.2.3", "leading 0"), ("0:1::", "leading 0"), ("fe80::1%eth0", "scoped"), ("300.1.1.1", "not an IPv4 or IPv6"), ("host.example", "not an IPv4 or IPv6")],
)
def test_unencodable_ips_are_refused_with_field_ip(ip, words):
    with pytest.raises(ParseError, match=words) as caught:
        ip_to_decimal(ip)
    assert caught.value.field == "ip"


def test_decimal_to_ip_refuses_a_numeral_that_is_no_address():
    with pytest.raises(ParseError, match="not an IPv4 address") as caught:
        decimal_to_ip(8, 4)
    assert caught.value.field == "ip"
