"""A 100 MB file through a real gunicorn worker never sits in its memory: the upload is spooled
and stored a chunk at a time, a download and a range request read a chunk at a time. Measured
as the worker's anonymous resident memory (RssAnon), read every 10 ms while the file goes in and
out: the memory the worker's own objects hold. Its peak resident set (VmHWM) also counts the
pages of the database file SQLite reads through its memory map (``SQLITE_MMAP_BYTES``): the
kernel's page cache, shared with every process reading the file and given back under pressure,
so a download maps the file's pages without holding a copy of them."""
from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from ibiportal.storage.database import Storage
from ibiportal.storage.tokens import TokenStore
from tests.reliability.processes import start_gunicorn
from tests.servers import fresh_sqlite

SIZE = 100 * 1024 * 1024
#: What the worker's peak may grow by while it carries the file: a fraction of the file.
ALLOWED_GROWTH = 24 * 1024 * 1024

pytestmark = pytest.mark.slow


def anonymous_memory(pid: int) -> int:
    """The process's anonymous resident memory (RssAnon), in bytes."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^RssAnon:\s+(\d+) kB", status, re.M)[1]) * 1024


@contextmanager
def highest_anonymous_memory(pid: int) -> Iterator[list[int]]:
    """The highest RssAnon of ``pid`` while the block runs, read every 10 ms (a copy of the file
    would stay for as long as the file takes to pass, far longer than that)."""
    highest, done = [anonymous_memory(pid)], threading.Event()

    def watch() -> None:
        while not done.wait(0.01):
            highest[0] = max(highest[0], anonymous_memory(pid))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        yield highest
    finally:
        done.set()
        watcher.join()


def body(seed: bytes):
    """100 MB in 1 MiB pieces (sent chunked, without Content-Length), and its SHA-256 beside."""
    digest = hashlib.sha256()
    for number in range(SIZE // (1024 * 1024)):
        piece = hashlib.sha256(seed + number.to_bytes(4, "big")).digest() * (1024 * 1024 // 32)
        digest.update(piece)
        yield piece
    body.sha256 = digest.hexdigest()


def test_a_100_mb_file_goes_in_and_out_without_sitting_in_memory(tmp_path):
    database = fresh_sqlite(tmp_path / "portal.sqlite")
    storage = Storage(database)
    token = TokenStore(storage).create("memory")
    storage.close()
    portal = start_gunicorn({"IBIPORTAL_DATABASE": database, "IBIPORTAL_INSTANCE": str(tmp_path),
                             "IBIPORTAL_WORKERS": "1", "IBIPORTAL_THREADS": "2", "IBIPORTAL_SECRET_KEY": "m",
                             "IBIPORTAL_RATELIMIT_ENABLED": "0"})
    try:
        item = requests.post(f"{portal.url}/api/v1/mint", json={"title": "Big"}, timeout=30).json()
        (worker,) = portal.worker_pids()
        before = anonymous_memory(worker)
        with highest_anonymous_memory(worker) as highest:
            put = requests.put(f"{portal.url}/api/v1/items/{item['ibip']}/files/big.bin", data=body(b"a"), timeout=300,
                               headers={"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"})
            assert put.status_code == 201, put.text
            assert put.json()["size"] == SIZE and put.json()["sha256"] == body.sha256
            url = put.json()["url"]
            with requests.get(url, stream=True, timeout=300) as whole:
                digest = hashlib.sha256()
                for piece in whole.iter_content(1024 * 1024):
                    digest.update(piece)
            assert digest.hexdigest() == body.sha256
            with requests.get(url, headers={"Range": f"bytes={SIZE // 4}-"}, stream=True, timeout=300) as tail:
                assert tail.status_code == 206 and sum(len(piece) for piece in tail.iter_content(1024 * 1024)) == SIZE - SIZE // 4
        growth = highest[0] - before
        assert growth < ALLOWED_GROWTH, f"the worker's anonymous memory grew by {growth / 2**20:.1f} MiB"
    finally:
        portal.stop()
