"""§10.1 and §10.2 of file 003, reproduced message for message by the demo Archives.

The standard's text is copied below with its PDF artefacts repaired, each noted:
* §10.2's first urlRequest prints ``150.163.68.11`` (a doubled ``1`` at a line break); §10.1,
  the second request and both acknowledgments print ``150.163.68.1``, the proxy's IP.
* §10.1's answer prints ``CCSDS\\%20650.0-B-1.pdf`` (a LaTeX escape); the acknowledgment and the
  final URL print ``CCSDS%20650.0-B-1.pdf``.
* §10.2's second answer prints ``http://mtc-m16c ... br/col/…`` (an elided line); the
  acknowledgment and the final URL print ``http://mtc-m16c.sid.inpe.br/col/…``.
* URLs printed over several lines are joined; ``urlkey`` values are fresh per answer (§9.2),
  so they are compared by shape and checked to be the one of the answer acknowledged.
"""
from __future__ import annotations

import json
import re

from ibiportal.resolver.trace import AlertReason, Resolution, Status

BASE = "http://mtc-m16c.sid.inpe.br/sid.inpe.br/mtc-m18@80/2008/03.17.15.17?"
URLKEY = re.compile(r"urlkey=(\d{10,}-\d{10,})$")

S10_1_REQUEST = BASE + (
    "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&"
    "parsedibiurl.ibi=8JMKD3MGP8W/35MMLL8&"
    "servicesubject=urlRequest"
)
S10_1_ANSWER = [
    ("archiveaddress", "mtc-m16c.sid.inpe.br"),
    ("contenttype", "Data"),
    ("ibi", "rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43 ibip 8JMKD3MGP8W/35MMLL8"),
    ("ibi.archiveservice", "rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17"),
    ("ibi.platformsoftware", "rep dpi.inpe.br/banon/1998/08.02.08.56"),
    ("state", "Original"),
    ("timestamp", "2009-07-21T14:43:31Z"),
    ("url", "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/CCSDS%20650.0-B-1.pdf"),
]
S10_1_ACK = BASE + (
    "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&"
    "contenttype=Data&"
    "ibi=rep%20sid.inpe.br/mtc-m18@80/2009/07.21.14.43%20ibip%208JMKD3MGP8W/35MMLL8&"
    "servicesubject=acknowledgment&"
    "state=Original&"
    "url=http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/CCSDS%20650.0-B-1.pdf&"
    "url.persistent=http://urlib.net:80/8JMKD3MGP8W/35MMLL8&"
)
S10_1_URL = "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/CCSDS%20650.0-B-1.pdf"

S10_2_REQUESTS = [
    BASE + (
        "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&"  # printed …68.11 (artefact)
        "parsedibiurl.ibi=8JMKD3MGP8W/35MMLL8&"
        "parsedibiurl.verblist=GetLastEdition%20GetMetadata(oai_dc)&"
        "servicesubject=urlRequest"
    ),
    BASE + (
        "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&"
        "parsedibiurl.ibi=sid.inpe.br/mtc-m18/2012/07.12.18.08&"
        "parsedibiurl.verblist=GetLastEdition%20GetMetadata(oai_dc)&"
        "servicesubject=urlRequest"
    ),
]
S10_2_ANSWERS = [
    [
        ("archiveaddress", "mtc-m16c.sid.inpe.br"),
        ("ibi", "rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43 ibip 8JMKD3MGP8W/35MMLL8"),
        ("ibi.archiveservice", "rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17"),
        ("ibi.nextedition", "rep sid.inpe.br/mtc-m18/2012/07.12.18.08"),
        ("ibi.platformsoftware", "rep dpi.inpe.br/banon/1998/08.02.08.56"),
    ],
    [
        ("archiveaddress", "mtc-m16c.sid.inpe.br"),
        ("contenttype.lastedition.metadata(oai_dc)", "Metadata"),
        ("ibi", "rep sid.inpe.br/mtc-m18/2012/07.12.18.08 ibip 8JMKD3MGP8W/3C9EP6P"),
        ("ibi.archiveservice", "rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17"),
        ("ibi.lastedition.metadata(oai_dc)", "rep sid.inpe.br/mtc-m18/2012/07.12.18.08.49"),
        ("ibi.platformsoftware", "rep dpi.inpe.br/banon/1998/08.02.08.56"),
        ("state.lastedition.metadata(oai_dc)", "Original"),
        ("timestamp.lastedition.metadata(oai_dc)", "2014-04-04T17:36:01Z"),
        (
            "url.lastedition.metadata(oai_dc)",  # printed "http://mtc-m16c ... br/col/…" (artefact)
            "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18/2012/07.12.18.08.49/doc/metadata.cgi?choice=oai_dc",
        ),
    ],
]
S10_2_ACK = BASE + (
    "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&"
    "contenttype=Metadata&"
    "ibi=rep%20sid.inpe.br/mtc-m18/2012/07.12.18.08.49&"
    "servicesubject=acknowledgment&"
    "state=Original&"
    "url=http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18/2012/07.12.18.08.49/doc/metadata.cgi%3Fchoice%3Doai_dc&"
    "url.persistent=http://urlib.net:80/8JMKD3MGP8W/35MMLL8!:(oai_dc)&"
)
S10_2_URL = "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18/2012/07.12.18.08.49/doc/metadata.cgi?choice=oai_dc"


def m16c_steps(resolution: Resolution):
    return [step for step in resolution.trace.numbered(3) if step.archive == "mtc-m16c.sid.inpe.br"]


def without_urlkey(pairs):
    return [pair for pair in pairs if pair[0] != "urlkey"]


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
    resolution = demo_resolver.resolve("http://urlib.net/8JMKD3MGP8W/35MMLL8", standard_client)
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
    resolution = demo_resolver.resolve("http://urlib.net/8JMKD3MGP8W/35MMLL8", standard_client)
    sent = [step.request_url for step in resolution.trace.numbered(3) if step.request_url]
    m16d = [url for url in sent if url.startswith("http://mtc-m16d.sid.inpe.br/")]
    assert m16d == [S10_1_REQUEST.replace(BASE, "http://mtc-m16d.sid.inpe.br/sid.inpe.br/mtc-m19@80/2009/08.21.17.02?")]
    for url in sent:  # Table 8.6: neither the language preference nor the required status is passed on
        assert "languagepreference" not in url and "requireditemstatus" not in url and "pt-BR" not in url


def test_section_10_2(demo_resolver, standard_client):
    resolution = demo_resolver.resolve("http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)", standard_client)
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
    resolution = demo_resolver.resolve("http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)", standard_client)
    rebuilt = Resolution.from_dict(json.loads(json.dumps(resolution.to_dict())))
    assert rebuilt == resolution
    assert rebuilt.trace.steps[0].number == 2 and rebuilt.trace.steps[-1].number == 7


def test_bad_persistent_url_is_an_alert_with_position(demo_resolver, standard_client):
    resolution = demo_resolver.resolve("http://urlib.net/8JMKD3MGP8W/35MMLL8!x", standard_client)
    assert resolution.alert.reason is AlertReason.BAD_REQUEST
    (capture,) = resolution.trace.numbered(2)
    assert capture.parse_error.position is not None
