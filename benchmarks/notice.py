"""How long a reader waits for a redirect when the Archive is slow to answer the acknowledgment,
in one run: the redirect's time as a fraction of the notice's delay.

Run: ``.venv/bin/python benchmarks/notice.py``. One gunicorn (gunicorn.conf.py, ``WORKERS``
workers) on loopback, one Archive on loopback (the demo Archive mtc-m16c over HTTP) that answers
``urlRequest`` at once and ``acknowledgment`` after ``NOTICE_SECONDS``. ``REQUESTS`` requests,
one after the other, for a persistent URL the portal has not resolved yet (a new query each: a
cache miss, so each is a whole resolution with its acknowledgment). §8.2 has the redirect go out
once the acknowledgment is sent (STANDARD.md §7); the figure is the median redirect time over the
notice's delay (the goal: under a quarter, 0.5 s for a 2 s notice). Then each request's stored
trace is read until its notice (step 6) is recorded, to count the notices that came and were kept.
Results are appended to ``benchmarks/results/notice-<date>.txt``.
"""
from __future__ import annotations

import statistics
import sys
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.flight import CountingArchive  # noqa: E402
from benchmarks.serving import portal, workdir, write_results  # noqa: E402
from ibiportal.storage.migrations import upgrade  # noqa: E402

WORKERS = 2
REQUESTS = 10
NOTICE_SECONDS = 2.0
GOAL = 0.25  # of the notice's delay
ITEM = "/8JMKD3MGP8W/35MMLL8"  # held by mtc-m16c (§10.1)


class SlowNoticeArchive(CountingArchive):
    """mtc-m16c on loopback, answering the acknowledgment ``NOTICE_SECONDS`` late."""

    def __init__(self) -> None:
        super().__init__(delay=0.0)
        respond = self.server.service.respond

        def slow_notice(query):
            if parse_qs(query).get("servicesubject") == ["acknowledgment"]:
                time.sleep(NOTICE_SECONDS)
            return respond(query)

        self.server.service.respond = slow_notice


def step_6(trace_url: str) -> str:
    """The acknowledgment outcome the stored trace records for the notice."""
    steps = requests.get(trace_url, timeout=30).json()["trace"]["steps"]
    return next(step["acknowledgment"] for step in steps if step["number"] == 6)


def main() -> None:
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    archive = SlowNoticeArchive()
    seconds: list[float] = []
    outcomes: list[str] = []
    try:
        with workdir() as folder:
            database = str(Path(folder) / "portal.sqlite")
            upgrade(database)
            archive.include_in(database)
            environment = {"IBIPORTAL_DATABASE": database, "IBIPORTAL_INSTANCE": folder,
                           "IBIPORTAL_SECRET_KEY": "benchmark", "IBIPORTAL_DEMO_ARCHIVES": "0",
                           "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "1"}
            with portal("app:app", Path(folder), workers=WORKERS, environment=environment) as server:
                requests.get(f"{server.base_url}/8JMKD3MGP8W/34PGRBS", timeout=30)  # a first resolution per worker
                requests.get(f"{server.base_url}/8JMKD3MGP8W/34PGRBS?again", timeout=30)
                traces = []
                for number in range(REQUESTS):
                    begun = time.monotonic()
                    answer = requests.get(f"{server.base_url}{ITEM}?reader={number}", allow_redirects=False, timeout=30)
                    seconds.append(time.monotonic() - begun)
                    if answer.status_code != 302 or answer.headers["X-IBI-Cache"] != "miss":
                        raise RuntimeError(f"request {number}: {answer.status_code} {answer.headers.get('X-IBI-Cache')}")
                    traces.append(answer.headers["X-IBI-Trace"])
                deadline = time.monotonic() + NOTICE_SECONDS * 3
                while time.monotonic() < deadline:
                    outcomes = [step_6(trace) for trace in traces]
                    if "pending" not in outcomes:
                        break
                    time.sleep(0.2)
    finally:
        archive.server.shutdown()

    ratio = statistics.median(seconds) / NOTICE_SECONDS
    lines = [
        f"Redirect time with an Archive whose notice takes {NOTICE_SECONDS:g} s: {WORKERS} gthread workers, "
        f"{REQUESTS} cache misses one after the other",
        f"load average {load_at_start} at the start, {Path('/proc/loadavg').read_text().split()[0]} at the end",
        f"  redirect seconds: {', '.join(f'{s:.3f}' for s in seconds)}",
        f"  notices recorded in the stored traces afterwards: {outcomes.count('notice')} of {REQUESTS} "
        f"({', '.join(sorted(set(outcomes)))})",
        f"RATIO median redirect time / notice delay: {ratio:.3f} (median {statistics.median(seconds):.3f} s); "
        f"goal < {GOAL}: {'met' if ratio < GOAL else 'NOT met'}",
    ]
    report = "\n".join(lines) + "\n"
    print(report, end="")
    print(f"written to {write_results('notice', report)}")


if __name__ == "__main__":
    main()
