"""CSRF (security issue 39): every request of the site's pages that is not a GET needs the page's
CSRF token, even from a logged-in administrator. The routes are read from the app's ``url_map``
(all but the JSON API, which takes no cookie-based session and needs an API token for its writes,
``test_api_writes_need_a_token``): a route added later is proven here as soon as it exists."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from ibiportal import create_app
from tests.admin_session import log_in_as
from tests.servers import fresh_sqlite

SERVICE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"


#: POST routes that change nothing, for programs rather than forms: OAI-PMH lets a harvester send
#: its request as a POST form (OAI-PMH 2.0 §3.1.1.2), which only reads.
READS_BY_POST = {("POST", "/oai")}


def page_writes(app) -> list[tuple[str, str]]:
    """(method, rule) of every route of the pages that is not a GET, nor a read sent by POST."""
    return sorted({(method, rule.rule) for rule in app.url_map.iter_rules() if not rule.rule.startswith("/api/v1/")
                   for method in rule.methods - {"GET", "HEAD", "OPTIONS"}} - READS_BY_POST)


WRITES = page_writes(create_app({"DATABASE": fresh_sqlite(Path(tempfile.mkdtemp()) / "routes.sqlite"),
                                 "SECRET_KEY": "routes only", "TESTING": True}))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The portal, CSRF on, an item minted and an Archive registered, for an administrator."""
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path_factory.mktemp("csrf") / "portal.sqlite"),
                      "SECRET_KEY": "test", "RATELIMIT_ENABLED": False})
    registered = app.test_cli_runner().invoke(args=["archives", "register", SERVICE_IBI, "--key", "1234567890"])
    assert registered.exit_code == 0, registered.output
    client = app.test_client()
    app.item = client.post("/api/v1/mint", json={"title": "kept"}).get_json()
    app.item_state = client.get(f"/api/v1/items/{app.item['ibip']}").get_json()["state"]
    return app


def test_the_page_writes_include_the_administrators():
    assert ("POST", "/admin/logout") in WRITES and ("PUT", "/admin/items/<path:ibi>/files/<path:path>") in WRITES
    assert ("POST", "/admin/login") in WRITES and ("POST", "/mint") in WRITES


@pytest.mark.parametrize(("method", "rule"), WRITES, ids=[f"{method} {rule}" for method, rule in WRITES])
def test_a_write_without_the_csrf_token_is_refused_even_for_an_administrator(site, method, rule):
    client = log_in_as(site.test_client(), "ada")
    path = re.sub(r"<[^>]*\bservice_ibi>", SERVICE_IBI, rule)
    path = path.replace("<path:ibi>", site.item["ibip"]).replace("<path:path>", "a.pdf").replace("<run_id>", "a-run")
    path = re.sub(r"<any\(([a-z]+)[^>]*\):extension>", r"\1", path)
    assert "<" not in path, f"a route this test cannot fill in: {rule}"
    answer = client.open(path, method=method, data={"title": "x", "identifiers": "x", "text": "x", "url": "x",
                                                    "username": "ada", "password": "x" * 12})
    assert answer.status_code == 400, answer.get_data(as_text=True)[:300]
    assert re.search(r"CSRF|security token", answer.get_data(as_text=True))
    assert client.get("/admin/archives").status_code == 200  # still logged in: the logout was refused too
    item = client.get(f"/api/v1/items/{site.item['ibip']}").get_json()
    assert item["state"] == site.item_state and item["metadata"]["title"] == "kept" and item["files"] == []
