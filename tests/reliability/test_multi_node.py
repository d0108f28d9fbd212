"""Two portal nodes (gunicorn, two workers each) on one PostgreSQL and one Redis, as in the
two-node deployment of docs/storage.md: minting is unique across them, each serves the other's items,
an Archive switched on or off through one is seen through the other at once, the API limit is
one budget, a file uploaded through one is served whole and in ranges by the other, and killing
a node with SIGKILL loses nothing a client was given."""
from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

import pytest
import requests

from ibiportal.protocol.messages import ExclusionRequest, InclusionRequest, RegistrationKey, request_url
from ibiportal.protocol.registry import KeyHash
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.storage.registry import ArchiveStore
from ibiportal.storage.tokens import TokenStore
from tests.reliability.processes import start_gunicorns, stop_gunicorns
from tests.standard_examples import SECTION_10_1_URL

RESOLVER_SERVICE_IBI = "J8LNKB5R7W/3FUQHC5"
KEY = "1234567890-0987654321"
ITEM = "/8JMKD3MGP8W/35MMLL8"  # held by the demo Archive mtc-m16c (§10.1)
API_LIMIT = 20
MAX_FILE_BYTES = 5_000_000
PROPAGATION = 1.0
"""Seconds for a change's Redis message to reach the other node's subscriber on a loaded machine
(it is sent after the commit, and received by a thread of each worker)."""

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster(postgres_server, redis_server, tmp_path_factory):
    redis_server.flush()
    database = postgres_server.new_database()
    common = {
        "IBIPORTAL_DATABASE": database, "IBIPORTAL_REDIS_URL": redis_server.url,
        "IBIPORTAL_SECRET_KEY": "shared by the nodes", "IBIPORTAL_WORKERS": "2", "IBIPORTAL_THREADS": "4",
        "IBIPORTAL_GRANULARITY": "0.01", "IBIPORTAL_DEMO_ARCHIVES": "0", "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "1",
        "IBIPORTAL_TRUSTED_PROXIES": "127.0.0.1", "IBIPORTAL_RATELIMIT_API": f"{API_LIMIT}/minute",
        "IBIPORTAL_MAX_FILE_BYTES": str(MAX_FILE_BYTES),
    }
    nodes = start_gunicorns([{**common, "IBIPORTAL_INSTANCE": str(tmp_path_factory.mktemp(f"node-{name}"))}
                             for name in "ab"])
    yield {"database": database, "nodes": nodes}
    stop_gunicorns(nodes)


def client_ip(number: int) -> dict[str, str]:
    """A distinct client per request (through the trusted proxy), so minting meets no API limit."""
    return {"X-Forwarded-For": f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}"}


def mint_on_both(nodes, clients: int, requests_each: int | None, stop: threading.Event | None = None):
    """Clients minting on the nodes in turn; what each was given, and every failure seen."""
    received: list[dict] = []
    failures: list[str] = []
    lock = threading.Lock()
    counter = iter(range(10**6))

    def client(number: int) -> None:
        done = 0
        with requests.Session() as session:
            while (requests_each is None or done < requests_each) and not (stop and stop.is_set()):
                node = nodes[(number + done) % len(nodes)]
                done += 1
                with lock:
                    serial = next(counter)
                target = f"https://example.org/item/{serial}"
                try:
                    response = session.post(f"{node.url}/api/v1/mint", json={"target_url": target, "count": 1},
                                             headers=client_ip(serial), timeout=30)
                except requests.RequestException as error:
                    with lock:
                        failures.append(f"{node.url}: {type(error).__name__}")
                    continue
                with lock:
                    if response.status_code == 201:
                        received.append({**response.json()[0], "node": node.url, "target": target})
                    else:
                        failures.append(f"{node.url}: {response.status_code}")

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    return received, failures


def stored(database: str) -> list:
    storage = Storage(database)
    try:
        return IdentifierStore(storage).minted_items()
    finally:
        storage.close()


