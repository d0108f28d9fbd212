"""The public Archive health page and GET /api/v1/archives/health, from real stored traces."""
from __future__ import annotations

from tests.web.registration.test_why_not_found import ADDRESS, SERVICE_IBI, register


def test_the_api_counts_what_the_traces_saw_and_names_the_last_failure(client):
    assert client.get("/8JMKD3MGP8W/34PGRBS").status_code == 404
    body = client.post("/api/v1/trace", json={"url": "http://urlib.net/D7N2U8HW/3SNU8PS", "include_faulty": True}).get_json()
    health = client.get("/api/v1/archives/health").get_json()
    assert health["traces"] == 2
    rows = {row["name"]: row for row in health["archives"]}
    assert rows["mtc-m16c"]["empty"] == 2 and rows["mtc-m16c"]["registry_state"] == "demo, in-process"
    assert rows["portal"]["registry_state"] == "this portal's own"
    garbled = rows["garbled"]
    assert garbled["failed"] == 1 and garbled["last_failure"]["trace_id"] == body["id"]
    assert garbled["last_failure"]["reason"].startswith("answered something that is not a pair list")
    assert rows["slow"]["latency_ms"]["p50"] >= 1000  # waited for its deadline


def test_registered_archives_are_listed_first_with_their_state(app, client):
    register(app, included=False)
    health = client.get("/api/v1/archives/health").get_json()
    first = health["archives"][0]
    assert (first["name"], first["address"], first["registry_state"]) == (SERVICE_IBI, ADDRESS, "excluded")


def test_the_page_is_public_and_links_each_last_failure_to_its_trace(client):
    body = client.post("/api/v1/trace", json={"url": "http://urlib.net/D7N2U8HW/3SNU8PS", "include_faulty": True}).get_json()
    page = client.get("/archives/health")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Archive health" in html and f'href="/trace/{body["id"]}"' in html


def test_the_admin_archives_page_links_to_it(client):
    from tests.web.admin.test_admin_pages import log_in

    log_in(client)
    assert 'href="/archives/health"' in client.get("/admin/archives").get_data(as_text=True)
