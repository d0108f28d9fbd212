"""The cache of redirects behind ``GET /<persistent URL>``, through the real routes:
hits and misses, invalidation when an Archive is included, excluded or removed through the
resolver service route (also in another "worker": a second app on the same database), the
acknowledgment a hit still sends, and the trace API, which never uses the cache.

The registered Archive answers on a loopback port (a scripted Archive), under the host names of
Example 7.2: the resolver reaches it through its real transport."""
from __future__ import annotations

import functools
import itertools
import re
import socket
import time
from urllib.parse import urlsplit

import pytest
from sqlalchemy import event

from ibiportal import create_app
from ibiportal.resolver import registry_service
from ibiportal.resolver.addresses import check_host
from ibiportal.storage.database import Storage, database
from ibiportal.storage.signal import GenerationSignal, bump_resolution_generation, ibis_changed, read_changes
from ibiportal.web.context import APPLICATION, application
from ibiportal.storage.signal import signal_file
from tests import standard_examples as standard
from tests.scripted_archive import Answer, ArchiveRequest
from tests.standard_examples import query_of
from tests.servers import fresh_sqlite
from tests.admin_session import log_in_as

SERVICE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"
RESOLVER_SERVICE = "/J8LNKB5R7W/3FUQHC5"
INCLUDE = query_of(standard.EXAMPLE_7_2)  # mtc-m21.sid.inpe.br, key 1234567890
EXCLUDE = query_of(standard.EXAMPLE_7_3)
MOVED = INCLUDE.replace("archiveaddress=mtc-m21.sid.inpe.br", "archiveaddress=mtc-m21b.sid.inpe.br").replace(
    "archiveip=150.163.34.239", "archiveip=150.163.34.240"
)
HOSTS = ("mtc-m21.sid.inpe.br", "mtc-m21b.sid.inpe.br")
ITEM = "8JMKD3MGP8W/35MMLL8"
USER = {"REMOTE_ADDR": "172.16.44.200"}


REAL_GETADDRINFO = socket.getaddrinfo


def fake_dns(host, port, *args, **kwargs):
    """The Archive's two host names resolve to loopback, where the test's Archive answers."""
    if host not in HOSTS:
        return REAL_GETADDRINFO(host, port, *args, **kwargs)
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]


class ItemArchive:
    """What the registered Archive of Examples 7.1-7.4 answers, at either of its two addresses:
    it confirms its inclusion and holds ITEM, whose URL names the address that answered."""

    def __init__(self) -> None:
        self.failing = False  # answer every urlRequest with HTTP 500
        self.notice_seconds = 0.0  # how long the notice (6) takes
        self.urlkeys = itertools.count(1)

    def __call__(self, request: ArchiveRequest) -> Answer | str:
        if request.subject == "inclusionConfirmationRequest":
            return "confirmation yes\r\n"
        if request.subject == "acknowledgment":
            time.sleep(self.notice_seconds)
            return "notice {acknowledgment received}\r\n"
        if self.failing:
            return Answer(status=500)
        if request.query["parsedibiurl.ibi"][0] != ITEM:
            return ""
        return (
            f"archiveaddress {request.host}\r\n"
            f"ibi {{rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43 ibip {ITEM}}}\r\n"
            f"ibi.archiveservice {{rep {SERVICE_IBI}}}\r\n"
            f"url http://{request.hostname}/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/item.pdf\r\n"
            "contenttype Data\r\nstate Original\r\ntimestamp 2009-07-21T14:43:00Z\r\n"
            f"urlkey 1427244889-{next(self.urlkeys):016d}\r\n"
        )


def make_app(database: str, **config):
    return create_app({
        "TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
        "DEMO_ARCHIVES": False, "RATELIMIT_ENABLED": False, "ALLOW_PRIVATE_ARCHIVES": True, **config,
    })


