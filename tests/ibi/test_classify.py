"""What a pasted text is (the home page's box): IBI of either form, persistent URL, or an error with its position."""
from __future__ import annotations

import pytest

from ibiportal.ibi.classify import KIND_IBIP, KIND_REP, KIND_UNKNOWN, KIND_URL, classify
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.repository import decode_rep_prefix
from ibiportal.ibi.url import parse_persistent_url
from tests.ibi.test_url_modifiers import CASE_ONLY
from tests.standard_examples import EXAMPLE_6_1

PORTAL = "https://portal.example/"


def same_prefix(rep_a: str, rep_b: str) -> bool:
    """Two repository names of one host and port (``sid.inpe.br/mtc-m18@80`` ≡ ``sid.inpe.br/mtc-m18``)."""
    return decode_rep_prefix(parse_ibi(rep_a).prefix) == decode_rep_prefix(parse_ibi(rep_b).prefix)


def test_both_forms_of_the_standards_items(vectors):
    """Each item of the seed vectors: its repository name and its IBIp are recognised as such, and
    each gives the other form (the prefix pairs of file 003 are known), same date."""
    assert vectors["same_item_both_forms"]
    for item in vectors["same_item_both_forms"]:
        rep, ibip = classify(item["rep"], base=PORTAL), classify(item["ibip"], base=PORTAL)
        assert (rep.kind, rep.form, rep.ibi) == (KIND_REP, "rep", item["rep"]), item["source"]
        assert (ibip.kind, ibip.form, ibip.ibi) == (KIND_IBIP, "ibip", item["ibip"]), item["source"]
        assert rep.ibip == ibip.ibip == item["ibip"]
        assert rep.rep == item["rep"] and same_prefix(ibip.rep, item["rep"])
        assert parse_ibi(ibip.rep).date == parse_ibi(item["rep"]).date
        if "utc" in item:
            assert rep.conversion.utc == ibip.conversion.utc == item["utc"]
        # A bare IBI becomes a persistent URL on the given base (this portal's).
        assert ibip.persistent_url == PORTAL + item["ibip"]
        assert rep.persistent_url == PORTAL + item["rep"]
        assert ibip.resolver is None and ibip.resolver_path == "/" + item["ibip"]
        assert ibip.error is None and ibip.recognised


def test_ibi_is_read_case_insensitively_and_normalized():
    result = classify("  8jmkd3mgp8w/34pgrbs\n")
    assert result.kind == KIND_IBIP and result.ibi == "8JMKD3MGP8W/34PGRBS"


def test_persistent_urls_of_the_standard(vectors):
    """Examples 8.5, 8.7, 8.8 and §10.2 on urlib.net: a URL, the IBI it names in both forms, its own resolver kept."""
    for vector in vectors["verblist_union"]:
        result = classify(vector["url"], base=PORTAL)
        assert result.kind == KIND_URL, vector["source"]
        assert result.ibi == vector["parsedibiurl.ibi"]
        assert result.rep is not None and result.ibip is not None
        assert result.resolver == "http://urlib.net/"
        url = parse_persistent_url(vector["url"])
        assert result.persistent_url == url.canonical_symbols()
        assert result.url.to_table_8_8() == url.to_table_8_8()


@pytest.mark.parametrize(
    ("text", "ibi", "persistent_url", "resolver_path"),
    [
        # Any resolver host and scheme: the URL stays on its own host.
        ("https://other.host/8JMKD3MGP8W/35MMLL8!", "8JMKD3MGP8W/35MMLL8",
         "https://other.host/8JMKD3MGP8W/35MMLL8!", "/8JMKD3MGP8W/35MMLL8!"),
        # This portal's own URL, with a query verb: canonical form (verbs as symbols).
        (PORTAL + "8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetMetadata(oai_dc)", "8JMKD3MGP8W/35MMLL8",
         PORTAL + "8JMKD3MGP8W/35MMLL8:(oai_dc)", "/8JMKD3MGP8W/35MMLL8:(oai_dc)"),
        # A host-less path and a bare IBI with a modifier go onto the base.
        ("/D7N2U8HW/39G4TD2!", "D7N2U8HW/39G4TD2", PORTAL + "D7N2U8HW/39G4TD2!", "/D7N2U8HW/39G4TD2!"),
        ("LK47B6W/362SFKH+(pt)", "LK47B6W/362SFKH", PORTAL + "LK47B6W/362SFKH+(pt)", "/LK47B6W/362SFKH+(pt)"),
        # A file path after a bare IBI; file 002's legacy `??`.
        ("8JMKD3MGP8W/35MMLL8/doc/a.pdf", "8JMKD3MGP8W/35MMLL8", PORTAL + "8JMKD3MGP8W/35MMLL8/doc/a.pdf",
         "/8JMKD3MGP8W/35MMLL8/doc/a.pdf"),
        ("http://urlib.net/8JMKD3MGP8W/35MMLL8??", "8JMKD3MGP8W/35MMLL8", "http://urlib.net/8JMKD3MGP8W/35MMLL8:",
         "/8JMKD3MGP8W/35MMLL8:"),
        # Example 6.1: an Archive's service address with query pairs is a URL too; the pairs stay.
        (EXAMPLE_6_1, "sid.inpe.br/mtc-m19@80/2009/08.21.17.02", EXAMPLE_6_1, EXAMPLE_6_1.removeprefix("http://mtc-m16d.sid.inpe.br")),
    ],
)
def test_urls_with_modifiers_paths_and_queries(text, ibi, persistent_url, resolver_path):
    result = classify(text, base=PORTAL)
    assert (result.kind, result.ibi) == (KIND_URL, ibi)
    assert result.persistent_url == persistent_url
    assert result.resolver_path == resolver_path


