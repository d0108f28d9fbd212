"""Releasing an own item to a successor Archive (issue 34 point 5): the successor, mocked with
``responses``, is asked first; only its Original answer for the same item lets the item go."""
from __future__ import annotations

import socket
from decimal import Decimal
from itertools import count
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses

from ibiportal.application.items import ItemDeleted, ItemNotFound, ItemReleased, ItemService
from ibiportal.application.releasing import Releasing, ReleaseRefused, Successor
from ibiportal.ibi.history import RELEASED, Actor
from ibiportal.archive.own import own_archive_service
from ibiportal.errors import ParseError
from ibiportal.application.minting import Minter
from ibiportal.ibi.mint_request import MintRequest
from ibiportal.ibi.subsystem import Subsystem
from ibiportal.protocol.messages import UrlRequest, request_url
from ibiportal.resolver.http_transport import HttpTransport
from ibiportal.storage.database import Storage
from ibiportal.storage.history import HistoryStore
from ibiportal.storage.identifiers import FreshConnections, IdentifierStore
from tests.servers import fresh_sqlite

TESTER = Actor("command", "tests")
OWN_SERVICE_IBI = "32G4GKPW/4GR3P92"
SUCCESSOR = Successor("successor.example", "8JMKD3MGPCW/3ER446E")
SUCCESSOR_BASE = "http://successor.example/8JMKD3MGPCW/3ER446E"
MOVED_URL = "https://successor.example/col/item/doc/report.pdf"


def public_dns(host, port, *args, **kwargs):
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("150.163.34.243", port))]


@pytest.fixture
def database(tmp_path) -> str:
    return fresh_sqlite(tmp_path / "release.sqlite")


@pytest.fixture
def storage(database):
    storage = Storage(database)
    yield storage
    storage.close()


@pytest.fixture
def item(storage):
    seconds = count(1234806360, 60)
    minter = Minter(IdentifierStore(storage), item_subsystem(), clock=lambda: Decimal(next(seconds)), sleep=lambda _: None)
    return minter.mint(MintRequest(title="Relatório", target_url="https://example.org/old"), actor=TESTER)


@pytest.fixture
def other(storage, item):
    return Minter(IdentifierStore(storage), item_subsystem(), clock=lambda: Decimal(1234806480),
                  sleep=lambda _: None).mint(MintRequest(title="Second edition"), actor=TESTER)


def item_subsystem() -> Subsystem:
    return Subsystem(host="mtc-m18.sid.inpe.br", port=80, ip="150.163.34.243", ibip_port=800, granularity=Decimal(1))


@pytest.fixture
def items(storage) -> ItemService:
    return ItemService(IdentifierStore(storage), HistoryStore(storage))


@pytest.fixture
def releasing(items):
    transport = HttpTransport(getaddrinfo=public_dns)
    yield Releasing(items, transport, OWN_SERVICE_IBI)
    transport.close()


def own_answer(database: str, ibi: str) -> str:
    """What the own Archive answers a resolver's urlRequest for ``ibi`` (Algorithm 2)."""
    service = own_archive_service(FreshConnections(database), address="portal.example", service_ibi=OWN_SERVICE_IBI,
                                  portal_url="http://portal.example")
    url = request_url("portal.example", OWN_SERVICE_IBI, UrlRequest(client_ips=("150.163.34.1",), ibi=ibi))
    return service.answer(urlsplit(url).query)


def successor_answers(body: str, status: int = 200, asked: list | None = None) -> None:
    def answer(request):
        if asked is not None:
            asked.append(parse_qs(urlsplit(request.url).query))
        return status, {"Content-Type": "text/plain"}, body
    responses.add_callback(responses.GET, SUCCESSOR_BASE, callback=answer)


@responses.activate
def test_an_original_answer_for_the_same_item_releases_it(database, storage, item, other, items, releasing):
    asked: list = []
    successor_answers(f"ibi {{rep {item.rep} ibip {item.ibip}}} state Original url {MOVED_URL}", asked=asked)
    before = own_answer(database, item.ibip)
    assert "state Original" in " ".join(before.split())

    record = releasing.release(item.rep, SUCCESSOR, actor=TESTER, client_ips=("150.163.34.1",))

    assert asked[0]["servicesubject"] == ["urlRequest"] and asked[0]["parsedibiurl.ibi"] == [item.ibip]
    assert asked[0]["clientinformation.ipaddress"] == ["150.163.34.1"]
    assert record.state == "Released" and record.minted.successor == SUCCESSOR_BASE and record.minted.released_at
    for form in (item.ibip, item.rep):
        assert own_answer(database, form).strip() == ""  # Algorithm 2 lines 3-4: not held, nothing answered
    _, history = items.history(item.ibip)
    assert (history[-1].action, dict(history[-1].details), history[-1].actor) == (
        RELEASED, {"successor": SUCCESSOR_BASE, "url": MOVED_URL}, TESTER)
    assert IdentifierStore(storage).find_minted(ibip=item.ibip) is not None  # the row stays: never minted again
    with pytest.raises(ItemReleased, match="released to the Archive at"):
        items.change(item.ibip, {"title": "New"}, actor=TESTER)
    with pytest.raises(ItemReleased):
        releasing.release(item.ibip, SUCCESSOR, actor=TESTER, client_ips=("150.163.34.1",))
    assert len(responses.calls) == 1  # a released item is refused before anything is sent
    with pytest.raises(ParseError, match="link to an item held here") as refused:
        items.change(other.ibip, {"previous_edition": item.ibip}, actor=TESTER)
    assert refused.value.field == "previous_edition"


