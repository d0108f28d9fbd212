"""No server-side request forgery: the portal never opens a connection to a loopback,
private, link-local (cloud metadata), unspecified or otherwise non-public address on behalf of
an Archive – whether the address is written as a literal in any spelling, reached through a
DNS name, a DNS answer that changes between check and connect, or a redirect.

Every outgoing HTTP request of the portal goes through one of two transports: ``CurlTransport``
(libcurl: the resolver's messages to registered Archives) or ``HttpTransport`` (requests: the
§7.2 confirmation request, the administrator's checks, the cite page's record fetches). Most
tests aim at them directly, each test run on both (the ``transport_class`` fixture); the
end-to-end ones go through the resolver service and ``GET /<persistent URL>``. The ``dialed``
fixture records each connection attempt of either client (and refuses it); ``dns`` answers
names from a table.
"""
from __future__ import annotations

import ipaddress
import socket

import pytest
import responses
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ibiportal import create_app
from ibiportal.resolver.addresses import refusal_reason
from ibiportal.resolver.curl_transport import ADDRESS_SECONDS, CurlTransport
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver, ResolverSettings
from ibiportal.resolver.trace import AlertReason, Status
from ibiportal.resolver.transport import ArchiveEndpoint, Failure, Timeouts
from ibiportal.resolver.http_transport import HttpTransport
from tests import standard_examples as standard
from tests.reliability.faulty_archives import SERVICE_IBI, RawArchive, answers, include, keeps_alive, over_tls
from tests.standard_examples import query_of
from tests.servers import fresh_sqlite
from tests.admin_session import log_in_as

TIMEOUTS = Timeouts(connect=1.0, read=1.0, total=2.0)
CLIENT = ClientInfo(("172.16.44.200",))
REQUEST = f"/{SERVICE_IBI}?servicesubject=urlRequest"
PUBLIC = "150.163.34.243"  # an INPE address, like the standard's examples

#: Every spelling of an address the resolver must not reach, with the word its refusal uses.
FORBIDDEN_HOSTS = [
    ("127.0.0.1", "loopback"),
    ("127.1", "loopback"),
    ("0x7f.1", "loopback"),
    ("0x7f000001", "loopback"),
    ("2130706433", "loopback"),
    ("017700000001", "loopback"),
    ("0177.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("localhost", "loopback"),
    ("LOCALHOST", "loopback"),
    ("[::1]", "loopback"),
    ("10.0.0.1", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.254", "private"),
    ("192.168.1.1", "private"),
    ("[fc00::1]", "private"),
    ("[fd12:3456::1]", "private"),
    ("169.254.169.254", "link-local"),  # cloud metadata
    ("[fe80::1]", "link-local"),
    ("[::ffff:127.0.0.1]", "loopback"),  # IPv4-mapped IPv6
    ("[::ffff:7f00:1]", "loopback"),
    ("[::ffff:169.254.169.254]", "link-local"),
    ("[2002:7f00:1::1]", "6to4"),  # 6to4 of 127.0.0.1
    ("[64:ff9b::a9fe:a9fe]", "reserved"),  # NAT64 of 169.254.169.254
    ("0.0.0.0", "unspecified"),
    ("0", "unspecified"),
    ("[::]", "unspecified"),
    ("100.64.0.1", "not globally reachable"),  # carrier-grade NAT
    ("224.0.0.1", "multicast"),
    ("255.255.255.255", "reserved"),
    # what Python 3.11 calls global, IANA's special-purpose registries do not (finding 4)
    ("[fec0::1]", "not globally reachable"),  # site-local, deprecated (RFC 3879)
    ("192.0.0.8", "not globally reachable"),  # IPv4 dummy address
    ("192.0.0.9", "not globally reachable"),  # in 192.0.0.0/24, IETF Protocol Assignments
    ("192.88.99.1", "not globally reachable"),  # 6to4 relay anycast, deprecated
    ("[3fff::1]", "not globally reachable"),  # documentation
    ("[5f00::1]", "reserved"),  # SRv6 SIDs
]


#: How each client words a connection the ``dialed`` fixture refused.
NOT_CONNECTED = {HttpTransport: "refused", CurlTransport: "Could not connect to server"}


@pytest.fixture
def transport(make_transport):
    """The transport under test, with the deployment's policy (private Archives refused)."""
    return make_transport()


def assert_only_public(dialed: list[tuple[str, int]]) -> None:
    for address, _port in dialed:
        assert refusal_reason(ipaddress.ip_address(address)) is None, f"dialed {address}"


# -- literal addresses in any spelling ------------------------------------------------------------


@pytest.mark.parametrize(("host", "word"), FORBIDDEN_HOSTS)
@pytest.mark.parametrize("scheme", ["http", "https"])
def test_forbidden_literal_is_refused_before_any_connection(transport, dialed, scheme, host, word):
    exchange = transport.fetch(f"{scheme}://{host}:8080{REQUEST}", TIMEOUTS)
    assert exchange.failure is Failure.REFUSED
    assert word in exchange.error and "private Archives are not allowed" in exchange.error
    assert dialed == []


# -- DNS names --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("ip", "word"), [
    ("127.0.0.1", "loopback"), ("169.254.169.254", "link-local"), ("10.1.2.3", "private"),
    ("::1", "loopback"), ("::ffff:127.0.0.1", "loopback"), ("fe80::1", "link-local"), ("0.0.0.0", "unspecified"),
])
def test_a_name_resolving_to_a_forbidden_address_is_refused(transport, dialed, dns, ip, word):
    dns["evil.example"] = [ip]
    exchange = transport.fetch(f"http://evil.example{REQUEST}", TIMEOUTS)
    assert exchange.failure is Failure.REFUSED and word in exchange.error
    assert dialed == []


