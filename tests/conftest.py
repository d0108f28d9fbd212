"""Shared fixtures (flaskr style): an app with a temp database per test, its client and CLI runner,
the standards' own figures from ``tests/data/seed_vectors.json``, throwaway
PostgreSQL and Redis servers (started once per session, only when a test asks for them), and
Archives on loopback sockets for the resolver to ask."""
from __future__ import annotations

import gc
import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import requests.adapters
from hypothesis import settings
from playwright.sync_api import Playwright, sync_playwright

from ibiportal import create_app
from ibiportal.archive.demo import load_demo_archives
from ibiportal.archive.http_server import ArchiveHTTPServer
from ibiportal.ibi import extract as extract_module
from ibiportal.resolver.curl_transport import CurlTransport
from ibiportal.resolver.http_transport import HttpTransport
from ibiportal.application import Application
from tests.app_costs import compile_url_builders_when_used, share_compiled_templates
from tests.reliability.faulty_archives import tls_files
from tests.scripted_archive import ScriptedArchive
from tests.servers import PostgresServer, RedisServer, fresh_sqlite, serving
from tests.settings_marker import marked_settings
from tests.slow_first import SLOW_FIRST

# Hypothesis' per-example deadline is a timing assertion: on a shared, loaded 2-core machine it
# fails examples that are merely slow. Properties are about results, so no deadline.
settings.register_profile("ibiportal", deadline=None)
settings.load_profile("ibiportal")

# Most tests build an app of their own: each compiled every template it rendered, and every URL
# rule's builders, again (tests/app_costs.py).
share_compiled_templates()
compile_url_builders_when_used()

# The project's copy of the figures the standards give (each entry names its file and table in
# "source"); taken from the project's shared ``vectors/seed_vectors.json``, see tests/data/README.md.
VECTORS_PATH = Path(__file__).resolve().parent / "data" / "seed_vectors.json"


@pytest.fixture(scope="session")
def vectors() -> dict:
    """The seed vectors: every entry must be reproduced by some test."""
    return json.loads(VECTORS_PATH.read_text(encoding="utf-8"))


@pytest.fixture
def new_database(tmp_path):
    """``new_database(NAME)``: the path of a fresh SQLite database at the current schema (what
    ``flask db upgrade`` makes), in the test's temporary folder."""
    return lambda name="test.sqlite": fresh_sqlite(tmp_path / name)


@pytest.fixture(scope="session")
def postgres_server():
    server = PostgresServer.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_server():
    server = RedisServer.start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_setting(request, new_database) -> str:
    """``IBIPORTAL_DATABASE`` of a fresh database at the current schema: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        return new_database()
    return request.getfixturevalue("postgres_server").new_database()


@pytest.fixture
def app(new_database, request):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": new_database(),
            "SECRET_KEY": "test",
            "WTF_CSRF_ENABLED": False,
            **marked_settings(request),
        }
    )
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def api_token(runner) -> str:
    """A token for the API's writes, made as an administrator makes one (its last output line)."""
    result = runner.invoke(args=["api-token", "create", "tests"])
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]


@pytest.fixture
def auth(api_token) -> dict:
    """The headers that send ``api_token``."""
    return {"Authorization": f"Bearer {api_token}"}


@pytest.fixture
def packaged(client, auth) -> tuple[dict, bytes]:
    """An item minted, with a file and a change, and its package (``GET /api/v1/items/<ibi>/package``)."""
    item = client.post("/api/v1/mint", json={"title": "Relatório", "creators": ["Banon, Gerald"],
                                             "target_url": "https://example.org/here"}).get_json()
    put = client.put(f"/api/v1/items/{item['ibip']}/files/doc/report.pdf", data=b"%PDF-1.4 report",
                     headers={**auth, "Content-Type": "application/pdf"})
    assert put.status_code == 201, put.get_json()
    assert client.patch(f"/api/v1/items/{item['ibip']}", json={"language": "pt"}, headers=auth).status_code == 200
    with client.get(f"/api/v1/items/{item['rep']}/package", headers=auth) as response:
        assert response.status_code == 200 and response.mimetype == "application/zip"
        return item, response.data


