"""Persistent URLs (file 003, §8.1-8.2): parse table, vectors, idempotence, 30+ malformed URLs."""
from __future__ import annotations

import pytest

from ibiportal.errors import ParseError
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.modifiers import Modifier, Verb
from ibiportal.ibi.url import PersistentUrl, encode_query_component, normalize_base, parse_persistent_url

NONE: dict = {"filepath": None, "status": None, "query": ()}


def test_vectors_verblist_union(vectors):
    """Examples 8.5, 8.7, 8.8 and §10.2: the Table 8.8 data, under the vectors' own names."""
    assert vectors["verblist_union"]
    for vector in vectors["verblist_union"]:
        table = parse_persistent_url(vector["url"]).to_table_8_8()
        assert table == {name: vector[name] for name in table}, vector["source"]


# (input, ibi, mdf, verblist, relation, filepath, status, other pairs, canonical symbols, canonical verblist)
PARSE_TABLE = [
    ("http://urlib.net/8JMKD3MGP8W/35MME4E", "8JMKD3MGP8W/35MME4E", "", [], "", None, None, (),
     "http://urlib.net/8JMKD3MGP8W/35MME4E", "http://urlib.net/8JMKD3MGP8W/35MME4E"),
    ("http://urlib.net/iconet.com.br/banon/2009/09.09.22.01", "iconet.com.br/banon/2009/09.09.22.01", "", [], "", None, None, (),
     "http://urlib.net/iconet.com.br/banon/2009/09.09.22.01", "http://urlib.net/iconet.com.br/banon/2009/09.09.22.01"),
    ("http://urlib.net/8JMKD3MGP8W/35MME4E:", "8JMKD3MGP8W/35MME4E", ":", ["GetMetadata"], ".metadata", None, None, (),
     "http://urlib.net/8JMKD3MGP8W/35MME4E:", "http://urlib.net/8JMKD3MGP8W/35MME4E?ibiurl.verblist=GetMetadata"),
    ("http://urlib.net/8JMKD3MGP8W/35MME4E+(pt)", "8JMKD3MGP8W/35MME4E", "+(pt)", ["GetTranslation(pt)"], ".translation(pt)",
     None, None, (), "http://urlib.net/8JMKD3MGP8W/35MME4E+(pt)",
     "http://urlib.net/8JMKD3MGP8W/35MME4E?ibiurl.verblist=GetTranslation(pt)"),
    ("http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)", "8JMKD3MGP8W/35MMLL8", "!:(oai_dc)", ["GetLastEdition", "GetMetadata(oai_dc)"],
     ".lastedition.metadata(oai_dc)", None, None, (), "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
     "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)"),
    # Example 8.6: GetFileList has no symbol, so it stays in the query.
    ("http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetFileList", "LK47B6W/362SFKH", "", ["GetFileList"], "", None, None, (),
     "http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetFileList", "http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetFileList"),
    # Host-less path and bare IBI; lower-case IBI normalized; the portal's own host.
    ("/8JMKD3MGP8W/35MMLL8!", "8JMKD3MGP8W/35MMLL8", "!", ["GetLastEdition"], ".lastedition", None, None, (),
     "/8JMKD3MGP8W/35MMLL8!", "/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition"),
    ("8jmkd3mgp8w/35mmll8!:(oai_dc)", "8JMKD3MGP8W/35MMLL8", "!:(oai_dc)", ["GetLastEdition", "GetMetadata(oai_dc)"],
     ".lastedition.metadata(oai_dc)", None, None, (), "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
     "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)"),
    ("HTTP://127.0.0.1:8000/LK47B6W/362SFKH+(pt-BR)!", "LK47B6W/362SFKH", "+(pt-BR)!", ["GetTranslation(pt-BR)", "GetLastEdition"],
     ".translation(pt-BR).lastedition", None, None, (), "http://127.0.0.1:8000/LK47B6W/362SFKH+(pt-BR)!",
     "http://127.0.0.1:8000/LK47B6W/362SFKH?ibiurl.verblist=GetTranslation(pt-BR)+GetLastEdition"),
    ("https://[2001:db8::1]/LK47B6W/362SFKH", "LK47B6W/362SFKH", "", [], "", None, None, (),
     "https://[2001:db8::1]/LK47B6W/362SFKH", "https://[2001:db8::1]/LK47B6W/362SFKH"),
    # Legacy ?? of file 002 is `:`; also after a modifier, and before a query.
    ("http://urlib.net/8JMKD3MGP8W/35MMLL8??", "8JMKD3MGP8W/35MMLL8", ":", ["GetMetadata"], ".metadata", None, None, (),
     "http://urlib.net/8JMKD3MGP8W/35MMLL8:", "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetMetadata"),
    ("http://urlib.net/sid.inpe.br/md-m09@80/2008/04.14.11.53??", "sid.inpe.br/md-m09@80/2008/04.14.11.53", ":", ["GetMetadata"],
     ".metadata", None, None, (), "http://urlib.net/sid.inpe.br/md-m09@80/2008/04.14.11.53:",
     "http://urlib.net/sid.inpe.br/md-m09@80/2008/04.14.11.53?ibiurl.verblist=GetMetadata"),
    ("8JMKD3MGP8W/35MMLL8!???a=1", "8JMKD3MGP8W/35MMLL8", "!:", ["GetLastEdition", "GetMetadata"], ".lastedition.metadata",
     None, None, (("a", "1"),), "http://urlib.net/8JMKD3MGP8W/35MMLL8!:?a=1",
     "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition+GetMetadata&a=1"),
    # File paths: Example 8.7, a repository-name IBI with a path, percent-decoding, a lone `/`.
    ("http://urlib.net/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/a.pdf", "sid.inpe.br/mtc-m18@80/2009/07.21.14.43", "", [], "",
     "/doc/a.pdf", None, (), "http://urlib.net/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/a.pdf",
     "http://urlib.net/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/a.pdf"),
    ("http://urlib.net/LK47B6W/362SFKH/my%20rel%C3%A1torio+v2.pdf", "LK47B6W/362SFKH", "", [], "", "/my relátorio+v2.pdf", None, (),
     "http://urlib.net/LK47B6W/362SFKH/my%20rel%C3%A1torio+v2.pdf", "http://urlib.net/LK47B6W/362SFKH/my%20rel%C3%A1torio+v2.pdf"),
    ("http://urlib.net/LK47B6W/362SFKH%21%3A/reference.bib", "LK47B6W/362SFKH", "!:", ["GetLastEdition", "GetMetadata"],
     ".lastedition.metadata", "/reference.bib", None, (), "http://urlib.net/LK47B6W/362SFKH!:/reference.bib",
     "http://urlib.net/LK47B6W/362SFKH/reference.bib?ibiurl.verblist=GetLastEdition+GetMetadata"),
    ("http://urlib.net/LK47B6W/362SFKH/", "LK47B6W/362SFKH", "", [], "", None, None, (),
     "http://urlib.net/LK47B6W/362SFKH", "http://urlib.net/LK47B6W/362SFKH"),
    # Query: Example 8.8 union; form-decoded space separator; other pairs kept in order and decoded.
    ("http://urlib.net/LK47B6W/362SFKH+?ibiurl.requireditemstatus=Original&ibiurl.verblist=GetMetadata", "LK47B6W/362SFKH", "+",
     ["GetTranslation", "GetMetadata"], ".translation.metadata", None, "Original", (),
     "http://urlib.net/LK47B6W/362SFKH+:?ibiurl.requireditemstatus=Original",
     "http://urlib.net/LK47B6W/362SFKH?ibiurl.requireditemstatus=Original&ibiurl.verblist=GetTranslation+GetMetadata"),
    ("http://urlib.net/LK47B6W/362SFKH!?ibiurl.verblist=GetLastEdition%20GetMetadata(oai_dc)", "LK47B6W/362SFKH", "!",
     ["GetLastEdition", "GetMetadata(oai_dc)"], ".lastedition.metadata(oai_dc)", None, None, (),
     "http://urlib.net/LK47B6W/362SFKH!:(oai_dc)", "http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)"),
    ("http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetTranslation+GetMetadata+GetTranslation(en)", "LK47B6W/362SFKH", "",
     ["GetTranslation", "GetMetadata", "GetTranslation(en)"], ".translation.metadata.translation(en)", None, None, (),
     "http://urlib.net/LK47B6W/362SFKH+:+(en)",
     "http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetTranslation+GetMetadata+GetTranslation(en)"),
    ("http://urlib.net/LK47B6W/362SFKH?q=a+b&ibiurl.verblist=&x=%C3%A7%26&q=2", "LK47B6W/362SFKH", "", [], "", None, None,
     # pairs passed on to the item are kept as written (`+` stays `+`)
     (("q", "a b"), ("x", "ç&"), ("q", "2")), "http://urlib.net/LK47B6W/362SFKH?q=a+b&x=%C3%A7%26&q=2",
     "http://urlib.net/LK47B6W/362SFKH?q=a+b&x=%C3%A7%26&q=2"),
    ("http://urlib.net/LK47B6W/362SFKH?", "LK47B6W/362SFKH", "", [], "", None, None, (),
     "http://urlib.net/LK47B6W/362SFKH", "http://urlib.net/LK47B6W/362SFKH"),
    ("  http://urlib.net/LK47B6W/362SFKH:?ibiurl.verblist=GetFileList#top  ", "LK47B6W/362SFKH", ":", ["GetMetadata", "GetFileList"],
     ".metadata", None, None, (), "http://urlib.net/LK47B6W/362SFKH:?ibiurl.verblist=GetFileList#top",
     "http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetMetadata+GetFileList#top"),
]


