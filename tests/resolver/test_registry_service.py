"""Archive registration (file 003 §7): RegistrationService with a fake and the SQLite registry,
fake and responses-mocked transports, fake DNS. Examples 7.2-7.4, Table 7.2, status answers of §7.2."""
from __future__ import annotations

import copy
import functools
import logging
import socket
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone

import pytest
import responses
from requests.exceptions import ConnectTimeout

from ibiportal.errors import ParseError
from ibiportal.protocol import ExclusionRequest, InclusionRequest, RegistrationKey
from ibiportal.resolver.registry_service import (
    ADDRESS_NOT_ALLOWED,
    MALFORMED,
    OK,
    UNKNOWN_ARCHIVE,
    WRONG_KEY,
    RegistrationService,
)
from ibiportal.protocol.registry import ArchiveDetails, ArchiveEvent, Confirmation, KeyHash, RegisteredArchive
from ibiportal.resolver.transport import Exchange, Failure, Timeouts
from ibiportal.resolver.http_transport import HttpTransport
from ibiportal.storage.database import Storage
from ibiportal.storage.registry import ARCHIVE_HISTORY_LIMIT, ArchiveStore
from ibiportal.storage.schema import metadata
from tests import standard_examples as standard
from tests.standard_examples import query_of

SERVICE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"
KEY = "1234567890"
#: Examples 7.2 and 7.3 as the resolver service receives them: the pairs without the base URL.
EXAMPLE_7_2 = query_of(standard.EXAMPLE_7_2)
EXAMPLE_7_3 = query_of(standard.EXAMPLE_7_3)
EXAMPLE_7_4 = standard.EXAMPLE_7_4
TABLE_7_2 = (
    "servicesubject", "archiveaddress", "archiveserviceibi", "archiveip", "archiveprotocol",
    "archiveplatformversion", "archiveadmemailaddress", "registrationkey",
)
NOW = datetime(2015, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
CONFIRMED = Exchange(200, "text/plain", b"confirmation yes\r\n")


def fake_dns(table: dict[str, str]):
    """``getaddrinfo`` answering from ``table`` (host → IP); IP literals resolve to themselves."""

    def getaddrinfo(host, port, *args, **kwargs):
        ip = table.get(host, host)
        try:
            socket.inet_pton(socket.AF_INET6 if ":" in ip else socket.AF_INET, ip)
        except OSError:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
        family = socket.AF_INET6 if ":" in ip else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (ip, port))]

    return getaddrinfo


DNS = fake_dns({
    "mtc-m21.sid.inpe.br": "150.163.34.239",
    "mtc-m21b.sid.inpe.br": "150.163.34.240",
    "intranet.example": "192.168.1.10",
})


def query(base: str = EXAMPLE_7_2, **changes: str | None) -> str:
    """``base`` with pairs replaced (a value) or removed (``None``)."""
    pairs = [pair.split("=", 1) for pair in base.split("&")]
    out = []
    for name, value in pairs:
        if name in changes:
            if changes[name] is None:
                continue
            value = changes[name]
        out.append(f"{name}={value}")
    return "&".join(out)


@dataclass(frozen=True)
class CheapKeyHash(KeyHash):
    """A key hash made at a sixteenth of scrypt's stored cost (N = 2**10, not 2**14).

    The cost is written into the stored hash and read back by ``KeyHash.matches``, so every
    answer here still recomputes the sent key's scrypt and compares the digests, as in
    production; only the memory-hard work, 0.05 s by design and most of this file's CPU (124
    of them in a run), shrinks. The production cost is ``test_key_hash_is_salted_and_round_trips``'s."""

    n: int = 2**10


@functools.cache
def key_hash(key: str) -> KeyHash:
    """``key``'s salted hash, made once for the whole module: every test registers its Archive
    first (that each hash gets its own salt is ``test_key_hash_is_salted_and_round_trips``'s
    point; every answer still checks the key)."""
    return CheapKeyHash.of(RegistrationKey(key))