def test_one_forbidden_address_among_public_ones_is_enough(transport, dialed, dns):
    dns["evil.example"] = [PUBLIC, "169.254.169.254"]
    exchange = transport.fetch(f"http://evil.example{REQUEST}", TIMEOUTS)
    assert exchange.failure is Failure.REFUSED and "169.254.169.254 is a link-local address" in exchange.error
    assert dialed == []


def test_dns_rebinding_connects_to_the_address_that_was_checked(make_transport, transport_class, dialed, dns):
    """The name answers a public address to the check, then 127.0.0.1: the socket goes to the first.
    libcurl keeps a host's checked address a while (``ADDRESS_SECONDS``): a message meanwhile goes
    to that checked address too, and the first check after it sees the rebind."""
    now = [0.0]
    transport = make_transport(clock=lambda: now[0]) if transport_class is CurlTransport else make_transport()
    dns["rebind.example"] = [[PUBLIC], ["127.0.0.1"]]
    exchange = transport.fetch(f"http://rebind.example:8080{REQUEST}", TIMEOUTS)
    assert dialed == [(PUBLIC, 8080)]
    assert dns.lookups.count("rebind.example") == 1  # looked up once, for the check; never again
    assert exchange.failure is Failure.CONNECTION  # the (refused) public address, never loopback
    if transport_class is CurlTransport:
        meanwhile = transport.fetch(f"http://rebind.example:8080{REQUEST}", TIMEOUTS)
        assert meanwhile.failure is Failure.CONNECTION and dialed == [(PUBLIC, 8080)] * 2
        assert dns.lookups.count("rebind.example") == 1
        dialed.clear()
        now[0] += ADDRESS_SECONDS
    again = transport.fetch(f"http://rebind.example:8080{REQUEST}", TIMEOUTS)
    assert again.failure is Failure.REFUSED and "loopback" in again.error  # the next check sees the rebind
    assert dialed == ([] if transport_class is CurlTransport else [(PUBLIC, 8080)])


def test_https_dials_the_checked_address_too(transport, dialed, dns):
    dns["archive.example"] = [PUBLIC]
    exchange = transport.fetch(f"https://archive.example{REQUEST}", TIMEOUTS)
    assert exchange.failure is Failure.CONNECTION and NOT_CONNECTED[type(transport)] in exchange.error
    assert dialed == [(PUBLIC, 443)]


def test_a_rebind_between_allowed_addresses_goes_to_the_address_checked_now(make_transport, transport_class):
    """Private Archives allowed, so both answers pass the check: the name answers 127.0.0.1,
    then 127.0.0.2 on the same port. The exchange after the next check (libcurl checks a host
    again once its checked address has served ``ADDRESS_SECONDS``) goes to 127.0.0.2 – not over
    the kept-alive connection to the address checked the time before."""
    first = RawArchive(keeps_alive(b"first"))
    second = RawArchive(keeps_alive(b"second"), host="127.0.0.2", port=first.port)
    answers_now = ["127.0.0.1"]
    now = [0.0]

    def dns(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers_now[0], port))]

    clock = {"clock": lambda: now[0]} if transport_class is CurlTransport else {}
    transport = make_transport(allow_private=True, getaddrinfo=dns, **clock)
    try:
        url = f"http://archive.test:{first.port}{REQUEST}"
        before = [transport.fetch(url, TIMEOUTS).body for _ in range(2)]
        answers_now[0] = "127.0.0.2"
        now[0] += ADDRESS_SECONDS
        after = transport.fetch(url, TIMEOUTS).body
    finally:
        first.close()
        second.close()
    assert before == [b"first", b"first"] and first.accepted == 1  # kept alive while the pin held
    assert after == b"second" and second.accepted == 1