@pytest.mark.parametrize(
    ("text", "ibi", "mdf", "verbs", "relation", "filepath", "status", "query", "symbols", "verblist"), PARSE_TABLE
)
def test_parse_table(text, ibi, mdf, verbs, relation, filepath, status, query, symbols, verblist):
    url = parse_persistent_url(text)
    assert str(url.ibi) == ibi
    assert (str(url.modifier), [str(verb) for verb in url.verbs], url.relation) == (mdf, verbs, relation)
    assert (url.filepath, url.required_item_status, url.query) == (filepath, status, query)
    assert (url.canonical_symbols(), url.canonical_verblist()) == (symbols, verblist)
    assert str(url) == symbols


@pytest.mark.parametrize("row", PARSE_TABLE, ids=[row[0] for row in PARSE_TABLE])
def test_idempotence(row):
    url = parse_persistent_url(row[0])
    for spell in (PersistentUrl.canonical_symbols, PersistentUrl.canonical_verblist):
        again = parse_persistent_url(spell(url))
        assert spell(again) == spell(url)
        assert again.to_table_8_8() == url.to_table_8_8()
        assert (again.relation, again.query, again.fragment) == (url.relation, url.query, url.fragment)
    assert parse_persistent_url(url.canonical_symbols()) == parse_persistent_url(url.canonical_symbols(url.resolver))