class FakeRegistry:
    """An in-memory ArchiveRegistry."""

    def __init__(self) -> None:
        self.archives: dict[str, RegisteredArchive] = {}
        self.events: dict[str, list[ArchiveEvent]] = {}

    def register(self, service_ibi: str, key: str) -> None:
        stamp = NOW.isoformat()
        self.archives[service_ibi] = RegisteredArchive(service_ibi, key_hash(key), stamp, stamp)
        self.events[service_ibi] = [ArchiveEvent(stamp, "registered", "")]

    def find_archive(self, service_ibi: str) -> RegisteredArchive | None:
        return self.archives.get(service_ibi)

    def record_inclusion(self, service_ibi: str, details: ArchiveDetails, confirmation: Confirmation, at: datetime) -> None:
        self.archives[service_ibi] = replace(
            self.archives[service_ibi], included=True, address=details.address, ip=details.ip,
            platform_version=details.platform_version, admin_email=details.admin_email,
            last_confirmation=confirmation.word, updated_at=at.isoformat(),
        )
        self.events[service_ibi].append(ArchiveEvent(at.isoformat(), "included", confirmation.detail))

    def record_exclusion(self, service_ibi: str, at: datetime) -> None:
        self.archives[service_ibi] = replace(self.archives[service_ibi], included=False, updated_at=at.isoformat())
        self.events[service_ibi].append(ArchiveEvent(at.isoformat(), "excluded", ""))

    def record_refusal(self, service_ibi: str, reason: str, at: datetime) -> None:
        self.events[service_ibi].append(ArchiveEvent(at.isoformat(), "refused", reason))

    # what the tests compare
    def snapshot(self):
        return copy.deepcopy((self.archives, self.events))

    def state(self, service_ibi: str) -> RegisteredArchive:
        return self.archives[service_ibi]

    def history(self, service_ibi: str) -> list[ArchiveEvent]:
        return self.events[service_ibi]


class StoredRegistry(ArchiveStore):
    """The real registry (storage.registry.ArchiveStore, on SQLite or PostgreSQL) with the same test helpers."""

    def register(self, service_ibi: str, key: str) -> None:
        assert self.register_archive(service_ibi, key_hash(key), NOW)

    def snapshot(self) -> str:
        """Every row of every table."""
        return "\n".join(
            repr(list(self.storage.connection.execute(table.select().order_by(*table.primary_key.columns))))
            for table in metadata.sorted_tables
        )

    def state(self, service_ibi: str) -> RegisteredArchive:
        return self.find_archive(service_ibi)

    def history(self, service_ibi: str) -> list[ArchiveEvent]:
        return self.archive_events(service_ibi)


class FakeTransport:
    """Answers every URL with the next of ``exchanges`` (the last one repeats) and records the URLs."""

    def __init__(self, *exchanges: Exchange) -> None:
        self.exchanges = list(exchanges) or [CONFIRMED]
        self.urls: list[str] = []
        self.timeouts: list[Timeouts] = []

    def fetch(self, url: str, timeouts: Timeouts) -> Exchange:
        self.urls.append(url)
        self.timeouts.append(timeouts)
        return self.exchanges.pop(0) if len(self.exchanges) > 1 else self.exchanges[0]


class Clock:
    """A clock that advances one second per reading."""

    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture(params=["fake", "sqlite", "postgresql"])
def registry(request, new_database):
    if request.param == "fake":
        registry = FakeRegistry()
        registry.register(SERVICE_IBI, KEY)
        yield registry
        return
    setting = new_database() if request.param == "sqlite" else request.getfixturevalue("postgres_server").new_database()
    storage = Storage(setting)
    registry = StoredRegistry(storage)
    registry.register(SERVICE_IBI, KEY)
    yield registry
    storage.close()


def service(registry, transport=None, *, allow_private=False, dns=DNS) -> RegistrationService:
    return RegistrationService(
        registry, transport or FakeTransport(), allow_private=allow_private, clock=Clock(), getaddrinfo=dns
    )


# -- the standard's examples and status answers -------------------------------------------


