"""``POST /api/v1/items/<ibi>/release`` (issue 34 point 5): the item moves to a successor Archive
with no gap. The successor is mocked with ``responses``, except in the last test, where it is a
second portal on a loopback socket and the first portal's resolver follows the item there."""
from __future__ import annotations

import threading
from decimal import Decimal
from urllib.parse import urlsplit

import pytest
import responses

from ibiportal import create_app
from ibiportal.ibi.minted import MintedItem
from ibiportal.protocol.messages import UrlRequest, request_url
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from tests.admin_session import log_in_as
from tests.servers import include_archive, loopback_server

OWN_SERVICE_IBI = "32G4GKPW/4GR3P92"  # the portal's default
SUCCESSOR_IBI = "8JMKD3MGPCW/3ER446E"
SUCCESSOR_BASE = f"http://150.163.34.243:8080/{SUCCESSOR_IBI}"  # an IP: no DNS in tests
CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


def mint(client, **fields) -> dict:
    response = client.post("/api/v1/mint", json=fields)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def own_answer(client, ibi: str) -> str:
    """What the portal's own Archive answers a resolver's urlRequest for ``ibi``."""
    url = request_url("localhost", OWN_SERVICE_IBI, UrlRequest(client_ips=("150.163.34.1",), ibi=ibi))
    parts = urlsplit(url)
    return client.get(f"{parts.path}?{parts.query}").get_data(as_text=True)


def successor_holds(item: dict, state: str = "Original", url: str = "https://successor.example/moved") -> None:
    responses.get(SUCCESSOR_BASE, content_type="text/plain",
                  body=f"ibi {{rep {item['rep']} ibip {item['ibip']}}}\r\nstate {state}\r\nurl {url}\r\n")


@responses.activate
def test_a_release_needs_a_token_and_changes_nothing_without_one(client):
    item = mint(client, target_url="https://example.org/here")
    successor_holds(item)
    for headers in ({}, {"Authorization": "Bearer nope"}):
        refused = client.post(f"/api/v1/items/{item['ibip']}/release", json={"successor": SUCCESSOR_BASE},
                              headers=headers)
        assert refused.status_code == 401 and refused.get_json()["error"]["field"] == "Authorization"
    assert len(responses.calls) == 0
    assert client.get(f"/api/v1/items/{item['ibip']}").get_json()["state"] == "Original"


@responses.activate
def test_a_released_item_is_answered_nothing_and_its_page_says_where_it_went(client, auth):
    item = mint(client, title="Relatório", target_url="https://example.org/here")
    successor_holds(item)
    assert client.get("/" + item["ibip"], environ_base=CLIENT).headers["Location"] == "https://example.org/here"

    released = client.post(f"/api/v1/items/{item['rep']}/release",
                           json={"successor": "150.163.34.243:8080", "successor_service_ibi": SUCCESSOR_IBI},
                           headers=auth)

    body = released.get_json()
    assert released.status_code == 200, body
    assert (body["state"], body["successor"], body["url"]) == ("Released", SUCCESSOR_BASE, None) and body["released_at"]
    assert own_answer(client, item["ibip"]).strip() == ""
    # no Archive of this portal holds it now, and the cached redirect is gone
    assert client.get("/" + item["ibip"], environ_base=CLIENT).status_code == 404
    history = client.get(f"/api/v1/items/{item['ibip']}/history").get_json()["history"]
    assert (history[-1]["action"], history[-1]["details"]) == (
        "released", {"successor": SUCCESSOR_BASE, "url": "https://successor.example/moved"})
    page = client.get(f"/archive/items/{item['ibip']}").get_data(as_text=True)
    assert "moved on" in page and SUCCESSOR_BASE in page and "Released to another Archive" in page
    assert "https://successor.example/moved" in page
    log_in_as(client, "ada")
    listing = client.get("/admin/items/").get_data(as_text=True)
    assert '<span class="badge">Released</span>' in listing


@responses.activate
def test_a_successor_that_does_not_hold_the_item_is_409_in_the_readers_language(client, auth):
    item = mint(client, target_url="https://example.org/here")
    successor_holds(item, state="Copy")
    for language, words in (("en", "not Original"), ("pt-BR", "não Original")):
        refused = client.post(f"/api/v1/items/{item['ibip']}/release", json={"successor": SUCCESSOR_BASE},
                              headers={**auth, "Accept-Language": language})
        error = refused.get_json()["error"]
        assert refused.status_code == 409 and error["field"] == "successor" and words in error["message"], error
    assert client.get(f"/api/v1/items/{item['ibip']}").get_json()["state"] == "Original"
    assert "state Original" in own_answer(client, item["ibip"])
    assert [entry["action"] for entry in client.get(f"/api/v1/items/{item['ibip']}/history").get_json()["history"]] \
        == ["minted"]