def test_fields_of_a_parsed_url():
    url = PersistentUrl.parse("https://Example.org:8443/8JMKD3MGP8W/35MMLL8!:(oai_dc)/x.bib?ibiurl.verblist=GetFileList&a=1#f")
    assert url == PersistentUrl(
        ibi=parse_ibi("8JMKD3MGP8W/35MMLL8"),
        modifier=Modifier.parse("!:(oai_dc)"),
        filepath="/x.bib",
        query_verbs=(Verb("GetFileList"),),
        query=(("a", "1"),),
        resolver="https://example.org:8443/",
        fragment="f",
    )
    assert url.ibi.form == "ibip" and parse_persistent_url("iconet.com.br/banon/2009/09.09.22.01").ibi.form == "rep"
    assert url.canonical_symbols("http://urlib.net") == "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)/x.bib?ibiurl.verblist=GetFileList&a=1#f"


def test_resolver_base_of_each_input_kind():
    assert parse_persistent_url("http://urlib.net/LK47B6W/362SFKH").resolver == "http://urlib.net/"
    assert parse_persistent_url("/LK47B6W/362SFKH").resolver == "/"
    assert parse_persistent_url("LK47B6W/362SFKH").resolver is None
    assert normalize_base("") == normalize_base("/") == "/"
    assert normalize_base("http://127.0.0.1:8000") == "http://127.0.0.1:8000/"
    with pytest.raises(ParseError) as caught:
        normalize_base("urlib.net")
    assert caught.value.field == "base"