def test_example_7_2_confirmed_then_example_7_3(registry, vectors):
    transport = FakeTransport(CONFIRMED)
    outcome = service(registry, transport).answer(EXAMPLE_7_2)
    assert (outcome.body, outcome.status) == (vectors["status_messages"]["included_confirmed"], OK)
    assert transport.urls == [EXAMPLE_7_4]
    archive = registry.state(SERVICE_IBI)
    assert archive.included and archive.last_confirmation == "successful"
    assert (archive.address, archive.ip, archive.platform_version, archive.admin_email) == (
        "mtc-m21.sid.inpe.br", "150.163.34.239", "2014:11.09.02.16.15", "banon@dpi.inpe.br",
    )
    outcome = service(registry, transport).answer(EXAMPLE_7_3)
    assert (outcome.body, outcome.status) == (vectors["status_messages"]["excluded"], OK)
    assert transport.urls == [EXAMPLE_7_4]  # exclusion asks the Archive nothing
    archive = registry.state(SERVICE_IBI)
    assert not archive.included and archive.address == "mtc-m21.sid.inpe.br"  # registration kept (§7.2)
    assert [event.kind for event in registry.history(SERVICE_IBI)] == ["registered", "included", "excluded"]


def test_typed_requests_and_the_confirmation_answer_of_algorithm_1(registry, vectors):
    answer = vectors["status_messages"]["confirmation"].encode("ascii")
    inclusion = InclusionRequest(
        archive_address="mtc-m21.sid.inpe.br", archive_service_ibi=SERVICE_IBI, archive_ip="150.163.34.239",
        archive_platform_version="2014:11.09.02.16.15", archive_adm_email_address="banon@dpi.inpe.br",
        registration_key=RegistrationKey(KEY),
    )
    registration = service(registry, FakeTransport(Exchange(200, "text/plain", answer)))
    assert registration.include(inclusion).body == vectors["status_messages"]["included_confirmed"]
    exclusion = ExclusionRequest(**{name: getattr(inclusion, name) for name in (
        "archive_address", "archive_service_ibi", "archive_ip", "archive_platform_version",
        "archive_adm_email_address", "registration_key")})
    assert registration.exclude(exclusion).body == vectors["status_messages"]["excluded"]


@pytest.mark.parametrize(
    "exchange, why",
    [
        (Exchange(failure=Failure.TIMEOUT, error="no answer within 5 s"), "timeout"),
        (Exchange(failure=Failure.CONNECTION, error="ConnectionError: refused"), "connection"),
        (Exchange(500, "text/plain", b"confirmation yes"), "HTTP status 500"),
        (Exchange(200, "text/plain", b"confirmation no"), "not 'confirmation yes'"),
        (Exchange(200, "text/plain", b""), "not 'confirmation yes'"),
        (Exchange(200, "text/html", b"<html>{</html>"), "not a pair list"),
    ],
)
def test_allowed_archive_that_does_not_confirm_is_included_unsuccessful(registry, vectors, exchange, why):
    outcome = service(registry, FakeTransport(exchange)).answer(EXAMPLE_7_2)
    assert (outcome.body, outcome.status) == (vectors["status_messages"]["included_unconfirmed"], OK)
    archive = registry.state(SERVICE_IBI)
    assert archive.included and archive.last_confirmation == "unsuccessful"
    assert why in registry.history(SERVICE_IBI)[-1].detail


def test_address_changes_between_inclusions(registry, vectors):
    transport = FakeTransport()
    registration = service(registry, transport)
    assert registration.answer(EXAMPLE_7_2).status == OK
    assert registration.answer(EXAMPLE_7_3).status == OK
    moved = query(archiveaddress="mtc-m21b.sid.inpe.br", archiveip="150.163.34.240")
    outcome = registration.answer(moved)
    assert outcome.body == vectors["status_messages"]["included_confirmed"]
    assert transport.urls[-1] == EXAMPLE_7_4.replace("//mtc-m21.", "//mtc-m21b.")
    archive = registry.state(SERVICE_IBI)
    assert (archive.address, archive.ip, archive.included) == ("mtc-m21b.sid.inpe.br", "150.163.34.240", True)
    # and again, with a port, without an exclusion in between
    outcome = registration.answer(query(archiveaddress="150.163.34.241:8080", archiveip="150.163.34.241"))
    assert outcome.status == OK
    assert transport.urls[-1].startswith("http://150.163.34.241:8080/sid.inpe.br/mtc-m21/")
    assert registry.state(SERVICE_IBI).address == "150.163.34.241:8080"