@responses.activate
def test_unknown_deleted_and_released_items_and_bad_successors_are_refused(client, auth):
    assert client.post("/api/v1/items/8JMKD3MGP8W/34PGRBS/release", json={"successor": SUCCESSOR_BASE},
                       headers=auth).status_code == 404
    item = mint(client, target_url="https://example.org/here")
    for body, field in (({}, "successor"), ({"successor": 7}, "successor"),
                        ({"successor": "https://150.163.34.243/" + SUCCESSOR_IBI}, "successor"),
                        ({"successor": "150.163.34.243"}, "successor_service_ibi")):
        refused = client.post(f"/api/v1/items/{item['ibip']}/release", json=body, headers=auth)
        assert refused.status_code == 400 and refused.get_json()["error"]["field"] == field, refused.get_json()
    successor_holds(item)
    assert client.post(f"/api/v1/items/{item['ibip']}/release", json={"successor": SUCCESSOR_BASE},
                       headers=auth).status_code == 200
    again = client.post(f"/api/v1/items/{item['ibip']}/release", json={"successor": SUCCESSOR_BASE}, headers=auth)
    assert again.status_code == 410 and "released to the Archive at" in again.get_json()["error"]["message"]
    changed = client.patch(f"/api/v1/items/{item['ibip']}", json={"title": "New"}, headers=auth)
    assert changed.status_code == 410
    other = mint(client, target_url="https://example.org/other")
    assert client.delete(f"/api/v1/items/{other['ibip']}", headers=auth).status_code == 200
    gone = client.post(f"/api/v1/items/{other['ibip']}/release", json={"successor": SUCCESSOR_BASE}, headers=auth)
    assert gone.status_code == 410
    assert len(responses.calls) == 1


def test_the_cli_releases_and_refuses(app, client, runner):
    item = mint(client, target_url="https://example.org/here")
    with responses.RequestsMock() as mocked:
        mocked.get(SUCCESSOR_BASE, content_type="text/plain", body="")
        refused = runner.invoke(args=["items", "release", item["ibip"], "--successor", SUCCESSOR_BASE])
        assert refused.exit_code == 1 and "answered nothing" in refused.output and "Traceback" not in refused.output
        assert client.get(f"/api/v1/items/{item['ibip']}").get_json()["state"] == "Original"
        mocked.replace(responses.GET, SUCCESSOR_BASE, content_type="text/plain",
                       body=f"ibi {{rep {item['rep']} ibip {item['ibip']}}} state Original url https://successor.example/m")
        done = runner.invoke(args=["items", "release", item["ibip"], "--successor", "150.163.34.243:8080",
                                   "--service-ibi", SUCCESSOR_IBI])
        assert done.exit_code == 0, done.output
        assert SUCCESSOR_BASE in done.output and "https://successor.example/m" in done.output
    history = client.get(f"/api/v1/items/{item['ibip']}/history", headers={}).get_json()["history"]
    assert history[-1]["action"] == "released" and history[-1]["actor"]["kind"] == "command"
    bad = runner.invoke(args=["items", "release", item["ibip"], "--successor", "https://x.example/" + SUCCESSOR_IBI])
    assert bad.exit_code == 2 and "http://" in bad.output and "Traceback" not in bad.output


# -- over real sockets: the successor is a second portal ------------------------------------------

@pytest.fixture
def successor_portal(new_database):
    """A second portal on a loopback port, its own Archive at SUCCESSOR_IBI (minting as another
    server: no demo items, which the first portal mints too, at the same dates)."""
    app = create_app({"TESTING": True, "DATABASE": new_database("successor.sqlite"), "SECRET_KEY": "test",
                      "ARCHIVE_SERVICE_IBI": SUCCESSOR_IBI, "MINT_HOST": "successor.example", "MINT_IP": "192.0.2.2"})
    server = loopback_server(app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    app.address = f"127.0.0.1:{server.server_port}"
    yield app
    server.shutdown()


def test_over_loopback_the_resolver_follows_the_released_item_to_the_successor(new_database, successor_portal):
    portal = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test",
                         "ALLOW_PRIVATE_ARCHIVES": True})
    client = portal.test_client()
    token = portal.test_cli_runner().invoke(args=["api-token", "create", "tests"]).output.strip().splitlines()[-1]
    item = mint(client, title="Relatório", target_url="https://portal.example/here")

    # The successor holds the same IBI as its Original (an item cannot be minted twice: recorded as it is).
    storage = Storage(successor_portal.config["DATABASE"])
    with storage.write_transaction() as conn:
        IdentifierStore(storage).record_minted(conn, MintedItem(
            rep=item["rep"], ibip=item["ibip"], date=Decimal(1234806360), utc=item["utc"], subsystem="imported",
            title="Relatório", target_url="https://successor.example/moved"))
    storage.close()
    # ... and is an Archive included in the first portal's resolver.
    include_archive(portal.config["DATABASE"], SUCCESSOR_IBI, successor_portal.address)
    # Both hold it as Original: the own Archive's wins.
    assert client.get("/" + item["ibip"], environ_base=CLIENT).headers["Location"] == "https://portal.example/here"

    released = client.post(f"/api/v1/items/{item['ibip']}/release",
                           json={"successor": f"http://{successor_portal.address}/{SUCCESSOR_IBI}"},
                           headers={"Authorization": f"Bearer {token}"})

    assert released.status_code == 200, released.get_json()
    assert own_answer(client, item["ibip"]).strip() == ""
    for form in (item["ibip"], item["rep"]):
        moved = client.get("/" + form, environ_base=CLIENT)
        assert (moved.status_code, moved.headers["Location"]) == (302, "https://successor.example/moved")