@pytest.fixture
def live(tmp_path, monkeypatch, scripted_archive):
    """An app without demo Archives, the loopback Archive registered; included by the test."""
    monkeypatch.setattr(socket, "getaddrinfo", fake_dns)  # where check_host looks names up at the call
    patched = functools.partial(check_host, getaddrinfo=fake_dns)  # where it is bound at definition
    monkeypatch.setattr(registry_service, "check_host", patched)
    apps = []
    database = fresh_sqlite(tmp_path / "live.sqlite")
    archive = scripted_archive(ItemArchive())

    def start(**config):
        app = make_app(database, **config)
        apps.append(app)
        return app

    app = start()
    result = app.test_cli_runner().invoke(args=["archives", "register", SERVICE_IBI, "--key", "1234567890"])
    assert result.exit_code == 0, result.output
    yield app, archive, start
    for each in apps:
        each.extensions[APPLICATION].http_transport.close()
        each.extensions[APPLICATION].fan_out_transport.close()


def include(client, archive, query: str = INCLUDE) -> None:
    """An inclusion (or exclusion) request of the Archive, its address on the loopback port of ``archive``."""
    query = re.sub(r"archiveaddress=([^&]+)", rf"archiveaddress=\1:{archive.port}", query)
    response = client.get(f"{RESOLVER_SERVICE}?{query}")
    assert response.status_code == 200 and response.get_data(as_text=True).startswith("status.archive ")


def test_second_request_is_a_hit_with_the_first_trace_and_acknowledged_again(live):
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    first = client.get(f"/{ITEM}", environ_base=USER)
    second = client.get(f"/{ITEM}", environ_base=USER)
    assert (first.status_code, second.status_code) == (302, 302)
    assert first.headers["X-IBI-Cache"] == "miss" and second.headers["X-IBI-Cache"] == "hit"
    assert second.headers["Location"] == first.headers["Location"]
    assert second.headers["X-IBI-Trace"] == first.headers["X-IBI-Trace"]
    assert second.headers["Link"] == first.headers["Link"] and second.headers["Cache-Control"] == "no-store"
    assert archive.count("urlRequest") == 1  # the hit asked no Archive
    assert archive.wait_for("acknowledgment", 2) == 2  # but acknowledged the redirect again
    trace = client.get(urlsplit(second.headers["X-IBI-Trace"]).path).get_json()
    assert trace["url"] == second.headers["Location"]
    (ack_step,) = [step for step in trace["trace"]["steps"] if step["number"] == 5]
    assert [request.url for request in archive.sent("acknowledgment")] == [ack_step["request_url"]] * 2  # urlkey included


def test_another_client_ip_or_language_is_a_miss(live):
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    assert client.get(f"/{ITEM}", environ_base=USER).headers["X-IBI-Cache"] == "miss"
    other_ip = client.get(f"/{ITEM}", environ_base={"REMOTE_ADDR": "172.16.44.201"})
    other_language = client.get(f"/{ITEM}", environ_base=USER, headers={"Accept-Language": "pt"})
    assert [other_ip.headers["X-IBI-Cache"], other_language.headers["X-IBI-Cache"]] == ["miss", "miss"]
    assert archive.count("urlRequest") == 3
    assert "clientinformation.ipaddress=172.16.44.201&" in archive.sent("urlRequest")[1].url


def test_exclusion_through_the_resolver_service_ends_the_cached_redirect(live):
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    assert client.get(f"/{ITEM}", environ_base=USER).status_code == 302
    assert client.get(f"/{ITEM}", environ_base=USER).headers["X-IBI-Cache"] == "hit"
    include(client, archive, EXCLUDE)
    after = client.get(f"/{ITEM}", environ_base=USER, headers={"Accept": "application/json"})
    assert after.status_code == 404 and after.headers["X-IBI-Cache"] == "miss"
    assert after.get_json()["alert"]["reason"] == "not-found"  # only the own Archive was asked


def test_exclusion_by_the_administrator_ends_the_cached_redirect_on_every_worker_as_the_request_does(live):
    app, archive, start = live
    client, other_worker = app.test_client(), start().test_client()
    include(client, archive)
    for worker in (client, other_worker):
        worker.get(f"/{ITEM}", environ_base=USER)
        assert worker.get(f"/{ITEM}", environ_base=USER).headers["X-IBI-Cache"] == "hit"
    log_in_as(client, "ada")
    assert client.post(f"/admin/archives/{SERVICE_IBI}/exclude").status_code == 303
    for worker in (client, other_worker):
        after = worker.get(f"/{ITEM}", environ_base=USER)
        assert after.status_code == 404 and after.headers["X-IBI-Cache"] == "miss"
    assert client.post(f"/admin/archives/{SERVICE_IBI}/include").status_code == 303
    again = other_worker.get(f"/{ITEM}", environ_base=USER)
    assert again.status_code == 302 and again.headers["X-IBI-Cache"] == "miss"