def test_valid_keys_of_the_vectors_register_and_match(registry, vectors):
    for number, key in enumerate(vectors["registration_key_valid"]):
        ibi = f"sid.inpe.br/mtc-m21/2012/06.05.15.34.{number:02d}"
        registry.register(ibi, key)
        request = query(archiveserviceibi=ibi, registrationkey=key)
        assert service(registry).answer(request).status == OK
        assert service(registry).answer(query(archiveserviceibi=ibi, registrationkey=key + "0")).status == WRONG_KEY


@pytest.mark.parametrize("key", ["123456789", "1234567890-", "abcdefghij", "1234567890-123", ""])
def test_invalid_keys_of_the_vectors_are_malformed_pairs(registry, vectors, key):
    assert key in vectors["registration_key_invalid"]
    before = registry.snapshot()
    outcome = service(registry).answer(query(registrationkey=key))
    assert outcome.status == MALFORMED
    assert outcome.body.startswith("status.archive refused status.reason {registrationkey")
    assert registry.snapshot() == before
    with pytest.raises(ParseError):
        RegistrationKey(key)


# -- refusals: each with its status, nothing half-stored ------------------------------------


def test_unknown_archive_is_refused_404(registry):
    before = registry.snapshot()
    transport = FakeTransport()
    outcome = service(registry, transport).answer(query(archiveserviceibi="sid.inpe.br/mtc-m21/2012/06.05.15.34.40"))
    assert (outcome.body, outcome.status) == ("status.archive refused status.reason {unknown archive}", UNKNOWN_ARCHIVE)
    assert registry.snapshot() == before and transport.urls == []


@pytest.mark.parametrize("base", [EXAMPLE_7_2, EXAMPLE_7_3])
def test_wrong_key_is_refused_403_and_only_the_history_changes(registry, base):
    before = registry.state(SERVICE_IBI)
    transport = FakeTransport()
    outcome = service(registry, transport).answer(query(base, registrationkey="1234567891"))
    assert (outcome.body, outcome.status) == ("status.archive refused status.reason {wrong registration key}", WRONG_KEY)
    assert registry.state(SERVICE_IBI) == before and transport.urls == []
    last = registry.history(SERVICE_IBI)[-1]
    assert (last.kind, last.detail) == ("refused", "wrong registration key")


@pytest.mark.parametrize("pair", TABLE_7_2)
@pytest.mark.parametrize("base", [EXAMPLE_7_2, EXAMPLE_7_3])
def test_each_missing_pair_is_refused_400_naming_it(registry, base, pair):
    before = registry.snapshot()
    outcome = service(registry).answer(query(base, **{pair: None}))
    assert outcome.status == MALFORMED
    assert outcome.body.startswith(f"status.archive refused status.reason {{{pair}")
    assert "missing" in outcome.body
    assert registry.snapshot() == before


@pytest.mark.parametrize(
    "pair, value",
    [
        ("archiveaddress", "mtc-m21.sid.inpe.br:99999"),
        ("archiveaddress", "http://mtc-m21.sid.inpe.br"),
        ("archiveserviceibi", "no-slash"),
        ("archiveserviceibi", "sid.inpe.br/mtc-m21/2012/13.05.15.34.39"),  # month 13
        ("archiveip", "150.163.34.999"),
        ("archiveprotocol", "USP"),
        ("archiveplatformversion", "vers%e3o"),
        ("archiveadmemailaddress", "banon"),
        ("registrationkey", "12345-67890"),
    ],
)
def test_malformed_pair_is_refused_400_naming_it(registry, pair, value):
    before = registry.snapshot()
    transport = FakeTransport()
    outcome = service(registry, transport).answer(query(**{pair: value}))
    assert outcome.status == MALFORMED
    assert outcome.body.startswith(f"status.archive refused status.reason {{{pair}")
    assert registry.snapshot() == before and transport.urls == []


