"""Usage as a reader and an operator see it: an item resolved 100 times (cache hits included)
shows 100 on its page and in GET /api/v1/items/{ibi}/usage, by modifier kind and day, with the
relative links followed to it per citing item; nothing is written to the database on a request
(each worker flushes its sums); alerts, traces and counting turned off count nothing; with Redis
the workers' sums meet there and one of them moves them into the database; the admin page lists
the items resolved most."""
from __future__ import annotations

import re
import time
from datetime import date

import pytest

from ibiportal import create_app
from ibiportal.application.usage_counting import UsageCounter, UsageKey, UsageTally, citing_item, usage_kind
from ibiportal.ibi.url import parse_persistent_url
from ibiportal.storage.database import Storage
from ibiportal.storage.schema import usage_day
from ibiportal.storage.usage import CITING_KEPT, DRAIN_LOCK, OTHER_CITING, UsageStore
from ibiportal.web.context import APPLICATION
from tests.admin_session import log_in_as

CITING = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"


def make_app(database: str, **settings):
    return create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                       "DEMO_ARCHIVES": False, "GRANULARITY": "0.001", **settings})


@pytest.fixture
def app(new_database):
    return make_app(new_database())


def mint(client, **fields) -> dict:
    answer = client.post("/api/v1/mint", json=fields)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def flush(app) -> int:
    """What the worker's flush thread does every IBIPORTAL_USAGE_FLUSH_SECONDS."""
    return app.extensions[APPLICATION].usage.flush()


def usage_rows(app) -> int:
    storage = Storage(app.config["DATABASE"])
    try:
        return len(storage.read(usage_day.select()).all())
    finally:
        storage.close()


def test_resolve_an_item_100_times_and_see_100_on_its_page(app, client):
    item = mint(client, title="A paper", target_url="http://repository.example/paper.pdf")
    caches = [client.get(f"/{item['ibip']}").headers["X-IBI-Cache"] for _ in range(100)]
    assert caches[0] == "miss" and caches.count("hit") == 99
    assert usage_rows(app) == 0  # counted in memory only, until the flush
    assert flush(app) == 100
    page = client.get(f"/archive/items/{item['ibip']}").get_data(as_text=True)
    assert "Its persistent URL was resolved 100 times in all" in page and "(100 in the last 90 days)" in page
    chart = page.split('<figure class="usage-chart">', 1)[1].split("</figure>", 1)[0]
    assert 'role="img"' in chart and "<title" in chart and "<desc" in chart
    assert f"{date.today().strftime('%d')}" in chart and ": 100</title>" in chart  # today's bar says its count
    assert chart.count("<rect") == 90
    usage = client.get(f"/api/v1/items/{item['rep']}/usage").get_json()
    assert (usage["total"], usage["own_item"], usage["kinds"]["plain"], usage["activations"]) == (100, True, 100, 0)
    assert usage["forms"] == [item["rep"], item["ibip"]] and len(usage["days"]) == 90
    assert usage["days"][-1] == {"day": date.today().isoformat(), "count": 100}
    portuguese = client.get(f"/archive/items/{item['ibip']}", headers={"Accept-Language": "pt-BR"})
    assert "resolvida 100 vezes" in portuguese.get_data(as_text=True)


def test_kinds_both_forms_and_relative_links_per_citing_item(app, client):
    item = mint(client, title="A paper", target_url="http://repository.example/paper.pdf")
    asked = [f"/{item['ibip']}", f"/{item['rep']}", f"/{item['ibip']}:", f"/{item['ibip']}:(oai_dc)",
             f"/{item['rep']}?ibiurl.clientinformation.citingitem={CITING}&linktype=relative",
             f"/{item['rep']}?ibiurl.clientinformation.citingitem={CITING}&linktype=relative",
             f"/{item['rep']}?ibiurl.clientinformation.citingitem={CITING}",  # not a relative link
             f"/{item['rep']}?ibiurl.clientinformation.citingitem=not-an-ibi&linktype=relative"]
    assert [client.get(url).status_code for url in asked] == [302] * len(asked)
    assert client.get("/8JMKD3MGP8W/34PGRBS").status_code == 404  # an alert counts nothing
    assert client.post("/api/v1/trace", json={"url": f"/{item['ibip']}"}).status_code == 201  # nor a trace
    flush(app)
    usage = client.get(f"/api/v1/items/{item['ibip']}/usage").get_json()
    assert usage["total"] == len(asked)
    assert {kind: count for kind, count in usage["kinds"].items() if count} == {"plain": 6, "metadata": 2}
    assert usage["citing"] == [{"ibi": CITING, "count": 2}] and usage["activations"] == 2
    page = client.get(f"/archive/items/{item['ibip']}").get_data(as_text=True)
    assert f"<code>{CITING}</code>" in page
    other = client.get("/api/v1/items/8JMKD3MGP8W/34PGRBS/usage").get_json()
    assert (other["own_item"], other["total"]) == (False, 0)
    assert client.get("/api/v1/items/not-an-ibi/usage").status_code == 400


def test_counting_off_counts_nothing(new_database):
    app = make_app(new_database(), USAGE=False)
    client = app.test_client()
    item = mint(client, target_url="http://repository.example/paper.pdf")
    assert client.get(f"/{item['ibip']}").status_code == 302
    assert app.extensions[APPLICATION].usage is None
    assert client.get(f"/api/v1/items/{item['ibip']}/usage").get_json()["total"] == 0


