"""``/healthz`` and ``/readyz`` for load balancers; rate limits shared through Redis by several
nodes, and open (logged) when Redis is down."""
from __future__ import annotations

import logging

from ibiportal import create_app
from ibiportal.storage.schema import SCHEMA_REVISION
from tests.servers import free_port


def make_app(database: str, **config):
    return create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "t", **config})


def test_healthz_says_the_process_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "checks": {"process": {"ok": True}}}


def test_readyz_checks_the_database_and_its_schema(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "checks": {
        "database": {"ok": True, "revision": SCHEMA_REVISION}, "redis": {"ok": True, "configured": False}}}


def test_readyz_with_redis(new_database, redis_server):
    response = make_app(new_database(), REDIS_URL=redis_server.url).test_client().get("/readyz")
    assert response.status_code == 200 and response.get_json()["checks"]["redis"] == {"ok": True, "configured": True}


def test_redis_down_leaves_the_node_ready_and_says_so(new_database):
    app = make_app(new_database(), REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    response = app.test_client().get("/readyz")
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "degraded" and body["checks"]["database"]["ok"]
    assert body["checks"]["redis"]["ok"] is False and "rate limits are counted per worker" in body["checks"]["redis"]["error"]


def test_resolution_and_minting_go_on_with_redis_down(new_database, caplog):
    client = make_app(new_database(), REDIS_URL=f"redis://127.0.0.1:{free_port()}/0").test_client()
    first = client.post("/api/v1/mint", json={"target_url": "https://example.org/v1"}).get_json()
    assert client.get(f"/{first['ibip']}!").headers["Location"] == "https://example.org/v1"
    second = client.post("/api/v1/mint", json={"target_url": "https://example.org/v2", "previous_edition": first["rep"]})
    assert second.status_code == 201
    # this node's own workers still learn of the change (its signal file): the new edition at once
    assert client.get(f"/{first['ibip']}!").headers["Location"] == "https://example.org/v2"
    assert "Redis unreachable, other nodes learn of this node's changes late" in caplog.text


def test_readyz_says_when_the_database_is_unreachable(tmp_path):
    app = make_app(f"postgresql+psycopg://nobody@127.0.0.1:{free_port()}/none")
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    database = response.get_json()["checks"]["database"]
    assert database["ok"] is False and database["error"].startswith("unreachable:")


def test_the_api_limit_is_one_budget_across_nodes(new_database, redis_server):
    redis_server.flush()
    database = new_database()
    nodes = [make_app(database, REDIS_URL=redis_server.url, RATELIMIT_API="4/minute").test_client() for _ in range(2)]
    statuses = [nodes[number % 2].get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS").status_code for number in range(6)]
    assert statuses == [200, 200, 200, 200, 429, 429]


def test_limits_are_counted_per_worker_with_one_warning_when_redis_is_down(new_database, caplog):
    """A Redis outage must not open the portal to floods nor fill the log with tracebacks: the
    limits are counted in this worker's memory until Redis answers again, said once, as a warning."""
    client = make_app(new_database(), REDIS_URL=f"redis://127.0.0.1:{free_port()}/0", RATELIMIT_API="1/minute").test_client()
    with caplog.at_level(logging.INFO, logger="flask-limiter"):
        statuses = [client.get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS").status_code for _ in range(3)]
    assert statuses == [200, 429, 429]
    records = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert [(record.levelname, record.getMessage()) for record in records] == [
        ("WARNING", "Rate limit storage unreachable - falling back to in-memory storage")]
    assert all(record.exc_info is None for record in caplog.records)
