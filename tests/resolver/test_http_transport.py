"""HttpTransport with mocked Archives (responses), and both HTTP clients – HttpTransport
(requests) and CurlTransport (libcurl, the fan-out) – with real loopback sockets, which is the
only way to reach libcurl (responses mocks requests alone)."""
from __future__ import annotations

import socket
import time
from http.server import BaseHTTPRequestHandler

import pytest
import responses
from requests.exceptions import ConnectTimeout

from ibiportal.resolver.curl_transport import CurlTransport
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver, ResolverSettings
from ibiportal.resolver.trace import AlertReason, Status
from ibiportal.resolver.transport import ArchiveEndpoint, Failure, Timeouts
from ibiportal.resolver.http_transport import HttpTransport
from tests.standard_examples import SECTION_10_1_ANSWER, SECTION_10_1_URL

CLIENT = ClientInfo(("172.16.44.200", "150.163.68.1"))
M16C = ArchiveEndpoint("mtc-m16c.sid.inpe.br", "sid.inpe.br/mtc-m18@80/2008/03.17.15.17", "mtc-m16c")
M16D = ArchiveEndpoint("mtc-m16d.sid.inpe.br", "sid.inpe.br/mtc-m19@80/2009/08.21.17.02", "mtc-m16d")
ANSWER_10_1 = SECTION_10_1_ANSWER.replace("\n", "\r\n")  # as an Archive sends it (Table 6.2)
URL_10_1 = SECTION_10_1_URL

def public_dns(host, port, *args, **kwargs):
    """Every name resolves to a public address (responses never connects anyway)."""
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("150.163.34.243", port))]


def base(endpoint):
    return f"http://{endpoint.address}/{endpoint.service_ibi}"


@pytest.fixture
def http():
    transport = HttpTransport(getaddrinfo=public_dns)
    yield transport
    transport.close()


def resolve(endpoints, transport, persistent_url, **settings):
    """One resolution, returned once every message it started has ended: the pool is joined, not
    left running as ``Resolver.close`` leaves it. A message not waited for (an Archive still
    answering when another's answer was chosen) otherwise ended in the next test, where the mocks
    of ``responses`` counted it as that test's call to the same Archive."""
    resolver = Resolver(endpoints, {"http": transport}, settings=ResolverSettings(**settings))
    resolution = resolver.resolve(Asked.parse(persistent_url), CLIENT)
    resolver.executor.shutdown(wait=True)
    return resolution


@responses.activate(assert_all_requests_are_fired=False)
def test_section_10_1_over_mocked_http(http):
    urlrequest = responses.get(base(M16C), body=ANSWER_10_1, content_type="text/plain",
                               match=[responses.matchers.query_param_matcher({"servicesubject": "urlRequest"}, strict_match=False)])
    ack = responses.get(base(M16C), body="notice {acknowledgment received}\r\n", content_type="text/plain",
                        match=[responses.matchers.query_param_matcher({"servicesubject": "acknowledgment"}, strict_match=False)])
    empty = responses.get(base(M16D), body="", content_type="text/plain")
    resolution = resolve([M16C, M16D], http, "http://urlib.net/8JMKD3MGP8W/35MMLL8")
    assert resolution.url == URL_10_1
    assert (urlrequest.call_count, ack.call_count) == (1, 1)
    assert empty.call_count == 1  # sent with the others; whether it was waited for is the trace's to say
    assert "url.persistent=http://urlib.net:80/8JMKD3MGP8W/35MMLL8&" in resolution.acknowledgment_url


@responses.activate
def test_connect_timeout_and_wrong_content_type(http):
    responses.get(base(M16C), body=ConnectTimeout("connect timed out"))
    wrong = responses.get(base(M16D), body="", content_type="text/html")
    resolution = resolve([M16C, M16D], http, "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.requireditemstatus=Original")
    assert resolution.alert.reason is AlertReason.NOT_FOUND
    steps = {step.receiver: step for step in resolution.trace.numbered(3)}
    assert steps["mtc-m16c"].status is Status.TIMEOUT and "ConnectTimeout" in steps["mtc-m16c"].error
    assert any("not text/plain" in note for note in steps["mtc-m16d"].notes)
    assert wrong.call_count == 1


@responses.activate
def test_no_redirect_followed_and_size_cap(http):
    responses.get(base(M16C), status=302, headers={"Location": "http://169.254.169.254/"})
    responses.get(base(M16D), body="a " * 5000, content_type="text/plain")
    small = HttpTransport(getaddrinfo=public_dns, max_answer_bytes=1000)
    timeouts = Timeouts(1, 1, 2)
    redirected = small.fetch(base(M16C) + "?servicesubject=urlRequest", timeouts)
    assert redirected.failure is Failure.REDIRECT and "169.254.169.254" in redirected.error
    big = small.fetch(base(M16D) + "?servicesubject=urlRequest", timeouts)
    assert big.failure is Failure.TOO_LARGE and len(big.body) == 1000
    small.close()


@responses.activate
def test_unsafe_url_is_not_redirected_to(http):
    responses.get(base(M16C), body=ANSWER_10_1.replace("url http://mtc-m16c", "url javascript://mtc-m16c"), content_type="text/plain")
    resolution = resolve([M16C], http, "http://urlib.net/8JMKD3MGP8W/35MMLL8")
    assert resolution.alert.reason is AlertReason.UNSAFE_URL and not resolution.trace.numbered(5)


