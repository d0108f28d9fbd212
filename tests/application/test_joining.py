"""The own Archive joining and leaving an outside resolver (file 003 §7.2), against a resolver
written from the standard alone (``tests/archive/independent_resolver.py``) over loopback sockets.

The confirmation callback to a running portal is proven in ``tests/cli/test_resolvers.py``
(gunicorn); here the Archive's address is a closed port, so the resolver includes it unconfirmed.
"""
from __future__ import annotations

import socket
import tomllib
from datetime import datetime, timezone
from pathlib import Path

import pytest

import ibiportal
from ibiportal.application.joining import (
    PLATFORM_VERSION,
    Joining,
    NotReady,
    JoinOutcome,
    ResolverService,
    archive_identity,
    read_status,
)
from ibiportal.errors import ParseError
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.resolver.transport import Exchange, Failure
from ibiportal.resolver.http_transport import HttpTransport
from ibiportal.storage.database import Storage
from ibiportal.storage.resolvers import ResolverStatusStore
from tests.archive.independent_resolver import IndependentResolver
from tests.servers import free_port, fresh_sqlite

SERVICE_IBI = "32G4GKPW/4GR3P92"  # the portal's default archive service IBI
KEY = "1234567890-0987654321"
NOW = datetime(2026, 11, 24, 9, 30, 5, tzinfo=timezone.utc)


@pytest.fixture
def resolver():
    resolver = IndependentResolver(registered={SERVICE_IBI: KEY}, callback_timeout=2.0).start()
    yield resolver
    resolver.stop()


@pytest.fixture
def storage(tmp_path):
    storage = Storage(fresh_sqlite(tmp_path / "joining.sqlite"))
    yield storage
    storage.close()


@pytest.fixture
def make_joining(storage):
    transports = []

    def make(portal_url: str | None = None, admin_email: str = "admin@example.org") -> Joining:
        transport = HttpTransport(allow_private=True)
        transports.append(transport)
        return Joining(
            portal_url=f"http://127.0.0.1:{free_port()}" if portal_url is None else portal_url,
            service_ibi=SERVICE_IBI, admin_email=admin_email, transport=transport,
            storage=lambda: storage, clock=lambda: NOW,
        )

    yield make
    for transport in transports:
        transport.close()


def test_the_inclusion_request_carries_the_eight_pairs_of_table_7_2_in_order(resolver, make_joining):
    port = free_port()
    answer = make_joining(f"http://127.0.0.1:{port}").join(resolver.url, KEY)
    (received,) = resolver.received
    assert received.pairs == [
        ("servicesubject", "inclusionRequest"),
        ("archiveaddress", f"127.0.0.1:{port}"),
        ("archiveserviceibi", SERVICE_IBI),
        ("archiveip", "127.0.0.1"),
        ("archiveprotocol", "HTTP"),
        ("archiveplatformversion", PLATFORM_VERSION),
        ("archiveadmemailaddress", "admin@example.org"),
        ("registrationkey", KEY),
    ]
    # Nothing listens at the Archive's address: included, but the callback of Example 7.4 failed.
    assert received.confirmation_url == f"http://127.0.0.1:{port}/{SERVICE_IBI}?servicesubject=inclusionConfirmationRequest"
    assert received.confirmation_answer is None
    assert (answer.outcome, answer.status, answer.reason) == (
        JoinOutcome.UNCONFIRMED, "status.archive included status.confirmation unsuccessful", None)
    assert not answer.succeeded and answer.http_status == 200
    assert answer.identity.confirmation_url == received.confirmation_url
    assert resolver.included == {SERVICE_IBI: f"127.0.0.1:{port}"}


