"""§10.1 and §10.2 of file 003, reproduced message for message by the demo Archives.

The standard's text comes from tests/standard_examples.py, where its PDF artefacts are
repaired and noted. ``urlkey`` values are fresh per answer (§9.2), so they are compared by
shape and checked to be the one of the answer acknowledged.
"""
from __future__ import annotations

import json
import re

import pytest

from ibiportal.errors import ParseError
from ibiportal.protocol.pairlist import parse_pair_list
from ibiportal.resolver.engine import Asked
from ibiportal.resolver.trace import Resolution, Status
from tests.standard_examples import (
    SECTION_10_1_ACK,
    SECTION_10_1_ANSWER,
    SECTION_10_1_URL,
    SECTION_10_1_URL_REQUEST,
    SECTION_10_2_ACK,
    SECTION_10_2_ANSWER_1,
    SECTION_10_2_ANSWER_2,
    SECTION_10_2_URL,
    SECTION_10_2_URL_REQUEST_1,
    SECTION_10_2_URL_REQUEST_2,
)

BASE = SECTION_10_1_URL_REQUEST.split("?")[0] + "?"
URLKEY = re.compile(r"urlkey=(\d{10,}-\d{10,})$")


def without_urlkey(pairs):
    return [pair for pair in pairs if pair[0] != "urlkey"]


def printed_pairs(answer: str) -> list[tuple[str, str]]:
    """An answer's pairs as the trace records them, less its urlkey (fresh per answer)."""
    return without_urlkey(parse_pair_list(answer))


def before_urlkey(ack: str) -> str:
    """An acknowledgment up to its urlkey value (fresh per answer)."""
    return ack[: ack.index("urlkey=")]


S10_1_REQUEST = SECTION_10_1_URL_REQUEST
S10_1_ANSWER = printed_pairs(SECTION_10_1_ANSWER)
S10_1_ACK = before_urlkey(SECTION_10_1_ACK)
S10_1_URL = SECTION_10_1_URL
S10_2_REQUESTS = [SECTION_10_2_URL_REQUEST_1, SECTION_10_2_URL_REQUEST_2]
S10_2_ANSWERS = [printed_pairs(SECTION_10_2_ANSWER_1), printed_pairs(SECTION_10_2_ANSWER_2)]
S10_2_ACK = before_urlkey(SECTION_10_2_ACK)
S10_2_URL = SECTION_10_2_URL

def m16c_steps(resolution: Resolution):
    return [step for step in resolution.trace.numbered(3) if step.archive == "mtc-m16c.sid.inpe.br"]


def check_acknowledgment(resolution: Resolution, expected_prefix: str, answer_step) -> None:
    (ack,) = resolution.trace.numbered(5)
    assert ack.request_url.startswith(expected_prefix)
    key = URLKEY.search(ack.request_url[len(expected_prefix) - 1:])
    assert key, ack.request_url
    assert dict(answer_step.pairs)["urlkey"] == key[1], "the urlkey of the answer acknowledged (Table 8.11)"
    (notice,) = resolution.trace.numbered(6)
    assert notice.pairs == (("notice", "acknowledgment received"),)
    assert resolution.acknowledgment_url == ack.request_url


def test_section_10_1(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8"), standard_client)
    assert resolution.url == S10_1_URL
    (request,) = m16c_steps(resolution)
    assert request.request_url == S10_1_REQUEST
    assert request.status is Status.ANSWERED
    assert without_urlkey(request.pairs) == S10_1_ANSWER
    check_acknowledgment(resolution, S10_1_ACK, request)
    assert [step.number for step in resolution.trace.steps][-4:] == [4, 5, 6, 7]
    (selection,) = resolution.trace.numbered(4)
    assert selection.decision.startswith("first non-empty answer, from mtc-m16c after ")
    assert "mtc-m16d answered empty" in selection.decision


def test_section_10_1_sends_the_same_request_to_every_archive(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8"), standard_client)
    sent = [step.request_url for step in resolution.trace.numbered(3) if step.request_url]
    m16d = [url for url in sent if url.startswith("http://mtc-m16d.sid.inpe.br/")]
    assert m16d == [S10_1_REQUEST.replace(BASE, "http://mtc-m16d.sid.inpe.br/sid.inpe.br/mtc-m19@80/2009/08.21.17.02?")]
    for url in sent:  # Table 8.6: neither the language preference nor the required status is passed on
        assert "languagepreference" not in url and "requireditemstatus" not in url and "pt-BR" not in url


def test_section_10_2(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"), standard_client)
    assert resolution.url == S10_2_URL
    assert resolution.hops == 2
    requests = m16c_steps(resolution)
    assert [step.request_url for step in requests] == S10_2_REQUESTS
    assert [without_urlkey(step.pairs) for step in requests] == S10_2_ANSWERS
    check_acknowledgment(resolution, S10_2_ACK, requests[1])
    decisions = [step.decision for step in resolution.trace.numbered(4)]
    assert any(
        "ibi.nextedition sid.inpe.br/mtc-m18/2012/07.12.18.08: asking all Archives again (hop 2)" in decision
        for decision in decisions
    )


def test_trace_survives_json(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"), standard_client)
    rebuilt = Resolution.from_dict(json.loads(json.dumps(resolution.to_dict())))
    assert rebuilt == resolution
    assert rebuilt.trace.steps[0].number == 2 and rebuilt.trace.steps[-1].number == 7


def test_a_bad_persistent_url_never_reaches_the_resolver():
    """The resolver takes persistent URLs read by their receiver: one that does not read is
    refused there, naming the character at fault (the resolve view's 400), before any message."""
    with pytest.raises(ParseError) as refused:
        Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8!x")
    assert refused.value.position is not None