def test_modifiers_of_table_8_2_after_an_ibi_are_urls(vectors):
    for mdf in vectors["modifiers_valid"]["items"]:
        result = classify("8JMKD3MGP8W/35MMLL8" + mdf, base=PORTAL)
        assert result.kind == KIND_URL, mdf
        assert str(result.url.modifier) == mdf


def test_invalid_modifiers_are_unknown_with_the_position_of_the_fault(vectors):
    ibi = "8JMKD3MGP8W/35MMLL8"
    for mdf in vectors["modifiers_invalid"]["items"]:
        result = classify(ibi + mdf)
        if mdf in CASE_ONLY:  # read case-blind (tests/ibi/test_url_modifiers.py)
            assert result.recognised, mdf
            continue
        assert result.kind == KIND_UNKNOWN and not result.recognised, mdf
        # The persistent-URL parser read past the IBI: its error is the one kept.
        assert result.error.position > len(ibi), (mdf, str(result.error))
        assert result.error.field == "q"


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("8JMKD3MGP8W/34PGRBO", 19, "IBIp alphabet"),
        ("  8JMKD3MGP8W/34PGRBO", 21, "IBIp alphabet"),  # positions count the spaces as given
        ("sid.inpe.br/mtc-m18/2009/13.16.17.46", 26, "month 13"),
        ("hello", 6, "missing '/'"),
        ("ftp://urlib.net/8JMKD3MGP8W/34PGRBS", 1, "not a scheme"),
        ("http://urlib.net/", 18, "no IBI"),
        ("http://urlib.net/8JMKD3MGP8W/35MMLL8O", 37, "IBIp alphabet"),
        ("/8JMKD3MGP8W/35MMLL8!!", 22, "last edition is asked once"),
        ("x" * 300, 256, "longer than 255"),
    ],
)
def test_unrecognisable_text_says_what_and_where(text, position, fragment):
    result = classify(text)
    assert result.kind == KIND_UNKNOWN
    assert result.error.position == position
    assert fragment in result.error.message
    assert result.to_dict()["error"] == {"message": result.error.message, "position": position, "field": "q"}
    assert result.ibi is None and result.persistent_url is None and result.resolver_path is None


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_empty_text_asks_for_something(text):
    result = classify(text)
    assert result.kind == KIND_UNKNOWN
    assert "paste an IBI" in result.error.message and result.error.position is None


def test_unknown_prefix_gives_one_form_and_says_so():
    """An IBIp whose prefix no pair knows: recognised, the repository name unknown, a warning why."""
    result = classify("D7N2U8HW/39G4TD2")
    assert result.kind == KIND_IBIP and result.ibip == "D7N2U8HW/39G4TD2" and result.rep is None
    assert any("prefix unknown" in warning for warning in result.conversion.warnings)


def test_extra_prefix_pairs_are_used():
    """Pairs added by administrators (the storage's table) give the other form."""
    known = classify("D7N2U8HW/39G4TD2", known_pairs=[("example.org/node", "D7N2U8HW")])
    assert known.rep is not None and known.rep.startswith("example.org/node/")


def test_to_dict_is_json_shaped():
    result = classify("http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)", base=PORTAL).to_dict()
    assert result == {
        "input": "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
        "kind": "url",
        "description": "a persistent URL",
        "ibi": "8JMKD3MGP8W/35MMLL8",
        "published": "8JMKD3MGP8W/35MMLL8",
        "form": "ibip",
        "rep": "sid.inpe.br/mtc-m18@80/2009/07.21.14.43",  # the spelling in use in 2009
        "ibip": "8JMKD3MGP8W/35MMLL8",
        "utc": "2009-07-21T14:43:00Z",
        "warnings": [
            "8JMKD3MGP8W has 2 known repository-name spellings (sid.inpe.br/mtc-m18, sid.inpe.br/mtc-m18@80) "
            "for the same host and port; the one in use on the item's date is shown (with @ before August 2010)"
        ],
        "resolver": "http://urlib.net/",
        "persistent_url": "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
        "resolver_path": "/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
        "portal_url": PORTAL + "8JMKD3MGP8W/35MMLL8!:(oai_dc)",
        "original_url": "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
        "notes": [],
        "upn_resolver": None,
        "error": None,
    }
