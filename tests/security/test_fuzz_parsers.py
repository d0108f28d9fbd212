"""Parser fuzzing: whatever text or bytes reach a parser – any Unicode (lone surrogates
included), control characters, huge inputs, or the standard's own examples mutated – it returns
or raises ``ibiportal.errors.ParseError``, the project's own error; nothing else ever escapes.
(``read_answer`` and ``classify`` never raise at all.) What parses is then used further (printed,
converted, explained) without any other error either.

Inputs come from two strategies: arbitrary text, and valid examples of each grammar with a few
characters inserted, deleted or replaced by ones that matter to the grammars (``%``, braces,
CR/LF, NUL, modifiers, non-ASCII, a surrogate), which reaches far deeper into each parser.
"""
from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ibiportal.errors import ParseError
from ibiportal.ibi.batch import decode_upload, rows_from_csv, rows_from_lines
from ibiportal.ibi.classify import classify
from ibiportal.ibi.compose import compose
from ibiportal.ibi.conversion import convert
from ibiportal.ibi.explain import explain
from ibiportal.ibi.identifier import parse_ibi, split_ibi
from ibiportal.ibi.modifiers import Modifier, Verb, scan_verb_list
from ibiportal.ibi.url import PersistentUrl, parse_persistent_url
from ibiportal.protocol.messages import check_key, parse_request, parse_request_url
from ibiportal.protocol.pairlist import PairList, UnreadableAnswer, decode_value, parse_pair_list, read_answer
from ibiportal.protocol.query import decode_query_value
from ibiportal.protocol.query import parse_query
from tests import standard_examples as standard
from tests.standard_examples import query_of

FUZZ = settings(max_examples=300, deadline=None)

IBIS = ["8JMKD3MGP8W/34PGRBS", "sid.inpe.br/mtc-m18@80/2009/02.16.17.46", "D7N2U8HW/39G4TD2", "LK47B6W/362SFKH",
        "J8LNKB5R7W/3FUQHC5", "iconet.com.br/banon/2009/09.09.22.01", "8JMKD3MGP7W/3EPGUE5", "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"]
URLS = ["http://urlib.net/8JMKD3MGP8W/35MMLL8", "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
        "/D7N2U8HW/39G4TD2!", "http://urlib.net/8JMKD3MGP8W/35MME4E+(pt)", "http://urlib.net/LK47B6W/362SFKH!:/reference.bib",
        "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)&a=1",
        "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)/x.bib?ibiurl.verblist=GetFileList&a=1#f",
        "urlib.net/sid.inpe.br/mtc-m18@80/2009/02.16.17.46:?ibiurl.requireditemstatus=Original",
        "http://urlib.net/iconet.com.br/banon/2009/09.09.22.01/a%20b.pdf"]
QUERIES = [query_of(standard.EXAMPLE_6_1), query_of(standard.EXAMPLE_7_2), query_of(standard.EXAMPLE_7_3),
           query_of(standard.EXAMPLE_7_4), query_of(standard.EXAMPLE_8_9), query_of(standard.SECTION_10_1_URL_REQUEST),
           query_of(standard.SECTION_10_2_URL_REQUEST_1), query_of(standard.SECTION_10_1_ACK)]
REQUEST_URLS = [standard.EXAMPLE_6_1, standard.EXAMPLE_7_2, standard.EXAMPLE_8_9, standard.SECTION_10_1_ACK]
ANSWERS = [standard.SECTION_10_1_ANSWER, standard.SECTION_10_1_ANSWER.replace("\n", "\r\n"),
           standard.SECTION_10_2_ANSWER_1, standard.SECTION_10_2_ANSWER_2, "notice {acknowledgment received}\r\n",
           "status.archive refused status.reason {wrong registration key}", "confirmation yes", ""]
VERBS = ["GetLastEdition", "GetMetadata(oai_dc)", "GetTranslation(pt-BR)", "GetFileList", "GetTranslation",
         "!", ":(oai_dc)", "+pt", "!:(oai_dc)", "GetLastEdition GetMetadata"]
