"""OAI-PMH requests read and resumption tokens, without storage or Flask (ibiportal.archive.oai_pmh)."""
from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ibiportal.archive.oai_pmh import (SETS, ErrorCode, ListQuery, OaiError, Verb, local_identifier, oai_identifier,
                                       read_request)
from ibiportal.citation.types import ItemType


def refused(pairs) -> ErrorCode:
    with pytest.raises(OaiError) as error:
        ListQuery.of(read_request(pairs))
    return error.value.code


def test_a_first_page_query_keeps_the_bounds_to_the_second():
    query = ListQuery.of(read_request([("verb", "ListRecords"), ("metadataPrefix", "oai_dc"), ("set", "type:report"),
                                       ("from", "2024-02-29"), ("until", "2024-03-01")]))
    assert query == ListQuery(Verb.LIST_RECORDS, "type:report", "2024-02-29T00:00:00", "2024-03-01T23:59:59")
    seconds = ListQuery.of(read_request([("verb", "ListIdentifiers"), ("metadataPrefix", "oai_dc"),
                                         ("until", "2024-03-01T10:11:12Z")]))
    assert (seconds.since, seconds.until, seconds.after, seconds.cursor) == (None, "2024-03-01T10:11:12", None, 0)


@pytest.mark.parametrize(("pairs", "code"), [
    ([("verb", "ListRecords"), ("metadataPrefix", "oai_dc"), ("from", "2023-02-29")], ErrorCode.BAD_ARGUMENT),
    ([("verb", "ListRecords"), ("metadataPrefix", "oai_dc"), ("from", "2023-01-01T25:00:00Z")], ErrorCode.BAD_ARGUMENT),
    ([("verb", "ListRecords"), ("metadataPrefix", "oai_dc"), ("until", "2023-01-01T00:00:00.5Z")], ErrorCode.BAD_ARGUMENT),
    ([("verb", "ListRecords"), ("metadataPrefix", "oai_dc"), ("set", "type::report")], ErrorCode.BAD_ARGUMENT),
    ([("verb", "ListRecords"), ("metadataPrefix", "rdf")], ErrorCode.CANNOT_DISSEMINATE_FORMAT),
    # a bad date is said before an unknown format: the request is malformed whatever the format
    ([("verb", "ListRecords"), ("metadataPrefix", "rdf"), ("from", "yesterday")], ErrorCode.BAD_ARGUMENT),
    ([("verb", "ListRecords"), ("resumptionToken", "")], ErrorCode.BAD_RESUMPTION_TOKEN),
    ([("Verb", "ListRecords")], ErrorCode.BAD_VERB),
])
def test_malformed_lists_are_refused_with_their_code(pairs, code):
    assert refused(pairs) is code


def test_a_token_holds_the_query_and_its_place():
    first = ListQuery(Verb.LIST_IDENTIFIERS, "type:doctoral_thesis", "2020-01-01T00:00:00", None)
    following = first.next(("2021-05-06T07:08:09.123456Z", 42), 100).next(("2021-05-06T07:08:10.000000Z", 7), 100)
    token = following.encode()
    assert token.isascii() and "=" not in token and "/" not in token and "+" not in token
    assert ListQuery.decode(Verb.LIST_IDENTIFIERS, token) == following
    assert (following.after, following.cursor) == (("2021-05-06T07:08:10.000000Z", 7), 200)


def forged(*fields) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(fields)).encode()).decode()


@pytest.mark.parametrize("token", [
    "!!!", "", forged(1, 2), forged("ListRecords", None, None, None, "2021-05-06T07:08:10.000000Z", 7),
    forged("ListSets", None, None, None, "2021-05-06T07:08:10.000000Z", 7, 0),
    forged("ListRecords", "a b", None, None, "2021-05-06T07:08:10.000000Z", 7, 0),
    forged("ListRecords", None, "2021-13-01T00:00:00", None, "2021-05-06T07:08:10.000000Z", 7, 0)[:-1],
    forged("ListRecords", None, None, None, "2021-05-06 07:08:10", 7, 0),
    forged("ListRecords", None, None, None, "2021-05-06T07:08:10.000000Z", -1, 0),
    forged("ListRecords", None, None, None, "2021-05-06T07:08:10.000000Z", 7, True),
    forged("ListRecords", None, 5, None, "2021-05-06T07:08:10.000000Z", 7, 0),
])
def test_a_token_not_given_by_the_repository_is_refused(token):
    with pytest.raises(OaiError) as error:
        ListQuery.decode(Verb.LIST_RECORDS, token)
    assert error.value.code is ErrorCode.BAD_RESUMPTION_TOKEN


@given(st.text(max_size=80))
def test_no_text_makes_decoding_fail_otherwise(text):
    try:
        ListQuery.decode(Verb.LIST_RECORDS, text)
    except OaiError as error:
        assert error.code is ErrorCode.BAD_RESUMPTION_TOKEN


def test_identifiers_name_the_repository_and_the_repository_name():
    identifier = oai_identifier("urlib.net", "sid.inpe.br/mtc-m21/2012/07.02.15.38")
    assert identifier == "oai:urlib.net:sid.inpe.br/mtc-m21/2012/07.02.15.38"
    assert local_identifier("urlib.net", identifier) == "sid.inpe.br/mtc-m21/2012/07.02.15.38"
    for other in ("oai:urlib.net:", "oai:urlib.org:sid.inpe.br/x", "urlib.net:sid.inpe.br/x"):
        with pytest.raises(OaiError) as error:
            local_identifier("urlib.net", other)
        assert error.value.code is ErrorCode.ID_DOES_NOT_EXIST


def test_every_kind_of_item_has_a_set_whose_spec_the_protocol_accepts():
    assert {kind for kind in SETS.values()} == set(ItemType)
    assert SETS["type:masters_thesis"] is ItemType.MASTERS_THESIS
    for spec in SETS:
        assert ListQuery.of(read_request([("verb", "ListIdentifiers"), ("metadataPrefix", "oai_dc"), ("set", spec)])).set_spec == spec
