"""An own item's history (issue: "nothing records who changed what"): every change recorded with
its time (UTC) and who made it, in the change's own transaction; read through
``GET /api/v1/items/<ibi>/history`` and on the item's pages; never edited or removed."""
from __future__ import annotations

import json
import re

import pytest

from ibiportal.storage.database import Storage
from tests.admin_session import log_in_as
from ibiportal.storage.schema import item_history
from sqlalchemy import func, select

PDF = b"%PDF-1.4\n" + b"x" * 100


def mint(client, auth, **fields) -> dict:
    response = client.post("/api/v1/mint", json=fields, headers=auth)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def history(client, ibi: str, headers: dict | None = None) -> list[dict]:
    response = client.get(f"/api/v1/items/{ibi}/history", headers=headers or {})
    assert response.status_code == 200, response.get_json()
    return response.get_json()["history"]


def rows(app) -> int:
    storage = Storage(app.config["DATABASE"])
    try:
        return storage.read(select(func.count()).select_from(item_history)).scalar_one()
    finally:
        storage.close()


def test_every_change_is_recorded_with_who_and_what(client, auth, api_token, app):
    item = mint(client, auth, title="Relatório", target_url="https://example.org/a")
    changed = client.patch(f"/api/v1/items/{item['rep']}", json={"title": "Relatório final", "creators": ["Banon, G."]},
                           headers=auth)
    assert changed.status_code == 200
    for body in (PDF, PDF + b"2"):  # added, then replaced
        assert client.put(f"/api/v1/items/{item['ibip']}/files/docs/relatório.pdf", data=body,
                          headers={**auth, "Content-Type": "application/pdf"}).status_code in (200, 201)
    assert client.delete(f"/api/v1/items/{item['ibip']}/files/docs/relatório.pdf", headers=auth).status_code == 204
    translation = mint(client, auth, title="Report", language="en", translation_of=item["ibip"])
    assert client.delete(f"/api/v1/items/{item['ibip']}", headers=auth).status_code == 200

    entries = history(client, item["rep"], auth)
    assert [entry["action"] for entry in entries] == [
        "minted", "edited", "file added", "file replaced", "file removed", "linked", "deleted"]
    assert {(entry["actor"]["kind"], entry["actor"]["name"]) for entry in entries} == {("token", "tests")}
    assert entries[0]["details"] == {"rep": item["rep"], "ibip": item["ibip"]}
    assert entries[1]["details"]["changes"] == [
        {"field": "title", "old": "Relatório", "new": "Relatório final"},
        {"field": "creators", "old": [], "new": ["Banon, G."]},
    ]
    assert entries[2]["details"]["path"] == "docs/relatório.pdf" and entries[2]["details"]["size"] == len(PDF)
    assert entries[5]["details"] == {"relation": "translation", "language": "en", "item": translation["ibip"]}
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", entry["at"]) for entry in entries)
    assert [entry["at"] for entry in entries] == sorted(entry["at"] for entry in entries)
    assert history(client, translation["ibip"], auth)[0]["action"] == "minted"

    anonymous = history(client, item["ibip"])  # who, by kind only, to a reader without a token
    assert [entry["actor"] for entry in anonymous] == [{"kind": "token", "name": None}] * len(entries)
    assert api_token not in json.dumps(entries)  # the token's name, never the token
    storage = Storage(app.config["DATABASE"])
    try:
        kept = " ".join(str(value) for row in storage.read(select(item_history)) for value in row)
    finally:
        storage.close()
    assert api_token not in kept


def test_a_refused_change_records_nothing(client, auth, app):
    item = mint(client, auth, title="T")
    before = rows(app)
    assert client.patch(f"/api/v1/items/{item['ibip']}", json={"date": "2009-13"}, headers=auth).status_code == 400
    assert client.patch(f"/api/v1/items/{item['ibip']}", json={"title": "T"}, headers=auth).status_code == 200
    assert rows(app) == before  # a refusal, and a change to the same value, leave no entry


def test_an_anonymous_mint_and_an_edit_link_record_each_side(client, auth):
    original = client.post("/api/v1/mint", json={"title": "Original"}).get_json()
    second = mint(client, auth, title="Second")
    client.patch(f"/api/v1/items/{second['ibip']}", json={"previous_edition": original["rep"]}, headers=auth)
    client.patch(f"/api/v1/items/{second['ibip']}", json={"previous_edition": None}, headers=auth)
    assert [(e["action"], e["actor"]["kind"]) for e in history(client, original["ibip"])] == [
        ("minted", "anonymous"), ("linked", "token"), ("unlinked", "token")]
    edits = [e["details"]["changes"] for e in history(client, second["ibip"]) if e["action"] == "edited"]
    assert edits == [[{"field": "previous_edition", "old": None, "new": original["ibip"]}],
                     [{"field": "previous_edition", "old": original["ibip"], "new": None}]]


@pytest.mark.parametrize("method", ["put", "patch", "post", "delete"])
def test_history_is_never_changed_through_the_api(client, auth, method):
    item = mint(client, auth, title="T")
    answer = getattr(client, method)(f"/api/v1/items/{item['ibip']}/history", json={}, headers=auth)
    assert answer.status_code == 405
    assert [entry["action"] for entry in history(client, item["ibip"])] == ["minted"]


def test_the_item_pages_show_the_history_in_the_readers_language(client, auth):
    item = mint(client, auth, title="Relatório")
    client.patch(f"/api/v1/items/{item['ibip']}", json={"title": "Relatório <b>final</b>"}, headers=auth)
    page = client.get(f"/archive/items/{item['ibip']}", headers={"Accept-Language": "pt-BR"}).get_data(as_text=True)
    assert "Histórico (UTC)" in page and "Editado" in page and "um token de API" in page
    assert "“Relatório” → “Relatório &lt;b&gt;final&lt;/b&gt;”" in page
    assert "<code>tests</code>" not in page  # named to administrators only
    english = client.get(f"/archive/items/{item['ibip']}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "History (UTC)" in english and "Minted" in english and "Edited" in english
    log_in_as(client, "ada")
    admin_page = client.get(f"/admin/items/{item['ibip']}").get_data(as_text=True)
    assert "History (UTC)" in admin_page and "<code>tests</code>" in admin_page


def test_an_administrators_edit_is_recorded_under_the_user_name(client, auth):
    item = mint(client, auth, title="T")
    log_in_as(client, "ada")
    edit = f"/admin/items/{item['ibip']}"
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', client.get(edit).get_data(as_text=True))
    fields = {"title": "New title", "csrf_token": token[1] if token else ""}
    assert client.post(edit, data=fields).status_code in (200, 302, 303)
    assert history(client, item["ibip"], auth)[-1] == {**history(client, item["ibip"], auth)[-1],
                                                       "action": "edited", "actor": {"kind": "administrator", "name": "ada"}}
