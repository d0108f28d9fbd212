"""Persistent URLs through the JSON API: /api/v1/parse and /api/v1/compose."""
from __future__ import annotations

import pytest

from ibiportal.ibi.modifiers import COMPOSITIONS, GET_FILE_LIST, Modifier
from tests.ibi.test_url_modifiers import CASE_ONLY

U = "http://urlib.net/LK47B6W/362SFKH"
"""A persistent URL of 32 characters: a modifier starts at character 33, a query's first pair at 34."""

TABLE_8_8 = ("parsedibiurl.ibi", "parsedibiurl.verblist", "parsedibiurl.filepath", "parsedibiurl.requireditemstatus")


def parse(client, url: str, **params: str):
    return client.get("/api/v1/parse", query_string={"url": url, **params})


def compose(client, **params):
    return client.get("/api/v1/compose", query_string=params)


def test_parse_every_verblist_union_vector_gives_its_table_8_8_fields(client, vectors):
    for vector in vectors["verblist_union"]:
        response = parse(client, vector["url"])
        assert response.status_code == 200, vector["source"]
        body = response.get_json()
        assert {key: body[key] for key in TABLE_8_8} == {key: vector[key] for key in TABLE_8_8}, vector["source"]


def test_parse_answer_shape_and_values(client):
    body = parse(client, "http://urlib.net/LK47B6W/362SFKH+?ibiurl.requireditemstatus=Original&ibiurl.verblist=GetMetadata").get_json()
    assert set(body) == {*TABLE_8_8, "relation", "meaning", "canonical", "form", "query", "portal_url", "notes"}
    assert body["relation"] == ".translation.metadata"
    assert body["meaning"]["en"].startswith("Metadata of the translation of the item LK47B6W/362SFKH.")
    assert body["meaning"]["pt"].startswith("Metadados da tradução do item LK47B6W/362SFKH.")
    assert body["canonical"] == {
        "symbols": "http://urlib.net/LK47B6W/362SFKH+:?ibiurl.requireditemstatus=Original",
        "verblist": "http://urlib.net/LK47B6W/362SFKH?ibiurl.requireditemstatus=Original&ibiurl.verblist=GetTranslation+GetMetadata",
    }
    assert body["form"] == "ibip" and body["query"] == []
    assert body["portal_url"] == "http://localhost/LK47B6W/362SFKH+:?ibiurl.requireditemstatus=Original"


def test_parse_gives_the_form_and_the_pairs_passed_on(client):
    body = parse(client, "http://urlib.net/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/a.pdf?q=a+b&x=%C3%A7%26&q=2").get_json()
    assert body["form"] == "rep"
    assert body["parsedibiurl.filepath"] == "/doc/a.pdf"
    assert body["query"] == [["q", "a b"], ["x", "ç&"], ["q", "2"]]
    assert body["canonical"]["symbols"].endswith("/doc/a.pdf?q=a+b&x=%C3%A7%26&q=2")


def test_parse_canonical_forms_keep_the_urls_own_resolver_host(client):
    body = parse(client, "https://Example.org:8443/8JMKD3MGP8W/35MMLL8!", base="http://urlib.net/").get_json()
    assert body["canonical"] == {
        "symbols": "https://example.org:8443/8JMKD3MGP8W/35MMLL8!",
        "verblist": "https://example.org:8443/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition",
    }


@pytest.mark.parametrize("url", ["8JMKD3MGP8W/35MMLL8!", "/8JMKD3MGP8W/35MMLL8!"])
def test_parse_without_a_host_builds_on_base_else_the_portals_resolver(client, url):
    given = parse(client, url, base="https://resolver.example").get_json()
    assert given["canonical"]["symbols"] == "https://resolver.example/8JMKD3MGP8W/35MMLL8!"
    assert parse(client, url).get_json()["canonical"]["symbols"] == "http://localhost/8JMKD3MGP8W/35MMLL8!"


@pytest.mark.settings(RESOLVER_BASE="http://urlib.net/")
@pytest.mark.parametrize("url", ["8JMKD3MGP8W/35MMLL8!", "/8JMKD3MGP8W/35MMLL8!"])
def test_parse_without_a_host_builds_on_the_resolver_base_set(client, url):
    assert parse(client, url).get_json()["canonical"]["symbols"] == "http://urlib.net/8JMKD3MGP8W/35MMLL8!"


