"""API tokens: made, listed and revoked by the CLI, only their hash stored, and checked in one
place (``ibiportal.web.api.tokens``) before any write."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select, update

from ibiportal import create_app
from ibiportal.storage.database import Storage, iso
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.storage.schema import api_token
from ibiportal.storage.tokens import USE_NOTED_EVERY, token_hash
from tests.admin_session import log_in_as


def create_token(runner, name: str = "harvester") -> str:
    result = runner.invoke(args=["api-token", "create", name])
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]


@pytest.fixture
def closed_app(new_database):
    """An app whose minting needs a token (IBIPORTAL_MINT_REQUIRES_TOKEN on)."""
    return create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test",
                       "WTF_CSRF_ENABLED": False, "MINT_REQUIRES_TOKEN": True})


def test_create_prints_the_token_last_and_stores_only_its_hash(app, runner):
    token = create_token(runner)
    assert len(token) >= 43 and " " not in token
    storage = Storage(app.config["DATABASE"])
    rows = storage.connection.execute(select(api_token)).all()
    storage.close()
    assert [(row.name, row.token_hash) for row in rows] == [("harvester", token_hash(token))]
    assert all(token not in str(value) for value in rows[0])


def test_two_tokens_are_never_alike_and_a_name_is_used_once(runner):
    assert create_token(runner, "a") != create_token(runner, "b")
    again = runner.invoke(args=["api-token", "create", "a"])
    assert again.exit_code == 1 and "exists already" in again.output


def test_a_bad_name_is_refused(runner):
    result = runner.invoke(args=["api-token", "create", "two words"])
    assert result.exit_code == 2 and "NAME" in result.output


def test_list_shows_names_and_use_never_the_token(closed_app):
    runner, client = closed_app.test_cli_runner(), closed_app.test_client()
    assert "No API tokens" in runner.invoke(args=["api-token", "list"]).output
    token = create_token(runner)
    create_token(runner, "other")
    listing = runner.invoke(args=["api-token", "list"]).output
    assert token not in listing
    lines = listing.splitlines()
    assert lines[1].startswith("harvester") and lines[1].endswith("never")
    client.post("/api/v1/mint", json={}, headers={"Authorization": f"Bearer {token}"})
    used = runner.invoke(args=["api-token", "list"]).output.splitlines()[1]
    assert not used.endswith("never")


def last_used(app, name: str) -> str | None:
    storage = Storage(app.config["DATABASE"])
    try:
        return storage.read(select(api_token.c.last_used_at).where(api_token.c.name == name)).scalar_one()
    finally:
        storage.close()


def test_a_tokens_use_is_noted_at_most_once_a_minute(closed_app):
    """Not a write per request: the use is noted again only when the last noted is a minute old."""
    runner, client = closed_app.test_cli_runner(), closed_app.test_client()
    token = create_token(runner)
    headers = {"Authorization": f"Bearer {token}"}
    assert client.post("/api/v1/mint", json={}, headers=headers).status_code == 201
    first = last_used(closed_app, "harvester")
    assert first is not None
    for _ in range(3):
        assert client.post("/api/v1/mint", json={}, headers=headers).status_code == 201
    assert last_used(closed_app, "harvester") == first
    earlier = iso(datetime.now(timezone.utc) - USE_NOTED_EVERY - timedelta(seconds=1))
    storage = Storage(closed_app.config["DATABASE"])
    with storage.write_transaction() as conn:
        conn.execute(update(api_token).where(api_token.c.name == "harvester").values(last_used_at=earlier))
    storage.close()
    assert client.post("/api/v1/mint", json={}, headers=headers).status_code == 201
    assert last_used(closed_app, "harvester") > first


def test_minting_is_open_by_default(client):
    assert client.post("/api/v1/mint", json={}).status_code == 201


def test_closed_minting_needs_a_token_and_changes_nothing_without_one(closed_app):
    runner, client = closed_app.test_cli_runner(), closed_app.test_client()
    token = create_token(runner)
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {token}"},
                    {"Authorization": "Bearer"}):
        response = client.post("/api/v1/mint", json={"title": "x"}, headers=headers)
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        error = response.get_json()["error"]
        assert error["field"] == "Authorization" and "api-token create" in error["message"]
    storage = Storage(closed_app.config["DATABASE"])
    assert IdentifierStore(storage).minted_items() == []
    storage.close()
    minted = client.post("/api/v1/mint", json={"title": "x"}, headers={"Authorization": f"bearer {token}"})
    assert minted.status_code == 201 and minted.get_json()["ibip"]


def test_a_revoked_token_is_refused(closed_app):
    runner, client = closed_app.test_cli_runner(), closed_app.test_client()
    token = create_token(runner)
    revoked = runner.invoke(args=["api-token", "revoke", "harvester"])
    assert revoked.exit_code == 0 and "revoked" in revoked.output
    assert client.post("/api/v1/mint", json={}, headers={"Authorization": f"Bearer {token}"}).status_code == 401
    again = runner.invoke(args=["api-token", "revoke", "harvester"])
    assert again.exit_code == 1 and "no API token named" in again.output


def test_closed_minting_closes_the_mint_page_to_anyone_not_logged_in(closed_app):
    client = closed_app.test_client()
    response = client.post("/mint", data={"title": "x"})
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    log_in_as(client, "root")
    assert client.get("/mint").status_code == 200
