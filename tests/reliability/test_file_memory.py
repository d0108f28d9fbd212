"""A 100 MB file through a real gunicorn worker never sits in its memory: the upload is spooled
and stored a chunk at a time, a download and a range request read a chunk at a time. Measured
as the worker's peak resident memory (VmHWM) before and after."""
from __future__ import annotations

import hashlib
import re
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


def peak_memory(pid: int) -> int:
    """The process's peak resident set (VmHWM), in bytes."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)[1]) * 1024


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
        before = peak_memory(worker)
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
        growth = peak_memory(worker) - before
        assert growth < ALLOWED_GROWTH, f"the worker's peak memory grew by {growth / 2**20:.1f} MiB"
    finally:
        portal.stop()