def test_a_name_that_does_not_resolve_is_refused(transport, dialed, dns):
    exchange = transport.fetch(f"http://no-such-host.invalid{REQUEST}", TIMEOUTS)
    assert exchange.failure is Failure.REFUSED and "does not resolve" in exchange.error
    assert dialed == []


URL_TRICKS = [
    "http://{public}\\@127.0.0.1/",  # parsers disagree on backslash and @
    "http://127.0.0.1#@{public}/",
    "http://{public}:80\\@127.0.0.1/",
    "http://{public}%00@127.0.0.1/",
    "http://{public} @127.0.0.1/",
    "http://{public}\t@127.0.0.1/",
    "http://127.0.0.1%2f@{public}/",
    "http://{public}?@127.0.0.1/",
    "http://user:pass@127.0.0.1/",
    "http://127。0。0。1/",  # ideographic full stops
    "http://①②⑦.0.0.1/",
    "http://[::ffff:127.0.0.1]:80/",
    "http://%31%32%37.0.0.1/",
    "http://127.0.0.1:99999/",
    "http:///127.0.0.1/",
    "http:\\\\127.0.0.1\\",
    "file:///etc/passwd",
    "gopher://127.0.0.1:25/",
    "ftp://127.0.0.1/",
    "dict://127.0.0.1:11211/",
    "//127.0.0.1/",
]

#: Schemes libcurl could speak (or a parser could mistake for http) – only http and https are.
OTHER_SCHEMES = ["file:///etc/passwd", "FILE://localhost/etc/passwd", "gopher://{public}:70/_x",
                 "dict://{public}:11211/stat", "ftp://{public}/", "ftps://{public}/", "sftp://{public}/",
                 "scp://{public}/", "ldap://{public}/", "tftp://{public}/x", "telnet://{public}/",
                 "smtp://{public}/", "imap://{public}/", "rtsp://{public}/", "ws://{public}/",
                 "wss://{public}/", "mqtt://{public}/", "httpx://{public}/", "http+unix://{public}/"]


@pytest.mark.parametrize("template", URL_TRICKS)
def test_url_parser_tricks_never_reach_a_forbidden_address(transport, dialed, template):
    exchange = transport.fetch(template.format(public=PUBLIC), TIMEOUTS)
    assert exchange.failure in (Failure.REFUSED, Failure.CONNECTION)
    assert_only_public(dialed)


@pytest.mark.parametrize("template", OTHER_SCHEMES)
def test_only_http_and_https_are_spoken(transport, dialed, template):
    exchange = transport.fetch(template.format(public=PUBLIC), TIMEOUTS)
    assert exchange.failure is Failure.REFUSED and "not an http(s) URL with a host" in exchange.error
    assert dialed == []