@pytest.mark.parametrize(
    "text, reason",
    [
        ("servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4&parsedibiurl.ibi=a/b", "'urlRequest' is not answered"),
        ("servicesubject=inclusionConfirmationRequest", "'inclusionConfirmationRequest' is not answered"),
        ("servicesubject=fooRequest", "'fooRequest' is not answered"),
        ("archiveaddress=mtc-m21.sid.inpe.br", "servicesubject: missing"),
        ("", "servicesubject: missing"),
        (EXAMPLE_7_2 + "&archiveip=150.163.34.239", "duplicate pair 'archiveip'"),
        (EXAMPLE_7_2 + "&x=%zz", "malformed percent escape"),
    ],
)
def test_other_subjects_and_unreadable_queries_are_refused_400(registry, text, reason):
    before = registry.snapshot()
    outcome = service(registry).answer(text)
    assert outcome.status == MALFORMED and outcome.body.startswith("status.archive refused status.reason {")
    assert reason.replace(" ", "%20") in outcome.body.replace(" ", "%20")
    assert registry.snapshot() == before


@pytest.mark.parametrize(
    "address, ip, why",
    [
        ("127.0.0.1", "127.0.0.1", "loopback"),
        ("localhost.example:8080", "127.0.0.1", "does not resolve"),
        ("10.1.2.3", "10.1.2.3", "private"),
        ("intranet.example", "192.168.1.10", "private"),
        ("169.254.10.20", "169.254.10.20", "link-local"),
        ("[::1]:800", "::1", "loopback"),
    ],
)
def test_forbidden_address_is_refused_422_and_never_contacted(registry, address, ip, why):
    before = registry.state(SERVICE_IBI)
    transport = FakeTransport()
    outcome = service(registry, transport).answer(query(archiveaddress=address, archiveip=ip))
    assert outcome.status == ADDRESS_NOT_ALLOWED
    assert outcome.answer.get("status.archive") == "refused"
    assert outcome.answer.text("status.reason").startswith("address not allowed: ")
    assert why in outcome.answer.text("status.reason")
    # the setting is named when it would change the answer: not for a name that does not resolve
    named = "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1" in outcome.answer.text("status.reason")
    assert named is (why != "does not resolve")
    assert registry.history(SERVICE_IBI)[-1].detail == outcome.answer.text("status.reason")
    assert transport.urls == [] and registry.state(SERVICE_IBI) == before
    assert registry.history(SERVICE_IBI)[-1].kind == "refused"


def test_private_address_allowed_when_the_deployment_allows_it(registry, vectors):
    transport = FakeTransport()
    outcome = service(registry, transport, allow_private=True).answer(query(archiveaddress="10.1.2.3:8080", archiveip="10.1.2.3"))
    assert (outcome.body, outcome.status) == (vectors["status_messages"]["included_confirmed"], OK)
    assert transport.urls == [f"http://10.1.2.3:8080/{SERVICE_IBI}?servicesubject=inclusionConfirmationRequest"]


def test_exclusion_needs_no_reachable_address(registry):
    outcome = service(registry).answer(query(EXAMPLE_7_3, archiveaddress="127.0.0.1", archiveip="127.0.0.1"))
    assert outcome.status == OK


# -- the key is a secret ---------------------------------------------------------------------


def test_key_never_in_logs_answers_history_or_database(registry, caplog):
    secret = "9876501234-5678909876"
    ibi = "sid.inpe.br/mtc-m21/2012/06.05.15.34.50"
    registry.register(ibi, secret)
    caplog.set_level(logging.DEBUG)
    answers = []
    for changes in (
        {},  # included
        {"archiveaddress": "127.0.0.1"},  # address not allowed
        {"registrationkey": secret[:-1] + "7"},  # wrong key
        {"archiveip": "nope"},  # malformed pair
        {"archiveserviceibi": "sid.inpe.br/mtc-m21/2012/06.05.15.34.51"},  # unknown
    ):
        text = query(**{"archiveserviceibi": ibi, "registrationkey": secret, **changes})
        answers.append(service(registry).answer(text).body)
    answers.append(service(registry).answer(query(EXAMPLE_7_3, archiveserviceibi=ibi, registrationkey=secret)).body)
    assert [answer.split(" ")[1] for answer in answers] == ["included", "refused", "refused", "refused", "refused", "excluded"]
    everything = " ".join(answers) + caplog.text + str(registry.snapshot()) + repr(registry.state(ibi))
    for part in (secret, secret[:10], secret[11:], secret[:-1] + "7"):
        assert part not in everything
    assert caplog.records  # the service does log what happened


