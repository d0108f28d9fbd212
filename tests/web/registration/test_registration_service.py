"""The resolver service route ``GET /<resolver service IBI>?…`` (file 003 §6.1, §7.2) and the
``flask archives`` CLI (§7.1): Examples 7.2 and 7.3 through the route, refusals with their
statuses, the key kept secret, and one inclusion over real HTTP on loopback."""
from __future__ import annotations

import functools
import logging
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import responses

from ibiportal import create_app
from ibiportal.resolver import registry_service
from ibiportal.resolver.addresses import check_host
from ibiportal.storage.registry import ArchiveStore
from ibiportal.web.context import application
from ibiportal.web.context import APPLICATION
from tests import standard_examples as standard
from tests.standard_examples import query_of
from tests.servers import fresh_sqlite, sqlite_dump

SERVICE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"
#: Examples 7.2 and 7.3 as the resolver service receives them: the pairs without the base URL.
EXAMPLE_7_2 = query_of(standard.EXAMPLE_7_2)
EXAMPLE_7_3 = query_of(standard.EXAMPLE_7_3)
EXAMPLE_7_4 = standard.EXAMPLE_7_4
HOSTS = {"mtc-m21.sid.inpe.br": "150.163.34.239", "mtc-m21b.sid.inpe.br": "150.163.34.240", "intranet.example": "192.168.1.10"}
RESOLVER = "http://www.urlib.net/J8LNKB5R7W/3FUQHC5"
#: The portal answers as the standard's resolver: it is told it answers for that host.
RESOLVER_HOSTS = ["www.urlib.net", "localhost"]
pytestmark = pytest.mark.settings(TRUSTED_HOSTS=RESOLVER_HOSTS)
SECRET = "5550001112-9998887776"
PAIR_LIST = "text/plain; charset=us-ascii"


def fake_dns(host, port, *args, **kwargs):
    """``getaddrinfo`` over :data:`HOSTS`; an IPv4 literal resolves to itself."""
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (HOSTS.get(host, host), port))]


def query(base: str = EXAMPLE_7_2, **changes: str | None) -> str:
    """``base`` with pairs replaced (a value) or removed (``None``)."""
    pairs = (pair.split("=", 1) for pair in base.split("&"))
    return "&".join(
        f"{name}={changes.get(name, value)}" for name, value in pairs if not (name in changes and changes[name] is None)
    )


def make_app(tmp_path: Path, **config):
    return create_app({
        "TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "test.sqlite"), "SECRET_KEY": "test",
        "WTF_CSRF_ENABLED": False, "TRUSTED_HOSTS": RESOLVER_HOSTS, **config,
    })


def close_transport(app) -> None:
    app.extensions[APPLICATION].http_transport.close()


@pytest.fixture
def dns(monkeypatch):
    """Archive host names resolve from the test's table, for the policy check and the transport."""
    patched = functools.partial(check_host, getaddrinfo=fake_dns)
    monkeypatch.setattr(registry_service, "check_host", patched)
    monkeypatch.setattr(socket, "getaddrinfo", fake_dns)  # where the transport's check_host looks names up


@pytest.fixture
def served(app, dns):
    """The app with Example 7.1's pair registered: the Archive of Examples 7.2-7.4, key 1234567890;
    served as the standard's resolver, www.urlib.net (a host it is told it answers for: this
    module's settings)."""
    result = app.test_cli_runner().invoke(args=["archives", "register", SERVICE_IBI, "--key", "1234567890"])
    assert result.exit_code == 0, result.output
    yield app
    close_transport(app)


def database(app) -> str:
    return sqlite_dump(app.config["DATABASE"])


def archive(app):
    with app.app_context():
        return ArchiveStore(application().storage()).find_archive(SERVICE_IBI)


def events(app):
    with app.app_context():
        return ArchiveStore(application().storage()).archive_events(SERVICE_IBI)


# -- Examples 7.2 and 7.3 through the route ----------------------------------------------------


