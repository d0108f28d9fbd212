"""The conformance check (file 003 §6.2, §7.2, §9): rules pass and fail for the right reasons.

Mocked Archives (``responses``) answer with the project's own correct Archive service – the
demo ``mtc-m16c`` of §10 – and each bad Archive changes exactly one thing. Then the same over
real sockets: a good demo Archive and the ``garbled`` one served by ``ArchiveHTTPServer``.
"""
from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import pytest
import responses
from requests.exceptions import ReadTimeout

from ibiportal.archive.demo import load_demo_archives
from ibiportal.archive.service import ArchiveService
from ibiportal.errors import ParseError
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.resolver.conformance import (
    CHECK_REQUESTS,
    ConformanceCheck,
    ConformanceReport,
    check_archive,
    check_bound,
    send_confirmation_request,
)
from ibiportal.resolver.conformance_probes import CHECK_TIMEOUTS, ServiceAddress, invent_unknown_ibi, parse_service_address
from ibiportal.resolver.conformance_rules import RULES, Verdict
from ibiportal.resolver.transport import Exchange, Timeouts
from ibiportal.resolver.http_transport import HttpTransport

MARGIN = 0.75
"""Seconds of thread scheduling allowed beyond a configured deadline on a loaded machine."""

ARCHIVES = load_demo_archives()
M16C = ARCHIVES["mtc-m16c"].service
ADDRESS = "mtc-m16c.sid.inpe.br"
SERVICE_IBI = "sid.inpe.br/mtc-m18@80/2008/03.17.15.17"
BASE = f"http://{ADDRESS}/{SERVICE_IBI}"
KNOWN = "8JMKD3MGP8W/35MMLL8"  # §10.1: held by mtc-m16c
UNKNOWN = "6HB6CLN7W4NA8/3GG4FS4"  # at 192.0.2.x (RFC 5737), as invent_unknown_ibi makes them


def public_dns(host, port, *args, **kwargs):
    """Every name resolves to a public address (responses never connects anyway)."""
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("150.163.34.243", port))]


@pytest.fixture
def http():
    transport = HttpTransport(getaddrinfo=public_dns)
    yield transport
    transport.close()


def subject_of(request) -> str:
    return parse_qs(urlsplit(request.url).query)["servicesubject"][0]


def mock_archive(
    service: ArchiveService = M16C,
    *,
    content_type: str = "text/plain",
    body: Callable[[str, bytes], bytes] = lambda subject, body: body,
    status: Callable[[str, int], int] = lambda subject, status: status,
) -> None:
    """An Archive at BASE answering with ``service`` (Algorithm 1), then changed by ``body``/``status``."""

    def callback(request):
        answer = service.respond(urlsplit(request.url).query)
        subject = subject_of(request)
        return status(subject, answer.status), {"Content-Type": content_type}, body(subject, answer.text.encode("ascii"))

    responses.add_callback(responses.GET, BASE, callback=callback)


def outcomes(report: ConformanceReport) -> dict[str, Verdict]:
    return {result.rule_id: result.outcome for result in report.results}


def failed(report: ConformanceReport) -> set[str]:
    return {result.rule_id for result in report.results if result.failed}


def result(report: ConformanceReport, rule_id: str):
    return next(result for result in report.results if result.rule_id == rule_id)


def check(http, **options) -> ConformanceReport:
    return check_archive(BASE, http, known_ibi=KNOWN, unknown_ibi=UNKNOWN, **options)


# -- a good Archive ---------------------------------------------------------------------------