@pytest.mark.parametrize("url", ["8JMKD3MGP8W/35MMLL8", "http://urlib.net/8JMKD3MGP8W/35MMLL8"])
def test_parse_a_bad_base_names_the_base_even_where_the_urls_host_wins(client, url):
    """With a host the URL's own resolver is the base; a mistyped base is still said, not ignored
    (schemathesis found a base of 2,000 zeros accepted)."""
    for base in ("ftp://x/", "0" * 2100):
        response = parse(client, url, base=base)
        error = response.get_json()["error"]
        assert response.status_code == 400 and error["field"] == "base" and error["position"] == 1, base
    assert "ftp" in parse(client, url, base="ftp://x/").get_json()["error"]["message"]


def test_parse_without_the_url_parameter_is_a_400_naming_it(client):
    response = client.get("/api/v1/parse")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["field"] == "url" and "`url`" in error["message"]


def test_parse_every_valid_modifier(client, vectors):
    for mdf in vectors["modifiers_valid"]["items"]:
        response = parse(client, U + mdf)
        assert response.status_code == 200, mdf
        body = response.get_json()
        assert len(body["parsedibiurl.verblist"]) == len(Modifier.parse(mdf).verbs), mdf
        assert body["canonical"]["symbols"] == U + mdf


def test_parse_every_invalid_modifier_is_a_400_pointing_into_it(client, vectors):
    for mdf in vectors["modifiers_invalid"]["items"]:
        response = parse(client, U + mdf)
        if mdf in CASE_ONLY:  # read case-blind (tests/ibi/test_url_modifiers.py)
            assert response.status_code == 200 and response.get_json()["canonical"]["symbols"].endswith(CASE_ONLY[mdf]), mdf
            continue
        assert response.status_code == 400, mdf
        error = response.get_json()["error"]
        assert error["message"] and error["field"] == "url", mdf
        assert 33 <= error["position"] <= len(U + mdf), mdf


MALFORMED = [
    ("", 1, "a persistent URL is expected"),
    ("   ", 1, "a persistent URL is expected"),
    ("http://urlib.net/", 18, "no IBI"),
    ("https://urlib.net?x=1", 18, "no IBI"),
    ("ftp://urlib.net/LK47B6W/362SFKH", 1, "`ftp` is not a scheme"),
    ("http:/urlib.net/LK47B6W/362SFKH", 6, "`//` is expected after `http:`"),
    ("//urlib.net/LK47B6W/362SFKH", 1, "a host needs a scheme"),
    ("http://user@urlib.net/LK47B6W/362SFKH", 12, "user information"),
    ("http://urlib.net:123456/LK47B6W/362SFKH", 8, "is not a host[:port]"),
    ("http://urlib.net/LK47B6W", 25, "missing '/'"),
    ("http://urlib.net/LK47B6W/362SFKO", 32, "not in the IBIp alphabet"),
    ("http://urlib.net/sid.inpe.br/mtc-m18@80/2009/13.21.14.43", 46, "month 13"),
    ("mailto:x@y", None, "repository name"),
    (U + "::", 34, "metadata is asked once"),
    (U + ":!", 34, "the last edition is asked before the metadata"),
    (U + "++", 34, "a translation is not translated again"),
    (U + "+!+", 35, "a second translation may only follow `:`"),
    (U + ":(marc)", 35, "only `(oai_dc)`"),
    (U + "+(pt", 34, "`(` is not closed"),
    (U + "!(x)", 34, "`!` takes no parameter"),
    (U + "*", 33, "`*` may not follow the IBI"),
    (U + "/../secret", 34, "`..` is not allowed"),
    (U + "//x", 34, "may not begin with `//`"),
    (U + "/a b", 35, "a space must be percent-encoded"),
    (U + "/%zz", 34, "`%` must begin a `%hh` escape"),
    (U + "/%FF", 34, "not UTF-8"),
    (U + "?ibiurl.verblist", 34, "`ibiurl.verblist` is not a pair"),
    (U + "?=1", 34, "a pair needs a name"),
    (U + "?a=1&&b=2", 38, "a pair is expected"),
    (U + "?a=1&", 37, "a pair is expected after `&`"),
    (U + "?ibiurl.verblist=a=b", 51, "`%3D`"),
    (U + "?a=%", 36, "`%` must begin a `%hh` escape"),
    (U + "?a=ç", 36, "`ç` must be percent-encoded"),
    (U + "?ibiurl.requireditemstatus=Copy", 60, "not `Copy`"),
    (U + "?ibiurl.verblist=GetFoo", 50, "`GetFoo` is not a verb"),
    (U + "?ibiurl.verblist=GetMetadata++GetLastEdition", 62, "a verb is expected"),
    (U + "?ibiurl.verblist=GetMetadata&ibiurl.verblist=GetMetadata", 62, "given twice (first at character 34)"),
    (U + ":?ibiurl.verblist=GetLastEdition", 51, "`:!` is not a modifier of Table 8.2"),
]


