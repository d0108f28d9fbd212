"""Reference-list benchmark: ``POST /api/v1/extract?resolve=1`` over a whole list, against live
Archives on loopback that each take 100 ms to answer.

Run: ``.venv/bin/python benchmarks/references.py [IBIS:ARCHIVES ...]`` (default ``200:3 5000:10``,
the goals of the reference check: 200 IBIs against 3 Archives within 3 s, 5,000 against 10 within
30 s, with the portal's memory not growing with the list). Each case starts its own portal
(gunicorn with ``gunicorn.conf.py``, one worker, the demo Archives off) whose registry holds the
case's Archives, included; the Archives are those of ``benchmarks/resolution.py`` (one event loop
in a child process, each answer written 100 ms after its request was read). No Archive holds
the IBIs asked, so every resolution waits for every Archive: the worst case. The list is a
reference list as INPE prints it, each reference with its own IBI (``IBI: <…>``), so every entry
is a request of its own (the 5,000-IBI limit of a list counts entries).

The answer is read as it streams (``Accept: application/x-ndjson``): the time to the first entry
and to the last, and the worker's resident memory sampled every 50 ms (its peak beyond what it
held before the request). The per-IBI rate limit is raised for the run
(``IBIPORTAL_RATELIMIT_REFERENCES``); the default lets 1,000 through a minute. Results are
appended to ``benchmarks/results/references-<date>.txt`` with the machine's load average.
"""
from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.resolution import DELAY, Archives  # noqa: E402
from benchmarks.serving import portal, rss_kib, workdir, write_results  # noqa: E402
from ibiportal.ibi.numerals import encode_base27  # noqa: E402
from ibiportal.protocol.messages import RegistrationKey  # noqa: E402
from ibiportal.registry import ArchiveDetails, Confirmation, KeyHash  # noqa: E402
from ibiportal.storage.database import Storage  # noqa: E402
from ibiportal.storage.migrations import upgrade  # noqa: E402
from ibiportal.storage.registry import ArchiveStore  # noqa: E402

CASES = ((200, 3, 3.0), (5000, 10, 30.0))
#: IBIps of a made-up subsystem, none held by any Archive: seconds since 1995-08-01, a minute apart.
PREFIX = "8JMKD3MGP8W"
FIRST_SECOND = 480_992_662


def reference_list(ibis: int) -> str:
    """``ibis`` references, each with an IBI of its own, as INPE prints them."""
    lines = []
    for index in range(ibis):
        ibi = f"{PREFIX}/{encode_base27(FIRST_SECOND + 60 * index)}"
        lines.append(f"AUTHOR, A. Report number {index + 1}. São José dos Campos: INPE, 2009. 39 p. IBI: <{ibi}>.")
    return "\n\n".join(lines)


def include(database: Path, archives: Archives) -> None:
    """Register the case's Archives and record their inclusion, as the resolver service would."""
    storage = Storage(str(database))
    store = ArchiveStore(storage)
    now = datetime.now(timezone.utc)
    for index, endpoint in enumerate(archives.endpoints):
        service_ibi = f"bench.ibiportal.test/archive/2026/11.24.10.{index:02d}"
        store.register_archive(service_ibi, KeyHash.of(RegistrationKey("1234567890")), now)
        store.record_inclusion(service_ibi, ArchiveDetails(endpoint.address, "127.0.0.1", "bench", "bench@example.org"),
                               Confirmation(True, "benchmark"), now)
    storage.close()


@dataclass
class Check:
    """What one streamed check gave: its head line, entries per outcome, its summary, and times."""

    head: dict
    outcomes: dict[str, int]
    summary: dict
    first: float
    elapsed: float

    @property
    def entries(self) -> int:
        return sum(self.outcomes.values())