@responses.activate
def test_a_good_archive_passes_every_rule_each_citing_its_source(http):
    mock_archive()
    report = check(http)
    assert outcomes(report) == {rule.rule_id: Verdict.PASSED for rule in RULES}
    assert report.conforms and report.count(Verdict.PASSED) == len(RULES)
    assert [probe.name for probe in report.probes] == [
        "confirmation", "unknown IBI", "known IBI", "known IBI again", "acknowledgment"]
    assert [subject_of(call.request) for call in responses.calls] == [
        "inclusionConfirmationRequest", "urlRequest", "urlRequest", "urlRequest", "acknowledgment"]
    # Example 7.4 exactly; the urlRequests of Table 8.9; the acknowledgment of Table 8.11 (Example 8.9).
    assert responses.calls[0].request.url == f"{BASE}?servicesubject=inclusionConfirmationRequest"
    assert f"parsedibiurl.ibi={UNKNOWN}" in responses.calls[1].request.url
    ack = responses.calls[4].request.url
    assert "url.persistent=http://urlib.net:80/8JMKD3MGP8W/35MMLL8&" in ack and "urlkey=" in ack
    for rule in RULES:
        assert re.search(r"file 003 §\d", result(report, rule.rule_id).source)
    assert "CCSDS 650.0-B-1.pdf" in result(report, "known-ibi").detail
    assert result(report, "timing").detail.startswith("Slowest answer ")


@responses.activate
def test_without_a_known_ibi_the_rules_that_need_one_are_skipped_with_the_reason(http):
    mock_archive()
    report = check_archive(BASE, http)
    assert {rule for rule, outcome in outcomes(report).items() if outcome is Verdict.SKIPPED} == {
        "known-ibi", "acknowledgment", "urlkey"}
    assert "No known IBI given" in result(report, "known-ibi").detail
    assert report.conforms and len(responses.calls) == 2
    # The invented IBI is a valid IBIp at a documentation address (RFC 5737), fresh each time.
    assert parse_ibi(report.unknown_ibi).form == "ibip"
    assert report.unknown_ibi != invent_unknown_ibi()


@responses.activate
def test_a_deleted_item_is_a_valid_url_list_without_anything_to_acknowledge(http):
    tombstone = ARCHIVES["tombstone"].service
    mock_archive(tombstone)
    report = check_archive(BASE, http, known_ibi="D7N2U8HW/3GBBQK2", unknown_ibi=UNKNOWN)
    assert failed(report) == set()
    assert "Deleted" in result(report, "known-ibi").detail
    assert outcomes(report)["acknowledgment"] is Verdict.SKIPPED
    assert outcomes(report)["urlkey"] is Verdict.SKIPPED


# -- bad Archives: each fails the rules it breaks, and only those -----------------------------


def _url_list_only(subject: str, body: bytes) -> bytes:
    return body.replace(b"state Original", b"state Orig\xf3nal") if subject == "urlRequest" else body


@responses.activate
def test_content_type_other_than_text_plain(http):
    mock_archive(content_type="text/html; charset=utf-8")
    report = check(http)
    assert failed(report) == {"content-type"}
    detail = result(report, "content-type").detail
    assert "confirmation: Content-Type text/html; charset=utf-8" in detail
    assert len(result(report, "content-type").evidence) == 5


@responses.activate
def test_non_ascii_byte_is_found_with_its_position(http):
    mock_archive(body=_url_list_only)
    report = check(http)
    assert failed(report) == {"ascii", "grammar", "known-ibi", "urlkey"}
    ascii_detail = result(report, "ascii").detail
    assert re.search(r"known IBI: byte 0xF3 at character \d+ \(write it %f3\)", ascii_detail)
    assert "non-ASCII byte 0xF3" in result(report, "grammar").detail
    assert outcomes(report)["acknowledgment"] is Verdict.SKIPPED
    # The evidence shows the byte, not the character: nothing hidden, nothing interpreted.
    assert "state Orig\\xf3nal" in result(report, "ascii").evidence[0].excerpt


@responses.activate
def test_grammar_error_is_reported_with_its_position(http):
    mock_archive(body=lambda subject, body: b"archiveaddress {mtc-m16c" if subject == "urlRequest" else body)
    report = check(http)
    assert {"grammar", "unknown-ibi", "known-ibi", "urlkey"} <= failed(report)
    assert "unbalanced '{': no '}' closes it (at character 16)" in result(report, "grammar").detail
    assert "not a pair list" in result(report, "unknown-ibi").detail