@pytest.mark.parametrize(("body", "status", "reason"), [
    ("", 200, "answered nothing"),
    ("ibi {{rep {rep} ibip {ibip}}} state Copy url https://successor.example/copy", 200, "state Copy, not Original"),
    ("ibi {{rep {rep} ibip {ibip}}} state Deleted timestamp 2026:11.28.04.00.00", 200, "state Deleted, not Original"),
    ("ibi {{rep sid.inpe.br/mtc-m18/2009/02.16.17.47 ibip 8JMKD3MGP8W/34PGRBT}} state Original "
     "url https://successor.example/other", 200, "another item"),
    ("state Original url https://successor.example/x", 200, "without an ibi pair"),
    ("ibi {{rep {rep} ibip {ibip}}} state Original", 200, "without an http:// or https:// url"),
    ("ibi {{rep {rep} ibip {ibip}}} state Original url javascript:alert(1)", 200, "without an http:// or https:// url"),
    ("<html>oops</html>", 200, "not a pair list"),
    ("ibi {{rep {rep} ibip {ibip}}} state Original url https://successor.example/x", 503, "HTTP 503"),
])
@responses.activate
def test_any_other_answer_refuses_and_changes_nothing(database, item, items, releasing, body, status, reason):
    successor_answers(body.format(rep=item.rep, ibip=item.ibip), status)
    with pytest.raises(ReleaseRefused) as refused:
        releasing.release(item.ibip, SUCCESSOR, actor=TESTER, client_ips=("150.163.34.1",))
    assert reason in str(refused.value.reason) and SUCCESSOR_BASE in str(refused.value.reason)
    assert_unchanged(database, item, items)


@responses.activate
def test_the_check_says_what_the_successor_answered_and_changes_nothing(database, item, items, releasing):
    """The Move page's first step: the same question the release asks, its answer shown, nothing released."""
    successor_answers(f"ibi {{rep {item.rep} ibip {item.ibip}}} state Original url {MOVED_URL}")

    checked = releasing.check(item.rep, SUCCESSOR, client_ips=("150.163.34.1",))

    assert (checked.ibip, checked.successor, checked.state, checked.url) == (item.ibip, SUCCESSOR, "Original", MOVED_URL)
    assert checked.acceptable and checked.refusal is None
    assert_unchanged(database, item, items)


@pytest.mark.parametrize(("body", "status", "state", "url", "reason"), [
    ("ibi {{rep {rep} ibip {ibip}}} state Copy url https://successor.example/copy", 200, "Copy",
     "https://successor.example/copy", "state Copy, not Original"),
    ("", 200, None, None, "answered nothing"),
    ("<html>oops</html>", 200, None, None, "not a pair list"),
    ("ibi {{rep {rep} ibip {ibip}}} state Original url https://successor.example/x", 503, None, None, "HTTP 503"),
])
@responses.activate
def test_a_check_that_does_not_hold_says_why_with_what_was_answered(database, item, items, releasing, body, status,
                                                                     state, url, reason):
    successor_answers(body.format(rep=item.rep, ibip=item.ibip), status)
    checked = releasing.check(item.ibip, SUCCESSOR, client_ips=("150.163.34.1",))
    assert not checked.acceptable and reason in str(checked.refusal) and (checked.state, checked.url) == (state, url)
    assert_unchanged(database, item, items)


@responses.activate
def test_the_release_asks_again_though_a_check_held(database, item, items, releasing):
    """A check's answer is not kept: the successor may have let the item go since; the release asks again."""
    successor_answers(f"ibi {{rep {item.rep} ibip {item.ibip}}} state Original url {MOVED_URL}")
    assert releasing.check(item.ibip, SUCCESSOR, client_ips=("150.163.34.1",)).acceptable
    responses.replace(responses.GET, SUCCESSOR_BASE, body="", content_type="text/plain")
    with pytest.raises(ReleaseRefused, match="answered nothing"):
        releasing.release(item.ibip, SUCCESSOR, actor=TESTER, client_ips=("150.163.34.1",))
    assert len(responses.calls) == 2
    assert_unchanged(database, item, items)