HOST_PARTS = st.sampled_from(
    [h for h, _ in FORBIDDEN_HOSTS] + [PUBLIC, "evil.example", "127.0.0.1.", "0x7F.0.0.1", "[::]", "[::1%25lo]"]
)
SEPARATORS = st.sampled_from(["", "@", ":", "\\", "/", "#", "?", "%", " ", "\t", "\r\n", "\x00", ".", "[", "]", "%2e"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scheme=st.sampled_from(["http://", "https://", "HTTP://", "http:/", "http:\\\\", ""]),
       parts=st.lists(st.tuples(HOST_PARTS, SEPARATORS), min_size=1, max_size=3),
       port=st.sampled_from(["", ":80", ":0", ":8080", ":65536", ":-1", ":x"]))
def test_any_mix_of_hosts_and_separators_never_reaches_a_forbidden_address(transport, dialed, dns, scheme, parts, port):
    dns["evil.example"] = ["169.254.169.254"]
    url = scheme + "".join(host + separator for host, separator in parts) + port + REQUEST
    exchange = transport.fetch(url, Timeouts(0.5, 0.5, 0.5))  # never raises
    assert exchange.failure is not None
    assert_only_public(dialed)


# -- redirects --------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirects_are_never_followed_even_to_allowed_addresses(make_transport, status):
    """Private Archives allowed (so only the no-redirect rule stands between them): an internal
    service the portal must never be made to call gets no request, and not even a connection."""
    with RawArchive(answers(b"secret")) as secret:
        target = f"http://{secret.address}/latest/meta-data/"
        moved = answers(b"", status=f"{status} Moved", extra=f"Location: {target}\r\n")
        with RawArchive(moved) as archive:
            transport = make_transport(allow_private=True)
            exchange = transport.fetch(f"http://{archive.address}{REQUEST}", TIMEOUTS)
            resolver = Resolver([ArchiveEndpoint(archive.address, SERVICE_IBI, "redirecting")], {"http": transport},
                                settings=ResolverSettings(deadline=3.0))
            resolution = resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8"), CLIENT)
            resolver.close()
        assert secret.accepted == 0 and secret.requests == []
    assert exchange.failure is Failure.REDIRECT and exchange.status == status
    assert f"redirect to {target} not followed" in exchange.error
    (step,) = resolution.trace.numbered(3)
    assert step.status is Status.TRANSPORT_ERROR and "not followed" in step.decision
    assert resolution.alert.reason is AlertReason.NO_ARCHIVE_ANSWERED


# -- IPv6 literals and environment proxies -------------------------------------------------------


def test_an_ipv6_literal_is_reached_when_private_archives_are_allowed(make_transport, dialed):
    """``[::1]`` is refused by the deployment's policy (see FORBIDDEN_HOSTS) and reached, over
    IPv6 loopback, where private Archives are allowed."""
    dialed_before = len(dialed)
    with RawArchive(answers(b"url http://example.org/\r\n"), host="::1") as archive:
        refused = make_transport().fetch(f"http://{archive.address}{REQUEST}", TIMEOUTS)
        assert archive.accepted == 0
    assert refused.failure is Failure.REFUSED and "::1 is a loopback address" in refused.error
    assert len(dialed) == dialed_before == 0


def test_an_ipv6_archive_answers_when_allowed(make_transport):
    with RawArchive(answers(b"url http://example.org/\r\n"), host="::1") as archive:
        exchange = make_transport(allow_private=True).fetch(f"http://{archive.address}{REQUEST}", TIMEOUTS)
    assert exchange.failure is None and exchange.body == b"url http://example.org/\r\n"
    assert archive.requests[0].startswith(f"GET /{SERVICE_IBI}?servicesubject=urlRequest HTTP/1.1".encode())


PROXY_VARIABLES = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_environment_proxies_are_never_used(make_trusting_transport, archive_certificate, monkeypatch, scheme):
    """A proxy from the environment would dial the Archive's name itself, bypassing the checked,
    pinned address. Every proxy variable points at a loopback listener that records
    connections: the Archive answers directly and the proxy is never dialed."""
    behaviour = answers(b"url http://example.org/\r\n")
    if scheme == "https":
        behaviour = over_tls(behaviour, *archive_certificate)
    with RawArchive(answers(b"")) as proxy, RawArchive(behaviour) as archive:
        for variable in PROXY_VARIABLES:
            monkeypatch.setenv(variable, f"http://{proxy.address}")
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        transport = make_trusting_transport(allow_private=True, getaddrinfo=_archive_test)
        exchange = transport.fetch(f"{scheme}://archive.test:{archive.port}{REQUEST}", TIMEOUTS)
        assert proxy.accepted == 0 and proxy.requests == []
    assert exchange.failure is None and exchange.body == b"url http://example.org/\r\n"
    assert archive.accepted == 1


def _archive_test(host, port, *args, **kwargs):
    """``archive.test`` (the test certificate's name) is the loopback Archive."""
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]


# -- through the portal --------------------------------------------------------------------------


def portal(tmp_path, **config):
    return create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "ssrf.sqlite"), "SECRET_KEY": "test",
                       "WTF_CSRF_ENABLED": False, "DEMO_ARCHIVES": False, **config})


@pytest.mark.parametrize(("address", "word"), [
    ("127.0.0.1:8080", "loopback"), ("2130706433", "loopback"), ("[::1]:80", "loopback"),
    ("169.254.169.254", "link-local"), ("10.0.0.5:8080", "private"), ("evil.example", "link-local"),
    ("[fec0::1]:8080", "fec0::/10"), ("192.0.0.8", "192.0.0.8/32"), ("192.0.0.9:8080", "192.0.0.0/24"),
    ("192.88.99.1", "192.88.99.0/24"), ("[3fff::1]", "3fff::/20"), ("special.example", "192.0.0.0/24"),
])
def test_inclusion_at_a_forbidden_address_is_refused_without_contacting_it(tmp_path, dialed, dns, address, word):
    dns["evil.example"] = ["169.254.169.254"]
    dns["special.example"] = ["192.0.0.9"]
    app = portal(tmp_path)
    assert app.test_cli_runner().invoke(args=["archives", "register", SERVICE_IBI, "--key", "1234567890"]).exit_code == 0
    query = query_of(standard.EXAMPLE_7_2).replace("archiveaddress=mtc-m21.sid.inpe.br", f"archiveaddress={address}")
    answer = app.test_client().get(f"/J8LNKB5R7W/3FUQHC5?{query}")
    assert answer.status_code == 422
    assert "status.archive refused" in answer.get_data(as_text=True) and word in answer.get_data(as_text=True)
    assert dialed == []


