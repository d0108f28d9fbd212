"""``GET /metrics`` (issue 37): each metric counts what happened, for the allowed addresses only,
in a text that prometheus-client's own parser reads; and under gunicorn, summed over its workers."""
from __future__ import annotations

import requests
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from ibiportal import create_app
from ibiportal.web.metrics import allowed
from ibiportal.config import networks
from tests.reliability.processes import start_gunicorn
from tests.web.resolve.test_resolution_cache import ITEM, SERVICE_IBI, USER, include, live  # noqa: F401  (fixture)

USER_ENVIRON = {"REMOTE_ADDR": "172.16.44.200"}
LOOPBACK = {"REMOTE_ADDR": "127.0.0.1"}


def value(name: str, **labels: str) -> float:
    """A sample of this process's registry (0 when it was never counted)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scraped(client, environ=LOOPBACK) -> dict[tuple[str, tuple], float]:
    """``/metrics`` read by prometheus-client's parser: every sample by name and labels."""
    response = client.get("/metrics", environ_base=environ)
    assert response.status_code == 200 and response.mimetype == "text/plain"
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.get_data(as_text=True)) for sample in family.samples}


def test_an_own_item_resolved_then_served_from_the_cache_is_counted_by_outcome_and_cache_state(client):
    item = client.post("/api/v1/mint", json={"target_url": "https://example.org/m"}).get_json()
    miss, hit = value("ibiportal_resolutions_total", outcome="found", cache="miss"), \
        value("ibiportal_resolutions_total", outcome="found", cache="hit")
    sent, notices = value("ibiportal_acknowledgments_total", outcome="sent"), \
        value("ibiportal_notices_total", outcome="notice")
    assert client.get("/" + item["ibip"], environ_base=USER_ENVIRON).headers["X-IBI-Cache"] == "miss"
    assert client.get("/" + item["ibip"], environ_base=USER_ENVIRON).headers["X-IBI-Cache"] == "hit"
    assert value("ibiportal_resolutions_total", outcome="found", cache="miss") == miss + 1
    assert value("ibiportal_resolutions_total", outcome="found", cache="hit") == hit + 1
    # the own Archive acknowledged twice (the resolution's and the hit's), each answered with the notice
    assert value("ibiportal_acknowledgments_total", outcome="sent") == sent + 2
    assert value("ibiportal_notices_total", outcome="notice") == notices + 2
    samples = scraped(client)
    assert samples[("ibiportal_resolutions_total", (("cache", "hit"), ("outcome", "found")))] == hit + 1


def test_a_not_found_is_counted_by_its_reason(client):
    before = value("ibiportal_resolutions_total", outcome="not-found", cache="miss")
    assert client.get("/8JMKD3MGP8W/34PGRBS", environ_base=USER_ENVIRON).status_code == 404
    assert value("ibiportal_resolutions_total", outcome="not-found", cache="miss") == before + 1


def test_a_mint_and_an_edit_are_counted_once_committed(client, api_token):
    minted, edited = value("ibiportal_item_changes_total", action="minted"), \
        value("ibiportal_item_changes_total", action="edited")
    item = client.post("/api/v1/mint", json={"target_url": "https://example.org/a"}).get_json()
    assert value("ibiportal_item_changes_total", action="minted") == minted + 1
    auth = {"Authorization": f"Bearer {api_token}"}
    assert client.patch(f"/api/v1/items/{item['ibip']}", json={"title": "B"}, headers=auth).status_code == 200
    refused = client.patch(f"/api/v1/items/{item['ibip']}", json={"previous_edition": item["ibip"]}, headers=auth)
    assert refused.status_code == 400  # rolled back: not an edit
    assert value("ibiportal_item_changes_total", action="edited") == edited + 1


def test_a_rate_limit_refusal_is_counted(new_database):
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "RATELIMIT_API": "1/minute"})
    client = app.test_client()
    before = value("ibiportal_rate_limit_refusals_total", limit="api")
    answers = [client.get("/api/v1/parse?url=/8JMKD3MGP8W/35MMLL8", environ_base=USER_ENVIRON).status_code
               for _ in range(3)]
    assert answers == [200, 429, 429]
    assert value("ibiportal_rate_limit_refusals_total", limit="api") == before + 2


def test_a_registered_archive_exchange_is_timed_and_its_failures_counted_by_kind(live):  # noqa: F811
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    timed = value("ibiportal_archive_exchange_seconds_count", archive=SERVICE_IBI)
    failed = value("ibiportal_archive_failures_total", archive=SERVICE_IBI, kind="http-error")
    assert client.get(f"/{ITEM}", environ_base=USER).status_code == 302
    assert value("ibiportal_archive_exchange_seconds_count", archive=SERVICE_IBI) == timed + 1
    archive.answer.failing = True
    assert client.get(f"/{ITEM}", environ_base={"REMOTE_ADDR": "172.16.44.201"}).status_code == 404  # only the own Archive answered
    assert value("ibiportal_archive_failures_total", archive=SERVICE_IBI, kind="http-error") == failed + 1
    assert value("ibiportal_archive_exchange_seconds_count", archive=SERVICE_IBI) == timed + 2


