"""Two gunicorn nodes minting while their PostgreSQL is restarted and their Redis stopped: nothing
lost, nothing duplicated, never a 500.

Each client sends every mint with its own Idempotency-Key and, as the 503's Retry-After asks,
sends it again (to either node) until it is answered: so a mint whose answer was lost in the
restart is answered by its retry with the item it made, never a second one."""
from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from tests.reliability.processes import start_gunicorns, stop_gunicorns
from tests.servers import PostgresServer, RedisServer

pytestmark = pytest.mark.slow

CLIENTS = 6
RETRY_PAUSE = 0.1  # seconds: a test client retries sooner than Retry-After asks


@pytest.fixture
def servers():
    """A PostgreSQL and a Redis of this test's own: it stops them."""
    postgres, redis = PostgresServer.start(), RedisServer.start()
    yield postgres, redis
    postgres.stop()
    if redis.process.poll() is None:
        redis.stop()


def test_two_nodes_minting_through_a_postgresql_restart_and_redis_stopped(servers, tmp_path_factory):
    postgres, redis = servers
    database = postgres.new_database()
    common = {"IBIPORTAL_DATABASE": database, "IBIPORTAL_REDIS_URL": redis.url,
              "IBIPORTAL_SECRET_KEY": "shared by the nodes", "IBIPORTAL_WORKERS": "2", "IBIPORTAL_THREADS": "4",
              "IBIPORTAL_GRANULARITY": "0.01", "IBIPORTAL_DEMO_ARCHIVES": "0", "IBIPORTAL_RATELIMIT_ENABLED": "0"}
    nodes = start_gunicorns([{**common, "IBIPORTAL_INSTANCE": str(tmp_path_factory.mktemp(f"outage-{name}"))}
                             for name in "ab"])
    stop, met_the_outage = threading.Event(), threading.Event()
    answered: list[dict] = []
    statuses: list[int] = []
    lock = threading.Lock()

    def client(number: int) -> None:
        attempt = 0
        with requests.Session() as session:
            while not stop.is_set():
                key, target = str(uuid.uuid4()), f"https://example.org/{number}/{len(answered)}"
                while True:  # this mint until it is answered, whatever the outage
                    node = nodes[(number + attempt) % 2]
                    attempt += 1
                    try:
                        response = session.post(f"{node.url}/api/v1/mint", json={"target_url": target},
                                                headers={"Idempotency-Key": key}, timeout=30)
                    except requests.RequestException:
                        time.sleep(RETRY_PAUSE)
                        continue
                    with lock:
                        statuses.append(response.status_code)
                    if response.status_code == 201:
                        with lock:
                            answered.append({**response.json(), "key": key, "target": target})
                        break
                    assert response.status_code == 503 and response.headers["Retry-After"]
                    met_the_outage.set()
                    time.sleep(RETRY_PAUSE)

    def more_answers(count: int) -> None:
        """Wait for ``count`` more mints answered (each phase is seen minting, however loaded the machine)."""
        wanted, deadline = len(answered) + count, time.monotonic() + 120
        while len(answered) < wanted:
            assert time.monotonic() < deadline, f"{len(answered)} mints answered, {wanted} awaited"
            time.sleep(0.05)

    try:
        with ThreadPoolExecutor(CLIENTS) as pool:
            running = [pool.submit(client, number) for number in range(CLIENTS)]
            more_answers(CLIENTS)
            postgres.halt()
            # down until a client has met it (a 503 can come from nothing else), however loaded the machine
            assert met_the_outage.wait(120), "no mint met the stopped PostgreSQL"
            postgres.resume()
            more_answers(CLIENTS)
            redis.stop()  # in the middle: the nodes no longer hear each other, minting goes on
            more_answers(CLIENTS)
            stop.set()
            for future in running:
                future.result(timeout=120)
        storage = Storage(database)
        try:
            minted = IdentifierStore(storage).minted_items()
        finally:
            storage.close()
        for node in nodes:  # the other node's items resolve too, Redis down or not
            item = answered[-1]
            answer = requests.get(f"{node.url}/{item['ibip']}", allow_redirects=False, timeout=20)
            assert answer.status_code == 302 and answer.headers["Location"] == item["target"]
    finally:
        logs = stop_gunicorns(nodes)
    assert 500 not in statuses and set(statuses) <= {201, 503}
    keys_answered = {item["key"]: item["ibip"] for item in answered}
    assert len(keys_answered) == len(answered)  # one answer per key
    assert len(set(keys_answered.values())) == len(answered)  # nothing duplicated
    assert sorted(item.ibip for item in minted) == sorted(keys_answered.values())  # nothing lost, no orphan
    assert "Traceback" not in "".join(logs)