@pytest.mark.parametrize(("query", "verbs", "canonical"), [
    ("?ibiurl.verblist=GetFileList+GetFileList", ["GetFileList"], "?ibiurl.verblist=GetFileList"),
    ("?ibiurl.verblist=GetMetadata+GetMetadata", ["GetMetadata"], ":"),
    ("?ibiurl.verblist=GetLastEdition+GetMetadata+GetLastEdition", ["GetLastEdition", "GetMetadata"], "!:"),
])
def test_a_verb_repeated_in_the_verb_list_is_merged(client, query, verbs, canonical):
    """§8.2: parsedibiurl.verblist is the union without repetition (STANDARD.md §7), never an error."""
    body = parse(client, U + query).get_json()
    assert body["parsedibiurl.verblist"] == verbs
    assert U + canonical in (body["canonical"]["symbols"], body["canonical"]["verblist"])


@pytest.mark.parametrize(("url", "position", "fragment"), MALFORMED, ids=[repr(row[0]) for row in MALFORMED])
def test_parse_malformed_url_is_a_400_saying_what_and_where(client, url, position, fragment):
    response = parse(client, url)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert fragment in error["message"]
    assert error["field"] == "url"
    if position is not None:
        assert error["position"] == position


def test_compose_answer(client):
    response = compose(
        client,
        ibi="8JMKD3MGP8W/35MMLL8",
        verb=["GetLastEdition", "GetMetadata(oai_dc)"],
        original="1",
        q=["lang=pt BR", "x=a=b&c"],
        base="http://urlib.net",
    )
    assert response.status_code == 200
    body = response.get_json()
    assert body["canonical"] == {
        "symbols": "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)?ibiurl.requireditemstatus=Original&lang=pt%20BR&x=a%3Db%26c",
        "verblist": "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.requireditemstatus=Original"
        "&ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)&lang=pt%20BR&x=a%3Db%26c",
    }
    assert body["parsedibiurl.ibi"] == "8JMKD3MGP8W/35MMLL8"
    assert body["parsedibiurl.verblist"] == ["GetLastEdition", "GetMetadata(oai_dc)"]
    assert body["parsedibiurl.requireditemstatus"] == "Original" and body["parsedibiurl.filepath"] is None
    assert body["meaning"]["en"].startswith("Metadata, in oai_dc, of the last edition of the item 8JMKD3MGP8W/35MMLL8.")
    assert body["meaning"]["pt"].startswith("Metadados, em oai_dc, da última edição do item 8JMKD3MGP8W/35MMLL8.")
    assert body["relation"] == ".lastedition.metadata(oai_dc)"
    assert body["query"] == [["lang", "pt BR"], ["x", "a=b&c"]]
    assert body["portal_url"] == "http://localhost/8JMKD3MGP8W/35MMLL8!:(oai_dc)?ibiurl.requireditemstatus=Original&lang=pt%20BR&x=a%3Db%26c"


@pytest.mark.settings(RESOLVER_BASE="https://urlib.net/",
                      TRUSTED_HOSTS=["portal.example", "127.0.0.1"])  # a host the portal is told it answers for