#: What matters to the grammars, plus what breaks naive code (a lone surrogate, RTL override).
SPECIAL = ["%", "%2", "%zz", "%25", "%0d%0a", "{", "}", "{}", " ", "\r", "\n", "\r\n", "\t", "\x00", "\x7f", "=", "&",
           "?", "#", "/", "//", ":", "!", "+", "(", ")", "@", ".", "-", "é", "\xff", "\u202e", "\ud800", "€", "0",
           "9" * 40, "W", "X", "8JMKD3MGP8W", "urlib.net", "http://", "ibiurl.verblist=", "ibi ", "url "]


#: The strategies of every edit, made once: a strategy is validated the first time it draws
#: (``one_of`` and ``text`` walk their parts), and made inside ``_edited`` at each draw that
#: validation was half of this file's time. The examples drawn are the same.
EDITS = st.integers(1, 4)
PIECES = st.one_of(st.sampled_from(SPECIAL), st.text(max_size=3))
KINDS = st.sampled_from(["insert", "delete", "replace"])
DELETED = st.integers(1, 5)


def mutated(seeds: list[str]):
    """A seed with 1-4 edits: insert, delete or replace at any position."""
    return _edited(st.sampled_from(seeds))


@st.composite
def _edited(draw, seeds) -> str:
    text = draw(seeds)
    for _ in range(draw(EDITS)):
        position = draw(st.integers(0, len(text)))
        piece = draw(PIECES)
        edit = draw(KINDS)
        if edit == "insert":
            text = text[:position] + piece + text[position:]
        elif edit == "delete":
            text = text[:position] + text[position + draw(DELETED):]
        else:
            text = text[:position] + piece + text[position + len(piece):]
    return text


ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=300)  # surrogates included


def inputs(seeds: list[str]):
    return st.one_of(ANY_TEXT, mutated(seeds))


def as_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def only_parse_errors(function, *args, **kwargs):
    """Call; a ParseError is a fine answer (None), anything else escapes and fails the test."""
    try:
        return function(*args, **kwargs)
    except ParseError as error:
        assert error.message and (error.position is None or error.position >= 1)
        return None


# -- identifiers ---------------------------------------------------------------------------------


@FUZZ
@given(inputs(IBIS))
def test_parse_ibi_and_what_follows(text):
    identifier = only_parse_errors(parse_ibi, text)
    if identifier is not None:
        str(identifier)
        only_parse_errors(convert, str(identifier))
        assert parse_ibi(str(identifier)) == identifier


@FUZZ
@given(inputs(IBIS + URLS), st.one_of(st.none(), inputs(["mtc-m16c.sid.inpe.br", "150.163.34.243"])),
       st.one_of(st.none(), st.integers(-5, 70000)))
def test_convert(text, where, port):
    only_parse_errors(convert, text, host=where, ip=where, port=port)


@FUZZ
@given(inputs([ibi + tail for ibi in IBIS for tail in ("", "!", ":(oai_dc)/a.pdf", "/x")]))
def test_split_ibi(path):
    only_parse_errors(split_ibi, path)


# -- persistent URLs and modifiers ---------------------------------------------------------------------


@FUZZ
@given(inputs(URLS))
def test_parse_persistent_url_and_what_follows(text):
    url = only_parse_errors(parse_persistent_url, text)
    if url is not None:
        url.to_table_8_8()
        for language in ("en", "pt"):
            explain(url, language)
        only_parse_errors(PersistentUrl.parse, str(url))


@FUZZ
@given(inputs(VERBS))
def test_verbs_and_modifiers(text):
    only_parse_errors(Verb.parse, text)
    only_parse_errors(Modifier.parse, text)
    only_parse_errors(scan_verb_list, text)


