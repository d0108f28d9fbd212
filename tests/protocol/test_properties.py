"""Hypothesis: serialize → parse round trips, and parsers that only ever raise ParseError."""
from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st

from ibiportal.errors import ParseError
from ibiportal.protocol import (
    Pair,
    PairList,
    UnreadableAnswer,
    UrlRequest,
    parse_pair_list,
    parse_request,
    parse_request_url,
    read_answer,
    request_url,
)
from ibiportal.protocol.query import decode_query_value, encode_query_value

WORD_CHARACTERS = "".join(chr(code) for code in [*range(0x21, 0x7B), 0x7C, 0x7E])
names = st.text(alphabet=WORD_CHARACTERS, min_size=1, max_size=12)
latin1 = st.text(alphabet=st.characters(max_codepoint=0xFF), max_size=20)
separators = st.sampled_from(["\n", "\r\n", " "])
# bodies made mostly of the grammar's own characters, so the parser's branches are reached
grammar_soup = st.text(alphabet="ab%{} \r\n\t\x00ó", max_size=30)


@given(st.lists(st.tuples(names, latin1), max_size=8), separators)
def test_text_pairs_round_trip(items, separator):
    answer = PairList.from_pairs(items)
    text = answer.serialize(separator)
    assert text.isascii()
    again = parse_pair_list(text.encode("ascii"))
    assert again == answer
    assert [pair.text for pair in again.pairs] == [value for _, value in items]


@given(st.binary(max_size=60))
def test_parse_pair_list_raises_only_parse_error_on_bytes(body):
    try:
        parse_pair_list(body)
    except ParseError as error:
        assert error.position is None or 1 <= error.position <= len(body) + 1
    assert isinstance(read_answer(body), PairList | UnreadableAnswer)


@given(grammar_soup)
def test_parse_pair_list_raises_only_parse_error_on_text(body):
    try:
        answer = parse_pair_list(body)
    except ParseError as error:
        assert 1 <= error.position <= len(body) + 1
    else:
        assert parse_pair_list(answer.serialize()) == answer


@given(latin1)
def test_query_value_round_trip(text):
    encoded = encode_query_value(text)
    assert encoded.isascii() and not set(encoded) & set(" &=?+#")
    assert decode_query_value(encoded) == text


@given(st.text(max_size=60))
def test_parse_request_raises_only_parse_error(query):
    try:
        message = parse_request(query)
    except ParseError as error:
        assert error.message and (error.position is None or 1 <= error.position <= len(query) + 1)
    else:  # what parses is a message that writes itself back to a query that parses to it
        assert parse_request(message.to_query()) == message


@given(st.text(alphabet="abc=&%+2F ?", max_size=40))
def test_parse_request_url_raises_only_parse_error(tail):
    url = "http://urlib.net/J8LNKB5R7W/3FUQHC5?servicesubject=urlRequest&" + tail
    try:
        addressed = parse_request_url(url)
    except ParseError as error:
        assert error.message and (error.position is None or 1 <= error.position <= len(url) + 1)
    else:
        assert addressed.address == "urlib.net" and isinstance(addressed.message, UrlRequest)


ips = st.one_of(st.ip_addresses(v=4), st.ip_addresses(v=6)).map(str)
verbs = st.sampled_from(["GetLastEdition", "GetMetadata", "GetMetadata(oai_dc)", "GetTranslation",
                         "GetTranslation(pt)", "GetTranslation(pt-BR)", "GetFileList"])


@given(
    st.lists(ips, min_size=1, max_size=3),
    st.text(alphabet=WORD_CHARACTERS.replace("/", ""), min_size=1, max_size=10),
    st.one_of(st.none(), latin1.map(lambda text: "/" + text)),
    st.lists(verbs, max_size=3),
    st.booleans(),
)
def test_url_request_round_trip(client_ips, word, filepath, verb_list, sort):
    message = UrlRequest(client_ips=tuple(client_ips), ibi=f"{word}/{word}", filepath=filepath, verbs=tuple(verb_list))
    url = request_url("archive.example.org:8080", "sid.inpe.br/x/2009/08.21.17.02", message, sort=sort)
    parsed = parse_request_url(url)
    assert parsed.message == message
    assert all(ipaddress.ip_address(ip) for ip in parsed.message.client_ips)


@given(names, st.text(alphabet=WORD_CHARACTERS + " ", max_size=20))
def test_raw_values_serialize_as_they_are(name, raw):
    pair = Pair(name, raw)
    assert parse_pair_list(pair.serialize()).pairs == (pair,)


def _scanned(text: str) -> list[tuple[str, str, int | None]] | str:
    from ibiportal.protocol.pairlist import _Scanner

    try:
        return [(pair.name, pair.value, pair.position) for pair in _Scanner(text, False).pairs()]
    except ParseError as error:
        return f"{error.message} @ {error.position}"


@given(st.one_of(grammar_soup, st.text(alphabet="ab{} \r\n", max_size=40)))
def test_the_one_pass_reading_of_a_pair_list_is_the_scanners(text):
    """A well-formed list is read by regular expressions, anything else by the scanner: the same
    pairs at the same positions, or the same error."""
    try:
        read = [(pair.name, pair.value, pair.position) for pair in parse_pair_list(text).pairs]
    except ParseError as error:
        read = f"{error.message} @ {error.position}"
    assert read == _scanned(text)


@given(st.text(alphabet=st.characters(max_codepoint=0x17F), max_size=20))
def test_a_value_is_left_as_it_is_exactly_when_no_character_needs_encoding(text):
    from ibiportal.protocol.query import TABLE_6_1_ESCAPES, _NOT_IN_URL

    walked = all(0x21 <= ord(char) <= 0x7E and char not in TABLE_6_1_ESCAPES and char not in _NOT_IN_URL
                 for char in text)
    assert (encode_query_value(text) == text) == walked
