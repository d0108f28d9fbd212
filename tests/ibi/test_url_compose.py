"""Composing persistent URLs from choices, both spellings, and property tests (compose → parse)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ibiportal.errors import ParseError
from ibiportal.ibi.compose import compose
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.languages import COUNTRIES, LANGUAGES
from ibiportal.ibi.modifiers import COMPOSITIONS, SYMBOLS, Verb
from ibiportal.ibi.url import parse_persistent_url


@pytest.mark.parametrize(
    ("ibi", "verbs", "options", "symbols", "verblist"),
    [
        ("8JMKD3MGP8W/35MMLL8", ["GetLastEdition", "GetMetadata(oai_dc)"], {},
         "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
         "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)"),  # Examples 8.4, 8.5
        ("LK47B6W/362SFKH", ["GetFileList"], {},
         "http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetFileList",
         "http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetFileList"),  # Example 8.6
        ("LK47B6W/362SFKH", [], {"filepath": "/reference.bib"},
         "http://urlib.net/LK47B6W/362SFKH/reference.bib", "http://urlib.net/LK47B6W/362SFKH/reference.bib"),  # Example 8.7
        ("LK47B6W/362SFKH", [Verb("GetTranslation"), Verb("GetMetadata")], {"original": True},
         "http://urlib.net/LK47B6W/362SFKH+:?ibiurl.requireditemstatus=Original",
         "http://urlib.net/LK47B6W/362SFKH?ibiurl.requireditemstatus=Original&ibiurl.verblist=GetTranslation+GetMetadata"),  # Example 8.8
        ("LK47B6W/362SFKH", ["GetFileList", "GetTranslation(pt-BR)", "GetLastEdition"],
         {"base": "http://127.0.0.1:8000", "query": [("lang", "pt BR"), ("t", "1+1=2")]},
         "http://127.0.0.1:8000/LK47B6W/362SFKH+(pt-BR)!?ibiurl.verblist=GetFileList&lang=pt%20BR&t=1%2B1%3D2",
         "http://127.0.0.1:8000/LK47B6W/362SFKH?ibiurl.verblist=GetTranslation(pt-BR)+GetLastEdition+GetFileList"
         "&lang=pt%20BR&t=1%2B1%3D2"),
        (parse_ibi("iconet.com.br/banon/2009/09.09.22.01"), [], {"base": "", "filepath": "/a b.pdf"},
         "/iconet.com.br/banon/2009/09.09.22.01/a%20b.pdf", "/iconet.com.br/banon/2009/09.09.22.01/a%20b.pdf"),
    ],
)
def test_compose_both_spellings(ibi, verbs, options, symbols, verblist):
    url = compose(ibi, verbs, **options)
    assert (url.canonical_symbols(), url.canonical_verblist()) == (symbols, verblist)
    assert parse_persistent_url(symbols) == url
    assert parse_persistent_url(verblist).to_table_8_8() == url.to_table_8_8()


def test_compose_reproduces_the_vectors(vectors):
    """Composing from a vector's Table 8.8 data gives a URL with the same data, in either spelling."""
    for vector in vectors["verblist_union"]:
        composed = compose(
            vector["parsedibiurl.ibi"],
            vector["parsedibiurl.verblist"],
            filepath=vector["parsedibiurl.filepath"],
            original=vector["parsedibiurl.requireditemstatus"] == "Original",
        )
        wanted = {name: vector[name] for name in composed.to_table_8_8()}
        assert composed.to_table_8_8() == wanted
        for text in (composed.canonical_symbols(), composed.canonical_verblist()):
            assert parse_persistent_url(text).to_table_8_8() == wanted, vector["source"]