@FUZZ
@given(inputs(IBIS), st.lists(inputs(VERBS), max_size=3), st.one_of(st.none(), inputs(["/doc/a.pdf", "x.bib"])),
       st.booleans(), st.lists(st.tuples(ANY_TEXT, ANY_TEXT), max_size=2), inputs(["http://urlib.net/", "https://r.example:8080/x/"]))
def test_compose(ibi, verbs, filepath, original, query, base):
    only_parse_errors(compose, ibi, verbs, filepath=filepath, original=original, query=query, base=base)


@FUZZ
@given(inputs(IBIS + URLS + QUERIES[:2] + ["", "   ", "http://urlib.net/"]))
def test_classify_never_raises(text):
    classify(text)


# -- pair lists and answers ------------------------------------------------------------------------


@FUZZ
@given(inputs(ANSWERS))
def test_pair_lists(text):
    parsed = only_parse_errors(parse_pair_list, text)
    if parsed is not None:
        for _name, value in parsed:
            decode_value(value)
        assert parse_pair_list(parsed.serialize("\r\n")) == parsed
    only_parse_errors(parse_pair_list, as_bytes(text))


@FUZZ
@given(st.one_of(st.binary(max_size=300), inputs(ANSWERS).map(as_bytes)))
def test_read_answer_never_raises(body):
    answer = read_answer(body)
    assert isinstance(answer, (PairList, UnreadableAnswer))


# -- request messages ----------------------------------------------------------------------------------


@FUZZ
@given(inputs(QUERIES))
def test_queries_and_requests(text):
    only_parse_errors(parse_query, text)
    only_parse_errors(parse_query, as_bytes(text))
    only_parse_errors(parse_request, text)
    only_parse_errors(parse_request, as_bytes(text))
    only_parse_errors(decode_query_value, text)
    only_parse_errors(check_key, text)


@FUZZ
@given(inputs(REQUEST_URLS))
def test_request_urls(text):
    only_parse_errors(parse_request_url, text)


# -- batch conversion input ----------------------------------------------------------------------------


@FUZZ
@given(st.one_of(st.binary(max_size=300), inputs([",".join(IBIS), "\n".join(IBIS), '"a,b",c\r\n' + IBIS[0]]).map(as_bytes)))
def test_batch_uploads(data):
    text = only_parse_errors(decode_upload, data)
    if text is not None:
        only_parse_errors(rows_from_csv, text)
        only_parse_errors(rows_from_lines, text)


# -- huge and pathological inputs: bounded time as well ---------------------------------------------------------


PATHOLOGICAL = [
    "8JMKD3MGP8W/" + "3" * 100_000,
    "/".join(["a"] * 50_000),
    "http://urlib.net/8JMKD3MGP8W/35MMLL8" + "!" * 50_000,
    "http://urlib.net/8JMKD3MGP8W/35MMLL8" + ":(" * 30_000,
    "http://urlib.net/8JMKD3MGP8W/35MMLL8?" + "a=1&" * 30_000,
    "{" + "a " * 50_000 + "}",
    "a " * 100_000,
    "%" * 100_000,
    "%2" * 50_000,
    "(" * 50_000 + ")" * 50_000,
    "\x00" * 100_000,
    "é" * 100_000,
]
PARSERS = [parse_ibi, convert, split_ibi, parse_persistent_url, scan_verb_list, parse_pair_list, parse_query,
           parse_request, parse_request_url, classify, read_answer]


@pytest.mark.parametrize("text", PATHOLOGICAL, ids=[f"{text[:12]!r}x{len(text)}" for text in PATHOLOGICAL])
def test_huge_inputs_are_answered_quickly(text):
    """No parser backtracks or recurses its way into a hang on 100 000 characters.

    Measured in this thread's CPU time: a hang burns CPU, while a machine loaded by other
    processes only stretches the wall clock (which failed this check at load 17)."""
    for parser in PARSERS:
        started = time.thread_time()
        only_parse_errors(parser, text)
        assert time.thread_time() - started < 2.0, parser.__name__
