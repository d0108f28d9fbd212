"""Archives that fail in every way a network allows, on real loopback sockets.

Each fault runs through the resolver engine and each real HTTP transport – ``HttpTransport``
(requests) and ``CurlTransport`` (libcurl, the portal's fan-out) – with a 2 s resolution
deadline and 1 s connect/read timeouts, asking with ``ibiurl.requireditemstatus=Original`` so
that the resolver waits for every Archive (the worst case). For each: the resolution completes
within its deadline (plus a margin for a loaded machine), and the trace step of that Archive
says what happened, in the words of that client (urllib3's exception names, libcurl's
messages behind the transport's own words). One test puts every fault behind a real gunicorn
portal at once.
"""
from __future__ import annotations

import socket
import time
import tracemalloc
from dataclasses import dataclass
from typing import TypeVar

import pytest
import requests

from ibiportal.resolver.curl_transport import CurlTransport
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver, ResolverSettings
from ibiportal.resolver.trace import Status
from ibiportal.resolver.transport import ArchiveEndpoint, DEFAULT_MAX_ANSWER_BYTES, Failure, Timeouts
from ibiportal.resolver.http_transport import HttpTransport
from tests.reliability.faulty_archives import (
    SERVICE_IBI,
    RawArchive,
    answers,
    answers_late,
    closes_early,
    endless,
    garbage,
    include,
    over_tls,
    resets,
    says_nothing,
    trickles,
)
from tests.reliability.processes import start_gunicorn
from tests.standard_examples import SECTION_10_1_ANSWER, SECTION_10_1_URL
from tests.servers import fresh_sqlite

DEADLINE = 2.0
TIMEOUT = 1.0
#: Room for thread scheduling on a loaded 2-core machine; the bound itself is the deadline.
MARGIN = 0.75
ORIGINAL = "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.requireditemstatus=Original"
CLIENT = ClientInfo(("172.16.44.200",))
GOOD_ANSWER = SECTION_10_1_ANSWER.replace("\n", "\r\n").encode("ascii")


T = TypeVar("T")
#: A value that differs between the two clients: what each of them does or says.
PerClient = T | dict[type, T]

REQUESTS, LIBCURL = HttpTransport, CurlTransport


def per_client(value: PerClient[T], transport_class: type) -> T:
    return value[transport_class] if isinstance(value, dict) else value


@dataclass(frozen=True)
class Fault:
    """A misbehaving Archive, the trace status it must get, and words its step must contain
    (either the same for both clients, or per client)."""

    name: str
    archive: dict
    status: PerClient[Status]
    words: PerClient[str]
    within: PerClient[float] = DEADLINE  # the resolution ends by then (+ MARGIN)


FAULTS = [
    Fault("answers after the deadline", {"behaviour": answers_late(DEADLINE + 2, GOOD_ANSWER)}, Status.TIMEOUT,
          {REQUESTS: "ReadTimeout", LIBCURL: "read timeout: the Archive sent no answer within 1 s"}, TIMEOUT),
    Fault("accepts and never answers", {"behaviour": says_nothing}, Status.TIMEOUT,
          {REQUESTS: "ReadTimeout", LIBCURL: "read timeout: the Archive sent no answer within 1 s"}, TIMEOUT),
    Fault("never accepts (blackhole)", {"accept": False}, Status.TIMEOUT,
          {REQUESTS: "ConnectTimeout", LIBCURL: "connect timeout: no connection within 1 s"}, TIMEOUT),
    Fault("trickles its headers", {"behaviour": trickles("headers")}, Status.TIMEOUT,
          {REQUESTS: "exchange deadline", LIBCURL: "the exchange deadline (1.9 s) passed"}),
    Fault("trickles its body", {"behaviour": trickles("body")}, Status.TIMEOUT,
          {REQUESTS: "exchange deadline", LIBCURL: "the exchange deadline (1.9 s) passed"}),
    Fault("resets the connection", {"behaviour": resets}, Status.TRANSPORT_ERROR,
          {REQUESTS: "reset by peer", LIBCURL: "connection broken while reading (Recv failure: Connection reset by peer)"},
          0.5),
    Fault("sends gigabytes", {"behaviour": endless}, Status.TRANSPORT_ERROR,
          f"answer longer than the cap of {DEFAULT_MAX_ANSWER_BYTES} bytes; stopped reading", 0.5),
    Fault("announces gigabytes", {"behaviour": answers(b"x", length=5 * 2**30)}, Status.TRANSPORT_ERROR,
          f"answer announces 5368709120 bytes, more than the cap of {DEFAULT_MAX_ANSWER_BYTES}", 0.5),
    Fault("answers non-ASCII", {"behaviour": answers("url http://exämple.org/ação\r\n".encode("utf-8"))},
          Status.MALFORMED, "non-ASCII byte 0xC3", 0.5),
    Fault("answers garbage, not HTTP", {"behaviour": garbage(b"\x16\x03\x01\x00\xa5\x01\x00garbage\r\n\r\n")},
          Status.TRANSPORT_ERROR,
          {REQUESTS: "BadStatusLine", LIBCURL: "the answer is not HTTP (Received HTTP/0.9 when not allowed)"}, 0.5),
    Fault("answers a pair list that is not one", {"behaviour": answers(b"{url http://example.org/\r\n")},
          Status.MALFORMED, "Table 6.2", 0.5),
    Fault("closes early, half the body sent", {"behaviour": closes_early(b"url http://exam", 100)},
          Status.TRANSPORT_ERROR,
          {REQUESTS: "IncompleteRead(15 bytes read, 85 more expected)",
           LIBCURL: "the answer ended before its announced length (end of response with 85 bytes missing)"}, 0.5),
    Fault("answers 500", {"behaviour": answers(b"oops", status="500 Internal Server Error")},
          Status.HTTP_ERROR, "HTTP status 500", 0.5),
    # urllib3 refuses more than 100 headers; libcurl reads them all (its limit is on their
    # total size, 300 KB): an empty 200, which the engine reads as "not held here".
    Fault("sends 1000 headers", {"behaviour": garbage(b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 1000 + b"\r\n")},
          {REQUESTS: Status.TRANSPORT_ERROR, LIBCURL: Status.EMPTY},
          {REQUESTS: "got more than 100 headers", LIBCURL: "empty answer"}, 0.5),
]


