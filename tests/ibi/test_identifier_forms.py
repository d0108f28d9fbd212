"""Both IBI forms: prefixes (Algorithms 1, 5), suffixes (Algorithms 2, 6), value classes."""
from __future__ import annotations

from decimal import Decimal

import pytest

from ibiportal.errors import ParseError
from ibiportal.ibi.identifier import ibi_form, parse_ibi
from ibiportal.ibi.ibip import Ibip, decode_ibip_prefix, decode_ibip_suffix, ibip_prefix, ibip_suffix
from ibiportal.ibi.repository import RepositoryName, decode_rep_prefix, decode_rep_suffix, rep_prefix, rep_suffix

EXAMPLE_1_DATE = Decimal(1234806360)  # file 004 Example 2: POSIX second of 2009-02-16T17:46Z


def test_rep_prefix_vectors(vectors):
    assert vectors["rep_prefix"]
    for entry in vectors["rep_prefix"]:
        assert rep_prefix(entry["host"], entry["port"]) == entry["prefix"]
        assert decode_rep_prefix(entry["prefix"]) == (entry["host"], entry["port"])


def test_ibip_prefix_vectors(vectors):
    assert vectors["ibip_prefix"]
    for entry in vectors["ibip_prefix"]:
        assert ibip_prefix(entry["ip"], entry["port"]) == entry["prefix"]
        assert decode_ibip_prefix(entry["prefix"]) == (entry["ip"], entry["port"])


@pytest.mark.parametrize(
    ("host", "port", "prefix"),
    [
        ("mtc-m18.sid.inpe.br", 80, "sid.inpe.br/mtc-m18"),
        ("MTC-M18.SID.INPE.BR.", 80, "sid.inpe.br/mtc-m18"),
        ("iris.sid.inpe.br", 1912, "sid.inpe.br/iris.1912"),
        ("banon.iconet.com.br", 80, "iconet.com.br/banon"),
        ("inpe.br", 80, "br/inpe"),
    ],
)
def test_algorithm_1_splits_at_the_first_dot_and_omits_port_80(host, port, prefix):
    assert rep_prefix(host, port) == prefix


@pytest.mark.parametrize(
    ("ip", "port", "prefix"),
    [
        ("150.163.34.243", 800, "8JMKD3MGP8W"),
        ("150.163.34.242", 800, "8JMKD3MGP7W"),
        ("150.163.2.174", 800, "J8LNKAN8PW"),
        ("150.163.2.174", 1, "J8LNKAN8PW3"),
        ("150.163.2.174", 19050, "J8LNKAN8PWU5H"),
        ("2001:252:0:1::2008:6", 800, "7URMDHLL9SSN2D89MX"),
    ],
)
def test_algorithm_5(ip, port, prefix):
    assert ibip_prefix(ip, port) == prefix
    assert decode_ibip_prefix(prefix) == (ip, port)


def test_the_seed_iconet_prefix_decodes_to_loopback():
    assert decode_ibip_prefix("LK47B6W") == ("127.0.0.1", 800)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: rep_prefix("localhost", 80), "host"),
        (lambda: rep_prefix("a_b.example.org", 80), "host"),
        (lambda: rep_prefix("-a.example.org", 80), "host"),
        (lambda: rep_prefix("a.example.9rg", 80), "host"),
        (lambda: rep_prefix("a" * 64 + ".org", 80), "host"),
        (lambda: rep_prefix("a.example.org", 0), "port"),
        (lambda: rep_prefix("a.example.org", 65536), "port"),
        (lambda: rep_prefix("a.example.org", "80"), "port"),
        (lambda: ibip_prefix("150.163.34.999", 800), "ip"),
        (lambda: ibip_prefix("150.163.34.243", 0), "port"),
        (lambda: ibip_prefix("150.163.34.243", 70000), "port"),
        (lambda: ibip_prefix("0.0.0.1", 800), "ip"),
    ],
)
def test_generation_inputs_are_validated_naming_the_field(call, field):
    with pytest.raises(ParseError) as caught:
        call()
    assert caught.value.field == field