def test_only_the_allowed_addresses_read_the_metrics(new_database):
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test",
                      "METRICS_ALLOW": ["10.1.0.0/16", "::1"], "TRUSTED_PROXIES": ["127.0.0.1"]})
    client = app.test_client()
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "10.1.2.3"}).status_code == 200
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200
    for denied in ("10.2.0.1", "127.0.0.1", "2001:db8::1"):
        assert client.get("/metrics", environ_base={"REMOTE_ADDR": denied}).status_code == 404
    # behind a trusted proxy (nginx on loopback), the client it names is the one judged
    via_proxy = {"REMOTE_ADDR": "127.0.0.1"}
    assert client.get("/metrics", environ_base=via_proxy, headers={"X-Forwarded-For": "10.1.9.9"}).status_code == 200
    assert client.get("/metrics", environ_base=via_proxy, headers={"X-Forwarded-For": "192.0.2.7"}).status_code == 404
    # a client cannot name itself from an untrusted address
    forged = client.get("/metrics", environ_base={"REMOTE_ADDR": "192.0.2.7"}, headers={"X-Forwarded-For": "10.1.9.9"})
    assert forged.status_code == 404


def test_the_default_allows_loopback_only_and_metrics_off_is_404_for_everyone(new_database):
    client = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test"}).test_client()
    assert client.get("/metrics", environ_base=LOOPBACK).status_code == 200
    assert client.get("/metrics", environ_base=USER_ENVIRON).status_code == 404
    off = create_app({"TESTING": True, "DATABASE": new_database("off.sqlite"), "SECRET_KEY": "test", "METRICS": False})
    try:
        assert off.test_client().get("/metrics", environ_base=LOOPBACK).status_code == 404
    finally:
        create_app({"TESTING": True, "DATABASE": new_database("on.sqlite"), "SECRET_KEY": "test"})  # counting on again


def test_allowed_reads_addresses_and_networks():
    allow = networks(["127.0.0.0/8", "::1", "192.0.2.0/28"], "METRICS_ALLOW")
    assert allowed("127.9.9.9", allow) and allowed("::1", allow) and allowed("192.0.2.15", allow)
    assert allowed("::ffff:127.0.0.1", allow)  # IPv4 on a dual-stack socket
    assert not allowed("192.0.2.16", allow) and not allowed("::2", allow) and not allowed("unknown", allow)


def test_under_gunicorn_the_counts_of_both_workers_are_summed(tmp_path):
    from tests.servers import fresh_sqlite

    database = fresh_sqlite(tmp_path / "portal.sqlite")
    portal = start_gunicorn({"IBIPORTAL_DATABASE": str(database), "IBIPORTAL_WORKERS": "2",
                             "IBIPORTAL_SECRET_KEY": "test", "IBIPORTAL_SECURE_COOKIES": "0"})
    try:
        requests_sent = 40
        served_by = set()
        with requests.Session() as session:
            for _ in range(requests_sent):
                # a new connection each time, so that both workers take some
                answer = requests.get(portal.url + "/8JMKD3MGP8W/35MMLL8", allow_redirects=False, timeout=30,
                                      headers={"Connection": "close"})
                assert answer.status_code == 302
                served_by.add(answer.headers["X-Request-ID"].split("-")[0])  # each worker's own id prefix
            text = session.get(portal.url + "/metrics", timeout=30).text
        assert len(served_by) == 2, "one worker served every request: the sum is not shown"
        families = {family.name: family for family in text_string_to_metric_families(text)}
        resolved = sum(sample.value for sample in families["ibiportal_resolutions"].samples
                       if sample.name == "ibiportal_resolutions_total" and sample.labels["outcome"] == "found")
        assert resolved == requests_sent
    finally:
        portal.stop()


def test_a_database_that_does_not_answer_and_a_redis_that_is_down_are_counted(new_database, monkeypatch):
    import threading

    import redis

    from ibiportal import metrics
    from sqlalchemy.exc import OperationalError

    from ibiportal.storage.redis_flight import RedisFlight

    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test"})

    @app.get("/_test/outage")
    def outage():
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("the server is restarting"))

    before = value("ibiportal_store_unreachable_total", store="database")
    assert app.test_client().get("/_test/outage").status_code == 503
    assert value("ibiportal_store_unreachable_total", store="database") == before + 1
    down = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.5)  # nothing listens on port 1
    flight = RedisFlight(down, lock_seconds=1, wait_seconds=1, result_seconds=1, retry_seconds=5)
    # The counter is the process's: an earlier test's background thread may count its own Redis
    # meanwhile, so what this thread counted is told apart from it, then seen in the counter.
    counted_here, count, this_thread = [], metrics.unreachable, threading.current_thread()

    def unreachable(store: str) -> None:
        if threading.current_thread() is this_thread:
            counted_here.append(store)
        count(store)

    monkeypatch.setattr(metrics, "unreachable", unreachable)
    before = value("ibiportal_store_unreachable_total", store="redis")
    assert flight.run("a key", lambda: "resolved here", str) == "resolved here"  # the worker's own flight
    assert counted_here == ["redis"]
    assert value("ibiportal_store_unreachable_total", store="redis") >= before + 1