@pytest.mark.parametrize(
    ("address", "ips"),
    [("127.0.0.1", ["127.0.0.1"]), ("10.1.2.3", ["10.1.2.3"]), ("169.254.169.254", ["169.254.169.254"]),
     ("[::1]", ["::1"]), ("archive.example", ["127.0.0.1"])],
)
@responses.activate
def test_ssrf_refused_in_the_trace(address, ips):
    def dns(host, port, *args, **kwargs):
        return [(socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in ips]

    transport = HttpTransport(getaddrinfo=dns)
    endpoint = ArchiveEndpoint(address, "sid.inpe.br/mtc-m18@80/2008/03.17.15.17", "inside")
    resolution = resolve([endpoint], transport, "http://urlib.net/8JMKD3MGP8W/35MMLL8")
    transport.close()
    (step,) = resolution.trace.numbered(3)
    assert step.status is Status.REFUSED and "private Archives are not allowed" in step.error
    assert resolution.alert.reason is AlertReason.NO_ARCHIVE_ANSWERED
    assert len(responses.calls) == 0


class _Archive(BaseHTTPRequestHandler):
    """A loopback Archive answering §10.1 after ``delay`` seconds."""

    delay = 0.0
    body = b""

    def do_GET(self):  # noqa: N802 (http.server's name)
        time.sleep(self.delay)
        body = self.body if "urlRequest" in self.path else b"notice {acknowledgment received}\r\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def loopback_archives(serve_http):
    """``loopback_archives(delay, body)``: an Archive answering ``body`` to urlRequest after ``delay``."""

    def start(delay, body=b""):
        return serve_http(type("Handler", (_Archive,), {"delay": delay, "body": body}))

    return start


@pytest.mark.slow
def test_parallel_over_loopback(loopback_archives, make_transport):
    """5 Archives delaying 300 ms each: answered in parallel, not in 5 × 300 ms."""
    answer = ANSWER_10_1.encode("ascii")
    endpoints = [
        ArchiveEndpoint(loopback_archives(0.3, answer if index == 4 else b""), "sid.inpe.br/mtc-m18@80/2008/03.17.15.17", f"a{index}")
        for index in range(5)
    ]
    transport = make_transport(allow_private=True)
    start = time.monotonic()
    resolution = resolve(endpoints, transport, "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.requireditemstatus=Original")
    first_round = time.monotonic() - start
    assert resolution.url == URL_10_1 and resolution.archive == "a4"
    answered = resolution.trace.numbered(3)
    assert len(answered) == 5 and all(step.status in (Status.EMPTY, Status.ANSWERED) for step in answered)
    assert sorted(step.arrival for step in answered) == [1, 2, 3, 4, 5]
    # 5 answers of 300 ms, then the acknowledgment's 300 ms: well under 5 × 300 ms + 300 ms.
    assert first_round < 2 * 0.3 + 0.3


#: How each client words the slow Archive's end: its 0.3 s read timeout, before the 0.9 s deadline.
SLOW_ARCHIVE_WORDS = {HttpTransport: "ReadTimeout", CurlTransport: "read timeout: the Archive sent no answer within 0.3 s"}


@pytest.mark.slow
def test_slow_archive_times_out_within_the_deadline(loopback_archives, make_transport, transport_class):
    fast = ArchiveEndpoint(loopback_archives(0.0, ANSWER_10_1.encode("ascii")), "sid.inpe.br/mtc-m18@80/2008/03.17.15.17", "fast", read_timeout=0.3)
    slow = ArchiveEndpoint(loopback_archives(2.0), "sid.inpe.br/mtc-m18@80/2008/03.17.15.17", "slow", read_timeout=0.3)
    start = time.monotonic()
    resolution = resolve([fast, slow], make_transport(allow_private=True), "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.requireditemstatus=Original", deadline=1.0)
    took = time.monotonic() - start
    assert resolution.url == URL_10_1
    steps = {step.receiver: step for step in resolution.trace.numbered(3)}
    assert steps["slow"].status is Status.TIMEOUT and SLOW_ARCHIVE_WORDS[transport_class] in steps["slow"].error
    assert took < 1.0


@pytest.mark.slow
def test_connection_is_pinned_to_the_checked_address(loopback_archives, monkeypatch, make_transport):
    """The check resolves archive.test to the loopback Archive; a later lookup (a rebind) is never
    used. libcurl resolves names in C, not through Python: that it reaches the Archive at all
    shows it never looked archive.test up (the name does not resolve)."""
    address = loopback_archives(0.0, ANSWER_10_1.encode("ascii"))
    port = int(address.rsplit(":", 1)[1])

    def checked(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    real_getaddrinfo = socket.getaddrinfo

    def rebound(host, *args, **kwargs):
        if host != "127.0.0.1":  # the pinned literal is fine; the name must not be looked up again
            raise AssertionError(f"the connection looked {host} up again")
        return real_getaddrinfo(host, *args, **kwargs)

    transport = make_transport(allow_private=True, getaddrinfo=checked)
    monkeypatch.setattr(socket, "getaddrinfo", rebound)
    exchange = transport.fetch(f"http://archive.test:{port}/x/y?servicesubject=urlRequest", Timeouts(1, 1, 2))
    assert exchange.failure is None and exchange.status == 200
    assert exchange.body.startswith(b"archiveaddress mtc-m16c")