@responses.activate
def test_examples_7_2_and_7_3(served, vectors):
    confirm = responses.get(EXAMPLE_7_4.partition("?")[0], body="confirmation yes\r\n", content_type="text/plain")
    client = served.test_client()
    response = client.get(f"{RESOLVER}?{EXAMPLE_7_2}")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == PAIR_LIST
    assert response.get_data(as_text=True) == vectors["status_messages"]["included_confirmed"]
    assert [call.request.url for call in confirm.calls] == [EXAMPLE_7_4]
    assert archive(served).included and archive(served).address == "mtc-m21.sid.inpe.br"

    listing = served.test_cli_runner().invoke(args=["archives", "list"])
    assert listing.exit_code == 0
    header, row = listing.output.splitlines()
    assert header.split() == ["IBI", "included", "address", "last", "confirmation", "updated"]
    assert row.split()[:4] == [SERVICE_IBI, "yes", "mtc-m21.sid.inpe.br", "successful"]

    response = client.get(f"{RESOLVER}?{EXAMPLE_7_3}")
    assert (response.status_code, response.get_data(as_text=True)) == (200, vectors["status_messages"]["excluded"])
    assert response.headers["Content-Type"] == PAIR_LIST
    assert not archive(served).included
    history = served.test_cli_runner().invoke(args=["archives", "history", SERVICE_IBI]).output
    assert [line.split()[1] for line in history.splitlines()] == ["registered", "included", "excluded"]


@responses.activate
def test_archive_that_does_not_confirm_is_included_unsuccessful(served, vectors):
    responses.get(EXAMPLE_7_4.partition("?")[0], status=503, body="busy")
    response = served.test_client().get(f"{RESOLVER}?{EXAMPLE_7_2}")
    assert (response.status_code, response.get_data(as_text=True)) == (200, vectors["status_messages"]["included_unconfirmed"])
    assert archive(served).last_confirmation == "unsuccessful"


@responses.activate
def test_address_change_between_inclusions_is_stored(served):
    responses.get(EXAMPLE_7_4.partition("?")[0], body="confirmation yes")
    moved = responses.get(f"http://mtc-m21b.sid.inpe.br/{SERVICE_IBI}", body="confirmation yes")
    client = served.test_client()
    assert client.get(f"{RESOLVER}?{EXAMPLE_7_2}").status_code == 200
    assert client.get(f"{RESOLVER}?{EXAMPLE_7_3}").status_code == 200
    response = client.get(f"{RESOLVER}?{query(archiveaddress='mtc-m21b.sid.inpe.br', archiveip='150.163.34.240')}")
    assert response.status_code == 200 and moved.call_count == 1
    assert (archive(served).address, archive(served).ip) == ("mtc-m21b.sid.inpe.br", "150.163.34.240")


# -- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, status, reason",
    [
        (query(archiveserviceibi="sid.inpe.br/mtc-m21/2012/06.05.15.34.40"), 404, "unknown archive"),
        (query(registrationkey="1234567899"), 403, "wrong registration key"),
        (query(EXAMPLE_7_3, registrationkey="1234567899"), 403, "wrong registration key"),
        (query(archiveip=None), 400, "archiveip: missing mandatory pair for inclusionRequest"),
        (query(registrationkey=None), 400, "registrationkey: missing mandatory pair for inclusionRequest"),
        (query(archiveprotocol="USP"), 400, "archiveprotocol: 'USP' is not HTTP"),
        (query(archiveaddress="127.0.0.1", archiveip="127.0.0.1"), 422, "address not allowed: 127.0.0.1 is a loopback address (private Archives are not allowed by this resolver; its administrator can allow them with IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1)"),
        (query(archiveaddress="intranet.example"), 422, "address not allowed: 192.168.1.10 is a private address"),
        ("servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4&parsedibiurl.ibi=a/b", 400, "'urlRequest' is not answered"),
        ("servicesubject=nonsense", 400, "'nonsense' is not answered"),
        ("", 400, "servicesubject: missing"),
    ],
)
def test_refusals_have_their_status_and_store_nothing(served, text, status, reason):
    before_archive, before_events = archive(served), events(served)
    response = served.test_client().get(f"/J8LNKB5R7W/3FUQHC5?{text}")
    assert response.status_code == status
    assert response.headers["Content-Type"] == PAIR_LIST
    body = response.get_data(as_text=True)
    assert body.startswith("status.archive refused status.reason {") and reason.replace("'", "%27") in body.replace("'", "%27")
    assert archive(served) == before_archive  # nothing half-stored
    added = events(served)[len(before_events):]
    assert events(served)[: len(before_events)] == before_events
    assert [event.kind for event in added] == (["refused"] if status in (403, 422) else [])


