"""Usage under gunicorn, as an operator runs it: two workers count in memory and flush on their
own thread; an item resolved 100 times shows 100 on its page once the flushes came, whichever
worker serves it; a worker stopped gracefully (a deploy, max_requests) flushes before it exits;
one killed outright loses at most what it counted since its last flush."""
from __future__ import annotations

import os
import re
import signal
import time

import pytest
import requests

from ibiportal.storage.database import Storage
from ibiportal.storage.usage import UsageStore
from tests.reliability.processes import start_gunicorn
from tests.servers import fresh_sqlite


def portal_env(database: str, flush_seconds: str) -> dict[str, str]:
    return {"IBIPORTAL_DATABASE": database, "IBIPORTAL_WORKERS": "2", "IBIPORTAL_THREADS": "4",
            "IBIPORTAL_DEMO_ARCHIVES": "0", "IBIPORTAL_GRANULARITY": "0.001",
            "IBIPORTAL_USAGE_FLUSH_SECONDS": flush_seconds}


def counted(database: str, ibip: str) -> int:
    storage = Storage(database)
    try:
        return UsageStore(storage).count([ibip])
    finally:
        storage.close()


def wait_for(condition, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not within the time a flush takes"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_hundred_resolutions_reach_the_page_and_a_graceful_exit_flushes(tmp_path):
    database = fresh_sqlite(tmp_path / "usage.sqlite")
    portal = start_gunicorn(portal_env(database, "0.2"))
    try:
        item = requests.post(f"{portal.url}/api/v1/mint", json={"target_url": "http://repository.example/a"},
                             timeout=30).json()
        for _ in range(100):  # new connections: both workers serve some
            assert requests.get(f"{portal.url}/{item['ibip']}", allow_redirects=False, timeout=30).status_code == 302
        wait_for(lambda: "resolved 100 times" in requests.get(f"{portal.url}/archive/items/{item['ibip']}",
                                                              timeout=30).text)
        workers = portal.worker_pids()
        os.kill(workers[0], signal.SIGKILL)  # what it counted was flushed already: nothing is lost
        wait_for(lambda: len(portal.worker_pids()) == 2 and workers[0] not in portal.worker_pids())
        assert counted(database, item["ibip"]) == 100
    finally:
        portal.stop()

    portal = start_gunicorn(portal_env(database, "3600"))  # no flush by time: only the one at exit
    try:
        for _ in range(40):
            requests.get(f"{portal.url}/{item['ibip']}", allow_redirects=False, timeout=30)
        assert counted(database, item["ibip"]) == 100
    finally:
        portal.stop()  # TERM: each worker finishes, flushes, exits
    assert counted(database, item["ibip"]) == 140
