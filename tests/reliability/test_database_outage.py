"""PostgreSQL stopped and started again under a running portal: degraded, not broken.

Cached redirects keep being served (the changes last read stand for up to
IBIPORTAL_OUTAGE_STALE_SECONDS); everything that needs the database answers 503 with Retry-After
(IBIPORTAL_OUTAGE_RETRY_AFTER), as JSON or as a page that says what is happening; a restart
shorter than the pause before a read's one retry is not noticed; once the server is back the
portal recovers without a restart."""
from __future__ import annotations

import time

import pytest
from sqlalchemy import event

from ibiportal import create_app
from ibiportal.storage.database import database
from ibiportal.storage.outage import READ_RETRY_PAUSE_SECONDS
from tests.servers import PostgresServer


@pytest.fixture(scope="module")
def outage_server():
    """A PostgreSQL of this module's own (not the session's: it is stopped and started again),
    shared by its tests: each leaves it running (``resume`` in a ``finally``) and takes a fresh
    database of it, and one cluster's start (initdb, then the migrations) is a few seconds."""
    server = PostgresServer.start()
    yield server
    server.stop()


def _portal(database: str, **settings):
    return create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                       "RATELIMIT_ENABLED": False, **settings}).test_client()


def test_an_outage_serves_cached_redirects_answers_503_and_recovers(outage_server):
    database = outage_server.new_database()
    client = _portal(database, OUTAGE_RETRY_AFTER=7)
    no_stale = _portal(database, OUTAGE_STALE_SECONDS=0)  # another worker, configured to serve nothing stale
    seen = client.post("/api/v1/mint", json={"target_url": "https://example.org/seen"}).get_json()["ibip"]
    assert client.get("/" + seen).headers["Location"] == "https://example.org/seen"  # now cached
    assert no_stale.get("/" + seen).headers["Location"] == "https://example.org/seen"
    later = client.post("/api/v1/mint", json={"target_url": "https://example.org/later"}).get_json()["ibip"]

    outage_server.halt()
    try:
        during = [client.get("/" + seen) for _ in range(3)]  # the mint since changed the signal: no read answers
        assert {(r.status_code, r.headers["Location"]) for r in during} == {(302, "https://example.org/seen")}
        refused = no_stale.get("/" + seen)
        mint = client.post("/api/v1/mint", json={"title": "during the outage"})
        item = client.get("/api/v1/items/" + later)
        page = client.get("/archive/items/" + later, headers={"Accept": "text/html"})
    finally:
        outage_server.resume()
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
    for answer in (mint, item, page):
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "7"
    assert mint.get_json()["error"]["message"].endswith("Try again in 7 seconds.")
    assert "not answering at the moment" in mint.get_json()["error"]["message"]
    assert "Not available for a moment" in page.get_data(as_text=True)

    after = client.post("/api/v1/mint", json={"target_url": "https://example.org/after"})
    assert after.status_code == 201
    assert client.get("/" + later).headers["Location"] == "https://example.org/later"
    assert client.get("/" + after.get_json()["ibip"]).headers["Location"] == "https://example.org/after"


def test_a_request_that_meets_a_brief_restart_is_answered_after_one_retry(outage_server):
    """A read that finds the server down waits READ_RETRY_PAUSE_SECONDS and connects once more:
    here the restart ends as the first attempt fails (so before the pause does, however loaded
    the machine), and the request is answered instead of refused."""
    client = _portal(outage_server.new_database())
    ibip = client.post("/api/v1/mint", json={"target_url": "https://example.org/bridged"}).get_json()["ibip"]
    failures: list[str] = []

    def restart_ends(context) -> None:
        if context.is_pre_ping:  # the pooled connection found dead: the pool connects anew, and fails
            return
        failures.append(type(context.original_exception).__name__)
        if outage_server.process.poll() is not None:
            outage_server.resume()

    engine = database(client.application.config["DATABASE"]).engine
    event.listen(engine, "handle_error", restart_ends)
    outage_server.halt()
    started = time.monotonic()
    try:
        answer = client.get("/api/v1/items/" + ibip)
    finally:
        event.remove(engine, "handle_error", restart_ends)
        if outage_server.process.poll() is not None:
            outage_server.resume()
    assert failures, "the request never met the stopped server"
    assert answer.status_code == 200 and answer.get_json()["target_url"] == "https://example.org/bridged"
    assert time.monotonic() - started >= READ_RETRY_PAUSE_SECONDS  # it waited once before its retry