def test_the_admin_page_lists_the_items_resolved_most(app, client):
    first = mint(client, title="Read a lot", target_url="http://repository.example/a")
    second = mint(client, title="Read less", target_url="http://repository.example/b")
    for _ in range(3):
        client.get(f"/{first['ibip']}")
        client.get(f"/{first['rep']}")
    client.get(f"/{second['ibip']}")
    flush(app)
    assert client.get("/admin/usage").status_code in (302, 401, 403)  # administrators only
    log_in_as(client, "ada")
    page = client.get("/admin/usage").get_data(as_text=True)
    rows = re.findall(r'<code>([^<]+)</code>.*?<td class="number">([^<]+)</td>', page, re.S)
    assert rows == [(first["ibip"], "6"), (second["ibip"], "1")]
    assert 'aria-current="page"' in page and "Read a lot" in page
    assert "Read a lot" in client.get("/admin/usage?days=all").get_data(as_text=True)


def test_through_redis_the_workers_sums_meet_and_one_moves_them(new_database, redis_server):
    redis_server.flush()
    database = new_database()
    nodes = [make_app(database, REDIS_URL=redis_server.url) for _ in range(2)]
    item = mint(nodes[0].test_client(), target_url="http://repository.example/paper.pdf")
    for node, times in zip(nodes, (30, 12)):
        client = node.test_client()
        for _ in range(times):
            assert client.get(f"/{item['ibip']}").status_code == 302
    flush(nodes[0])  # into Redis, and moved into the database: its drain lock was free
    flush(nodes[1])  # into Redis; another worker drained less than a flush ago
    assert nodes[0].test_client().get(f"/api/v1/items/{item['ibip']}/usage").get_json()["total"] == 30
    redis = nodes[1].extensions[APPLICATION].redis_usage
    redis.client.delete(DRAIN_LOCK)  # what the lock's expiry does a flush interval later
    storage = Storage(database)
    try:
        assert redis.drain(UsageStore(storage))
    finally:
        storage.close()
    assert nodes[1].test_client().get(f"/api/v1/items/{item['ibip']}/usage").get_json()["total"] == 42


def test_a_flush_that_fails_keeps_its_counts_for_the_next(app, client, monkeypatch):
    item = mint(client, target_url="http://repository.example/paper.pdf")
    for _ in range(5):
        client.get(f"/{item['ibip']}")
    counter = app.extensions[APPLICATION].usage
    sink = counter.sink
    monkeypatch.setattr(counter, "sink", lambda counts: (_ for _ in ()).throw(OSError("database down")))
    assert counter.flush() == 0
    monkeypatch.setattr(counter, "sink", sink)
    assert counter.flush() == 5


def test_citing_items_beyond_those_kept_count_as_others(app):
    storage = Storage(app.config["DATABASE"])
    try:
        store = UsageStore(storage)
        store.add({(20000, ("8JMKD3MGP8W/34PGRBS", "plain", f"citing/{index}")): 1 for index in range(CITING_KEPT + 3)})
        citing = store.item(["8JMKD3MGP8W/34PGRBS"], "2024-01-01").citing
    finally:
        storage.close()
    assert len(citing) == CITING_KEPT + 1 and citing[OTHER_CITING] == 3


@pytest.mark.parametrize(("url", "kind"), [
    ("8JMKD3MGP8W/34PGRBS", "plain"), ("8JMKD3MGP8W/34PGRBS:", "metadata"), ("8JMKD3MGP8W/34PGRBS!:", "metadata"),
    ("8JMKD3MGP8W/34PGRBS+", "translation"), ("8JMKD3MGP8W/34PGRBS!+", "translation"),
    ("8JMKD3MGP8W/34PGRBS!", "edition"), ("8JMKD3MGP8W/34PGRBS/doc/a.pdf", "file"),
    ("8JMKD3MGP8W/34PGRBS?ibiurl.verblist=GetFileList", "file-list"),
])
def test_modifier_kinds(url, kind):
    assert usage_kind(parse_persistent_url(url)) == kind


def test_the_citing_item_is_read_only_from_a_relative_link():
    relative = parse_persistent_url(f"8JMKD3MGP8W/34PGRBS?ibiurl.clientinformation.citingitem={CITING}&linktype=relative")
    assert citing_item(relative) == CITING
    assert citing_item(parse_persistent_url(f"8JMKD3MGP8W/34PGRBS?ibiurl.clientinformation.citingitem={CITING}")) is None


def test_the_tally_sums_per_day_and_stays_bounded():
    now = [86_400 * 20_000 + 10.0]
    tally = UsageTally(clock=lambda: now[0], max_keys=2)
    key = UsageKey("8JMKD3MGP8W/34PGRBS", "plain")
    tally.add(key)
    tally.add(key)
    tally.add(UsageKey("8JMKD3MGP8W/34PGRBS", "plain"))  # another object, the same key: summed at the take
    now[0] += 86_400
    tally.add(key)  # the next day: a key of its own, beyond the bound
    assert tally.dropped == 1
    assert tally.take() == {(20_000, ("8JMKD3MGP8W/34PGRBS", "plain", None)): 3}
    assert tally.take() == {}


def test_a_workers_thread_flushes_every_few_seconds():
    flushed: list[dict] = []
    counter = UsageCounter(flushed.append, 0.01)
    counter.count(UsageKey("8JMKD3MGP8W/34PGRBS", "plain"))
    deadline = time.monotonic() + 10
    while not flushed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [sum(counts.values()) for counts in flushed] == [1]