def test_leaving_sends_the_exclusion_request_and_each_last_status_is_kept(resolver, make_joining, storage):
    joining = make_joining()
    joining.join(resolver.url, KEY)
    answer = joining.leave(resolver.url, KEY)
    assert (answer.outcome, answer.status, answer.succeeded) == (JoinOutcome.EXCLUDED, "status.archive excluded", True)
    assert resolver.received[-1].pairs[0] == ("servicesubject", "exclusionRequest")
    assert len(resolver.received[-1].pairs) == 8 and resolver.included == {}
    (status,) = joining.resolvers()
    assert (status.service_url, status.action, status.outcome, status.status, status.reason, status.at) == (
        resolver.url, "leave", "excluded", "status.archive excluded", None, "2026-11-24T09:30:05.000000Z")


def test_a_wrong_key_is_refused_with_the_resolvers_reason_and_never_stored(resolver, make_joining, storage):
    other_key = "5555555555"
    answer = make_joining().join(resolver.url, other_key)
    assert answer.outcome is JoinOutcome.REFUSED and answer.http_status == 403
    assert answer.status == "status.archive refused status.reason {wrong registration key}"
    assert answer.reason == "wrong registration key (HTTP 403)"
    assert resolver.included == {}
    (status,) = ResolverStatusStore(storage).resolvers()
    assert status.outcome == "refused" and other_key not in repr(status)
    database = Path(storage.database.url.removeprefix("sqlite:///"))
    storage.close()
    files = b"".join(path.read_bytes() for path in database.parent.glob(database.name + "*"))
    assert other_key.encode() not in files and KEY.encode() not in files


def test_an_archive_the_resolver_does_not_know_is_refused(resolver, make_joining):
    resolver.registered.clear()
    answer = make_joining().join(resolver.url, KEY)
    assert (answer.outcome, answer.reason) == (JoinOutcome.REFUSED, "unknown archive (HTTP 404)")


def test_an_unreachable_resolver_is_a_failure_in_words_without_the_key(make_joining):
    url = f"http://127.0.0.1:{free_port()}/J8LNKB5R7W/3FUQHC5"
    answer = make_joining().join(url, KEY)
    assert answer.outcome is JoinOutcome.FAILED and answer.status is None and answer.http_status is None
    assert answer.reason == "could not reach the resolver: Connection refused"
    assert KEY not in repr(answer)


def test_an_answer_that_is_no_pair_list_is_a_failure_quoting_it(resolver, make_joining):
    resolver.answer_override = b"<!DOCTYPE html>\n<html><title>Not Found</title><h1>Not Found</h1></html>\n"
    answer = make_joining().join(resolver.url, KEY)
    assert answer.outcome is JoinOutcome.FAILED and answer.status is None
    assert answer.reason.startswith("HTTP 200 is not a pair list (§6.2: ")
    assert answer.reason.endswith("it begins: <!DOCTYPE html> <html><title>Not Found</title><h1>Not Found</h1></html>")


def test_a_pair_list_that_is_no_status_is_a_failure(resolver, make_joining):
    resolver.answer_override = b"confirmation yes"
    answer = make_joining().leave(resolver.url, KEY)
    assert answer.outcome is JoinOutcome.FAILED and answer.status is None
    assert answer.reason == ("HTTP 200 is not the status of §7.2 (expected status.archive excluded): "
                             "confirmation yes")


def test_a_resolver_echoing_the_key_has_it_masked(resolver, make_joining):
    resolver.answer_override = f"status.archive refused status.reason {{key {KEY} is wrong}}".encode()
    answer = make_joining().join(resolver.url, KEY)
    assert answer.reason == "key [hidden] is wrong (HTTP 200)"
    assert KEY not in answer.status and KEY not in repr(answer)


def test_the_loopback_resolver_is_refused_by_the_address_policy(resolver, storage):
    transport = HttpTransport(allow_private=False)
    joining = Joining(portal_url="http://127.0.0.1:8000", service_ibi=SERVICE_IBI, admin_email="a@example.org",
                      transport=transport, storage=lambda: storage)
    answer = joining.join(resolver.url, KEY)
    transport.close()
    assert answer.outcome is JoinOutcome.FAILED and resolver.received == []
    assert "127.0.0.1 is a loopback address" in answer.reason
    assert answer.reason.endswith("contacted only with IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1")


