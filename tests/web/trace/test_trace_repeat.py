"""A repeated identical ``POST /trace`` joins the trace already running (TraceRuns): impatient
clicks make one trace and every click ends at it, on one worker or on two nodes sharing one
database. Real sockets: the portal under werkzeug's threaded server (one per node), a live
Archive on loopback that takes its time, and the requests sent at once from threads."""
from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from ibiportal import create_app
from ibiportal.storage.database import Storage
from ibiportal.storage.traces import TraceRuns
from tests.reliability.faulty_archives import RawArchive, answers_late, include
from tests.servers import loopback_server

SLOW = 1.0  # seconds the Archive takes: the clicks all arrive while the first trace runs
URL = "http://urlib.net/8JMKD3MGP8W/34PGRBS"
PERMALINK = re.compile(r"/trace/([A-Za-z0-9_-]+)$")


class Node:
    """One portal node on a free loopback port, serving from a thread."""

    def __init__(self, database: str, **settings):
        self.app = create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                               "ALLOW_PRIVATE_ARCHIVES": True, "RATELIMIT_ENABLED": False, **settings})
        self.server = loopback_server(self.app)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def trace(self, **fields) -> str:
        """POST the Trace form; the trace id its 303 leads to."""
        data = {"url": URL, "archives": "live", **fields}
        response = requests.post(f"{self.url}/trace", data=data, allow_redirects=False, timeout=60)
        assert response.status_code == 303, response.text[:500]
        return PERMALINK.search(response.headers["Location"].split("?")[0])[1]


@pytest.fixture
def archive(database_setting):
    with RawArchive(answers_late(SLOW)) as slow:
        include(database_setting, slow.address)
        yield slow


def url_requests(archive) -> int:
    return sum(1 for head in archive.requests if b"servicesubject=urlRequest" in head)


def stored_traces(database: str) -> int:
    storage = Storage(database)
    try:
        return storage.connection.exec_driver_sql("SELECT count(*) FROM trace").scalar()
    finally:
        storage.close()


def at_once(calls) -> list[str]:
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def test_three_clicks_make_one_trace_and_all_three_end_at_it(database_setting, archive):
    node = Node(database_setting)
    try:
        ids = at_once([node.trace] * 3)
    finally:
        node.server.shutdown()
    assert len(set(ids)) == 1
    assert url_requests(archive) == 1 and stored_traces(database_setting) == 1


def test_two_nodes_sharing_the_database_make_one_trace(database_setting, archive):
    """Two portals on one database (PostgreSQL for real scale-out; SQLite as two workers of one
    node): clicks spread over both join the one trace the first claim started."""
    first, second = Node(database_setting), Node(database_setting)
    try:
        ids = at_once([first.trace, second.trace, first.trace, second.trace])
    finally:
        first.server.shutdown()
        second.server.shutdown()
    assert len(set(ids)) == 1
    assert url_requests(archive) == 1 and stored_traces(database_setting) == 1


def test_a_request_moments_later_gets_the_finished_trace_and_another_after_the_window(database_setting, archive):
    node = Node(database_setting, TRACE_REPEAT_SECONDS=2)
    try:
        first = node.trace()
        assert node.trace() == first  # ended less than 2 s ago
        storage = Storage(database_setting)
        storage.connection.exec_driver_sql("UPDATE trace_run SET finished_at = '2000-01-01T00:00:00.000000Z'")
        storage.close()  # as if the window had passed
        assert node.trace() != first
    finally:
        node.server.shutdown()
    assert url_requests(archive) == 2


OTHERS = [{"url": "http://urlib.net/8JMKD3MGP8W/34PGRBS!"}, {"accept_language": "pt-BR"}, {"client_ip": "203.0.113.7"},
          {"require_original": "y"}, {"archives": "all"}, {"previous": "earlier"}]


def test_other_options_are_other_traces(database_setting, archive):
    node = Node(database_setting)
    try:
        ids = at_once([node.trace, *(lambda other=other: node.trace(**other) for other in OTHERS)])
    finally:
        node.server.shutdown()
    assert len(set(ids)) == 1 + len(OTHERS)


def test_the_same_url_pasted_with_another_resolver_is_the_same_request(database_setting, archive):
    node = Node(database_setting)
    try:
        ids = at_once([node.trace, lambda: node.trace(url="8JMKD3MGP8W/34PGRBS")])
    finally:
        node.server.shutdown()
    assert ids[0] == ids[1] and url_requests(archive) == 1


def test_with_the_setting_at_0_every_request_runs_its_own(database_setting, archive):
    node = Node(database_setting, TRACE_REPEAT_SECONDS=0)
    try:
        ids = at_once([node.trace] * 2)
    finally:
        node.server.shutdown()
    assert len(set(ids)) == 2 and url_requests(archive) == 2


def test_two_sessions_are_two_people(new_database):
    """With CSRF on, the requester is the session: two browsers asking the same at once get a trace each."""
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test"})
    ids = []
    for _ in range(2):
        client = app.test_client()
        token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', client.get("/trace").get_data(as_text=True))[1]
        for _ in range(2):  # the same browser twice: one trace
            response = client.post("/trace", data={"csrf_token": token, "url": URL, "archives": "demo"})
            ids.append(PERMALINK.search(response.headers["Location"])[1])
    assert ids[0] == ids[1] and ids[2] == ids[3] and ids[0] != ids[2]


# -- the claims themselves -----------------------------------------------------------------------


def claim(runs: TraceRuns, trace_id: str, now: str = "2026-11-24T12:00:10.000000Z"):
    return runs.claim("F", trace_id, now, fresh_after="2026-11-24T12:00:05.000000Z",
                      running_after="2026-11-24T11:59:40.000000Z")


def test_a_claim_is_joined_while_running_and_a_failed_one_leaves_the_next_to_run(database_setting):
    runs = TraceRuns(Storage(database_setting))
    assert claim(runs, "a") == ("a", True)
    assert claim(runs, "b") == ("a", False)
    assert runs.state("F", "a") == "running"
    runs.abandon("F", "a")
    assert runs.state("F", "a") == "gone"
    assert claim(runs, "c") == ("c", True)


def test_a_claim_finished_before_the_window_or_running_too_long_is_replaced(database_setting):
    runs = TraceRuns(Storage(database_setting))
    assert claim(runs, "a", now="2026-11-24T12:00:00.000000Z") == ("a", True)
    runs.finish("F", "a", "2026-11-24T12:00:04.000000Z")  # ended 6 s before the next claim: stale
    assert claim(runs, "b") == ("b", True)
    assert runs.claim("F", "c", "2026-11-24T12:00:45.000000Z", fresh_after="2026-11-24T12:00:40.000000Z",
                      running_after="2026-11-24T12:00:15.000000Z") == ("c", True)  # b ran over 30 s