@responses.activate
def test_an_archive_answering_about_an_ibi_it_cannot_hold(http):
    known_answer = M16C.answer(f"servicesubject=urlRequest&clientinformation.ipaddress=192.0.2.1&parsedibiurl.ibi={KNOWN}")
    mock_archive(body=lambda subject, body: known_answer.encode() if subject == "urlRequest" else body)
    report = check(http)
    assert failed(report) == {"unknown-ibi", "urlkey"}  # a canned answer repeats its urlkey too
    assert f"Asked about {UNKNOWN}, an IBI invented for this check" in result(report, "unknown-ibi").detail


@responses.activate
def test_the_same_urlkey_twice(http):
    mock_archive(ArchiveService(M16C.identity, M16C.store, urlkey=lambda: "1426203276-5985125171467764"))
    report = check(http)
    assert failed(report) == {"urlkey"}
    assert "The same urlkey 1426203276-5985125171467764 in two answers" in result(report, "urlkey").detail


@responses.activate
def test_a_urlkey_that_is_not_a_key_of_table_7_1(http):
    mock_archive(ArchiveService(M16C.identity, M16C.store, urlkey=lambda: "abc"))
    report = check(http)
    assert failed(report) == {"known-ibi", "urlkey"}
    assert "urlkey 'abc' is not a key of Table 7.1" in result(report, "known-ibi").detail
    assert outcomes(report)["acknowledgment"] is Verdict.SKIPPED  # Table 8.11 needs a valid urlkey


@responses.activate
def test_missing_pairs_of_algorithm_2_are_named(http):
    def strip(subject: str, body: bytes) -> bytes:
        lines = body.split(b"\r\n")
        return b"\r\n".join(line for line in lines if not line.startswith((b"timestamp ", b"ibi.archiveservice ")))

    mock_archive(body=strip)
    report = check(http)
    assert failed(report) == {"known-ibi"}
    assert result(report, "known-ibi").detail == "no ibi.archiveservice pair; no timestamp pair."


@responses.activate
def test_wrong_constant_answers_and_http_status(http):
    def body(subject: str, answer: bytes) -> bytes:
        return {"inclusionConfirmationRequest": b"confirmation no\r\n", "acknowledgment": b"thanks\r\n"}.get(subject, answer)

    mock_archive(body=body, status=lambda subject, status: 500 if subject == "acknowledgment" else status)
    report = check(http)
    assert failed(report) == {"confirmation", "acknowledgment", "http-status", "grammar"}
    assert result(report, "confirmation").detail == "Expected 'confirmation yes', got 'confirmation no'."
    assert result(report, "acknowledgment").detail == "Expected 'notice {acknowledgment received}'; HTTP status 500."
    assert result(report, "http-status").detail == "acknowledgment: HTTP status 500."
    assert "name 'thanks' has no value" in result(report, "grammar").detail


@responses.activate
def test_an_answer_too_late_fails_timing_and_nothing_more_is_sent(http):
    responses.get(BASE, body="confirmation yes\r\n", content_type="text/plain",
                  match=[responses.matchers.query_param_matcher({"servicesubject": "inclusionConfirmationRequest"})])
    responses.get(BASE, body=ReadTimeout("read timed out"))
    report = check(http)
    assert len(responses.calls) == 2
    assert failed(report) == {"unknown-ibi", "timing"}
    assert "No answer in time to: unknown IBI" in result(report, "timing").detail
    assert "no answer (timeout: ReadTimeout" in result(report, "unknown-ibi").detail
    for rule_id in ("known-ibi", "urlkey"):
        assert result(report, rule_id).outcome is Verdict.SKIPPED
        assert "Not sent: the unknown IBI request got no answer (timeout" in result(report, rule_id).detail