@responses.activate
def test_an_unreachable_successor_refuses(database, item, items, releasing):
    responses.add(responses.GET, SUCCESSOR_BASE, body=requests.ConnectionError("Connection refused"))
    with pytest.raises(ReleaseRefused, match="did not answer"):
        releasing.release(item.ibip, SUCCESSOR, actor=TESTER, client_ips=("150.163.34.1",))
    assert_unchanged(database, item, items)


@responses.activate
def test_a_successor_on_a_refused_address_is_not_asked(database, item, items):
    transport = HttpTransport()  # the resolver's policy: no loopback, no private networks
    releasing = Releasing(items, transport, OWN_SERVICE_IBI)
    with pytest.raises(ReleaseRefused, match="IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1"):
        releasing.release(item.ibip, Successor("127.0.0.1:8080", SUCCESSOR.service_ibi), actor=TESTER,
                          client_ips=("150.163.34.1",))
    transport.close()
    assert len(responses.calls) == 0
    assert_unchanged(database, item, items)


@responses.activate
def test_this_archive_is_no_successor(database, item, items, releasing):
    with pytest.raises(ReleaseRefused, match="is this Archive"):
        releasing.release(item.ibip, Successor("portal.example", OWN_SERVICE_IBI), actor=TESTER,
                          client_ips=("150.163.34.1",))
    assert len(responses.calls) == 0
    assert_unchanged(database, item, items)


@responses.activate
def test_unknown_and_deleted_items_are_refused_before_asking(storage, item, items, releasing):
    with pytest.raises(ItemNotFound):
        releasing.release("8JMKD3MGP8W/34PGRE5", SUCCESSOR, actor=TESTER, client_ips=("150.163.34.1",))
    items.delete(item.ibip, actor=TESTER)
    with pytest.raises(ItemDeleted, match="was deleted"):
        releasing.release(item.ibip, SUCCESSOR, actor=TESTER, client_ips=("150.163.34.1",))
    assert len(responses.calls) == 0


def assert_unchanged(database, item, items) -> None:
    record, history = items.history(item.ibip)
    assert record.state == "Original" and record.minted.released_at is None and record.minted.successor is None
    assert RELEASED not in [entry.action for entry in history]
    assert "state Original" in " ".join(own_answer(database, item.ibip).split())


@pytest.mark.parametrize(("successor", "service_ibi", "expected"), [
    ("http://Successor.Example:8080/8JMKD3MGPCW/3ER446E", None, ("successor.example:8080", "8JMKD3MGPCW/3ER446E")),
    ("http://successor.example/8JMKD3MGPCW/3ER446E/", None, ("successor.example", "8JMKD3MGPCW/3ER446E")),
    ("successor.example:8080", "8JMKD3MGPCW/3ER446E", ("successor.example:8080", "8JMKD3MGPCW/3ER446E")),
    (" [::1]:80 ", "8JMKD3MGPCW/3ER446E", ("[::1]:80", "8JMKD3MGPCW/3ER446E")),
])
def test_a_successor_is_a_service_url_or_an_address_with_its_service_ibi(successor, service_ibi, expected):
    parsed = Successor.parse(successor, service_ibi)
    assert (parsed.address, parsed.service_ibi) == expected
    assert parsed.url == f"http://{expected[0]}/{expected[1]}"


@pytest.mark.parametrize(("successor", "service_ibi", "field", "words"), [
    ("", None, "successor", "give the successor"),
    ("https://successor.example/8JMKD3MGPCW/3ER446E", None, "successor", "over http://"),
    ("successor.example", None, "successor_service_ibi", "service IBI too"),
    ("http://successor.example", None, "successor", "service IBI too"),
    ("user@successor.example", "8JMKD3MGPCW/3ER446E", "successor", "not an Archive address"),
    ("successor.example:99999", "8JMKD3MGPCW/3ER446E", "successor", "not an Archive address"),
    ("successor.example", "not an ibi", "successor_service_ibi", "cannot be in a service IBI"),
    ("successor.example", "8JMKD3MGPCW", "successor_service_ibi", "is not an IBI"),
    ("http://successor.example/8JMKD3MGPCW/3ER446E", "8JMKD3MGPCW/3ER446E", "successor_service_ibi", "give it once"),
])
def test_a_bad_successor_is_refused_naming_the_field(successor, service_ibi, field, words):
    with pytest.raises(ParseError) as refused:
        Successor.parse(successor, service_ibi)
    assert refused.value.field == field and words in refused.value.message
