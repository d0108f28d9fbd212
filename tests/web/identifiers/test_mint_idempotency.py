"""Idempotency-Key on POST /api/v1/mint and the Mint page's key per form: a lost answer costs a
retry, never an orphan identifier."""
from __future__ import annotations

import re

import pytest

from ibiportal import create_app
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from tests.web.api.test_api_tokens import create_token


def minted_count(app) -> int:
    storage = Storage(app.config["DATABASE"])
    try:
        return len(IdentifierStore(storage).minted_items())
    finally:
        storage.close()


def test_a_repeated_key_answers_the_same_item(app, client):
    key = {"Idempotency-Key": "5f0c6a8e-4a8b-4df5-9a53-6c1b0d7c1e11"}
    first = client.post("/api/v1/mint", json={"title": "Once"}, headers=key)
    again = client.post("/api/v1/mint", json={"title": "Once"}, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()
    assert "Idempotent-Replayed" not in first.headers and again.headers["Idempotent-Replayed"] == "true"
    assert minted_count(app) == 1


def test_a_repeated_key_with_a_count_answers_the_same_list(app, client):
    key = {"Idempotency-Key": "batch-7"}
    first = client.post("/api/v1/mint", json={"count": 3, "title": "Three"}, headers=key).get_json()
    again = client.post("/api/v1/mint", json={"title": "Three", "count": 3}, headers=key).get_json()
    assert [item["ibip"] for item in again] == [item["ibip"] for item in first] and len(first) == 3
    assert minted_count(app) == 3


def test_the_same_key_with_another_body_is_a_422_and_mints_nothing(app, client):
    key = {"Idempotency-Key": "k"}
    client.post("/api/v1/mint", json={"title": "One"}, headers=key)
    refused = client.post("/api/v1/mint", json={"title": "Two"}, headers=key)
    assert refused.status_code == 422
    assert refused.get_json()["error"]["field"] == "Idempotency-Key"
    assert "used with another request" in refused.get_json()["error"]["message"]
    assert minted_count(app) == 1


@pytest.mark.parametrize(("key", "position"), [("a b", 2), ("x" * 256, 256), ("", 1)])
def test_a_malformed_key_is_a_400_naming_the_header(client, key, position):
    refused = client.post("/api/v1/mint", json={}, headers={"Idempotency-Key": key})
    assert refused.status_code == 400
    assert refused.get_json()["error"]["field"] == "Idempotency-Key"
    assert refused.get_json()["error"]["position"] == position


def test_keys_belong_to_their_client_or_token(new_database, runner):
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                      "MINT_REQUIRES_TOKEN": True})
    runner = app.test_cli_runner()
    tokens = [create_token(runner, "one"), create_token(runner, "two")]
    client = app.test_client()
    answers = [client.post("/api/v1/mint", json={}, headers={"Idempotency-Key": "same",
                                                            "Authorization": f"Bearer {token}"}).get_json()
               for token in tokens + tokens]
    assert answers[0] == answers[2] and answers[1] == answers[3] and answers[0] != answers[1]
    open_app = create_app({"TESTING": True, "DATABASE": new_database("open.sqlite"), "SECRET_KEY": "test"})
    by_address = [open_app.test_client().post("/api/v1/mint", json={}, headers={"Idempotency-Key": "same"},
                                              environ_base={"REMOTE_ADDR": address}).get_json()["ibip"]
                  for address in ("192.0.2.1", "192.0.2.2", "192.0.2.1")]
    assert by_address[0] == by_address[2] != by_address[1]


def test_the_mint_form_carries_its_own_key_and_a_second_press_shows_the_first_items(app, client):
    page = client.get("/mint").get_data(as_text=True)
    key = re.search(r'name="idempotency_key" type="hidden" value="([0-9a-f]{32})"', page).group(1)
    assert key not in client.get("/mint").get_data(as_text=True)  # each form its own
    form = {"title": "Pressed twice", "count": "2", "idempotency_key": key}
    first = client.post("/mint", data=form)
    second = client.post("/mint", data=form)
    assert first.status_code == second.status_code == 303
    shown = [re.findall(r"/mint/qr\.svg\?url=[^\"]+", client.get(answer.headers["Location"]).get_data(as_text=True))
             for answer in (first, second)]
    assert shown[0] and shown[0] == shown[1]
    assert minted_count(app) == 2
    changed = client.post("/mint", data={**form, "title": "Changed"})
    text = changed.get_data(as_text=True)
    assert changed.status_code == 400 and "This form was used already with other values" in text
    assert f'value="{key}"' not in text and minted_count(app) == 2
