"""Duplicate resolutions across gunicorn workers, without Redis and with it, in one run.

Run: ``.venv/bin/python benchmarks/flight.py`` (needs Debian's ``redis-server``). One gunicorn of
``WORKERS`` workers on loopback, one Archive on loopback (the demo Archive mtc-m16c, answering
after ``ARCHIVE_SECONDS``, counting the ``urlRequest`` messages it receives), and ``BURSTS`` bursts
of ``CONCURRENT`` simultaneous requests for one persistent URL nobody asked for before (a new
query each burst: a new resolution key). Single flight per worker lets each worker send one
``urlRequest`` per burst; with ``IBIPORTAL_REDIS_URL`` the whole server should send one. A
duplicate is every ``urlRequest`` of a burst after its first. Both configurations run in turn
(without, with, without, with) so that other programs on the shared machine weigh on both alike.
Results are appended to ``benchmarks/results/flight-<date>.txt``.
"""
from __future__ import annotations

import statistics
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import parse_qs

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.serving import portal, workdir, write_results  # noqa: E402
from ibiportal.archive.demo import load_demo_archives  # noqa: E402
from ibiportal.archive.http_server import ArchiveHTTPServer  # noqa: E402
from ibiportal.protocol.messages import RegistrationKey  # noqa: E402
from ibiportal.protocol.registry import ArchiveDetails, Confirmation, KeyHash  # noqa: E402
from ibiportal.storage.database import Storage  # noqa: E402
from ibiportal.storage.migrations import upgrade  # noqa: E402
from ibiportal.storage.registry import ArchiveStore  # noqa: E402
from tests.servers import RedisServer  # noqa: E402

WORKERS = 4
THREADS = 8
CONCURRENT = 40
BURSTS = 5  # per round
ROUNDS = ("without Redis", "with Redis", "without Redis", "with Redis")
ARCHIVE_SECONDS = 1.0
ITEM = "/8JMKD3MGP8W/35MMLL8"  # held by mtc-m16c (§10.1)


class CountingArchive:
    """mtc-m16c over HTTP on loopback, answering ``delay`` seconds late, counting the
    ``urlRequest`` messages it answers."""

    def __init__(self, delay: float = ARCHIVE_SECONDS) -> None:
        self.server = ArchiveHTTPServer(load_demo_archives()["mtc-m16c"].service, delay=delay)
        self.url_requests = 0
        self._lock, respond = threading.Lock(), self.server.service.respond

        def counting(query):
            if parse_qs(query).get("servicesubject") == ["urlRequest"]:
                with self._lock:
                    self.url_requests += 1
            return respond(query)

        self.server.service.respond = counting
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def include_in(self, database: str) -> None:
        """Registered and included in the portal's database, as its inclusionRequest leaves it."""
        identity, now = self.server.service.identity, datetime.now(timezone.utc)
        service_ibi = identity.service_ibi.forms()[0]
        storage = Storage(database)
        try:
            store = ArchiveStore(storage)
            store.register_archive(service_ibi, KeyHash.of(RegistrationKey("1234567890")), now)
            store.record_inclusion(service_ibi, ArchiveDetails(identity.address, "127.0.0.1", "URLib 2.1", "a@example.org"),
                                   Confirmation(True, "confirmation yes"), now)
        finally:
            storage.close()


def burst(base_url: str, number: int) -> tuple[Counter, float]:
    """CONCURRENT requests at once for a URL new to the server; their X-IBI-Cache states, and the
    slowest answer's seconds."""
    start = threading.Barrier(CONCURRENT)
    url = f"{base_url}{ITEM}?burst={number}"

    def get(_) -> tuple[str, float]:
        start.wait(30)
        begun = time.monotonic()
        answer = requests.get(url, allow_redirects=False, timeout=30)
        if answer.status_code != 302:
            raise RuntimeError(f"{url} answered {answer.status_code}")
        return answer.headers["X-IBI-Cache"], time.monotonic() - begun

    with ThreadPoolExecutor(CONCURRENT) as pool:
        answers = list(pool.map(get, range(CONCURRENT)))
    return Counter(state for state, _ in answers), max(seconds for _, seconds in answers)


def main() -> None:
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    archive, redis = CountingArchive(), RedisServer.start()
    duplicates: dict[str, list[int]] = {name: [] for name in set(ROUNDS)}
    slowest: dict[str, list[float]] = {name: [] for name in set(ROUNDS)}
    states: dict[str, Counter] = {name: Counter() for name in set(ROUNDS)}
    bursts = iter(range(10**6))
    try:
        for name in ROUNDS:
            with workdir() as folder:
                database = str(Path(folder) / "portal.sqlite")
                upgrade(database)
                archive.include_in(database)
                environment = {"IBIPORTAL_DATABASE": database, "IBIPORTAL_INSTANCE": folder,
                               "IBIPORTAL_SECRET_KEY": "benchmark", "IBIPORTAL_THREADS": str(THREADS),
                               "IBIPORTAL_DEMO_ARCHIVES": "0", "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "1"}
                if name == "with Redis":
                    environment["IBIPORTAL_REDIS_URL"] = redis.url
                with portal("app:app", Path(folder), workers=WORKERS, environment=environment) as server:
                    for _ in range(BURSTS):
                        before = archive.url_requests
                        seen, seconds = burst(server.base_url, next(bursts))
                        duplicates[name].append(archive.url_requests - before - 1)
                        slowest[name].append(seconds)
                        states[name] += seen
    finally:
        redis.stop()
        archive.server.shutdown()

    lines = [
        f"Duplicate resolutions across workers: {WORKERS} gthread workers x {THREADS} threads, one Archive "
        f"answering after {ARCHIVE_SECONDS:g} s, {BURSTS} bursts of {CONCURRENT} simultaneous requests for a new "
        f"URL per round, rounds {', '.join(ROUNDS)}",
        f"load average {load_at_start} at the start, {Path('/proc/loadavg').read_text().split()[0]} at the end",
    ]
    for name in ("without Redis", "with Redis"):
        total = sum(duplicates[name])
        lines.append(f"  {name:13}: {total:3d} duplicate urlRequests in {len(duplicates[name])} bursts "
                     f"(per burst {', '.join(map(str, duplicates[name]))}); slowest answer per burst median "
                     f"{statistics.median(slowest[name]):.2f} s; states {dict(sorted(states[name].items()))}")
    lines.append(f"RESULT duplicates per burst, without Redis / with Redis: "
                 f"{statistics.mean(duplicates['without Redis']):.1f} / {statistics.mean(duplicates['with Redis']):.1f} "
                 f"(goal with Redis: 0)")
    report = "\n".join(lines) + "\n"
    print(report, end="")
    print(f"written to {write_results('flight', report)}")


if __name__ == "__main__":
    main()