@pytest.fixture
def serve_demo_archive():
    """``serve_demo_archive(NAME)`` runs demo Archive NAME (its misbehaviour included) as an
    ArchiveHTTPServer on a loopback port, over real sockets; every one is stopped after the test."""
    archives = load_demo_archives(portal_url="http://127.0.0.1:8000")
    servers = []

    def start(name: str) -> ArchiveHTTPServer:
        archive = archives[name]
        server = ArchiveHTTPServer(archive.service, malformed=archive.behaviour.malformed)
        server.handle_error = lambda request, client_address: None  # a client that gave up is expected
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def serve_http():
    """``serve_http(HANDLER)`` serves an ``http.server`` handler class on a loopback port and
    returns its ``127.0.0.1:PORT`` (``tests.servers.serving``); every server is stopped after the test."""
    with ExitStack() as servers:
        yield lambda handler: servers.enter_context(serving(handler))


@pytest.fixture(params=[HttpTransport, CurlTransport], ids=["requests", "libcurl"])
def transport_class(request):
    """Both HTTP clients of the portal, each held to the same proofs: ``HttpTransport``
    (requests: the one-off exchanges) and ``CurlTransport`` (libcurl: the resolver's fan-out)."""
    return request.param


@pytest.fixture
def make_transport(transport_class):
    """``make_transport(**options)``: a ``transport_class`` transport, closed after the test."""
    made = []

    def make(**options):
        made.append(transport_class(**options))
        return made[-1]

    yield make
    for transport in made:
        transport.close()


@pytest.fixture(scope="session")
def archive_certificate(tmp_path_factory) -> tuple[str, str]:
    """A self-signed certificate and its key for ``archive.test`` (one per session: openssl)."""
    return tls_files(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def make_trusting_transport(make_transport, transport_class, archive_certificate, monkeypatch):
    """``make_trusting_transport(**options)``: a ``transport_class`` transport whose only trusted
    CA is ``archive_certificate`` (libcurl: ``ca_file``; requests: its default bundle)."""
    cert, _ = archive_certificate

    def make(**options):
        if transport_class is CurlTransport:
            return make_transport(ca_file=cert, **options)
        monkeypatch.setattr(requests.adapters, "DEFAULT_CA_BUNDLE_PATH", cert)
        return make_transport(**options)

    return make


@pytest.fixture
def scripted_archive():
    """``scripted_archive(ANSWER)`` runs a :class:`~tests.scripted_archive.ScriptedArchive` on a
    loopback port (``ANSWER(request)`` is its answer to each request); stopped after the test."""
    archives = []

    def start(answer) -> ScriptedArchive:
        archives.append(ScriptedArchive(answer))
        return archives[-1]

    yield start
    for archive in archives:
        archive.close()


@pytest.fixture
def loopback_fan_out(monkeypatch):
    """The resolver of every app in the test reaches Archives on loopback (a scripted Archive),
    while the app's other exchanges keep its address policy: for tests of that policy on what
    such an Archive answers (a record URL, a redirect), with IBIPORTAL_ALLOW_PRIVATE_ARCHIVES off."""
    transport = CurlTransport(allow_private=True)
    monkeypatch.setattr(Application, "fan_out_transport", property(lambda self: transport))
    yield transport
    transport.close()


@pytest.fixture
def readings(monkeypatch) -> list[str]:
    """The texts an extraction gave the recogniser, in order: how far it read."""
    read: list[str] = []
    real = extract_module.classify

    def counting(text, *args, **kwargs):
        read.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(extract_module, "classify", counting)
    return read


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    """Playwright's driver, once per worker: a second ``sync_playwright()`` in the same thread
    while one runs fails ("Sync API inside the asyncio loop"), so every module that drives a
    browser (tests/browser, tests/security) launches it from this one."""
    with sync_playwright() as playwright:
        yield playwright


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of ``SLOW_FIRST`` first, in its order; every file's tests keep theirs."""
    rank = {path: number for number, path in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(SLOW_FIRST)))


def pytest_collection_finish(session: pytest.Session) -> None:  # noqa: ARG001 - pytest's hook
    """What the imports and the collection made lives for the whole session: frozen, the
    collector's full passes, which a test process makes many of as its thousands of apps come and
    go, no longer walk it (as ``app.py`` does for a worker; docs/test-time.md)."""
    gc.freeze()


def pytest_unconfigure(config: pytest.Config) -> None:  # noqa: ARG001 - pytest's hook
    """The process ends: its exit does not walk its heap once more (1.6 s of CPU a worker)."""
    gc.freeze()