def check_list(base_url: str, text: str, goal: float) -> Check:
    """``POST /api/v1/extract?resolve=1`` with the list, read line by line as it streams."""
    outcomes: dict[str, int] = {}
    summary: dict = {}
    first = 0.0
    start = time.perf_counter()
    with requests.post(f"{base_url}/api/v1/extract?resolve=1", json={"text": text}, stream=True,
                       headers={"Accept": "application/x-ndjson"}, timeout=goal * 4) as response:
        assert response.status_code == 200, response.text
        lines = response.iter_lines()
        head = json.loads(next(lines))
        for line in lines:
            row = json.loads(line)
            if "summary" in row:
                summary = row["summary"]
                continue
            first = first or time.perf_counter() - start
            outcome = row["resolution"]["outcome"]
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return Check(head, outcomes, summary, first, time.perf_counter() - start)


def run_case(ibis: int, archive_count: int, goal: float) -> list[str]:
    """One case: its portal, its Archives, one check of the list; the lines of its report."""
    archives = Archives(archive_count, threaded=False)
    text = reference_list(ibis)
    try:
        with workdir() as folder:
            folder = Path(folder)
            upgrade(str(folder / "portal.sqlite"))
            include(folder / "portal.sqlite", archives)
            environment = {"IBIPORTAL_DEMO_ARCHIVES": "0", "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "1",
                           "IBIPORTAL_RATELIMIT_REFERENCES": "100000/minute", "IBIPORTAL_RATELIMIT_API": "1000/minute",
                           "IBIPORTAL_DATABASE": str(folder / "portal.sqlite")}
            with portal("app:app", folder, workers=1, environment=environment) as served:
                (worker,) = served.worker_pids()
                check_list(served.base_url, f"IBI: <{PREFIX}/{encode_base27(FIRST_SECOND - 60)}>", goal)  # warm
                before = rss_kib(worker)
                peak = [before]
                sampling = threading.Event()

                def sample() -> None:
                    while not sampling.wait(0.05):
                        peak.append(rss_kib(worker))

                sampler = threading.Thread(target=sample, daemon=True)
                sampler.start()
                try:
                    check = check_list(served.base_url, text, goal)
                finally:
                    sampling.set()
                    sampler.join()
    finally:
        archives.close()
    assert check.entries == check.head["count"] == ibis and check.head["requests"] == ibis, check
    assert check.summary == {**{name: 0 for name in check.summary}, **check.outcomes}, check
    return [
        f"{ibis:,} IBIs against {archive_count} Archives of {DELAY * 1000:.0f} ms: {check.elapsed:.2f} s "
        f"({check.elapsed / DELAY:.0f}x one Archive's delay), first entry after {check.first:.2f} s; "
        f"outcomes {check.outcomes}",
        f"  worker memory: {before / 1024:.1f} MiB before, peak {max(peak) / 1024:.1f} MiB during "
        f"(+{(max(peak) - before) / 1024:.1f} MiB)",
        f"  GOAL at most {goal:.0f} s: {'met' if check.elapsed <= goal else 'NOT met'}",
    ]


def main(cases: list[tuple[int, int, float]]) -> None:
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    lines = ["POST /api/v1/extract?resolve=1, NDJSON, one gunicorn worker; each IBI's Archives all answer empty "
             f"after {DELAY * 1000:.0f} ms"]
    for ibis, archive_count, goal in cases:
        lines += run_case(ibis, archive_count, goal)
        print("\n".join(lines[-3:]), flush=True)
    lines.append(f"load average {load_at_start} at the start, {Path('/proc/loadavg').read_text().split()[0]} at the end")
    print(lines[-1])
    print(f"written to {write_results('references', chr(10).join(lines) + chr(10))}")


def parse_cases(arguments: list[str]) -> list[tuple[int, int, float]]:
    """``IBIS:ARCHIVES`` arguments; the goal is the issue's for the nearest default case."""
    if not arguments:
        return list(CASES)
    cases = []
    for argument in arguments:
        ibis, archive_count = (int(part) for part in argument.split(":"))
        cases.append((ibis, archive_count, 3.0 if ibis <= 200 else 30.0))
    return cases


if __name__ == "__main__":
    main(parse_cases(sys.argv[1:]))