def resolve_with(transport_class: type, archives: list[RawArchive], url: str = ORIGINAL):
    endpoints = [ArchiveEndpoint(archive.address, SERVICE_IBI, f"archive-{index}", "http", TIMEOUT, TIMEOUT)
                 for index, archive in enumerate(archives)]
    transport = transport_class(allow_private=True)
    resolver = Resolver(endpoints, {"http": transport}, settings=ResolverSettings(deadline=DEADLINE))
    started = time.monotonic()
    try:
        resolution = resolver.resolve(Asked.parse(url), CLIENT)
    finally:
        took = time.monotonic() - started
        resolver.close()
        transport.close()
    return resolution, took


def step_of(resolution, name: str):
    (step,) = [step for step in resolution.trace.numbered(3) if step.receiver == name]
    return step


@pytest.mark.parametrize("fault", FAULTS, ids=[fault.name for fault in FAULTS])
def test_each_fault_ends_within_the_deadline_and_the_trace_names_it(transport_class, fault):
    with RawArchive(**fault.archive) as archive:
        resolution, took = resolve_with(transport_class, [archive])
    step = step_of(resolution, "archive-0")
    said = f"{step.decision} {step.error or ''} {step.parse_error or ''}"
    assert step.status is per_client(fault.status, transport_class), said
    assert per_client(fault.words, transport_class) in said
    assert took < per_client(fault.within, transport_class) + MARGIN, f"{fault.name}: {took:.2f} s"
    assert not resolution.found


@pytest.mark.parametrize(("content_type", "note"), [
    ("text/html; charset=utf-8", "content type is 'text/html; charset=utf-8', not text/plain (§6.2); read anyway"),
    (None, "the answer has no content type, not text/plain (§6.2); read anyway"),
])
def test_a_wrong_content_type_is_read_and_noted(transport_class, content_type, note):
    with RawArchive(answers(GOOD_ANSWER, content_type=content_type)) as archive:
        resolution, took = resolve_with(transport_class, [archive])
    assert resolution.url == SECTION_10_1_URL  # the answer itself is good: used
    assert note in step_of(resolution, "archive-0").notes
    assert took < 0.5 + MARGIN


def test_every_fault_at_once_beside_a_good_archive(transport_class):
    """14 broken Archives and one good one, the original required: every Archive is waited for,
    the resolution ends by its deadline, and the good answer still wins."""
    archives = [RawArchive(**fault.archive) for fault in FAULTS]
    good = RawArchive(answers(GOOD_ANSWER))  # §10.1's answer claims the original
    try:
        resolution, took = resolve_with(transport_class, [*archives, good])
    finally:
        for archive in [*archives, good]:
            archive.close()
    assert resolution.url == SECTION_10_1_URL and resolution.archive == f"archive-{len(FAULTS)}"
    assert took < DEADLINE + MARGIN
    for index, fault in enumerate(FAULTS):
        assert step_of(resolution, f"archive-{index}").status is per_client(fault.status, transport_class), fault.name