def test_route_is_a_fixed_rule_that_wins_over_a_catch_all(tmp_path):
    app = make_app(tmp_path, RESOLVER_SERVICE_IBI="8JMKD3MGP8W/35MMLL8")
    app.add_url_rule("/<path:anything>", "catch_all", lambda anything: "caught")
    urls = app.url_map.bind("urlib.net")
    assert urls.match("/8JMKD3MGP8W/35MMLL8") == ("registration.answer", {})
    assert urls.match("/J8LNKB5R7W/3FUQHC5")[0] != "registration.answer"
    response = app.test_client().get("/8JMKD3MGP8W/35MMLL8?servicesubject=acknowledgment")
    assert response.status_code == 400 and response.headers["Content-Type"] == PAIR_LIST
    assert app.test_client().post("/8JMKD3MGP8W/35MMLL8").status_code == 405


def test_default_resolver_service_ibi_is_the_standards(app):
    assert app.config["RESOLVER_SERVICE_IBI"] == "J8LNKB5R7W/3FUQHC5"
    assert app.url_map.bind("urlib.net").match("/J8LNKB5R7W/3FUQHC5") == ("registration.answer", {})


def test_a_bad_resolver_service_ibi_stops_the_start_up(tmp_path):
    with pytest.raises(ValueError, match="archiveserviceibi"):
        make_app(tmp_path, RESOLVER_SERVICE_IBI="not an IBI")


# -- the key stays secret ---------------------------------------------------------------------------


@responses.activate
def test_key_never_in_cli_output_logs_answers_or_database(app, dns, caplog):
    caplog.set_level(logging.DEBUG)
    responses.get(EXAMPLE_7_4.partition("?")[0], body="confirmation yes")
    runner = app.test_cli_runner()
    outputs = [runner.invoke(args=["archives", "register", SERVICE_IBI, "--key", SECRET])]
    outputs.append(runner.invoke(args=["archives", "register", SERVICE_IBI], input=f"{SECRET}\n{SECRET}\n"))
    assert [result.exit_code for result in outputs] == [0, 1]
    client = app.test_client()
    answers = [
        client.get(f"{RESOLVER}?{query(registrationkey=SECRET)}"),
        client.get(f"{RESOLVER}?{query(registrationkey=SECRET[:-1] + '5')}"),
        client.get(f"{RESOLVER}?{query(registrationkey=SECRET, archiveaddress='10.0.0.1')}"),
        client.get(f"{RESOLVER}?{query(EXAMPLE_7_3, registrationkey=SECRET)}"),
    ]
    assert [response.status_code for response in answers] == [200, 403, 422, 200]
    for args in (["list"], ["history", SERVICE_IBI]):
        outputs.append(runner.invoke(args=["archives", *args]))
    close_transport(app)
    sqlite_dump(app.config["DATABASE"])
    files = b"".join(path.read_bytes() for path in Path(app.config["DATABASE"]).parent.glob("test.sqlite*"))
    shown = (
        "".join(result.output for result in outputs) + caplog.text
        + "".join(response.get_data(as_text=True) for response in answers) + database(app)
    )
    for part in (SECRET, SECRET[:10], SECRET[11:]):
        assert part not in shown and part.encode() not in files
    assert "Registration key" in outputs[1].output  # asked for, without echo
    assert b"scrypt$16384$8$1$" in files  # the hash is there, the key is not
    assert any(record.name == "ibiportal.resolver.registry_service" for record in caplog.records)


# -- the CLI ---------------------------------------------------------------------------------------


