"""Minting from two portal nodes on PostgreSQL, with file uploads and item edits in the mix: mints
per second as a fraction of the temporal distributor's 1/r limit, in one run.

Run: ``.venv/bin/python benchmarks/minting.py`` (needs Debian's ``postgresql`` and
``redis-server``). Two nodes (gunicorn.conf.py, two workers each) share a throwaway PostgreSQL
with fsync on, as in production, and Redis (``tests/servers.py``); the identification subsystem
has r = 0.01 s, so at most 100 identifiers a second can be minted, whatever the nodes.

``MINTERS`` clients per node mint one identifier after another (``POST /api/v1/mint``) on kept-alive
connections. Rounds alternate (ABBA) between minting alone and minting while ``EDITORS`` clients per
node, as fast as they are answered, change items (``PATCH /api/v1/items/<ibi>``) and upload files
(``PUT /api/v1/items/<ibi>/files/<name>``, ``UPLOAD_BYTES`` each) on items minted before: every such
write is committed with the IBIs it changed (``storage.signal.ibis_changed``), as a mint is. The
figure is the mints of a round over its seconds, times r (median of the rounds of each kind); an
error is any answer other than 201 to a mint, 200 to an edit, 200/201 to an upload.
Results are appended to ``benchmarks/results/minting-<date>.txt``.
"""
from __future__ import annotations

import http.client
import json
import statistics
import sys
import threading
import time
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.serving import portal, workdir, write_results  # noqa: E402
from ibiportal.storage.database import Storage  # noqa: E402
from ibiportal.storage.tokens import TokenStore  # noqa: E402
from tests.servers import PostgresServer, RedisServer  # noqa: E402

R = Decimal("0.01")
NODES = 2
WORKERS_PER_NODE = 2
MINTERS = 4  # per node
EDITORS = 2  # per node, in the rounds with uploads and edits
ROUNDS = ("alone", "mixed", "mixed", "alone", "alone", "mixed")
SECONDS = 10
UPLOAD_BYTES = 16 * 1024
ITEMS_TO_CHANGE = 20
GOAL = 0.85


class Client:
    """One kept-alive connection to a node, with the API token."""

    def __init__(self, base_url: str, token: str) -> None:
        self.address = urlsplit(base_url)
        self.token = token
        self.connection = http.client.HTTPConnection(self.address.hostname, self.address.port, timeout=30)

    def send(self, method: str, path: str, body: bytes, content_type: str) -> tuple[int, bytes]:
        headers = {"Content-Type": content_type, "Authorization": f"Bearer {self.token}"}
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        return response.status, response.read()

    def mint(self, title: str) -> tuple[int, dict]:
        status, body = self.send("POST", "/api/v1/mint", json.dumps({"title": title}).encode(), "application/json")
        return status, json.loads(body) if status == 201 else {}


def count(counts: dict, kind: str, status: int, ok: bool, body: object) -> None:
    """One answer counted; an unexpected one as an error, its status and the start of its body kept."""
    if ok:
        counts[kind] += 1
    else:
        counts["errors"] += 1
        counts["kinds of error"].add(f"{kind} {status} {str(body)[:120]}")


def minting(client: Client, stop: threading.Event, counts: dict, _number: int) -> None:
    while not stop.is_set():
        status, body = client.mint("minted under load")
        count(counts, "mints", status, status == 201, body)


def changing(client: Client, items: list[str], stop: threading.Event, counts: dict, offset: int) -> None:
    """Edits and uploads in turn, over the items minted before the run (each client from its own)."""
    number = offset * 7
    while not stop.is_set():
        number += 1
        ibi = items[number % len(items)]
        if number % 2:
            status, body = client.send("PATCH", f"/api/v1/items/{ibi}", json.dumps({"title": f"edit {number}"}).encode(),
                                       "application/json")
            count(counts, "edits", status, status == 200, body)
        else:
            # each client its own names, as in the runs before: uploads of one path take turns at its
            # end (storage/files.py), which this benchmark does not measure
            status, body = client.send("PUT", f"/api/v1/items/{ibi}/files/c{offset}-{number % 5}.bin", b"x" * UPLOAD_BYTES,
                                       "application/octet-stream")
            count(counts, "uploads", status, status in (200, 201), body)