def test_the_gigabyte_archive_costs_bounded_time_and_memory(transport_class):
    """An endless 200 answer: reading stops at the 256 KiB cap; Python's peak allocation during
    the whole resolution stays a small multiple of the cap (measured: about 1 MiB)."""
    with RawArchive(endless) as archive:
        tracemalloc.start()
        try:
            resolution, took = resolve_with(transport_class, [archive])
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    step = step_of(resolution, "archive-0")
    assert step.status is Status.TRANSPORT_ERROR and len(step.raw_answer) == DEFAULT_MAX_ANSWER_BYTES
    assert peak < 8 * DEFAULT_MAX_ANSWER_BYTES, peak
    assert took < 0.5 + MARGIN


@pytest.mark.slow
def test_a_real_portal_resolves_past_every_fault_by_its_deadline(tmp_path):
    """Every fault included in a gunicorn portal: GET /<persistent URL> (original required, so
    every Archive is waited for) answers within the portal's 10 s resolution deadline, and the
    stored trace names each Archive's failure; the worker then serves the next request at once."""
    late = {"behaviour": answers_late(15, GOOD_ANSWER)}  # after the portal's 5 s read timeout
    archives = [RawArchive(**(late if index == 0 else fault.archive)) for index, fault in enumerate(FAULTS)]
    database = fresh_sqlite(tmp_path / "faults.sqlite")
    for index, archive in enumerate(archives):
        include(database, archive.address, service_ibi=f"{SERVICE_IBI[:-2]}{index:02d}")
    portal = start_gunicorn({"IBIPORTAL_DATABASE": database, "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "1",
                             "IBIPORTAL_DEMO_ARCHIVES": "0", "IBIPORTAL_WORKERS": "1"})
    try:
        started = time.monotonic()
        response = requests.get(f"{portal.url}/8JMKD3MGP8W/35MMLL8?ibiurl.requireditemstatus=Original",
                                headers={"Accept": "application/json"}, allow_redirects=False, timeout=30)
        took = time.monotonic() - started
        trace = requests.get(response.headers["X-IBI-Trace"], timeout=10).json()
        started = time.monotonic()
        assert requests.get(f"{portal.url}/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS", timeout=10).status_code == 200
        next_request = time.monotonic() - started
    finally:
        portal.stop()
        for archive in archives:
            archive.close()
    assert response.status_code in (404, 504) and took < 10 + 1.5, took
    steps = {step["archive"]: step for step in trace["trace"]["steps"] if step["number"] == 3}
    for archive, fault in zip(archives, FAULTS):  # the portal's fan-out asks through libcurl
        assert steps[archive.address]["status"] == per_client(fault.status, LIBCURL).value, fault.name
    assert next_request < 1.0


# -- HTTPS Archives -------------------------------------------------------------------------------


def fetch_archive_test(transport, archive: RawArchive, name: str = "archive.test"):
    """``https://<name>:<port>/…`` with ``name`` resolving to the loopback Archive (the
    certificate is for ``archive.test``); the outcome and how long it took."""
    started = time.monotonic()
    exchange = transport.fetch(f"https://{name}:{archive.port}/{SERVICE_IBI}?servicesubject=urlRequest",
                               Timeouts(TIMEOUT, TIMEOUT, DEADLINE))
    return exchange, time.monotonic() - started


def archive_test(host, port, *args, **kwargs):
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]


@pytest.mark.parametrize("where", ["headers", "body"])
def test_an_https_archive_trickling_after_the_handshake_is_ended_at_the_deadline(
        make_trusting_transport, archive_certificate, where):
    """Over TLS the socket read is the TLS socket made after the handshake, not the one dialed
    (for requests the watchdog must shut that one). The test's certificate is the only CA trusted.
    A byte every 0.2 s keeps a 1 s read timeout from ever ending it (libcurl's low-speed limit,
    sampled once a second, cut it at 1 s when the first byte came after its first sample)."""
    with RawArchive(over_tls(trickles(where), *archive_certificate)) as archive:
        exchange, took = fetch_archive_test(make_trusting_transport(allow_private=True, getaddrinfo=archive_test),
                                            archive)
    assert archive.requests, "the TLS handshake did not complete"
    assert exchange.failure is Failure.TIMEOUT and "the exchange deadline (2 s) passed" in exchange.error
    assert TIMEOUT < took < DEADLINE + MARGIN


