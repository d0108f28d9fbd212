"""Usage under gunicorn, as an operator runs it: two workers count in memory, so a hundred
resolutions write nothing to the database on their requests; a worker stopped gracefully (a
deploy, gunicorn replacing it after max_requests) flushes its sums before it exits, and the item's
page shows 100 whichever worker serves it; a worker killed outright loses only what it counted
since its last flush (here, with a flush interval of an hour, everything since it started)."""
from __future__ import annotations

import os
import signal
import time

import pytest
import requests

from ibiportal.storage.database import Storage
from ibiportal.storage.usage import UsageStore
from tests.reliability.processes import start_gunicorn
from tests.servers import fresh_sqlite


def counted(database: str, ibip: str) -> int:
    storage = Storage(database)
    try:
        return UsageStore(storage).count([ibip])
    finally:
        storage.close()


def wait_for(condition, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not within the time the workers take to exit and start"
        time.sleep(0.05)


@pytest.mark.slow
def test_workers_flush_when_they_exit_and_a_killed_one_loses_only_its_unflushed_counts(tmp_path):
    database = fresh_sqlite(tmp_path / "usage.sqlite")
    portal = start_gunicorn({
        "IBIPORTAL_DATABASE": database, "IBIPORTAL_WORKERS": "2", "IBIPORTAL_THREADS": "4",
        "IBIPORTAL_DEMO_ARCHIVES": "0", "IBIPORTAL_GRANULARITY": "0.001",
        "IBIPORTAL_USAGE_FLUSH_SECONDS": "3600",  # no flush by time during the test: only those at exit
    })
    try:
        item = requests.post(f"{portal.url}/api/v1/mint", json={"target_url": "http://repository.example/a"},
                             timeout=30).json()
        for _ in range(100):  # a connection each: both workers serve some
            assert requests.get(f"{portal.url}/{item['ibip']}", allow_redirects=False, timeout=30).status_code == 302
        assert counted(database, item["ibip"]) == 0  # nothing written on a request

        workers = portal.worker_pids()
        for pid in workers:
            os.kill(pid, signal.SIGTERM)  # graceful: the worker flushes, exits, gunicorn starts another
        wait_for(lambda: counted(database, item["ibip"]) == 100)
        assert "resolved 100 times" in requests.get(f"{portal.url}/archive/items/{item['ibip']}", timeout=30).text

        wait_for(lambda: len(set(portal.worker_pids()) - set(workers)) == 2)
        for _ in range(10):
            requests.get(f"{portal.url}/{item['ibip']}", allow_redirects=False, timeout=30)
        for pid in portal.worker_pids():
            os.kill(pid, signal.SIGKILL)  # no exit, no flush: its counts since the last flush are lost
        wait_for(lambda: len(portal.worker_pids()) == 2)
        requests.get(f"{portal.url}/static/style.css", timeout=30)
        assert counted(database, item["ibip"]) == 100
    finally:
        portal.stop()