@pytest.mark.parametrize(
    ("ibi", "verbs", "options", "field", "position", "message"),
    [
        ("LK47B6W/362SFKH", ["GetMetadata", "GetLastEdition"], {}, "verbs", 2, "the last edition is asked before the metadata"),
        ("LK47B6W/362SFKH", ["GetMetadata", "GetMetadata(oai_dc)"], {}, "verbs", 2, "metadata is asked once"),
        ("LK47B6W/362SFKH", ["GetTranslation", "GetTranslation(pt)"], {}, "verbs", 2, "a translation is not translated again"),
        ("LK47B6W/362SFKH", ["GetTranslation", "GetLastEdition", "GetTranslation"], {}, "verbs", 3, "a second translation may only follow `:`"),
        ("LK47B6W/362SFKH", ["GetFileList", "GetFileList"], {}, "verbs", 2, "`GetFileList` is asked once"),
        ("LK47B6W/362SFKO", [], {}, "ibi", 15, "not in the IBIp alphabet"),
        ("LK47B6W/362SFKH", [], {"filepath": "reference.bib"}, "filepath", 1, "a file path begins with `/`"),
        ("LK47B6W/362SFKH", [], {"filepath": "/a/../b"}, "filepath", 4, "`..` is not allowed"),
        ("LK47B6W/362SFKH", [], {"query": [("a", "1"), ("", "2")]}, "query", 2, "a pair needs a name"),
        ("LK47B6W/362SFKH", [], {"query": [("ibiurl.verblist", "GetMetadata")]}, "query", 1, "is a resolver pair"),
        ("LK47B6W/362SFKH", [], {"base": "ftp://urlib.net/"}, "base", 1, "`ftp` is not a scheme"),
        ("LK47B6W/362SFKH", [], {"base": "urlib.net"}, "base", 1, "a resolver base is"),
    ],
)
def test_compose_errors(ibi, verbs, options, field, position, message):
    with pytest.raises(ParseError) as caught:
        compose(ibi, verbs, **options)
    assert message in caught.value.message
    assert (caught.value.field, caught.value.position) == (field, position)


def test_ibip_with_a_numeric_directory():
    url = compose("LK47B6W/362SFKH", filepath="/2024/a.pdf")
    assert parse_persistent_url(url.canonical_symbols()) == url


def test_compose_lone_slash_is_no_file():
    assert compose("LK47B6W/362SFKH", filepath="/").filepath is None


# Property tests: every composition of Table 8.2, with any parameters, survives compose → spell → parse.

_languages = st.sampled_from(sorted(LANGUAGES))
_countries = st.none() | st.sampled_from(sorted(COUNTRIES))


@st.composite
def _verb_of(draw: st.DrawFn, bare: str) -> Verb:
    name = SYMBOLS[bare]
    if name == "GetTranslation" and draw(st.booleans()):
        return Verb(name, draw(_languages), draw(_countries))
    if name == "GetMetadata" and draw(st.booleans()):
        return Verb(name, format="oai_dc")
    return Verb(name)


@st.composite
def _verb_sequences(draw: st.DrawFn) -> list[Verb]:
    shape = draw(st.sampled_from(sorted(COMPOSITIONS | {""})))
    verbs = [draw(_verb_of(bare)) for bare in shape]
    if draw(st.booleans()):
        verbs.insert(draw(st.integers(0, len(verbs))), Verb("GetFileList"))
    return verbs


_segments = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="/"), min_size=1, max_size=8).filter(
    lambda segment: segment not in (".", "..")
)
_filepaths = st.none() | st.lists(_segments, min_size=1, max_size=3).map(lambda parts: "/" + "/".join(parts))
_pairs = st.lists(
    st.tuples(st.text(min_size=1, max_size=6).filter(lambda name: not name.startswith("ibiurl.")), st.text(max_size=8)),
    max_size=3,
)
_ibis = st.sampled_from(["8JMKD3MGP8W/35MMLL8", "LK47B6W/362SFKH", "sid.inpe.br/mtc-m18@80/2009/07.21.14.43"])


@given(ibi=_ibis, verbs=_verb_sequences(), filepath=_filepaths, original=st.booleans(), query=_pairs)
def test_compose_then_parse_gives_the_same_verbs(ibi, verbs, filepath, original, query):
    url = compose(ibi, verbs, filepath=filepath, original=original, query=query)
    wanted = [verb for verb in verbs if verb.bare] + [verb for verb in verbs if not verb.bare]
    for text in (url.canonical_symbols(), url.canonical_verblist()):
        again = parse_persistent_url(text)
        assert list(again.verbs) == wanted
        assert (again.filepath, again.required_item_status, again.query) == (url.filepath, url.required_item_status, url.query)
        assert again.relation == "".join(verb.relation for verb in verbs)
    assert parse_persistent_url(url.canonical_symbols()) == url