@pytest.mark.parametrize("key", ["123456789", "12345678901-12", "abcdefghijk", ""])
def test_a_key_outside_table_7_1_is_refused_before_anything_is_sent(resolver, make_joining, key):
    with pytest.raises(ParseError) as raised:
        make_joining().join(resolver.url, key)
    assert raised.value.field == "registration_key" and "Table 7.1" in raised.value.message
    assert not key or key not in str(raised.value)
    assert resolver.received == []


def test_without_the_settings_table_7_2_needs_nothing_is_sent(resolver, make_joining, storage):
    with pytest.raises(NotReady, match="IBIPORTAL_PORTAL_URL is not set"):
        make_joining(portal_url="").join(resolver.url, KEY)
    with pytest.raises(NotReady, match="IBIPORTAL_ADMIN_EMAIL is not set"):
        make_joining(admin_email="").join(resolver.url, KEY)
    with pytest.raises(NotReady, match="IBIPORTAL_ADMIN_EMAIL 'archive-admin' is not an e-mail address"):
        make_joining(admin_email="archive-admin").join(resolver.url, KEY)
    joining = make_joining()
    joining.service_ibi = "not an IBI"
    with pytest.raises(NotReady, match="^IBIPORTAL_ARCHIVE_SERVICE_IBI: archiveserviceibi: 'not an IBI' is not an IBI"):
        joining.join(resolver.url, KEY)
    assert resolver.received == [] and ResolverStatusStore(storage).resolvers() == []


@pytest.mark.parametrize(("text", "url"), [
    ("http://urlib.net/J8LNKB5R7W/3FUQHC5", "http://urlib.net/J8LNKB5R7W/3FUQHC5"),
    ("  HTTP://WWW.URLIB.NET/J8LNKB5R7W/3FUQHC5/ ", "http://www.urlib.net/J8LNKB5R7W/3FUQHC5"),
    ("https://resolver.example.org:8443/J8LNKB5R7W/3FUQHC5", "https://resolver.example.org:8443/J8LNKB5R7W/3FUQHC5"),
    ("http://[::1]:8000/J8LNKB5R7W/3FUQHC5", "http://[::1]:8000/J8LNKB5R7W/3FUQHC5"),
])
def test_resolver_service_urls(text, url):
    assert ResolverService.parse(text).url == url
    assert ResolverService.parse(url) == ResolverService.parse(text)  # idempotent


@pytest.mark.parametrize(("text", "message", "position"), [
    ("", "give the resolver service URL", None),
    ("urlib.net/J8LNKB5R7W/3FUQHC5", "starts with http:// or https://", 1),
    ("ftp://urlib.net/J8LNKB5R7W/3FUQHC5", "starts with http:// or https://", 1),
    ("http://urlib.net/J8LNKB5R7W/3FUQHC5?servicesubject=inclusionRequest", "has no query", 36),
    ("http://urlib.net/J8LNKB5R7W/3FUQHC5#x", "has no fragment", 36),
    ("http://urlib.net", "no resolver service IBI after the address", 17),
    ("http://urlib.net/", "no resolver service IBI after the address", 17),
    ("http://user@urlib.net/J8LNKB5R7W/3FUQHC5", "no user name or password", 8),
    ("http://urlib.net:99999/J8LNKB5R7W/3FUQHC5", "the address does not parse", 8),
    ("http://urlib.net/J8LNKB5R7W/3FUQHCO", "is not an IBI", 35),
    ("http://urlib.net/J8LNKB5R7W /3FUQHC5", "cannot be in a URL", 28),
])
def test_resolver_service_url_errors_say_what_and_where(text, message, position):
    with pytest.raises(ParseError) as raised:
        ResolverService.parse(text)
    assert message in raised.value.message and raised.value.position == position
    assert raised.value.field == "resolver_url"


