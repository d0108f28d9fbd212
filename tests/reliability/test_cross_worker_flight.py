"""Single flight across workers and nodes over real sockets: two gunicorn nodes of two workers each
on one Redis and one database, an Archive on loopback that takes a second to answer; 40 concurrent
requests for one uncached persistent URL, spread over both nodes, send it ONE ``urlRequest``; every
request gets the same redirect, and every one that joined says so in its trace and links the
leader's, which opens from either node."""
from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from urllib.parse import parse_qs

import pytest
import requests

from ibiportal.protocol.messages import RegistrationKey
from ibiportal.protocol.registry import ArchiveDetails, Confirmation, KeyHash
from ibiportal.storage.database import Storage
from ibiportal.storage.registry import ArchiveStore
from tests.reliability.processes import start_gunicorns, stop_gunicorns
from tests.standard_examples import SECTION_10_1_URL

CONCURRENT = 40
ITEM = "/8JMKD3MGP8W/35MMLL8"  # held by the demo Archive mtc-m16c (§10.1)
ARCHIVE_SECONDS = 1.0
# Threads per worker: so that one worker can take all of its node's requests at
# once (gunicorn hands connections to whichever worker accepts first); fewer, and the ones queued
# behind busy threads are answered after the flight, from the cache (hits, allowed below).
THREADS = CONCURRENT // 2

pytestmark = pytest.mark.slow


def counted_slow_archive(serve_demo_archive) -> tuple[object, Counter]:
    """mtc-m16c on a loopback port, answering after ARCHIVE_SECONDS, counting what it is asked."""
    archive = serve_demo_archive("mtc-m16c")
    archive.delay = ARCHIVE_SECONDS
    asked: Counter[str] = Counter()
    lock, respond = threading.Lock(), archive.service.respond

    def counting(query):
        with lock:
            asked[parse_qs(query)["servicesubject"][0]] += 1
        return respond(query)

    archive.service.respond = counting
    return archive, asked


def include(database: str, archive) -> None:
    """The Archive registered and included, as its inclusionRequest would leave it (§7.2)."""
    identity, now = archive.service.identity, datetime.now(timezone.utc)
    storage = Storage(database)
    try:
        store = ArchiveStore(storage)
        service_ibi = identity.service_ibi.forms()[0]
        store.register_archive(service_ibi, KeyHash.of(RegistrationKey("1234567890")), now)
        details = ArchiveDetails(identity.address, "127.0.0.1", "URLib 2.1", "admin@example.org")
        store.record_inclusion(service_ibi, details, Confirmation(True, "confirmation yes"), now)
    finally:
        storage.close()


def test_forty_requests_over_two_nodes_send_one_url_request_and_every_follower_links_the_leader(
        redis_server, new_database, serve_demo_archive, tmp_path):
    redis_server.flush()
    database = new_database()
    archive, asked = counted_slow_archive(serve_demo_archive)
    include(database, archive)
    common = {
        "IBIPORTAL_DATABASE": database, "IBIPORTAL_REDIS_URL": redis_server.url, "IBIPORTAL_SECRET_KEY": "shared",
        "IBIPORTAL_WORKERS": "2", "IBIPORTAL_THREADS": str(THREADS), "IBIPORTAL_DEMO_ARCHIVES": "0",
        "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "1",
    }
    nodes = start_gunicorns([{**common, "IBIPORTAL_INSTANCE": str(tmp_path / name)} for name in "ab"])
    start = threading.Barrier(CONCURRENT)
    public = {"Host": nodes[0].url.removeprefix("http://")}  # one address for both, as a reverse proxy keeps it

    def get(number: int) -> requests.Response:
        start.wait(20)
        return requests.get(nodes[number % 2].url + ITEM, headers=public, allow_redirects=False, timeout=30)

    try:
        with ThreadPoolExecutor(CONCURRENT) as pool:
            answers = list(pool.map(get, range(CONCURRENT)))
        assert {(answer.status_code, answer.headers["Location"]) for answer in answers} == {(302, SECTION_10_1_URL)}
        assert asked["urlRequest"] == 1, asked  # one for both nodes, all four workers
        states = Counter(answer.headers["X-IBI-Cache"] for answer in answers)
        # a request a busy worker picks up only after the flight ended is a hit of the outcome it kept
        assert states["miss"] == 1 and states["joined"] >= CONCURRENT // 2 and set(states) <= {"miss", "joined", "hit"}
        (leading,) = [number for number, answer in enumerate(answers) if answer.headers["X-IBI-Cache"] == "miss"]
        leader_trace = answers[leading].headers["X-IBI-Trace"]
        leader_trace_id = leader_trace.rsplit("/", 1)[1]
        other_node = [answer for number, answer in enumerate(answers) if number % 2 != leading % 2]
        assert "joined" in {answer.headers["X-IBI-Cache"] for answer in other_node}  # across nodes, not only workers
        for follower in answers:
            if follower.headers["X-IBI-Cache"] == "hit":
                assert follower.headers["X-IBI-Trace"] == leader_trace
            if follower.headers["X-IBI-Cache"] != "joined":
                continue
            trace = requests.get(follower.headers["X-IBI-Trace"], timeout=10).json()
            (share,) = [step for step in trace["trace"]["steps"] if step["number"] == 4]
            assert "joined the resolution" in share["decision"] and trace["hops"] == 0
            assert share["joined_trace"] == leader_trace and follower.headers["X-IBI-Trace"] != leader_trace
        acknowledged_by = time.monotonic() + 10  # a follower's acknowledgment leaves from a thread pool
        while asked["acknowledgment"] < CONCURRENT and time.monotonic() < acknowledged_by:
            time.sleep(0.05)
        assert asked["acknowledgment"] == CONCURRENT  # yet every redirect is acknowledged (Table 8.11)
        for node in nodes:  # the leader's trace opens from either node: it is in the shared database
            linked = requests.get(f"{node.url}/api/v1/trace/{leader_trace_id}", timeout=10).json()
            assert linked["url"] == SECTION_10_1_URL and linked["hops"] == 1
    finally:
        logs = "".join(stop_gunicorns(nodes))
    assert "Traceback" not in logs