def test_table_6_1_encoding_of_query_components():
    assert encode_query_component("1997-07-16T19:20+01:00") == "1997-07-16T19:20%2B01:00"  # file 003, §6.1
    assert encode_query_component("a b%c&d=e?f#g") == "a%20b%25c%26d%3De%3Ff%23g"
    assert encode_query_component("ç\n") == "%C3%A7%0A"


def test_invalid_direct_construction():
    ibi = parse_ibi("LK47B6W/362SFKH")
    with pytest.raises(ParseError, match="is not a modifier of Table 8.2"):
        PersistentUrl(ibi, Modifier.parse(":"), query_verbs=(Verb("GetLastEdition"),))
    with pytest.raises(ParseError, match="takes only the value `Original`"):
        PersistentUrl(ibi, required_item_status="Copy")
    with pytest.raises(ParseError, match="is a resolver pair"):
        PersistentUrl(ibi, query=(("ibiurl.verblist", "GetMetadata"),))
    with pytest.raises(ParseError, match="names a file"):
        PersistentUrl(ibi, filepath="/")


U = "http://urlib.net/LK47B6W/362SFKH"  # 32 characters: what follows starts at 33

MALFORMED = [
    # empty, no IBI, scheme and host
    ("", 1, "a persistent URL is expected"),
    ("   ", 1, "a persistent URL is expected"),
    ("http://urlib.net/", 18, "no IBI"),
    ("http://urlib.net", 17, "no IBI"),
    ("http://urlib.net?x=1", 17, "no IBI"),
    ("/", 2, "no IBI"),
    ("ftp://urlib.net/LK47B6W/362SFKH", 1, "`ftp` is not a scheme of persistent URLs: use http or https"),
    ("file:///LK47B6W/362SFKH", 1, "`file` is not a scheme"),
    ("http:/urlib.net/LK47B6W/362SFKH", 6, "`//` is expected after `http:`"),
    ("//urlib.net/LK47B6W/362SFKH", 1, "a host needs a scheme"),
    ("http://user@urlib.net/LK47B6W/362SFKH", 12, "user information"),
    ("http:///LK47B6W/362SFKH", 8, "a host is expected after `//`"),
    ("http://urlib.net:99999999/LK47B6W/362SFKH", 8, "is not a host[:port]"),
    # bad IBI: the identifier parser's message, its position moved into the URL
    ("http://urlib.net/LK47B6W", 25, "missing '/'"),
    ("http://urlib.net/LK47B6W/362SFKO", 32, "not in the IBIp alphabet"),
    ("  http://urlib.net/LK47B6W/362SFKO", 34, "not in the IBIp alphabet"),
    ("http://urlib.net/sid.inpe.br/mtc-m18@80/2009/13.21.14.43", 46, "month 13"),
    # bad modifier, language, country, format
    (U + "::", 34, "`:` may not follow `:` — metadata is asked once (Table 8.1)"),
    (U + ":!", 34, "`!` may not follow `:` — the last edition is asked before the metadata"),
    (U + "+!+", 35, "`+` may not follow `+!`"),
    (U + "??:", 35, "`:` may not follow `:`"),
    (U + ":(marc)", 35, "only `(oai_dc)` (Table 8.1) and URLib's `(BibINPE)` (STANDARD.md §8) are metadata formats"),
    (U + "+(pt", 34, "`(` is not closed by `)`"),
    (U + "(pt)", 33, "`(` may not follow the IBI"),
    (U + "!x", 34, "`x` may not follow the modifier `!`"),
    # bad verbs and contradictory verb lists
    (U + "?ibiurl.verblist=GetLastEdition++GetMetadata", 65, "a verb is expected"),
    (U + ":?ibiurl.verblist=GetLastEdition", 51, "`GetLastEdition` may not follow `GetMetadata`"),
    (U + "+(pt)?ibiurl.verblist=GetTranslation(en)", 55, "a translation is not translated again"),
    (U + "!:?ibiurl.verblist=GetMetadata(oai_dc)", 52, "metadata is asked once"),
    # duplicate or unknown resolver pairs, bad status
    (U + "?ibiurl.verblist=GetFileList&ibiurl.verblist=GetMetadata", 62, "`ibiurl.verblist` is given twice (first at character 34)"),
    (U + "?ibiurl.requireditemstatus=Original&ibiurl.requireditemstatus=Original", 69, "`ibiurl.requireditemstatus` is given twice"),
    (U + "?ibiurl.requireditemstatus=Copy", 60, "takes only the value `Original` (Table 8.3), not `Copy`"),
    # query syntax
    (U + "?ibiurl.verblist", 34, "`ibiurl.verblist` is not a pair"),
    (U + "?=1", 34, "a pair needs a name"),
    (U + "?a=1&&b=2", 38, "a pair is expected"),
    (U + "?a=1&", 37, "a pair is expected after `&`"),
    (U + "?ibiurl.verblist=a=b", 51, "`=` in a value must be percent-encoded as `%3D`"),
    # file path and percent-encoding
    (U + "/../secret", 34, "`..` is not allowed as a path segment"),
    (U + "/doc/./a.pdf", 38, "`.` is not allowed as a path segment"),
    (U + "//x", 34, "may not begin with `//`"),
    (U + "/a b", 35, "a space must be percent-encoded"),
    (U + "/ção", 34, "`ç` must be percent-encoded"),
    (U + "/%zz", 34, "`%` must begin a `%hh` escape"),
    (U + "%2", 33, "`%` must begin a `%hh` escape"),
    (U + "/%E2%82", 34, "a character is cut short"),
    (U + "/%FF", 34, "not UTF-8 text"),
]


