"""PostgreSQL stopped and started again under a running portal: degraded, not broken.

Cached redirects keep being served (the changes last read stand for up to STALE_SECONDS);
everything that needs the database answers 503 with Retry-After, as JSON or as a page that
says what is happening; once the server is back the portal recovers without a restart."""
from __future__ import annotations

import pytest

from ibiportal import create_app
from tests.servers import PostgresServer


@pytest.fixture
def outage_server():
    """A PostgreSQL of this test's own: it is stopped and started again."""
    server = PostgresServer.start()
    yield server
    server.stop()


def test_an_outage_serves_cached_redirects_answers_503_and_recovers(outage_server):
    app = create_app({"TESTING": True, "DATABASE": outage_server.new_database(), "SECRET_KEY": "test",
                      "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False})
    client = app.test_client()
    seen = client.post("/api/v1/mint", json={"target_url": "https://example.org/seen"}).get_json()["ibip"]
    assert client.get("/" + seen).headers["Location"] == "https://example.org/seen"  # now cached
    later = client.post("/api/v1/mint", json={"target_url": "https://example.org/later"}).get_json()["ibip"]

    outage_server.halt()
    try:
        during = [client.get("/" + seen) for _ in range(3)]  # the mint since changed the signal: no read answers
        assert {(r.status_code, r.headers["Location"]) for r in during} == {(302, "https://example.org/seen")}
        mint = client.post("/api/v1/mint", json={"title": "during the outage"})
        item = client.get("/api/v1/items/" + later)
        page = client.get("/archive/items/" + later, headers={"Accept": "text/html"})
    finally:
        outage_server.resume()
    for answer in (mint, item, page):
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
    assert "not answering at the moment" in mint.get_json()["error"]["message"]
    assert "Not available for a moment" in page.get_data(as_text=True)

    after = client.post("/api/v1/mint", json={"target_url": "https://example.org/after"})
    assert after.status_code == 201
    assert client.get("/" + later).headers["Location"] == "https://example.org/later"
    assert client.get("/" + after.get_json()["ibip"]).headers["Location"] == "https://example.org/after"