def test_key_hash_is_salted_and_round_trips():
    key = RegistrationKey(KEY)
    first, second = KeyHash.of(key), KeyHash.of(key)
    assert first.salt != second.salt and first.digest != second.digest
    assert KeyHash.decode(first.encode()) == first
    assert first.matches(key) and not first.matches(RegistrationKey("1234567891"))
    assert KEY not in first.encode() and KEY not in repr(first)
    assert first.encode().startswith("scrypt$16384$8$1$")
    with pytest.raises(ValueError):
        KeyHash.decode("md5$1$1$1$00$00")


# -- over mocked HTTP -----------------------------------------------------------------------


@pytest.fixture
def http():
    transport = HttpTransport(getaddrinfo=DNS)
    yield transport
    transport.close()


@responses.activate
def test_inclusion_over_mocked_http_sends_example_7_4(registry, http, vectors):
    confirm = responses.get(
        EXAMPLE_7_4.partition("?")[0], body="confirmation yes\r\n", content_type="text/plain",
        match=[responses.matchers.query_string_matcher("servicesubject=inclusionConfirmationRequest")],
    )
    outcome = service(registry, http).answer(EXAMPLE_7_2)
    assert outcome.body == vectors["status_messages"]["included_confirmed"]
    assert confirm.call_count == 1 and confirm.calls[0].request.url == EXAMPLE_7_4


@responses.activate
def test_inclusion_over_mocked_http_that_times_out(registry, http, vectors):
    responses.get(EXAMPLE_7_4.partition("?")[0], body=ConnectTimeout("connect timed out"))
    outcome = service(registry, http).answer(EXAMPLE_7_2)
    assert outcome.body == vectors["status_messages"]["included_unconfirmed"]
    assert "timeout" in registry.history(SERVICE_IBI)[-1].detail


# -- the stored registry ------------------------------------------------------------------------


def test_store_lists_included_archives_at_their_last_address(database_setting):
    storage = Storage(database_setting)
    store = StoredRegistry(storage)
    for suffix in ("39", "40", "41"):
        store.register(f"{SERVICE_IBI[:-2]}{suffix}", KEY)
    registration = service(store)
    registration.answer(query(archiveserviceibi=f"{SERVICE_IBI[:-2]}40", archiveaddress="mtc-m21b.sid.inpe.br"))
    registration.answer(query(archiveserviceibi=f"{SERVICE_IBI[:-2]}39"))
    registration.answer(query(EXAMPLE_7_3, archiveserviceibi=f"{SERVICE_IBI[:-2]}41"))
    assert [(archive.service_ibi, archive.address) for archive in store.included_archives()] == [
        (SERVICE_IBI, "mtc-m21.sid.inpe.br"), (f"{SERVICE_IBI[:-2]}40", "mtc-m21b.sid.inpe.br"),
    ]
    assert not store.register_archive(SERVICE_IBI, key_hash(KEY), NOW)
    assert store.remove_archive(SERVICE_IBI) and not store.remove_archive(SERVICE_IBI)
    assert store.find_archive(SERVICE_IBI) is None and store.archive_events(SERVICE_IBI) == []
    storage.close()


def test_store_history_is_bounded(database_setting):
    storage = Storage(database_setting)
    store = StoredRegistry(storage)
    store.register(SERVICE_IBI, KEY)
    for second in range(ARCHIVE_HISTORY_LIMIT + 5):
        store.record_refusal(SERVICE_IBI, f"attempt {second}", NOW + timedelta(seconds=second))
    history = store.archive_events(SERVICE_IBI)
    assert len(history) == ARCHIVE_HISTORY_LIMIT
    assert history[-1].detail == f"attempt {ARCHIVE_HISTORY_LIMIT + 4}" and history[0].detail == "attempt 5"
    assert history[-1].at == "2015-01-02T03:07:29.000000Z"
    storage.close()