def fake_dns(table: dict[str, list[str]]):
    def getaddrinfo(host, port, *args, **kwargs):
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, 0))
                for ip in table[host]]
    return getaddrinfo


def test_the_archives_address_and_ip_come_from_the_portal_url():
    dns = fake_dns({"archive.example.org": ["2001:db8::7", "203.0.113.9"]})
    identity = archive_identity("http://Archive.Example.org:8080/", SERVICE_IBI, "a@example.org", dns)
    assert (identity.address, identity.ip, identity.notes) == ("archive.example.org:8080", "203.0.113.9", ())
    identity = archive_identity("http://archive.example.org", SERVICE_IBI, "a@example.org", dns)
    assert identity.address == "archive.example.org"  # as in Example 7.2: no port when the URL has none
    assert identity.confirmation_url == f"http://archive.example.org/{SERVICE_IBI}?servicesubject=inclusionConfirmationRequest"
    identity = archive_identity("http://[2001:db8::7]:8000", SERVICE_IBI, "a@example.org", dns)
    assert (identity.address, identity.ip) == ("[2001:db8::7]:8000", "2001:db8::7")


def test_a_portal_on_https_is_told_the_resolver_calls_back_over_http():
    identity = archive_identity("https://archive.example.org", SERVICE_IBI, "a@example.org",
                                fake_dns({"archive.example.org": ["203.0.113.9"]}))
    (note,) = identity.notes
    assert f"http://archive.example.org/{SERVICE_IBI} must answer" in note


@pytest.mark.parametrize(("portal_url", "message"), [
    ("http://archive.example.org/portal", "has a path"),
    ("archive.example.org", "is not an http:// or https:// address"),
    ("http://nowhere.invalid", "does not resolve"),
    ("http://archive.example.org:http", "has a bad port"),
])
def test_a_portal_url_a_resolver_cannot_call_back_is_not_ready(portal_url, message):
    with pytest.raises(NotReady, match=message) as raised:
        archive_identity(portal_url, SERVICE_IBI, "a@example.org", fake_dns({"archive.example.org": ["203.0.113.9"]}))
    assert "IBIPORTAL_PORTAL_URL" in str(raised.value)


def test_the_platform_version_is_the_portals():
    project = tomllib.loads((Path(ibiportal.__file__).parents[1] / "pyproject.toml").read_text())
    assert ibiportal.__version__ == project["project"]["version"]
    assert PLATFORM_VERSION == f"IBI-Portal-{project['project']['version']}"


KEY_OBJECT = RegistrationKey(KEY)


@pytest.mark.parametrize(("exchange", "reason"), [
    (Exchange(failure=Failure.TIMEOUT, error="the exchange deadline (30 s) passed"),
     "no answer in time: the exchange deadline (30 s) passed"),
    (Exchange(302, failure=Failure.REDIRECT, error="redirect to https://urlib.net/J8LNKB5R7W/3FUQHC5 not followed"),
     "the resolver answered HTTP 302, a redirect to https://urlib.net/J8LNKB5R7W/3FUQHC5 not followed; "
     "give the URL it redirects to"),
    (Exchange(200, "text/plain", b"status.archive included", Failure.TOO_LARGE, "answer longer than the cap"),
     "HTTP 200: answer longer than the cap; it begins: status.archive included"),
    (Exchange(500, "text/plain", b""), "HTTP 500 is not the status of §7.2 (expected status.archive included "
     "with status.confirmation successful or unsuccessful): (empty)"),
    (Exchange(failure=Failure.CONNECTION, error=f"ConnectionError: url: /x?registrationkey={KEY}"),
     "could not reach the resolver: ConnectionError: url: /x?registrationkey=[hidden]"),
])
def test_no_usable_answer_is_a_failure_in_words(exchange, reason):
    from ibiportal.application.joining import Action

    assert read_status(Action.JOIN, exchange, KEY_OBJECT) == (JoinOutcome.FAILED, None, reason)