@pytest.mark.parametrize(("text", "position", "message"), MALFORMED, ids=[repr(row[0]) for row in MALFORMED])
def test_malformed_persistent_urls(text, position, message):
    with pytest.raises(ParseError) as caught:
        parse_persistent_url(text)
    assert message in caught.value.message
    assert caught.value.position == position


def test_the_parser_tells_malformed_urls_apart():
    """Each malformed URL is refused for its own reason: the parser names what is wrong and where,
    so (message, position) pairs differ across the table instead of repeating one generic error."""
    reasons = set()
    for text, _, _ in MALFORMED:
        with pytest.raises(ParseError) as caught:
            parse_persistent_url(text)
        reasons.add((caught.value.message, caught.value.position))
    assert len(reasons) >= 30


def test_ibi_errors_are_chained_from_the_identifier_parser():
    with pytest.raises(ParseError) as caught:
        parse_persistent_url("http://urlib.net/LK47B6W/362SFKO")
    assert isinstance(caught.value.__cause__, ParseError)
    assert caught.value.__cause__.position == 15


def test_a_verb_repeated_in_the_verb_list_is_merged():
    """§8.2's union without repetition (STANDARD.md §7): a repeated verb is counted once, never refused."""
    url = parse_persistent_url(U + "!?ibiurl.verblist=GetFileList+GetLastEdition+GetFileList+GetMetadata+GetMetadata")
    assert [str(verb) for verb in url.verbs] == ["GetLastEdition", "GetFileList", "GetMetadata"]