@pytest.mark.parametrize("scheme", ["http", "https"])
@pytest.mark.parametrize(("where", "words"), [
    ("headers", {REQUESTS: "Read timed out", LIBCURL: "read timeout: the Archive's headers stalled, nothing received for 0.5 s"}),
    ("body", {REQUESTS: "Read timed out", LIBCURL: "read timeout: the Archive's answer stalled, nothing received for 0.5 s"}),
])
def test_the_read_timeout_counts_from_the_last_byte(make_trusting_transport, transport_class, archive_certificate,
                                                     scheme, where, words):
    """An Archive sends a byte every 0.1 s for 0.7 s – longer than the 0.5 s read timeout – and
    then falls silent: the exchange lives while bytes come (every byte is sent) and ends
    ``read`` seconds after the last one, well before its 4 s deadline, in the headers or in the
    body, over plain HTTP and over TLS. Sub-second: libcurl's own limit counted whole seconds."""
    timeouts, count = Timeouts(connect=TIMEOUT, read=0.5, total=4.0), 8
    trickle = trickles(where, every=0.1, count=count)
    behaviour = over_tls(trickle, *archive_certificate) if scheme == "https" else trickle
    with RawArchive(behaviour) as archive:
        transport = make_trusting_transport(allow_private=True, getaddrinfo=archive_test)
        exchange = transport.fetch(f"{scheme}://archive.test:{archive.port}/{SERVICE_IBI}", timeouts)
        ended = time.monotonic()
    assert exchange.failure is Failure.TIMEOUT and per_client(words, transport_class) in exchange.error
    assert len(trickle.sent) == count
    assert timeouts.read <= ended - trickle.sent[-1] < timeouts.read + MARGIN


def test_an_https_archive_that_never_completes_the_handshake_is_ended_by_the_connect_timeout(make_trusting_transport,
                                                                                             transport_class):
    """It accepts the connection and then says nothing (no ServerHello): libcurl's connect
    timeout covers the TLS handshake; urllib3's covers the TCP connection, then its read timeout
    the handshake."""
    words = {REQUESTS: "ReadTimeout",
             LIBCURL: "connect timeout: connected, but the TLS handshake did not end within 1 s"}
    with RawArchive(says_nothing) as archive:
        exchange, took = fetch_archive_test(make_trusting_transport(allow_private=True, getaddrinfo=archive_test),
                                            archive)
    assert exchange.failure is Failure.TIMEOUT and words[transport_class] in exchange.error
    assert took < TIMEOUT + MARGIN


def test_an_https_archive_answers_over_the_pinned_connection(make_trusting_transport, archive_certificate):
    """The name is looked up once (by the policy); the connection goes to that address, and the
    certificate is checked against the test CA for the URL's name (SNI: archive.test)."""
    lookups = []

    def archive_test_once(host, port, *args, **kwargs):
        lookups.append(host)
        return archive_test(host, port)

    with RawArchive(over_tls(answers(GOOD_ANSWER), *archive_certificate)) as archive:
        transport = make_trusting_transport(allow_private=True, getaddrinfo=archive_test_once)
        exchange, took = fetch_archive_test(transport, archive)
    assert exchange.failure is None and exchange.status == 200 and exchange.body == GOOD_ANSWER
    assert lookups == ["archive.test"]
    assert archive.requests[0].split(b"\r\n")[0] == f"GET /{SERVICE_IBI}?servicesubject=urlRequest HTTP/1.1".encode()
    assert b"\r\nHost: archive.test:" in archive.requests[0]


@pytest.mark.parametrize(("trust", "name", "words"), [
    ("test CA", "other.test", {REQUESTS: "Hostname mismatch, certificate is not valid for 'other.test'",
                               LIBCURL: "the Archive's TLS certificate was not accepted (SSL: no alternative "
                                        "certificate subject name matches target hostname 'other.test')"}),
    ("default", "archive.test", {REQUESTS: "self-signed certificate",
                                 LIBCURL: "the Archive's TLS certificate was not accepted (SSL certificate OpenSSL "
                                          "verify result: self-signed certificate (18))"}),
], ids=["certificate for another name", "certificate from an unknown CA"])
def test_an_https_archive_with_a_certificate_not_for_it_is_refused(
        make_transport, make_trusting_transport, transport_class, archive_certificate, trust, name, words):
    make = make_trusting_transport if trust == "test CA" else make_transport
    with RawArchive(over_tls(answers(GOOD_ANSWER), *archive_certificate)) as archive:
        exchange, took = fetch_archive_test(make(allow_private=True, getaddrinfo=archive_test), archive, name)
    assert exchange.failure is Failure.CONNECTION and exchange.body is None
    assert per_client(words, transport_class) in exchange.error
    assert archive.requests == []  # nothing was asked over a connection that failed the check
    assert took < 0.5 + MARGIN