def test_example_suffixes_of_both_forms():
    assert rep_suffix(EXAMPLE_1_DATE) == "2009/02.16.17.46"
    assert ibip_suffix(EXAMPLE_1_DATE) == "34PGRBS"
    assert decode_rep_suffix("2009/02.16.17.46") == decode_ibip_suffix("34PGRBS") == EXAMPLE_1_DATE


@pytest.mark.parametrize(
    ("date", "rep", "ibip"),
    [
        ("1287588115", "2010/10.20.15.21.55", "38EREAM"),
        ("1287588060", "2010/10.20.15.21", "38ERE8L"),
        ("1287588115.3462", "2010/10.20.15.21.55.3462", "38EREAMW6N8"),
        ("1287588115.5", "2010/10.20.15.21.55.5", "38EREAMW7"),
        ("1287588060.5", "2010/10.20.15.21.00.5", "38ERE8LW7"),
        ("1287588115.0", "2010/10.20.15.21.55", "38EREAM"),
        ("807235200", "1995/08.01.00.00", "2"),
    ],
)
def test_algorithms_2_and_6_with_seconds_and_fractions(date, rep, ibip):
    assert rep_suffix(Decimal(date)) == rep
    assert ibip_suffix(Decimal(date)) == ibip
    assert decode_rep_suffix(rep) == decode_ibip_suffix(ibip) == Decimal(date)


def test_fraction_digits_are_one_integer_as_in_the_tcl():
    # ConvertFromRepositorySuffix (file 001): the fraction digits are ConvertFromDecimal'ed.
    assert ibip_suffix(Decimal("1287588115.3462")).endswith("W" + "6N8")
    assert 4 * 27**2 + 20 * 27 + 6 == 3462  # digits 6 N 8 are 4 20 6 (Table 7.6)
    assert decode_ibip_suffix("38EREAMW6N8") == Decimal("1287588115.3462")
    # Leading zeros cannot survive: .05 and .5 share an IBIp suffix.
    assert ibip_suffix(Decimal("1287588115.05")) == ibip_suffix(Decimal("1287588115.5"))


@pytest.mark.parametrize("bad", [Decimal("-1"), Decimal("NaN"), 1234806360.0])
def test_suffix_generation_refuses_dates_out_of_range(bad):
    with pytest.raises(ParseError) as caught:
        rep_suffix(bad)
    assert caught.value.field == "date"
    with pytest.raises(ParseError):
        ibip_suffix(bad)


def test_a_date_before_the_ibip_epoch_has_a_repository_name_and_no_ibip():
    """STANDARD.md §7: a repository name may be dated before 1995-08-01; only its IBIp does not exist."""
    assert rep_suffix(Decimal("807235199")) == "1995/07.31.23.59.59"
    assert decode_rep_suffix("1994/07.20.15.45") == Decimal("774719100")
    with pytest.raises(ParseError, match="before 1995-08-01T00:00:00Z, the origin of IBIp suffixes"):
        ibip_suffix(Decimal("807235199"))


@pytest.mark.parametrize(("rep", "seconds"), [
    ("10000/01.01.00.00", 253402300800),  # the first second past four-digit years
    ("12345/02.16.17.46.05", 327407420765),  # 2345-02-16 plus 25 Gregorian cycles of 146097 days
])
def test_years_of_five_digits_convert_both_ways(rep, seconds):
    """Table 6.1: a year of four or more digits (STANDARD.md §7)."""
    date = decode_rep_suffix(rep)
    assert date == Decimal(seconds) and rep_suffix(date) == rep
    assert decode_ibip_suffix(ibip_suffix(date)) == date


def test_same_item_both_forms_share_the_date(vectors):
    entries = vectors["same_item_both_forms"]
    assert len(entries) == 6
    for entry in entries:
        rep, ibip = parse_ibi(entry["rep"]), parse_ibi(entry["ibip"])
        assert isinstance(rep, RepositoryName) and isinstance(ibip, Ibip)
        assert rep.date == ibip.date, entry
        assert rep_suffix(ibip.date) == rep.suffix, entry
        assert ibip_suffix(rep.date) == ibip.suffix, entry
        if "utc" in entry:
            assert rep.utc == ibip.utc == entry["utc"]