def test_concurrent_mints_never_collide_and_each_node_serves_the_others_items(cluster):
    nodes = cluster["nodes"]
    received, failures = mint_on_both(nodes, clients=8, requests_each=12)
    assert failures == [] and len(received) == 96
    assert len({item["rep"] for item in received}) == len({item["ibip"] for item in received}) == 96
    assert {item["ibip"] for item in received} <= {item.ibip for item in stored(cluster["database"])}
    for node, other in ((nodes[0], nodes[1]), (nodes[1], nodes[0])):
        for item in [item for item in received if item["node"] == node.url][:4]:
            answer = requests.get(f"{other.url}/{item['ibip']}", allow_redirects=False, timeout=20)
            assert answer.status_code == 302 and answer.headers["Location"] == item["target"]


def pieces(data: bytes, size: int = 65536):
    """``data`` as a generator: requests sends it chunked, without Content-Length."""
    for start in range(0, len(data), size):
        yield data[start:start + size]


def test_a_file_uploaded_through_one_node_is_served_by_the_other(cluster):
    a, b = cluster["nodes"]
    item = requests.post(f"{a.url}/api/v1/mint", json={"title": "Two nodes"}, headers=client_ip(900_001),
                         timeout=30).json()
    storage = Storage(cluster["database"])
    try:
        token = {"Authorization": f"Bearer {TokenStore(storage).create('two nodes')}"}
    finally:
        storage.close()
    data = os.urandom(3 * 1024 * 1024 + 17)  # four chunks of the database, the last one short
    put = requests.put(f"{a.url}/api/v1/items/{item['ibip']}/files/dados/série.bin", data=pieces(data),
                       headers={"Content-Type": "application/octet-stream", **token, **client_ip(900_002)}, timeout=60)
    assert put.status_code == 201, put.text
    path = put.json()["url"].split("/col/", 1)[1]

    whole = requests.get(f"{b.url}/col/{path}", timeout=60)
    assert whole.status_code == 200 and whole.content == data
    assert whole.headers["ETag"] == f'"{put.json()["sha256"]}"'
    span = requests.get(f"{b.url}/col/{path}", headers={"Range": "bytes=1048570-2097160"}, timeout=60)
    assert span.status_code == 206 and span.content == data[1048570:2097161]
    found = requests.get(f"{b.url}/{item['ibip']}/dados/série.bin", allow_redirects=False, timeout=20)
    assert found.status_code == 302 and found.headers["Location"] == f"{b.url}/col/{path}"

    too_big = requests.put(f"{b.url}/api/v1/items/{item['ibip']}/files/big.bin",
                           data=pieces(os.urandom(MAX_FILE_BYTES + 1)),
                           headers={"Content-Type": "application/octet-stream", **token, **client_ip(900_003)}, timeout=60)
    assert too_big.status_code == 413 and "5,000,000 bytes" in too_big.json()["error"]["message"]
    listed = requests.get(f"{a.url}/api/v1/items/{item['rep']}/files", headers=client_ip(900_004), timeout=20)
    assert [entry["path"] for entry in listed.json()["files"]] == ["dados/série.bin"]


