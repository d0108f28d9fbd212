"""Conversion between the forms (STANDARD.md §1.4) and the known prefix pairs."""
from __future__ import annotations

import pytest

from ibiportal.errors import ParseError
from ibiportal.ibi.servers import known_server
from ibiportal.ibi.conversion import convert
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS, equivalent_rep_prefixes, ibip_prefixes_for, rep_prefixes_for

SHAPE = {"input", "form", "rep", "ibip", "prefix", "suffix", "utc", "warnings"}
PREFIX_SHAPE = {"rep", "ibip", "host", "ip", "port", "source", "reference"}


def rep_prefix_of(identifier: str) -> str:
    return identifier.rsplit("/", 2)[0]


def test_same_item_both_forms(vectors):
    """Suffixes exactly; prefixes through the table, any spelling of the same host and port."""
    for entry in vectors["same_item_both_forms"]:
        forward = convert(entry["rep"], KNOWN_PREFIX_PAIRS).to_dict()
        assert forward["ibip"] == entry["ibip"], entry
        assert forward["rep"] == entry["rep"]
        assert forward["prefix"]["source"] == "table"
        backward = convert(entry["ibip"], KNOWN_PREFIX_PAIRS).to_dict()
        assert backward["suffix"] == forward["suffix"], entry
        assert backward["suffix"]["rep"] == entry["rep"].split("/", 2)[2]
        assert equivalent_rep_prefixes(rep_prefix_of(backward["rep"]), rep_prefix_of(entry["rep"])), entry
        assert backward["prefix"]["source"] == "table"
        assert backward["utc"] == forward["utc"] == entry.get("utc", forward["utc"])


def test_to_dict_shape_and_values_for_the_standards_example():
    result = convert("sid.inpe.br/mtc-m18@80/2009/02.16.17.46", KNOWN_PREFIX_PAIRS).to_dict()
    assert set(result) == SHAPE and set(result["prefix"]) == PREFIX_SHAPE
    assert result == {
        "input": "sid.inpe.br/mtc-m18@80/2009/02.16.17.46",
        "form": "rep",
        "rep": "sid.inpe.br/mtc-m18@80/2009/02.16.17.46",
        "ibip": "8JMKD3MGP8W/34PGRBS",
        "prefix": {
            "rep": "sid.inpe.br/mtc-m18@80",
            "ibip": "8JMKD3MGP8W",
            "host": "mtc-m18.sid.inpe.br",
            "ip": "150.163.34.243",
            "port": 800,
            "source": "table",
            "reference": known_server("sid.inpe.br/mtc-m18@80", "8JMKD3MGP8W").reference,
        },
        "suffix": {"rep": "2009/02.16.17.46", "ibip": "34PGRBS"},
        "utc": "2009-02-16T17:46:00Z",
        "warnings": [],
    }


def test_ibip_to_rep_uses_the_spelling_of_the_items_date_and_says_there_are_others():
    result = convert("8jmkd3mgp8w/35mme4e", KNOWN_PREFIX_PAIRS).to_dict()
    assert result["form"] == "ibip"
    assert result["rep"] == "sid.inpe.br/mtc-m18@80/2009/07.21.13.23"  # file 003 Example 9.2
    assert result["ibip"] == "8JMKD3MGP8W/35MME4E"
    assert (result["prefix"]["ip"], result["prefix"]["port"], result["prefix"]["host"]) == ("150.163.34.243", 800, "mtc-m18.sid.inpe.br")
    assert len(result["warnings"]) == 1 and "2 known repository-name spellings" in result["warnings"][0]


