"""Property tests: every valid identifier round-trips; conversions and numerals are inverses."""
from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from ibiportal.ibi.conversion import convert
from ibiportal.ibi.dates import EPOCH, LAST_SECOND, join_date
from ibiportal.ibi.identifier import parse_ibi, split_ibi
from ibiportal.ibi.ibip import Ibip, decode_ibip_suffix, ibip_prefix, ibip_suffix
from ibiportal.ibi.numerals import BASE27_DIGITS, canonical_ip, decode_base27, encode_base27
from ibiportal.ibi.repository import RepositoryName, decode_rep_prefix, decode_rep_suffix, rep_prefix, rep_suffix

labels = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
top_labels = st.from_regex(r"[a-z]([a-z0-9-]{0,4}[a-z0-9])?", fullmatch=True)
hosts = st.builds(lambda first, middle, top: ".".join([first, *middle, top]), labels, st.lists(labels, max_size=3), top_labels)
ports = st.integers(min_value=1, max_value=65535)
seconds = st.integers(min_value=EPOCH, max_value=LAST_SECOND)
#: Fraction digits Algorithm 4 can issue and the IBIp form keeps: no leading zero.
fractions = st.one_of(st.just(""), st.integers(min_value=1, max_value=10**9).map(str))
dates = st.builds(join_date, seconds, fractions)
ips = st.ip_addresses().map(canonical_ip).filter(lambda text: not text.startswith("0"))


def random_case(flips: list[bool], text: str) -> str:
    """``text`` with the characters at the ``True`` positions of ``flips`` upper-cased."""
    padded = flips + [False] * len(text)
    return "".join(character.upper() if flip else character for character, flip in zip(text, padded))


@given(host=hosts, port=ports, date=dates, flips=st.lists(st.booleans(), max_size=60))
def test_repository_names_round_trip(host, port, date, flips):
    text = f"{rep_prefix(host, port)}/{rep_suffix(date)}"
    name = parse_ibi(random_case(flips, text))
    assert isinstance(name, RepositoryName)
    assert str(name) == text
    assert parse_ibi(str(name)) == name
    assert (name.host, name.port) == (host, port) == decode_rep_prefix(name.prefix)
    assert name.date == date and format(name.date, "f") == format(date, "f")
    assert split_ibi(f"{text}/doc/index.html") == (name, len(text))


@given(host=hosts, port=ports, date=dates, legacy=st.sampled_from(".@"))
def test_any_port_spelling_round_trips(host, port, date, legacy):
    word, _, subdomain = host.partition(".")
    text = f"{subdomain}/{word}{legacy}{port}/{rep_suffix(date)}"
    name = RepositoryName.parse(text)
    assert str(name) == text and (name.host, name.port) == (host, port)


@given(ip=ips, port=ports, date=dates, lower=st.booleans())
def test_ibips_round_trip(ip, port, date, lower):
    text = f"{ibip_prefix(ip, port)}/{ibip_suffix(date)}"
    ibip = parse_ibi(text.lower() if lower else text)
    assert isinstance(ibip, Ibip)
    assert str(ibip) == text
    assert parse_ibi(str(ibip)) == ibip
    assert (ibip.ip, ibip.port) == (ip, port)
    assert ibip.date == date and format(ibip.date, "f") == format(date, "f")
    assert split_ibi(f"{text}!:(oai_dc)") == (ibip, len(text))


@given(host=hosts, rep_port=ports, ip=ips, ibip_port=ports, date=dates)
def test_rep_to_ibip_to_rep_with_a_known_pair(host, rep_port, ip, ibip_port, date):
    pairs = [(rep_prefix(host, rep_port), ibip_prefix(ip, ibip_port))]
    rep = f"{pairs[0][0]}/{rep_suffix(date)}"
    forward = convert(rep, pairs)
    assert forward.ibip == f"{pairs[0][1]}/{ibip_suffix(date)}"
    assert (forward.prefix.ip, forward.prefix.port, forward.prefix.host) == (ip, ibip_port, host)
    backward = convert(forward.ibip, pairs)
    assert backward.rep == rep
    assert backward.utc == forward.utc
    assert forward.warnings == backward.warnings == ()


@given(value=st.integers(min_value=0, max_value=10**60))
def test_base27_round_trip(value):
    numeral = encode_base27(value)
    assert set(numeral) <= set(BASE27_DIGITS)
    assert decode_base27(numeral) == value
    assert decode_base27(numeral.lower()) == value


@given(numeral=st.text(alphabet=BASE27_DIGITS, min_size=1, max_size=30).filter(lambda s: s == "2" or s[0] != "2"))
def test_base27_numerals_without_leading_zero_are_canonical(numeral):
    assert encode_base27(decode_base27(numeral)) == numeral


@given(date=dates)
def test_suffix_dates_round_trip_both_forms(date):
    rep, ibip = rep_suffix(date), ibip_suffix(date)
    assert decode_rep_suffix(rep) == decode_ibip_suffix(ibip) == date
    assert rep_suffix(decode_ibip_suffix(ibip)) == rep
    assert ibip_suffix(decode_rep_suffix(rep)) == ibip


@given(whole=seconds, fraction=st.from_regex(r"0[0-9]*[1-9]", fullmatch=True).filter(lambda s: len(s) < 12))
def test_leading_zero_fractions_are_lossy_in_the_ibip_form_only(whole, fraction):
    date = join_date(whole, fraction)
    assert decode_rep_suffix(rep_suffix(date)) == date
    assert decode_ibip_suffix(ibip_suffix(date)) == Decimal(f"{whole}.{int(fraction)}") != date