@pytest.mark.parametrize(("written", "canonical"), [
    ("8JMKD3MGP8W/35MME4E+(pt-br)", "8JMKD3MGP8W/35MME4E+(pt-BR)"),
    ("8JMKD3MGP8W/35MME4E+(PT-BR)", "8JMKD3MGP8W/35MME4E+(pt-BR)"),
    ("8JMKD3MGP8W/35MME4E:(OAI_DC)", "8JMKD3MGP8W/35MME4E:(oai_dc)"),
    ("8JMKD3MGP8W/35MME4E?ibiurl.verblist=getlastedition+GETMETADATA(Oai_Dc)",
     "8JMKD3MGP8W/35MME4E!:(oai_dc)"),
    ("8JMKD3MGP8W/35MME4E?IBIURL.VerbList=gettranslation(PT)", "8JMKD3MGP8W/35MME4E+(pt)"),
    ("8JMKD3MGP8W/35MME4E?ibiurl.requireditemstatus=original",
     "8JMKD3MGP8W/35MME4E?ibiurl.requireditemstatus=Original"),
    ("8JMKD3MGP8W/35MME4E?IBIURL.REQUIREDITEMSTATUS=ORIGINAL",
     "8JMKD3MGP8W/35MME4E?ibiurl.requireditemstatus=Original"),
])
def test_the_grammars_literals_are_read_case_blind(written, canonical):
    """ABNF literals are case-insensitive (RFC 5234 §2.3): Tables 8.1, 8.3 and 8.4's words too."""
    assert parse_persistent_url(written).canonical_symbols("http://urlib.net/") == "http://urlib.net/" + canonical


@pytest.mark.parametrize(("encoded", "decoded"), [
    ("http://urlib.net/%38JMKD3MGP8W/35MMLL8", "http://urlib.net/8JMKD3MGP8W/35MMLL8"),
    ("http://urlib.net/8JMKD3MGP8W/%33%35MMLL8!", "http://urlib.net/8JMKD3MGP8W/35MMLL8!"),
    ("http://urlib.net/sid.inpe.br/mtc-m18%4080/2009/07.21.14.43", "http://urlib.net/sid.inpe.br/mtc-m18@80/2009/07.21.14.43"),
    ("%6C%6b47B6W/362SFKH/reference.bib", "lk47B6W/362SFKH/reference.bib"),
])
def test_percent_encoded_characters_of_the_ibi_read_as_the_characters(encoded, decoded):
    """RFC 3986 §2.3 and §6.2.2.2: an encoded unreserved character is that character."""
    assert parse_persistent_url(encoded) == parse_persistent_url(decoded)


def test_an_encoded_character_that_breaks_the_ibi_is_located_in_the_text_as_given():
    with pytest.raises(ParseError) as caught:
        parse_persistent_url("http://urlib.net/%38JMKD3MGP8W/35MML%4F8")
    assert caught.value.position == 37  # the "%4F" ("O", outside the IBIp alphabet)


@pytest.mark.parametrize(("query", "passed"), [
    ("d", [("d", "")]),
    ("a=b=c", [("a", "b=c")]),
    ("x=1&flag&y=a=b", [("x", "1"), ("flag", ""), ("y", "a=b")]),
])
def test_the_items_own_query_pairs_are_passed_on_untouched(query, passed):
    """Pairs not prefixed ``ibiurl.`` are "ignorados por este sistema" (§8.1): the item reads them."""
    parsed = parse_persistent_url("http://urlib.net/8JMKD3MGP8W/35MMLL8?" + query)
    assert list(parsed.query) == passed
    assert parsed.passed_on_query() == query