def test_unknown_prefix_is_said_plainly():
    result = convert("dpi.inpe.br/banon/1999/01.09.22.14", KNOWN_PREFIX_PAIRS).to_dict()
    assert result["ibip"] is None and result["rep"] == "dpi.inpe.br/banon/1999/01.09.22.14"
    assert result["prefix"] == {"rep": "dpi.inpe.br/banon", "ibip": None, "host": "banon.dpi.inpe.br", "ip": None, "port": None, "source": None, "reference": None}
    assert result["suffix"] == {"rep": "1999/01.09.22.14", "ibip": "9HFNHE"}
    assert [w for w in result["warnings"] if w.startswith("prefix unknown")]
    unknown_ibip = convert("J8LNKAN8PW/9HFNHE", KNOWN_PREFIX_PAIRS).to_dict()
    assert unknown_ibip["rep"] is None and unknown_ibip["prefix"]["rep"] is None
    assert (unknown_ibip["prefix"]["ip"], unknown_ibip["prefix"]["port"]) == ("150.163.2.174", 800)
    assert unknown_ibip["suffix"]["rep"] == "1999/01.09.22.14"
    assert unknown_ibip["warnings"][0].startswith("prefix unknown")


def test_user_supplied_ip_and_host_are_used_and_flagged():
    rep = convert("dpi.inpe.br/banon/1999/01.09.22.14", KNOWN_PREFIX_PAIRS, ip="150.163.2.174", port=802).to_dict()
    assert rep["ibip"] == "J8LNKAN8PW34M/9HFNHE"
    assert (rep["prefix"]["source"], rep["prefix"]["ip"], rep["prefix"]["port"]) == ("user", "150.163.2.174", 802)
    assert "not checked against anything" in rep["warnings"][0]
    ibip = convert("J8LNKAN8PW/9HFNHE", KNOWN_PREFIX_PAIRS, host="banon.dpi.inpe.br").to_dict()
    assert ibip["rep"] == "dpi.inpe.br/banon/1999/01.09.22.14"
    assert (ibip["prefix"]["source"], ibip["prefix"]["host"]) == ("user", "banon.dpi.inpe.br")
    with_port = convert("J8LNKAN8PW/9HFNHE", KNOWN_PREFIX_PAIRS, host="banon.dpi.inpe.br", port=8080).to_dict()
    assert with_port["rep"] == "dpi.inpe.br/banon.8080/1999/01.09.22.14"


def test_table_wins_over_a_different_user_value_with_a_warning():
    result = convert("8JMKD3MGP8W/34PGRBS", KNOWN_PREFIX_PAIRS, host="other.example.org").to_dict()
    assert result["prefix"]["rep"] == "sid.inpe.br/mtc-m18@80" and result["prefix"]["source"] == "table"
    assert any("differs from the known pair" in w for w in result["warnings"])
    same = convert("sid.inpe.br/mtc-m18/2009/02.16.17.46", KNOWN_PREFIX_PAIRS, ip="150.163.34.243").to_dict()
    assert same["warnings"] == []


def test_irrelevant_arguments_are_reported_as_ignored():
    rep = convert("sid.inpe.br/mtc-m18/2009/02.16.17.46", KNOWN_PREFIX_PAIRS, host="x.example.org", port=81).to_dict()
    assert any("host 'x.example.org' ignored" in w for w in rep["warnings"])
    assert any("port 81 ignored" in w for w in rep["warnings"])
    ibip = convert("8JMKD3MGP8W/34PGRBS", KNOWN_PREFIX_PAIRS, ip="1.2.3.4").to_dict()
    assert any("IP '1.2.3.4' ignored" in w for w in ibip["warnings"])


def test_leading_zero_fraction_warns_that_it_does_not_survive():
    result = convert("sid.inpe.br/mtc-m18/2010/10.20.15.21.55.05", KNOWN_PREFIX_PAIRS).to_dict()
    assert result["suffix"] == {"rep": "2010/10.20.15.21.55.05", "ibip": "38EREAMW7"}
    assert result["utc"] == "2010-10-20T15:21:55.05Z"
    assert any("leading zeros" in w and ".5" in w for w in result["warnings"])
    back = convert(result["ibip"], KNOWN_PREFIX_PAIRS).to_dict()
    assert back["suffix"]["rep"] == "2010/10.20.15.21.55.5"