def test_each_request_has_the_whole_limit_however_many_the_check_sends():
    class Clock:
        now = 0.0

        def __call__(self) -> float:
            return self.now

    clock = Clock()
    late = CHECK_TIMEOUTS.total * 0.8  # every answer just within the protocol's limit

    class SlowTransport:
        limits: list[Timeouts] = []

        def fetch(self, url: str, timeouts: Timeouts) -> Exchange:
            self.limits.append(timeouts)
            clock.now += late
            return Exchange(200, "text/plain", M16C.respond(urlsplit(url).query).text.encode("ascii"))

    transport = SlowTransport()
    check = ConformanceCheck(BASE, clock=clock, known_ibi=KNOWN, unknown_ibi=UNKNOWN)
    decided = []
    for rule in check.results(transport):  # each rule is decided once its own requests were answered
        decided.append((rule.rule_id, len(transport.limits)))
    assert decided[:4] == [("confirmation", 1), ("unknown-ibi", 2), ("known-ibi", 4), ("acknowledgment", 5)]
    assert [rule_id for rule_id, _ in decided] == [rule.rule_id for rule in RULES]
    report = check.report()
    assert transport.limits == [CHECK_TIMEOUTS] * CHECK_REQUESTS
    assert outcomes(report) == {rule.rule_id: Verdict.PASSED for rule in RULES}
    assert report.duration_ms == pytest.approx(CHECK_REQUESTS * late * 1000)
    assert report.duration_ms / 1000 > 3 * CHECK_TIMEOUTS.total  # beyond the old budget of the whole check
    assert check_bound() == CHECK_REQUESTS * CHECK_TIMEOUTS.total


# -- SSRF: the resolver's address policy applies ------------------------------------------------


@pytest.mark.parametrize("address", ["127.0.0.1:8080", "10.1.2.3", "169.254.169.254", "[::1]:80"])
def test_loopback_and_private_addresses_are_refused_and_nothing_is_sent(address):
    transport = HttpTransport()
    report = check_archive(f"http://{address}/{SERVICE_IBI}", transport, known_ibi=KNOWN)
    transport.close()
    assert report.refused and not report.conforms
    assert report.count("failed") == 0 and report.count("not-checked") >= 1  # refused is not failed
    not_checked = [result for result in report.results if result.outcome == "not-checked"]
    assert [result.rule_id for result in not_checked] == ["confirmation"]  # the rest were not sent: skipped
    assert not_checked[0].detail.startswith(f"Not checked: refused to contact {address}")
    assert "private Archives are not allowed" in report.unreachable
    assert failed(report) == set()
    assert [probe.exchange is not None for probe in report.probes] == [True, False, False, False]


# -- input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message, position",
    [
        ("", "give the Archive service address", None),
        ("https://mtc-m16c.sid.inpe.br/x", "starts with http://", 1),
        ("http://mtc-m16c.sid.inpe.br", "no service IBI after the address", 28),
        ("http://mtc-m16c.sid.inpe.br/", "no service IBI after the address", 29),
        (f"{BASE}?servicesubject=urlRequest", "no '?' in an Archive service address", len(BASE) + 1),
        ("http://mtc-m16c.sid.inpe.br/sid.inpe.br/mtc-m18@80/2008/13.17.15.17", "service IBI: month 13", 57),
        ("http://bad_host!/8JMKD3MGP8W/35MMLL8", "archive address 'bad_host!'", 8),
    ],
)
def test_service_address_errors_say_what_and_where(text, message, position):
    with pytest.raises(ParseError) as caught:
        parse_service_address(text)
    assert message in caught.value.message
    assert (caught.value.position, caught.value.field) == (position, "address")


def test_service_address_of_example_7_4():
    parsed = parse_service_address("http://mtc-m21.sid.inpe.br/sid.inpe.br/mtc-m21/2012/06.05.15.34.39")
    assert parsed == ServiceAddress("mtc-m21.sid.inpe.br", "sid.inpe.br/mtc-m21/2012/06.05.15.34.39")
    assert str(parsed) == "http://mtc-m21.sid.inpe.br/sid.inpe.br/mtc-m21/2012/06.05.15.34.39"


@responses.activate
def test_a_bad_known_ibi_is_refused_before_anything_is_sent(http):
    with pytest.raises(ParseError) as caught:
        check_archive(BASE, http, known_ibi="8JMKD3MGP8W/35MML01")
    assert caught.value.field == "known_ibi" and caught.value.message.startswith("known IBI: ")
    assert caught.value.position == 18
    assert len(responses.calls) == 0