def test_an_included_archive_whose_name_now_points_inside_is_not_contacted(tmp_path, dialed, dns):
    """Included while its name was public; the name now answers the metadata address."""
    dns["archive.example"] = ["169.254.169.254"]
    app = portal(tmp_path)
    include(app.config["DATABASE"], "archive.example:8080")
    client = app.test_client()
    response = client.get("/8JMKD3MGP8W/35MMLL8", environ_base={"REMOTE_ADDR": "172.16.44.200"},
                          headers={"Accept": "application/json"})
    assert response.status_code == 404  # the portal's own Archive answered: it does not hold the IBI
    trace = client.get(response.headers["X-IBI-Trace"].replace("http://localhost", "")).get_json()
    step = next(step for step in trace["trace"]["steps"] if step["archive"] == "archive.example:8080")
    assert step["status"] == "refused" and "169.254.169.254 is a link-local address" in step["error"]
    assert dialed == []


def test_the_trace_api_cannot_be_pointed_at_an_address(tmp_path, dialed):
    """POST /api/v1/trace takes a persistent URL; its host is the resolver's name, never contacted."""
    client = portal(tmp_path).test_client()
    response = client.post("/api/v1/trace", json={"url": "http://169.254.169.254/8JMKD3MGP8W/35MMLL8", "archives": "live"})
    assert response.status_code == 201
    assert dialed == []


# -- the administrator's checks and the cite page ---------------------------------------------------


@pytest.mark.parametrize(("address", "word"), [
    ("http://169.254.169.254/sid.inpe.br/mtc-m21/2012/06.05.15.34.39", "link-local"),
    ("http://localhost:8080/sid.inpe.br/mtc-m21/2012/06.05.15.34.39", "loopback"),
    ("http://evil.example/sid.inpe.br/mtc-m21/2012/06.05.15.34.39", "private"),
])
def test_the_conformance_check_refuses_forbidden_addresses(tmp_path, dialed, dns, address, word):
    dns["evil.example"] = ["192.168.0.1"]
    client = portal(tmp_path).test_client()
    log_in_as(client, "ada")
    page = client.post("/admin/conformance", data={"address": address}).get_data(as_text=True)
    assert word in page and "private Archives are not allowed" in page
    assert dialed == []


REMOTE_SERVICE = "example.org/svc/2020/01.02.03.04"
REMOTE_ITEM = "example.org/lab/2020/05.04.03.02"


@pytest.mark.parametrize(("record_url", "word"), [
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://[::1]:8080/record.xml", "loopback"),
    ("http://inside.example/record.xml", "private"),
])
@responses.activate
def test_a_record_url_answered_by_an_archive_is_not_fetched_when_forbidden(tmp_path, dns, record_url, word,
                                                                           scripted_archive, loopback_fan_out):
    """The cite page fetches the oai_dc record at the URL an Archive answered: a hostile Archive
    may answer an internal URL, which the guard refuses like any other. (The Archive is on
    loopback, which only the resolver's transport is let reach, so nothing here refuses every
    dial: ``responses`` sees every request the record fetch would send, and there is none.)"""
    dns.update({"archive.example.org": ["127.0.0.1"], "inside.example": ["10.9.8.7"]})
    app = portal(tmp_path)
    answer = (f"archiveaddress archive.example.org\nibi {{rep {REMOTE_ITEM}}}\n"
              f"state.metadata(oai_dc) Original\nurl.metadata(oai_dc) {record_url}\nurlkey 1588561320-1\n")
    archive = scripted_archive(lambda request: answer)
    include(app.config["DATABASE"], f"archive.example.org:{archive.port}", REMOTE_SERVICE)
    response = app.test_client().get("/cite", query_string={"ibi": REMOTE_ITEM})
    assert response.status_code == 502
    assert word in response.get_data(as_text=True)
    assert archive.count("urlRequest") == 1 and len(responses.calls) == 0