@pytest.mark.parametrize("suffix", ["2010/10.20.15.21.00", "2010/10.20.15.21.55.0"])
def test_non_algorithm_2_suffix_warns_it_converts_back_differently(suffix):
    result = convert(f"sid.inpe.br/mtc-m18/{suffix}", KNOWN_PREFIX_PAIRS).to_dict()
    assert any("not written as Algorithm 2 writes" in w for w in result["warnings"])


def test_fraction_with_trailing_zero_survives_both_ways():
    result = convert("sid.inpe.br/mtc-m18/2010/10.20.15.21.55.10", KNOWN_PREFIX_PAIRS).to_dict()
    assert result["suffix"]["ibip"] == "38EREAMWC" and result["warnings"] == []
    assert convert(result["ibip"], KNOWN_PREFIX_PAIRS).to_dict()["suffix"]["rep"] == "2010/10.20.15.21.55.10"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"ip": "999.1.1.1"}, "ip"), ({"ip": "1.2.3.4", "port": 0}, "port"), ({"known_pairs": [("not a prefix", "8JMKD3MGP8W")]}, "known_pairs")],
)
def test_bad_user_values_raise_with_the_field(kwargs, field):
    kwargs.setdefault("known_pairs", [])
    with pytest.raises(ParseError) as caught:
        convert("dpi.inpe.br/banon/1999/01.09.22.14", **kwargs)
    assert caught.value.field == field


def test_prefix_table_lookups():
    assert ibip_prefixes_for("SID.inpe.br/mtc-m18.80", KNOWN_PREFIX_PAIRS) == ("8JMKD3MGP8W",)
    assert rep_prefixes_for("8jmkd3mgp7w", KNOWN_PREFIX_PAIRS) == ("sid.inpe.br/mtc-m19", "sid.inpe.br/mtc-m19@80")
    assert rep_prefixes_for("LK47B6W", KNOWN_PREFIX_PAIRS) == ("iconet.com.br/banon",)
    assert ibip_prefixes_for("dpi.inpe.br/banon", KNOWN_PREFIX_PAIRS) == ()
    assert equivalent_rep_prefixes("sid.inpe.br/mtc-m18@80", "sid.inpe.br/mtc-m18")
    assert not equivalent_rep_prefixes("sid.inpe.br/mtc-m18@81", "sid.inpe.br/mtc-m18")
    assert not equivalent_rep_prefixes("sid.inpe.br/mtc-m18", "sid.inpe.br/mtc-m19")


def test_ambiguous_table_entries_are_warned_about():
    pairs = [("a.example.org/x", "8JMKD3MGP8W"), ("b.example.org/y", "8JMKD3MGP8W"), ("a.example.org/x", "8JMKD3MGP7W")]
    ibip = convert("8JMKD3MGP8W/34PGRBS", pairs).to_dict()
    assert ibip["prefix"]["rep"] == "a.example.org/x"
    assert any("different hosts or ports" in w for w in ibip["warnings"])
    rep = convert("a.example.org/x/2009/02.16.17.46", pairs).to_dict()
    assert rep["prefix"]["ibip"] == "8JMKD3MGP8W"
    assert any("2 IBIp prefixes" in w for w in rep["warnings"])


@pytest.mark.parametrize(("ibip", "rep"), [
    ("8JMKD3MGP8W/35MME4E", "sid.inpe.br/mtc-m18@80/2009/07.21.13.23"),  # file 003 Example 9.2
    ("8JMKD3MGP7W/3EPGUE5", "sid.inpe.br/mtc-m19/2013/09.04.12.27.57"),  # file 003 Example 6.2
    ("8JMKD3MGP8W/3C9EP6P", "sid.inpe.br/mtc-m18/2012/07.12.18.08"),  # file 003 §10.2
    ("LK47B6W/362SFKH", "iconet.com.br/banon/2009/09.09.22.01"),  # one spelling known: that one
])
def test_conversion_gives_the_spelling_in_use_on_the_items_date(ibip, rep):
    """Port 80 was written ``@80`` until August 2010 (file 004); the standard's own pairs say so."""
    from ibiportal.ibi.conversion import convert_precisely
    assert convert(ibip).rep == convert_precisely(ibip).rep == rep