def test_inclusion_at_a_new_address_replaces_the_cached_redirect(live):
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    before = client.get(f"/{ITEM}", environ_base=USER)
    assert urlsplit(before.headers["Location"]).hostname == "mtc-m21.sid.inpe.br"
    include(client, archive, MOVED)  # §7.2: the address may change between inclusions
    after = client.get(f"/{ITEM}", environ_base=USER)
    assert after.headers["X-IBI-Cache"] == "miss"
    assert urlsplit(after.headers["Location"]).hostname == "mtc-m21b.sid.inpe.br"
    assert client.get(f"/{ITEM}", environ_base=USER).headers["X-IBI-Cache"] == "hit"
    assert archive.wait_for("acknowledgment", 3) == 3
    assert [request.hostname for request in archive.sent("acknowledgment")][1:] == ["mtc-m21b.sid.inpe.br"] * 2


def test_removing_the_archive_with_the_cli_ends_the_cached_redirect(live):
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    assert client.get(f"/{ITEM}", environ_base=USER).status_code == 302
    assert app.test_cli_runner().invoke(args=["archives", "remove", SERVICE_IBI]).exit_code == 0
    assert client.get(f"/{ITEM}", environ_base=USER).status_code == 404


def test_every_worker_drops_its_cached_redirect_when_another_one_records_the_exclusion(live):
    app, archive, start = live
    worker_1, worker_2 = app.test_client(), start().test_client()  # two caches, one database
    include(worker_2, archive)
    for worker in (worker_1, worker_2):
        assert worker.get(f"/{ITEM}", environ_base=USER).headers["X-IBI-Cache"] == "miss"
        assert worker.get(f"/{ITEM}", environ_base=USER).headers["X-IBI-Cache"] == "hit"
    include(worker_2, archive, EXCLUDE)
    assert worker_1.get(f"/{ITEM}", environ_base=USER).status_code == 404


def test_a_not_found_every_archive_answered_is_served_again_until_an_inclusion(live):
    app, archive, _ = live
    client = app.test_client()
    before = [client.get(f"/{ITEM}", environ_base=USER) for _ in range(2)]  # only the own Archive: empty
    assert [(r.status_code, r.headers["X-IBI-Cache"]) for r in before] == [(404, "miss"), (404, "hit")]
    assert before[1].headers["X-IBI-Trace"] == before[0].headers["X-IBI-Trace"]
    include(client, archive)  # the Archive that holds ITEM switches on: the kept 404 must not hide it
    after = client.get(f"/{ITEM}", environ_base=USER)
    assert (after.status_code, after.headers["X-IBI-Cache"]) == (302, "miss")
    assert archive.count("urlRequest") == 1


def test_twenty_mints_leave_the_other_items_hits_and_the_archives_unasked(live):
    _, archive, start = live
    # However long 20 mints take; r = 1 ms so that they do not wait a second each for their dates.
    lasting = {"RESOLUTION_CACHE_SECONDS": 3600, "NEGATIVE_CACHE_SECONDS": 3600, "GRANULARITY": "0.001"}
    client, other_worker = start(**lasting).test_client(), start(**lasting).test_client()
    include(client, archive)
    unknown = "/8JMKD3MGP8W/34PGRBS"
    for worker in (client, other_worker):
        assert [worker.get(path, environ_base=USER).headers["X-IBI-Cache"] for path in (f"/{ITEM}", unknown)] == ["miss", "miss"]
    for n in range(20):
        assert client.post("/api/v1/mint", json={"title": f"item {n}"}).status_code == 201
    for worker in (client, other_worker):
        assert [worker.get(path, environ_base=USER).headers["X-IBI-Cache"] for path in (f"/{ITEM}", unknown)] == ["hit", "hit"]
    assert archive.count("urlRequest") == 4  # each worker asked once for each, before the mints