def run_round(nodes, token: str, items: list[str], mixed: bool) -> dict:
    """One round: its counts (each client thread counts its own, summed at the end) and seconds."""
    stop = threading.Event()
    jobs = []
    for node in nodes:
        jobs += [(minting, (Client(node.base_url, token), stop)) for _ in range(MINTERS)]
        if mixed:
            jobs += [(changing, (Client(node.base_url, token), items, stop)) for _ in range(EDITORS)]
    counts = [{"mints": 0, "edits": 0, "uploads": 0, "errors": 0, "kinds of error": set()} for _ in jobs]
    threads = [threading.Thread(target=job, args=(*args, counted, number))
               for number, ((job, args), counted) in enumerate(zip(jobs, counts))]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(SECONDS)
    stop.set()
    for thread in threads:
        thread.join()
    total = {name: sum(each[name] for each in counts) for name in ("mints", "edits", "uploads", "errors")}
    total["kinds of error"] = set().union(*(each["kinds of error"] for each in counts))
    total["seconds"] = time.monotonic() - started
    return total


def main() -> None:
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    postgres, redis = PostgresServer.start(durable=True), RedisServer.start()
    rounds: list[tuple[str, dict]] = []
    try:
        database = postgres.new_database()
        storage = Storage(database)
        token = TokenStore(storage).create("benchmark")
        storage.close()
        common = {"IBIPORTAL_DATABASE": database, "IBIPORTAL_REDIS_URL": redis.url, "IBIPORTAL_GRANULARITY": str(R),
                  "IBIPORTAL_RATELIMIT_ENABLED": "0", "IBIPORTAL_DEMO_ARCHIVES": "0"}
        with workdir() as a, workdir() as b, \
                portal("app:app", Path(a), workers=WORKERS_PER_NODE, environment={**common, "IBIPORTAL_INSTANCE": a}) as first, \
                portal("app:app", Path(b), workers=WORKERS_PER_NODE, environment={**common, "IBIPORTAL_INSTANCE": b}) as second:
            nodes = [first, second]
            warm = Client(first.base_url, token)
            items = [warm.mint(f"item {n}")[1]["ibip"] for n in range(ITEMS_TO_CHANGE)]
            for kind in ROUNDS:
                rounds.append((kind, run_round(nodes, token, items, kind == "mixed")))
    finally:
        postgres.stop()
        redis.stop()

    fractions = {kind: [float(R) * counts["mints"] / counts["seconds"] for each, counts in rounds if each == kind]
                 for kind in ("alone", "mixed")}
    errors = sum(counts["errors"] for _, counts in rounds)
    mixed = statistics.median(fractions["mixed"])
    lines = [
        "Minting from two nodes on PostgreSQL (fsync on) + Redis, with uploads and edits in the mix (one run)",
        f"{NODES} nodes x {WORKERS_PER_NODE} gthread workers; r = {R} s (1/r = {1 / R:.0f} mints/s); {MINTERS} minting "
        f"clients per node; in the mixed rounds {EDITORS} more per node editing items and uploading {UPLOAD_BYTES // 1024} KiB "
        f"files in turn; rounds {', '.join(ROUNDS)} of {SECONDS} s; load average {load_at_start} at the start, "
        f"{Path('/proc/loadavg').read_text().split()[0]} at the end",
        "| round | mints/s | fraction of 1/r | edits/s | uploads/s | errors |",
        "| --- | --- | --- | --- | --- | --- |",
        *(f"| {kind} | {counts['mints'] / counts['seconds']:.1f} | {float(R) * counts['mints'] / counts['seconds']:.3f} | "
          f"{counts['edits'] / counts['seconds']:.1f} | {counts['uploads'] / counts['seconds']:.1f} | {counts['errors']} |"
          for kind, counts in rounds),
        *(f"error: {kind}" for kind in sorted(set().union(*(counts["kinds of error"] for _, counts in rounds)))),
        f"RATIO mints/s / (1/r) with uploads and edits: {mixed:.3f} (alone: {statistics.median(fractions['alone']):.3f}; "
        f"medians of rounds); goal >= {GOAL}: {'met' if mixed >= GOAL else 'NOT met'}; {errors} errors",
    ]
    report = "\n".join(lines) + "\n"
    print(report, end="")
    print(f"written to {write_results('minting', report)}")


if __name__ == "__main__":
    main()