def test_cli_register_list_remove(runner):
    assert runner.invoke(args=["archives", "list"]).output == "No Archive is registered.\n"
    result = runner.invoke(args=["archives", "register", "8jmkd3mgp8w/35mmll8", "--key", "1234567890-1234567890"])
    assert result.exit_code == 0 and "Registered 8JMKD3MGP8W/35MMLL8" in result.output
    assert "1234567890" not in result.output
    rows = runner.invoke(args=["archives", "list"]).output.splitlines()
    assert rows[1].split()[:4] == ["8JMKD3MGP8W/35MMLL8", "no", "-", "-"]
    again = runner.invoke(args=["archives", "register", "8JMKD3MGP8W/35MMLL8", "--key", "1234567890"])
    assert again.exit_code == 1 and "already registered" in again.output
    removed = runner.invoke(args=["archives", "remove", "8JMKD3MGP8W/35MMLL8"])
    assert removed.exit_code == 0 and "Removed 8JMKD3MGP8W/35MMLL8" in removed.output
    assert runner.invoke(args=["archives", "list"]).output == "No Archive is registered.\n"


@pytest.mark.parametrize(
    "args, status, message",
    [
        (["register", "sid.inpe.br/mtc-m21/2012/13.05.15.34.39", "--key", "1234567890"], 2, "error: sid.inpe.br/mtc-m21/2012/13.05.15.34.39: archiveserviceibi:"),
        (["register", SERVICE_IBI, "--key", "123456789"], 2, "error: registration key: the registration key: the first number has 9 digits"),
        (["register", SERVICE_IBI, "--key", "12345abcde"], 2, "error: registration key: the registration key has a character that is not a digit"),
        (["remove", SERVICE_IBI], 1, f"error: {SERVICE_IBI}: not registered"),
        (["remove", "x"], 2, "error: x: archiveserviceibi:"),
        (["history", SERVICE_IBI], 1, f"error: {SERVICE_IBI}: not registered"),
    ],
)
def test_cli_bad_input_exits_non_zero_with_a_clear_message(runner, args, status, message):
    result = runner.invoke(args=["archives", *args])
    assert result.exit_code == status
    assert message in result.output
    assert "12345abcde" not in result.output and "123456789 " not in result.output


# -- one real socket --------------------------------------------------------------------------------


class _Archive(BaseHTTPRequestHandler):
    """A tiny Archive: answers ``confirmation yes`` to its service's inclusionConfirmationRequest."""

    paths: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        type(self).paths.append(self.path)
        good = self.path == f"/{SERVICE_IBI}?servicesubject=inclusionConfirmationRequest"
        body = b"confirmation yes\r\n" if good else b""
        self.send_response(200 if good else 404)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.slow
def test_inclusion_over_real_http_on_loopback(tmp_path, vectors):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Archive)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    app = make_app(tmp_path, ALLOW_PRIVATE_ARCHIVES=True)
    try:
        assert app.test_cli_runner().invoke(args=["archives", "register", SERVICE_IBI, "--key", "1234567890"]).exit_code == 0
        address = f"127.0.0.1:{server.server_address[1]}"
        client = app.test_client()
        included = client.get(f"{RESOLVER}?{query(archiveaddress=address, archiveip='127.0.0.1')}")
        assert (included.status_code, included.get_data(as_text=True)) == (200, vectors["status_messages"]["included_confirmed"])
        assert _Archive.paths == [f"/{SERVICE_IBI}?servicesubject=inclusionConfirmationRequest"]
        excluded = client.get(f"{RESOLVER}?{query(EXAMPLE_7_3, archiveaddress=address, archiveip='127.0.0.1')}")
        assert (excluded.status_code, excluded.get_data(as_text=True)) == (200, vectors["status_messages"]["excluded"])
        assert len(_Archive.paths) == 1
        assert not archive(app).included and archive(app).address == address
    finally:
        close_transport(app)
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_request_query_is_split_once_for_the_limiter_and_the_answer(served, monkeypatch):
    from ibiportal.protocol.query import parse_query
    from ibiportal.web.registration import views

    splits = []

    def counted(query):
        splits.append(query)
        return parse_query(query)

    monkeypatch.setattr(views, "parse_query", counted)
    monkeypatch.setattr(registry_service, "parse_query", counted)
    assert served.config["RATELIMIT_ENABLED"]  # the per-Archive key function reads the pairs first
    response = served.test_client().get(f"/J8LNKB5R7W/3FUQHC5?{query(registrationkey='9999999999')}")
    assert response.status_code == 403
    assert len(splits) == 1