def test_an_item_change_drops_its_outcomes_in_both_forms_with_every_modifier_on_every_worker(live):
    app, archive, start = live
    client, other_worker = app.test_client(), start().test_client()
    include(client, archive)
    first = client.post("/api/v1/mint", json={"title": "v1", "target_url": "https://example.org/v1"}).get_json()
    forms = [f"/{first['ibip']}", f"/{first['rep']}", f"/{first['ibip']}!", f"/{first['rep']}:(oai_dc)"]
    for worker in (client, other_worker):
        for path in [*forms, f"/{ITEM}"]:
            worker.get(path, environ_base=USER)
        assert all(worker.get(path, environ_base=USER).headers["X-IBI-Cache"] == "hit" for path in [*forms, f"/{ITEM}"])
    client.post("/api/v1/mint", json={"title": "v2", "target_url": "https://example.org/v2", "previous_edition": first["rep"]})
    for worker in (client, other_worker):
        assert [worker.get(path, environ_base=USER).headers["X-IBI-Cache"] for path in forms] == ["miss"] * len(forms)
        assert worker.get(f"/{ITEM}", environ_base=USER).headers["X-IBI-Cache"] == "hit"
    assert client.get(forms[2], environ_base=USER).headers["Location"] == "https://example.org/v2"
    asked_for_item = [r for r in archive.sent("urlRequest") if r.query["parsedibiurl.ibi"] == [ITEM]]
    assert len(asked_for_item) == 2  # once by each worker, before the change


def test_a_changed_ibi_drops_its_kept_not_found(live):
    app, archive, _ = live
    client = app.test_client()
    unknown, other = "/8JMKD3MGP8W/34PGRBS!", "/8JMKD3MGP8W/34PGRE5"
    assert [client.get(path, environ_base=USER).headers["X-IBI-Cache"] for path in (unknown, other)] == ["miss", "miss"]
    with app.app_context():  # what an edit, deletion, copy or file change of the item calls
        storage = application().storage()
        with storage.write_transaction() as conn:
            ibis_changed(storage, conn, ["8JMKD3MGP8W/34PGRBS"])
    assert [client.get(path, environ_base=USER).headers["X-IBI-Cache"] for path in (unknown, other)] == ["miss", "hit"]


def test_a_cached_alert_reads_no_database_and_explains_itself_as_its_trace_does(live):
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    json_ = {"Accept": "application/json"}
    first = client.get("/8JMKD3MGP8W/34PGRBS", environ_base=USER, headers=json_)
    statements = []
    engine = database(app.config["DATABASE"]).engine
    listen = lambda *args: statements.append(args[2])  # noqa: E731 - the statement text
    event.listen(engine, "before_cursor_execute", listen)
    try:
        again = client.get("/8JMKD3MGP8W/34PGRBS", environ_base=USER, headers=json_)
    finally:
        event.remove(engine, "before_cursor_execute", listen)
    assert (first.status_code, again.status_code, again.headers["X-IBI-Cache"]) == (404, 404, "hit")
    assert statements == []
    assert again.get_json()["diagnosis"] == first.get_json()["diagnosis"] is not None


def test_a_not_found_while_an_archive_failed_is_resolved_every_time(live):
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    archive.answer.failing = True
    statuses = [client.get("/8JMKD3MGP8W/34PGRBS", environ_base=USER, headers={"Accept": "application/json"})
                for _ in range(2)]
    assert [(r.status_code, r.headers["X-IBI-Cache"]) for r in statuses] == [(404, "miss"), (404, "miss")]
    assert "HTTP 500" in statuses[0].get_json()["alert"]["message"]


def test_alerts_are_resolved_every_time_with_the_negative_cache_off(live):
    _, archive, start = live
    client = start(NEGATIVE_CACHE_SECONDS=0).test_client()
    include(client, archive)
    statuses = [client.get("/8JMKD3MGP8W/34PGRBS", environ_base=USER) for _ in range(2)]
    assert [(r.status_code, r.headers["X-IBI-Cache"]) for r in statuses] == [(404, "off"), (404, "off")]
    assert archive.count("urlRequest") == 2
    assert client.get(f"/{ITEM}", environ_base=USER).headers["X-IBI-Cache"] == "miss"  # redirects still kept