@responses.activate
def test_confirmation_request_alone(http):
    mock_archive()
    probe, verdict = send_confirmation_request(ServiceAddress(ADDRESS, SERVICE_IBI), http)
    assert verdict.passed and probe.url == f"{BASE}?servicesubject=inclusionConfirmationRequest"
    assert probe.excerpt == "confirmation yes"


# -- over real sockets: demo Archives served by ArchiveHTTPServer on loopback --------------------


def test_real_sockets_good_archive_passes_and_garbled_fails_the_grammar(serve_demo_archive):
    good, garbled = serve_demo_archive("mtc-m16c"), serve_demo_archive("garbled")
    transport = HttpTransport(allow_private=True)
    try:
        good_report = check_archive(good.base_url, transport, known_ibi=KNOWN)
        garbled_report = check_archive(garbled.base_url, transport, known_ibi="D7N2U8HW/3SNU8PS")
    finally:
        transport.close()
    assert outcomes(good_report) == {rule.rule_id: Verdict.PASSED for rule in RULES}
    assert all(probe.status == 200 for probe in good_report.probes)

    assert failed(garbled_report) == {"confirmation", "unknown-ibi", "known-ibi", "grammar", "urlkey"}
    assert {rule for rule, outcome in outcomes(garbled_report).items() if outcome is Verdict.PASSED} == {
        "http-status", "content-type", "ascii", "timing"}
    assert outcomes(garbled_report)["acknowledgment"] is Verdict.SKIPPED
    grammar = result(garbled_report, "grammar")
    assert "line break inside the braced value opened at character 43" in grammar.detail
    assert "(at character 105)" in grammar.detail
    assert grammar.evidence[0].excerpt == ARCHIVES["garbled"].behaviour.malformed


def test_real_sockets_slow_archive_fails_timing_within_the_limit(serve_demo_archive):
    server = serve_demo_archive("mtc-m16c")
    server.delay = 1.0
    transport = HttpTransport(allow_private=True)
    try:
        timeouts = Timeouts(0.5, 0.3, 0.5)
        report = check_archive(server.base_url, transport, timeouts=timeouts)
    finally:
        transport.close()
    assert failed(report) == {"confirmation", "timing"}
    # One timed-out request, then nothing more sent: said by the probes themselves, and the
    # check's time bounded by that request's deadline (plus thread scheduling on a loaded machine).
    assert [probe.exchange is not None for probe in report.probes].count(True) == 1
    assert report.duration_ms < (timeouts.total + MARGIN) * 1000


def test_real_sockets_a_slow_but_compliant_archive_passes_every_rule(scripted_archive):
    # The protocol's limits scaled down so that the test stays short; each answer comes at 65 %
    # of the limit to answer (0.7 s to spare on a loaded machine), and the five of them take
    # together more than three limits (the check once had one budget of three limits for all its
    # requests, and failed such an Archive).
    timeouts = Timeouts(CHECK_TIMEOUTS.connect * 0.4, CHECK_TIMEOUTS.read * 0.4, CHECK_TIMEOUTS.total * 0.4)
    delay = 0.65 * timeouts.read

    def slow_m16c(request):
        time.sleep(delay)
        return M16C.respond(urlsplit(request.target).query).text

    archive = scripted_archive(slow_m16c)
    transport = HttpTransport(allow_private=True)
    try:
        report = check_archive(f"http://{archive.address}/{SERVICE_IBI}", transport, known_ibi=KNOWN,
                               timeouts=timeouts)
    finally:
        transport.close()
    assert outcomes(report) == {rule.rule_id: Verdict.PASSED for rule in RULES}
    assert [request.subject for request in archive.received] == [
        "inclusionConfirmationRequest", "urlRequest", "urlRequest", "urlRequest", "acknowledgment"]
    assert all(probe.duration_ms >= delay * 1000 for probe in report.probes)
    assert 3 * timeouts.total < report.duration_ms / 1000 < check_bound(timeouts)