def test_repository_name_anatomy():
    name = RepositoryName.parse("sid.INPE.br/MTC-m18@80/2009/02.16.17.46")
    assert str(name) == "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"
    assert (name.form, name.prefix, name.suffix) == ("rep", "sid.inpe.br/mtc-m18@80", "2009/02.16.17.46")
    assert (name.host, name.port, name.date, name.utc) == ("mtc-m18.sid.inpe.br", 80, EXAMPLE_1_DATE, "2009-02-16T17:46:00Z")
    iris = RepositoryName.parse("sid.inpe.br/iris@1912/2005/07.20.00.37.33")
    assert (iris.host, iris.port, iris.utc) == ("iris.sid.inpe.br", 1912, "2005-07-20T00:37:33Z")
    assert RepositoryName.parse("dpi.inpe.br/banon/1999/01.09.22.14").port == 80
    fraction = RepositoryName.parse("a.example.org/b.8080/2010/10.20.15.21.55.10")
    assert (fraction.port, fraction.date, fraction.utc) == (8080, Decimal("1287588115.10"), "2010-10-20T15:21:55.10Z")


def test_repository_names_keep_the_port_spelling_as_issued():
    legacy = RepositoryName.parse("sid.inpe.br/mtc-m18@80/2009/02.16.17.46")
    dotted = RepositoryName.parse("sid.inpe.br/mtc-m18.80/2009/02.16.17.46")
    plain = RepositoryName.parse("sid.inpe.br/mtc-m18/2009/02.16.17.46")
    assert len({legacy, dotted, plain}) == 3
    assert {(n.host, n.port, n.date) for n in (legacy, dotted, plain)} == {("mtc-m18.sid.inpe.br", 80, EXAMPLE_1_DATE)}


def test_equality_and_hash_follow_the_normalized_text():
    assert RepositoryName.parse("SID.inpe.br/mtc-M18/2009/02.16.17.46") == RepositoryName("sid.inpe.br/mtc-m18", "2009/02.16.17.46")
    assert hash(Ibip.parse("8jmkd3mgp8w/34pgrbs")) == hash(Ibip("8JMKD3MGP8W", "34PGRBS"))
    assert Ibip.parse("8jmkd3mgp8w/34pgrbs") != RepositoryName.parse("sid.inpe.br/mtc-m18/2009/02.16.17.46")


def test_ibip_anatomy():
    ibip = Ibip.parse("8jmkd3mgp8w/34pgrbs")
    assert str(ibip) == "8JMKD3MGP8W/34PGRBS"
    assert (ibip.form, ibip.prefix, ibip.suffix, ibip.ip, ibip.port) == ("ibip", "8JMKD3MGP8W", "34PGRBS", "150.163.34.243", 800)
    assert (ibip.date, ibip.utc) == (EXAMPLE_1_DATE, "2009-02-16T17:46:00Z")
    six = Ibip.parse("7URMDHLL9SSN2D89MXU5H/38EREAMW6N8")
    assert (six.ip, six.port, six.utc) == ("2001:252:0:1::2008:6", 19050, "2010-10-20T15:21:55.3462Z")


def test_value_classes_are_frozen():
    ibip = Ibip.parse("8JMKD3MGP8W/34PGRBS")
    with pytest.raises(AttributeError):
        ibip.prefix = "LK47B6W"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("sid.inpe.br/mtc-m18@80/2009/02.16.17.46", "rep"),
        ("br/inpe/2009/02.16.17.46", "rep"),
        ("br/inpe@80/2009", "rep"),
        ("8JMKD3MGP8W/34PGRBS", "ibip"),
        ("8JMKD3MGP8W/34PGRBS+?a=b/2009", "ibip"),
        ("8JMKD3MGP8W", "ibip"),
    ],
)
def test_form_decision(text, form):
    assert ibi_form(text) == form
