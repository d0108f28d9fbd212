"""Single flight over real sockets: 40 concurrent requests for one uncached persistent URL, served
by one process (one gunicorn worker's worth of threads), send one ``urlRequest`` per Archive; the
others join that resolution, and their traces say so and link it."""
from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from ibiportal.resolver.local_transport import LocalTransport
from tests.standard_examples import SECTION_10_1_URL
from tests.servers import loopback_server

CONCURRENT = 40


def test_forty_concurrent_requests_send_one_url_request_per_archive(app, monkeypatch):
    asked: Counter[str] = Counter()
    lock = threading.Lock()
    fetch = LocalTransport.fetch

    def counting_fetch(self, url, timeouts):
        subject = parse_qs(urlsplit(url).query)["servicesubject"][0]
        with lock:
            asked[subject, urlsplit(url).netloc] += 1
        if subject == "urlRequest":
            time.sleep(0.3)  # an Archive far away: every request arrives while the first resolves
        return fetch(self, url, timeouts)

    monkeypatch.setattr(LocalTransport, "fetch", counting_fetch)
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    start = threading.Barrier(CONCURRENT)

    def get(_):
        start.wait(10)
        return requests.get(f"{base}/8JMKD3MGP8W/35MMLL8", allow_redirects=False, timeout=30)

    try:
        with ThreadPoolExecutor(CONCURRENT) as pool:
            answers = list(pool.map(get, range(CONCURRENT)))
        assert {(answer.status_code, answer.headers["Location"]) for answer in answers} == {(302, SECTION_10_1_URL)}
        url_requests = {archive: count for (subject, archive), count in asked.items() if subject == "urlRequest"}
        assert len(url_requests) > 1 and set(url_requests.values()) == {1}, asked  # one per Archive
        assert asked["acknowledgment", "mtc-m16c.sid.inpe.br"] == CONCURRENT  # yet every redirect acknowledged
        states = Counter(answer.headers["X-IBI-Cache"] for answer in answers)
        assert states["miss"] == 1 and states["joined"] >= CONCURRENT // 2 and set(states) <= {"miss", "joined", "hit"}
        (leader,) = [answer for answer in answers if answer.headers["X-IBI-Cache"] == "miss"]
        follower = next(answer for answer in answers if answer.headers["X-IBI-Cache"] == "joined")
        assert follower.headers["X-IBI-Trace"] != leader.headers["X-IBI-Trace"]
        trace = requests.get(follower.headers["X-IBI-Trace"], timeout=10).json()
        assert trace["url"] == SECTION_10_1_URL and trace["hops"] == 0
        (share,) = [step for step in trace["trace"]["steps"] if step["number"] == 4]
        assert "joined the resolution" in share["decision"] and share["joined_trace"] == leader.headers["X-IBI-Trace"]
        page = requests.get(follower.headers["X-IBI-Trace"].replace("/api/v1/trace/", "/trace/"), timeout=10)
        assert page.status_code == 200 and leader.headers["X-IBI-Trace"] in page.text
    finally:
        server.shutdown()


@pytest.mark.settings(RESOLUTION_CACHE_SECONDS=1)
def test_while_an_expired_outcome_is_resolved_again_identical_requests_get_it_at_once(app, monkeypatch):
    """The first request after an entry's lifetime resolves again; one arriving meanwhile is served
    the previous outcome (stale) instead of waiting for that resolution."""
    gate, entered = threading.Event(), threading.Event()
    fetch = LocalTransport.fetch
    held = {"on": False}

    def gated_fetch(self, url, timeouts):
        if held["on"] and "servicesubject=urlRequest" in url:
            entered.set()
            gate.wait(10)
        return fetch(self, url, timeouts)

    monkeypatch.setattr(LocalTransport, "fetch", gated_fetch)
    client = app.test_client()
    first = client.get("/8JMKD3MGP8W/35MMLL8", environ_base={"REMOTE_ADDR": "192.0.2.9"})
    assert first.headers["X-IBI-Cache"] == "miss"
    time.sleep(1.1)  # the entry's lifetime ends
    held["on"] = True
    with ThreadPoolExecutor(1) as pool:
        refreshing = pool.submit(client.get, "/8JMKD3MGP8W/35MMLL8", environ_base={"REMOTE_ADDR": "192.0.2.9"})
        assert entered.wait(10)
        meanwhile = app.test_client().get("/8JMKD3MGP8W/35MMLL8", environ_base={"REMOTE_ADDR": "192.0.2.9"})
        gate.set()
        refreshed = refreshing.result(10)
    assert (meanwhile.status_code, meanwhile.headers["X-IBI-Cache"]) == (302, "stale")
    assert meanwhile.headers["X-IBI-Trace"] == first.headers["X-IBI-Trace"]
    assert refreshed.headers["X-IBI-Cache"] == "miss" and refreshed.headers["Location"] == SECTION_10_1_URL