def test_portal_url_is_on_this_portal_whatever_the_resolver_base(client):
    """Trace and Open resolve here: ``portal_url`` follows the request's own address, not ``RESOLVER_BASE``."""
    composed = client.get("/api/v1/compose?ibi=LK47B6W/362SFKH&verb=GetFileList", base_url="https://portal.example:8443")
    assert composed.get_json()["canonical"]["symbols"] == "https://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetFileList"
    assert composed.get_json()["portal_url"] == "https://portal.example:8443/LK47B6W/362SFKH?ibiurl.verblist=GetFileList"
    parsed = client.get("/api/v1/parse?url=http://urlib.net/LK47B6W/362SFKH%2B", base_url="http://127.0.0.1:8000")
    assert parsed.get_json()["portal_url"] == "http://127.0.0.1:8000/LK47B6W/362SFKH+"


def test_compose_defaults_to_the_portals_resolver_base(client):
    assert compose(client, ibi="LK47B6W/362SFKH").get_json()["canonical"]["symbols"] == "http://localhost/LK47B6W/362SFKH"


@pytest.mark.settings(RESOLVER_BASE="https://urlib.net/")
def test_compose_builds_on_the_resolver_base_set(client):
    body = compose(client, ibi="LK47B6W/362SFKH", filepath="/reference.bib", original="no").get_json()
    assert body["canonical"]["symbols"] == "https://urlib.net/LK47B6W/362SFKH/reference.bib"
    assert body["parsedibiurl.requireditemstatus"] is None


@pytest.mark.parametrize("word", sorted(COMPOSITIONS))
def test_compose_then_parse_gives_the_same_verbs_for_every_composition(client, word):
    verbs = [str(verb) for verb in Modifier.parse(word).verbs]
    for asked in (verbs, [*verbs, GET_FILE_LIST]):
        composed = compose(client, ibi="8JMKD3MGP8W/35MMLL8", verb=asked, q=["a=1"], base="http://urlib.net/")
        assert composed.status_code == 200, (word, asked)
        body = composed.get_json()
        assert body["parsedibiurl.verblist"] == asked
        for spelling in ("symbols", "verblist"):
            parsed = parse(client, body["canonical"][spelling]).get_json()
            assert parsed["parsedibiurl.verblist"] == asked, (word, spelling)
            assert parsed["canonical"] == body["canonical"] and parsed["query"] == [["a", "1"]]


@pytest.mark.parametrize(
    ("params", "field", "position", "fragment"),
    [
        ({}, "ibi", None, "empty"),
        ({"ibi": "8JMKD3MGP8W/35MMLV8"}, "ibi", 18, "'V'"),
        ({"ibi": "LK47B6W/362SFKH", "verb": ["GetLastEdition", "GetFoo"]}, "verbs", 2, "verb 2: `GetFoo` is not a verb"),
        ({"ibi": "LK47B6W/362SFKH", "verb": ["GetMetadata", "GetLastEdition"]}, "verbs", 2, "`:!` is not a modifier"),
        ({"ibi": "LK47B6W/362SFKH", "verb": ["GetFileList", "GetFileList"]}, "verbs", 2, "asked once"),
        ({"ibi": "LK47B6W/362SFKH", "filepath": "reference.bib"}, "filepath", 1, "begins with `/`"),
        ({"ibi": "LK47B6W/362SFKH", "filepath": "/a/../b"}, "filepath", 4, "`..`"),
        ({"ibi": "LK47B6W/362SFKH", "q": ["a=1", "novalue"]}, "query", 2, "`novalue` is not a pair"),
        ({"ibi": "LK47B6W/362SFKH", "q": ["=1"]}, "query", 1, "needs a name"),
        ({"ibi": "LK47B6W/362SFKH", "q": ["ibiurl.verblist=GetMetadata"]}, "query", 1, "resolver pair"),
        ({"ibi": "LK47B6W/362SFKH", "base": "ftp://urlib.net/"}, "base", 1, "`ftp`"),
        ({"ibi": "LK47B6W/362SFKH", "original": "maybe"}, "original", 1, "'maybe'"),
    ],
)
def test_compose_bad_choice_is_a_400_naming_field_and_position(client, params, field, position, fragment):
    response = compose(client, **params)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["field"] == field and error["position"] == position
    assert fragment in error["message"]