def test_the_trace_api_never_uses_the_cache(live):
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    cached = client.get(f"/{ITEM}", environ_base=USER)
    assert client.get(f"/{ITEM}", environ_base=USER).headers["X-IBI-Cache"] == "hit"
    traced = client.post("/api/v1/trace", json={"url": f"http://localhost/{ITEM}", "archives": "live"}, environ_base=USER)
    assert traced.status_code == 201 and "X-IBI-Cache" not in traced.headers
    assert traced.get_json()["permalink"] != cached.headers["X-IBI-Trace"]
    assert archive.count("urlRequest") == 2  # the trace asked the Archive again
    steps = [step["number"] for step in traced.get_json()["trace"]["steps"]]
    assert 3 in steps and 5 in steps and 6 in steps  # every message of this resolution


def test_a_trace_does_not_fill_the_cache(live):
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    client.post("/api/v1/trace", json={"url": f"http://localhost/{ITEM}", "archives": "live"}, environ_base=USER)
    assert client.get(f"/{ITEM}", environ_base=USER).headers["X-IBI-Cache"] == "miss"


def test_cache_off_resolves_every_request(live):
    _, archive, start = live
    client = start(RESOLUTION_CACHE_SECONDS=0).test_client()
    include(client, archive)
    responses_ = [client.get(f"/{ITEM}", environ_base=USER) for _ in range(2)]
    assert [r.headers["X-IBI-Cache"] for r in responses_] == ["off", "off"]
    assert archive.count("urlRequest") == 2


def test_setting_is_read_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("IBIPORTAL_RESOLUTION_CACHE_SECONDS", "0")
    monkeypatch.setenv("IBIPORTAL_DATABASE", fresh_sqlite(tmp_path / "env.sqlite"))
    assert create_app().config["RESOLUTION_CACHE_SECONDS"] == 0
    assert create_app().config["NEGATIVE_CACHE_SECONDS"] == 10
    monkeypatch.setenv("IBIPORTAL_NEGATIVE_CACHE_SECONDS", "3")
    assert create_app().config["NEGATIVE_CACHE_SECONDS"] == 3


# -- with the demo Archives and the own Archive -----------------------------------------------------


def test_accept_language_is_part_of_the_key(client):
    path = "/D7N2U8HW/3J5AC3H+"
    portuguese = client.get(path, environ_base=USER, headers={"Accept-Language": "pt-BR,en;q=0.5"})
    english = client.get(path, environ_base=USER, headers={"Accept-Language": "en"})
    again = client.get(path, environ_base=USER, headers={"Accept-Language": "pt-BR,en;q=0.5"})
    assert english.headers["X-IBI-Cache"] == "miss" and english.headers["Location"] != portuguese.headers["Location"]
    assert again.headers["X-IBI-Cache"] == "hit" and again.headers["Location"] == portuguese.headers["Location"]


def test_a_new_edition_minted_ends_the_cached_redirect_to_the_old_one(client):
    first = client.post("/api/v1/mint", json={"title": "v1", "target_url": "https://example.org/v1"}).get_json()
    latest = f"/{first['ibip']}!"
    assert client.get(latest, environ_base=USER).headers["Location"] == "https://example.org/v1"
    assert client.get(latest, environ_base=USER).headers["X-IBI-Cache"] == "hit"
    client.post("/api/v1/mint", json={"title": "v2", "target_url": "https://example.org/v2", "previous_edition": first["rep"]})
    assert client.get(latest, environ_base=USER).headers["Location"] == "https://example.org/v2"



def test_the_generation_signal_follows_commits_of_other_connections_only(tmp_path):
    database = fresh_sqlite(tmp_path / "signal.sqlite")
    reader = Storage(database)
    signal = GenerationSignal(signal_file(database, str(tmp_path)), lambda seen: read_changes(reader, seen))
    writer = Storage(database)
    assert signal.current().generation == 0
    with pytest.raises(RuntimeError):
        with writer.write_transaction() as conn:
            bump_resolution_generation(writer, conn)
            raise RuntimeError("rolled back")
    assert signal.current().generation == 0 and read_changes(writer, None).generation == 0
    with writer.write_transaction() as conn:
        bump_resolution_generation(writer, conn)
    assert signal.current().generation == 1  # seen through the mapped file, then read from the database
    writer.close()
