"""Every write of the JSON API is refused without a valid token (security issue 39), over real
sockets. The routes are read from the app's own ``url_map``: every method but GET under
``/api/v1/`` is either a write, which must answer 401 without a token, with a wrong, revoked or
misspelt one, and change nothing, or one of the few named computations that take a body only
because a query string could not hold it. A route added later is in one list or the other, or
this test fails naming it."""
from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from flask import Flask

from ibiportal import create_app
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from tests.servers import fresh_sqlite, loopback_server

#: Routes that answer from their body and change nothing an API token guards: each is open to
#: anyone, as the page doing the same is (batch conversion, reading references, a trace).
COMPUTATIONS = {("POST", "/api/v1/convert/batch"), ("POST", "/api/v1/extract"), ("POST", "/api/v1/trace")}
PDF = b"%PDF-1.4\n" + b"x" * 100


@dataclass
class Portal:
    url: str
    app: Flask
    token: str


@pytest.fixture(scope="module")
def portal(tmp_path_factory) -> Iterator[Portal]:
    """The portal on a loopback port, minting closed to the public (IBIPORTAL_MINT_REQUIRES_TOKEN),
    with a valid token, and a revoked one."""
    app = create_app({"DATABASE": fresh_sqlite(tmp_path_factory.mktemp("tokens") / "portal.sqlite"),
                      "SECRET_KEY": "test", "MINT_REQUIRES_TOKEN": True, "RATELIMIT_ENABLED": False})
    runner = app.test_cli_runner()
    token = runner.invoke(args=["api-token", "create", "writer"]).output.strip().splitlines()[-1]
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield Portal(f"http://127.0.0.1:{server.server_port}", app, token)
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def revoked_token(portal) -> str:
    runner = portal.app.test_cli_runner()
    token = runner.invoke(args=["api-token", "create", "gone"]).output.strip().splitlines()[-1]
    assert runner.invoke(args=["api-token", "revoke", "gone"]).exit_code == 0
    return token


def api_writes(app: Flask) -> list[tuple[str, str]]:
    """(method, rule) of every route under /api/v1/ that is not a GET and not a computation."""
    routes = {(method, rule.rule) for rule in app.url_map.iter_rules() if rule.rule.startswith("/api/v1/")
              for method in rule.methods - {"GET", "HEAD", "OPTIONS"}}
    assert COMPUTATIONS <= routes, "a computation named here is no longer a route: update COMPUTATIONS"
    return sorted(routes - COMPUTATIONS)


WRITES = api_writes(create_app({"DATABASE": fresh_sqlite(Path(tempfile.mkdtemp()) / "routes.sqlite"),
                                 "SECRET_KEY": "routes only", "TESTING": True}))


def test_the_writes_are_the_ones_known_today():
    """Not the proof itself (that is below, for every route found): a reminder, when a write is
    added, that it is a write and is now proven to need a token."""
    assert {rule for _, rule in WRITES} >= {"/api/v1/mint", "/api/v1/items/<item:ibi>",
                                            "/api/v1/items/<item:ibi>/files/<path:path>",
                                            "/api/v1/copies", "/api/v1/copies/<path:ibi>"}


def bodies(rule: str) -> dict:
    """What a client would send to each write: the refusal must come before any reading of it."""
    if rule.endswith("/files/<path:path>"):
        return {"data": PDF, "headers": {"Content-Type": "application/pdf"}}
    return {"json": {"title": "changed", "ibi": "8JMKD3MGP8W/34PGRBS", "target_url": "http://a.example/x"}}


def state(portal: Portal, ibi: str) -> tuple:
    """What a write could change: the item, its files, the copies held and the items minted."""
    item = requests.get(f"{portal.url}/api/v1/items/{ibi}").json()
    files = requests.get(f"{portal.url}/api/v1/items/{ibi}/files").json()
    copies = requests.get(f"{portal.url}/api/v1/copies").json()
    return item, files, copies, minted_count(portal)


@pytest.mark.parametrize(("method", "rule"), WRITES, ids=[f"{method} {rule}" for method, rule in WRITES])
def test_a_write_without_a_valid_token_is_a_401_and_changes_nothing(portal, revoked_token, method, rule):
    valid = {"Authorization": f"Bearer {portal.token}"}
    item = requests.post(f"{portal.url}/api/v1/mint", json={"title": "kept"}, headers=valid).json()
    put = requests.put(f"{portal.url}/api/v1/items/{item['ibip']}/files/a.pdf", data=PDF,
                       headers={**valid, "Content-Type": "application/pdf"})
    assert put.status_code == 201
    url = portal.url + rule.replace("<item:ibi>", item["ibip"]).replace("<path:ibi>", item["ibip"]) \
        .replace("<path:path>", "a.pdf")
    before = state(portal, item["ibip"])
    body = bodies(rule)
    for authorization in (None, "Bearer wrong", f"Bearer {revoked_token}", f"Basic {portal.token}",
                          f"Token {portal.token}", "Bearer", f"Bearer {portal.token}x", f"Bearer {portal.token[:-1]}"):
        headers = {**body.get("headers", {}), **({"Authorization": authorization} if authorization else {})}
        answer = requests.request(method, url, **{**body, "headers": headers})
        assert answer.status_code == 401, (authorization, answer.text)
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")
        assert answer.json()["error"]["field"] == "Authorization"
    assert state(portal, item["ibip"]) == before
    allowed = requests.request(method, url, **{**body, "headers": {**body.get("headers", {}), **valid}})
    assert allowed.status_code != 401  # the route was reached: the 401s above were the token's


def minted_count(portal: Portal) -> int:
    storage = Storage(portal.app.config["DATABASE"])
    try:
        return len(IdentifierStore(storage).minted_items())
    finally:
        storage.close()