def test_uploads_of_one_path_at_once_through_both_nodes_all_succeed_and_one_file_stays(cluster):
    """Eight uploads of one path at once, through both nodes: no 500, the first stored creates the
    file (201) and each later one replaces it (200); one of them is what is served."""
    a, b = cluster["nodes"]
    item = requests.post(f"{a.url}/api/v1/mint", json={"title": "Raced"}, headers=client_ip(900_101), timeout=30).json()
    storage = Storage(cluster["database"])
    try:
        token = {"Authorization": f"Bearer {TokenStore(storage).create('racing uploads')}"}
    finally:
        storage.close()
    bodies = [os.urandom(300_000) for _ in range(8)]
    answers: dict[int, requests.Response] = {}

    def upload(number: int) -> None:
        node = (a, b)[number % 2]
        answers[number] = requests.put(
            f"{node.url}/api/v1/items/{item['ibip']}/files/same.bin", data=pieces(bodies[number]),
            headers={"Content-Type": "application/octet-stream", **token, **client_ip(900_110 + number)}, timeout=60)

    threads = [threading.Thread(target=upload, args=(number,)) for number in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    assert sorted(answer.status_code for answer in answers.values()) == [200] * 7 + [201], \
        [answer.text[:200] for answer in answers.values()]
    listed = requests.get(f"{b.url}/api/v1/items/{item['ibip']}/files", headers=client_ip(900_120), timeout=20).json()
    assert [entry["path"] for entry in listed["files"]] == ["same.bin"]
    served = requests.get(listed["files"][0]["url"], timeout=30)
    assert served.status_code == 200 and served.content in bodies


def switch(node, archive, message_cls) -> requests.Response:
    identity = archive.service.identity
    message = message_cls(
        archive_address=identity.address, archive_service_ibi=identity.service_ibi.forms()[0],
        archive_ip="127.0.0.1", archive_platform_version="URLib 2.1",
        archive_adm_email_address="admin@example.org", registration_key=KEY,
    )
    return requests.get(request_url(node.url.removeprefix("http://"), RESOLVER_SERVICE_IBI, message), timeout=20)


def test_an_archive_switched_on_or_off_through_one_node_is_seen_through_the_other(cluster, serve_demo_archive):
    first, second = cluster["nodes"]
    archive = serve_demo_archive("mtc-m16c")
    storage = Storage(cluster["database"])
    ArchiveStore(storage).register_archive(
        archive.service.identity.service_ibi.forms()[0], KeyHash.of(RegistrationKey(KEY)), datetime.now(timezone.utc))
    storage.close()
    assert requests.get(second.url + ITEM, allow_redirects=False, timeout=20).status_code == 404

    # The change reaches the other node through Redis's message, which its subscriber thread
    # receives a moment after the switch's answer: until then it may answer what it had cached.
    assert switch(first, archive, InclusionRequest).status_code == 200
    wait_until_second_node_answers(second, 302, "the other node still answers its cached 404 a second later")
    answers = [requests.get(second.url + ITEM, allow_redirects=False, timeout=20) for _ in range(8)]
    assert {answer.headers["Location"] for answer in answers} == {SECTION_10_1_URL}
    assert "hit" in {answer.headers["X-IBI-Cache"] for answer in answers}  # both workers now hold it cached

    assert switch(first, archive, ExclusionRequest).status_code == 200
    wait_until_second_node_answers(second, 404, "the other node still redirects a second later")
    later = [requests.get(second.url + ITEM, allow_redirects=False, timeout=20).status_code for _ in range(8)]
    assert later == [404] * 8


def wait_until_second_node_answers(node, status: int, late: str) -> None:
    """Until ``node`` answers ``status`` for ITEM eight times in a row (each of its workers hears
    the message on its own), within PROPAGATION seconds of now."""
    changed_at = time.monotonic()
    in_a_row = 0
    while in_a_row < 8:
        if requests.get(node.url + ITEM, allow_redirects=False, timeout=20).status_code == status:
            in_a_row += 1
        else:
            in_a_row = 0
            assert time.monotonic() - changed_at < PROPAGATION, late
            time.sleep(0.01)


def test_the_api_limit_is_one_budget_across_both_nodes(cluster):
    one_client = {"X-Forwarded-For": "203.0.113.9"}
    statuses = [
        requests.get(f"{cluster['nodes'][number % 2].url}/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS",
                     headers=one_client, timeout=20).status_code
        for number in range(API_LIMIT + 2)
    ]
    assert statuses == [200] * API_LIMIT + [429, 429]


def test_a_node_killed_during_mints_loses_nothing_a_client_received(cluster):
    victim, survivor = cluster["nodes"]
    stop = threading.Event()
    outcome: dict = {}
    minting = threading.Thread(target=lambda: outcome.update(zip(("received", "failures"),
                                                                 mint_on_both([victim, survivor], 6, None, stop))))
    minting.start()
    time.sleep(1.0)
    for pid in [*victim.worker_pids(), victim.process.pid]:
        os.kill(pid, signal.SIGKILL)
    killed_at = time.monotonic()
    time.sleep(1.5)
    stop.set()
    minting.join(timeout=60)

    received = outcome["received"]
    in_database = {item.ibip: item for item in stored(cluster["database"])}
    assert len({item["ibip"] for item in received}) == len(received)
    assert all(item["ibip"] in in_database for item in received)  # nothing a client was given is lost
    assert any(item["node"] == victim.url for item in received)
    assert any(item["node"] == survivor.url for item in received[-10:])  # the survivor kept minting
    assert all(failure.startswith(victim.url) for failure in outcome["failures"])
    assert time.monotonic() - killed_at < 30
