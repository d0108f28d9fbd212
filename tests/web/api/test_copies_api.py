"""``/api/v1/copies``: the own Archive holds a copy of another Archive's item (state Copy), is
asked about it in either form, and stops answering for it when the copy ends."""
from __future__ import annotations

import pytest

from ibiportal.protocol.pairlist import parse_pair_list

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}
#: An IBI no demo Archive holds, whose prefixes the standard pairs (file 003: mtc-m18 = 8JMKD3MGP8W).
OTHER = "8JMKD3MGP8W/34PGRBS"
OTHER_REP = "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"  # the spelling in use on its date (before August 2010)


def ask_own_archive(client, app, ibi: str):
    service = "/" + app.config["ARCHIVE_SERVICE_IBI"]
    answer = client.get(f"{service}?servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4&parsedibiurl.ibi={ibi}")
    return parse_pair_list(answer.data)


def test_holding_a_copy_needs_a_token(client, app):
    response = client.post("/api/v1/copies", json={"ibi": OTHER, "target_url": "https://mirror.example/x"})
    assert response.status_code == 401
    assert client.get("/api/v1/copies").get_json() == []
    assert not ask_own_archive(client, app, OTHER)


def test_a_copy_is_answered_as_copy_in_either_form_and_resolved(client, app, auth):
    response = client.post("/api/v1/copies", json={"ibi": OTHER, "target_url": "https://mirror.example/x"}, headers=auth)
    assert response.status_code == 201
    body = response.get_json()
    assert (body["ibi"], body["rep"], body["ibip"], body["state"]) == (OTHER, OTHER_REP, OTHER, "Copy")
    for form in (OTHER, OTHER_REP):
        pairs = ask_own_archive(client, app, form)
        assert pairs.get("state") == "Copy" and pairs.text("url") == "https://mirror.example/x"
        assert parse_pair_list(pairs.get("ibi")).get("ibip") == OTHER
        assert pairs.get("url.lastedition") is None  # a copy does not know the original's editions
    assert client.get("/" + OTHER_REP, environ_base=CLIENT).headers["Location"] == "https://mirror.example/x"
    assert client.get("/api/v1/copies").get_json()[0]["target_url"] == "https://mirror.example/x"


def test_a_copy_moved_and_ended_is_resolved_at_once(client, app, auth):
    client.post("/api/v1/copies", json={"ibi": OTHER, "target_url": "https://mirror.example/x"}, headers=auth)
    assert client.get("/" + OTHER, environ_base=CLIENT).headers["Location"] == "https://mirror.example/x"  # cached
    moved = client.post("/api/v1/copies", json={"ibi": OTHER_REP, "target_url": "https://mirror.example/y"}, headers=auth)
    assert moved.status_code == 200 and len(client.get("/api/v1/copies").get_json()) == 1
    assert client.get("/" + OTHER, environ_base=CLIENT).headers["Location"] == "https://mirror.example/y"
    ended = client.delete(f"/api/v1/copies/{OTHER_REP}", headers=auth)
    assert ended.status_code == 200 and ended.get_json()["target_url"] == "https://mirror.example/y"
    assert client.get("/" + OTHER, environ_base=CLIENT).status_code == 404
    assert not ask_own_archive(client, app, OTHER)
    again = client.delete(f"/api/v1/copies/{OTHER}", headers=auth)
    assert again.status_code == 404 and "holds no copy" in again.get_json()["error"]["message"]


@pytest.mark.parametrize(("body", "status", "field"), [
    ({"target_url": "https://mirror.example/x"}, 400, "ibi"),
    ({"ibi": "nonsense", "target_url": "https://mirror.example/x"}, 400, "ibi"),
    ({"ibi": OTHER}, 400, "target_url"),
    ({"ibi": OTHER, "target_url": "javascript:alert(1)"}, 400, "target_url"),
])
def test_bad_copies_are_refused_naming_the_field(client, auth, body, status, field):
    response = client.post("/api/v1/copies", json=body, headers=auth)
    assert response.status_code == status and response.get_json()["error"]["field"] == field
    assert client.get("/api/v1/copies").get_json() == []


def test_an_own_item_or_the_archive_service_ibi_cannot_be_a_copy(client, app, auth):
    own = client.post("/api/v1/mint", json={}).get_json()
    for ibi in (own["rep"], app.config["ARCHIVE_SERVICE_IBI"]):
        response = client.post("/api/v1/copies", json={"ibi": ibi, "target_url": "https://mirror.example/x"}, headers=auth)
        assert response.status_code == 409 and "own" in response.get_json()["error"]["message"]


def test_the_archive_service_ibi_answers_as_an_item(client, app):
    service_ibi = app.config["ARCHIVE_SERVICE_IBI"]
    pairs = ask_own_archive(client, app, service_ibi)
    assert pairs.get("state") == "Original" and pairs.text("url") == "http://localhost/"
    assert client.get("/" + service_ibi + "!", environ_base=CLIENT).headers["Location"] == "http://localhost/"


def test_a_copy_of_another_date_or_prefix_is_not_taken_for_it(client, app, auth):
    # Same date, other server: 8JMKD3MGP7W is mtc-m19, not mtc-m18 (file 003's pairs).
    client.post("/api/v1/copies", json={"ibi": "8JMKD3MGP7W/34PGRBS", "target_url": "https://mirror.example/m19"},
                headers=auth)
    assert not ask_own_archive(client, app, OTHER_REP)
    assert not ask_own_archive(client, app, OTHER)
    assert ask_own_archive(client, app, "sid.inpe.br/mtc-m19/2009/02.16.17.46").get("state") == "Copy"
