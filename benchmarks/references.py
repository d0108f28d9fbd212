"""Reference-list benchmark: ``POST /api/v1/extract?resolve=1`` over a whole list, against live
Archives on loopback that each take 100 ms to answer.

Run: ``.venv/bin/python benchmarks/references.py [--profile[=wall]] [--rounds=N] [IBIS:ARCHIVES ...]`` (default ``200:3 5000:10``,
the goals of the reference check: 200 IBIs against 3 Archives within 0.6 s, 5,000 against 10 within
10 s, with the portal's memory not growing with the list, and at most 2 ms of the worker's CPU per IBI). Each case starts its own portal
(gunicorn with ``gunicorn.conf.py``, one worker, the demo Archives off) whose registry holds the
case's Archives, included; the Archives are those of ``benchmarks/resolution.py`` (one event loop
in a child process, each answer written 100 ms after its request was read). No Archive holds
the IBIs asked, so every resolution waits for every Archive: the worst case. The list is a
reference list as INPE prints it, each reference with its own IBI (``IBI: <…>``), so every entry
is a request of its own (the 5,000-IBI limit of a list counts entries).

The answer is read as it streams (``Accept: application/x-ndjson``): the time to the first entry
and to the last, the worker's CPU seconds (and the Archives' process's, which shares the
machine), and the worker's resident memory sampled every 50 ms with how many entries had come.
Memory that does not grow with the list (the goal of the long list) is read as: the worker's peak
while the second half of the entries come is at most :data:`MEMORY_SLACK_MIB` above its peak while
the first half came. Resolutions piling up would add in the second half what they added in the
first; the allocator's pools, the thread pools and the connections fill up once, early. The 200-IBI case runs :data:`ROUNDS` times (``--rounds=N``) on
one portal (its goal holds "every time"; the check keeps nothing in the resolution cache, so each
round asks the Archives again). The per-IBI rate limit is raised for the run
(``IBIPORTAL_RATELIMIT_REFERENCES``); the default lets 1,000 through a minute. Results are
appended to ``benchmarks/results/references-<date>.txt`` with the machine's load average; the
last line says PASS or FAIL against every goal, and the exit status is 1 on FAIL.

``--profile`` measures nothing against the goals: it profiles the first case's checks on every
thread of the worker (``benchmarks/profiled_app.py``, yappi: ``pip install -r
benchmarks/requirements.txt``) and appends the top entries to
``benchmarks/results/references-profile-<date>.txt``; ``--profile=wall`` counts elapsed time
instead of CPU time, so that what the resolutions wait for shows (the Archives, the database's
write lock, the pool's connections).

Each check says what bounds it: the Archives alone take at least ``requests / CONCURRENCY`` of
their delays; the worker's Python runs under one interpreter lock, so its CPU seconds are the
least the check takes on one core. A check is network-bound only while its CPU is below the
Archives' time. (The threads' run-queue delays of ``/proc/<pid>/task/*/schedstat`` were tried for
"waiting for a core": summed over 64 threads they overlap and exceed the elapsed time.)
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.resolution import DELAY, Archives  # noqa: E402
from benchmarks.serving import Portal, portal, rss_kib, workdir, write_results  # noqa: E402
from ibiportal.application.references import CONCURRENCY  # noqa: E402
from ibiportal.ibi.numerals import encode_base27  # noqa: E402
from ibiportal.protocol.messages import RegistrationKey  # noqa: E402
from ibiportal.protocol.registry import ArchiveDetails, Confirmation, KeyHash  # noqa: E402
from ibiportal.storage.database import Storage  # noqa: E402
from ibiportal.storage.migrations import upgrade  # noqa: E402
from ibiportal.storage.registry import ArchiveStore  # noqa: E402

CASES = ((200, 3, 0.6), (5000, 10, 10.0))
#: The worker's CPU per IBI checked, at most (seconds).
CPU_GOAL = 0.002
#: Checks of the 200-IBI list, each held to its goal.
ROUNDS = 3
#: How far the worker's peak memory may rise from the first half of the list to the second (MiB):
#: the allocator's own slack, far below what 2,500 more resolutions add if they are kept (tens of
#: MiB: the cache of outcomes held about 20 KiB each).
MEMORY_SLACK_MIB = 8
#: The memory goal is the long list's (the issue's 5,000 IBIs): a 200-IBI check ends before the
#: worker's pools and connections are all in use.
MEMORY_GOAL_IBIS = 1000
#: Checks of the list the profile (``--profile``) covers.
PROFILED_ROUNDS = 2
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


def check_list(base_url: str, text: str, goal: float, progress: list[int] | None = None) -> Check:
    """``POST /api/v1/extract?resolve=1`` with the list, read line by line as it streams;
    ``progress[0]`` counts the entries read so far."""
    outcomes: dict[str, int] = {}
    summary: dict = {}
    first = 0.0
    progress = progress if progress is not None else [0]
    start = time.perf_counter()
    with requests.post(f"{base_url}/api/v1/extract?resolve=1", json={"text": text}, stream=True,
                       headers={"Accept": "application/x-ndjson"}, timeout=max(goal * 4, 60)) as response:
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
            progress[0] += 1
    return Check(head, outcomes, summary, first, time.perf_counter() - start)


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far (user and system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


@contextmanager
def case_portal(archives: Archives, app: str = "app:app") -> Iterator[Portal]:
    """A portal (one worker) whose registry holds ``archives``, included, with the demo Archives off."""
    with workdir() as folder:
        folder = Path(folder)
        upgrade(str(folder / "portal.sqlite"))
        include(folder / "portal.sqlite", archives)
        environment = {"IBIPORTAL_DEMO_ARCHIVES": "0", "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "1",
                       "IBIPORTAL_RATELIMIT_REFERENCES": "100000/minute", "IBIPORTAL_RATELIMIT_API": "1000/minute",
                       "IBIPORTAL_DATABASE": str(folder / "portal.sqlite")}
        with portal(app, folder, workers=1, environment=environment) as served:
            check_list(served.base_url, f"IBI: <{PREFIX}/{encode_base27(FIRST_SECOND - 60)}>", 60)  # warm
            yield served


def run_case(ibis: int, archive_count: int, goal: float, rounds: int) -> tuple[list[str], bool]:
    """One case: its portal, its Archives, ``rounds`` checks of the list; the lines of its
    report and whether every goal was met."""
    archives = Archives(archive_count, threaded=False)
    text = reference_list(ibis)
    lines, met = [], True
    try:
        with case_portal(archives) as served:
            (worker,) = served.worker_pids()
            for _ in range(rounds):
                case_lines, case_met = measure(served.base_url, worker, archives.child.pid, text, ibis,
                                               archive_count, goal)
                lines += case_lines
                met = met and case_met
                print("\n".join(case_lines), flush=True)
    finally:
        archives.close()
    return lines, met


def profile_case(ibis: int, archive_count: int, clock: str = "cpu") -> str:
    """The profile of every thread of the worker (``benchmarks/profiled_app.py``) over
    :data:`PROFILED_ROUNDS` checks of the list, after one check unprofiled; by CPU time, or
    (``clock="wall"``) by elapsed time, waits included."""
    archives = Archives(archive_count, threaded=False)
    text = reference_list(ibis)
    try:
        with case_portal(archives, "benchmarks.profiled_app:app") as served:
            check_list(served.base_url, text, 60)
            requests.get(f"{served.base_url}/_bench/profile/start", params={"clock": clock}, timeout=30).raise_for_status()
            for _ in range(PROFILED_ROUNDS):
                check_list(served.base_url, text, 60)
            stopped = requests.get(f"{served.base_url}/_bench/profile/stop", timeout=120)
            stopped.raise_for_status()
    finally:
        archives.close()
    return (f"profile (yappi, {clock} time of every thread) of {PROFILED_ROUNDS} checks of {ibis:,} IBIs against "
            f"{archive_count} Archives; load average {load()}\n{stopped.text}")


def measure(base_url: str, worker: int, archives_pid: int, text: str, ibis: int, archive_count: int,
            goal: float) -> tuple[list[str], bool]:
    """One check of the list, timed, its CPU counted and the worker's memory sampled."""
    before = rss_kib(worker)
    progress = [0]
    samples: list[tuple[int, int]] = [(0, before)]  # (entries read, worker RSS in KiB)
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.wait(0.05):
            samples.append((progress[0], rss_kib(worker)))

    sampler = threading.Thread(target=sample, daemon=True)
    load_before, cpu, archives_cpu = load(), cpu_seconds(worker), cpu_seconds(archives_pid)
    sampler.start()
    try:
        check = check_list(base_url, text, goal, progress)
    finally:
        sampling.set()
        sampler.join()
    cpu, archives_cpu = cpu_seconds(worker) - cpu, cpu_seconds(archives_pid) - archives_cpu
    floor = -(-ibis // CONCURRENCY) * DELAY
    assert check.entries == check.head["count"] == ibis and check.head["requests"] == ibis, check
    assert check.summary == {**{name: 0 for name in check.summary}, **check.outcomes}, check
    fifths = [next((rss for read, rss in samples if read >= ibis * part // 5), samples[-1][1]) for part in range(1, 6)]
    first_half = max(rss for read, rss in samples if read < ibis // 2)
    second_half = max((rss for read, rss in samples if read >= ibis // 2), default=samples[-1][1])
    peak, rise = max(rss for _, rss in samples), (second_half - first_half) / 1024
    fast, flat = check.elapsed <= goal, rise <= MEMORY_SLACK_MIB or ibis < MEMORY_GOAL_IBIS
    frugal = cpu / ibis <= CPU_GOAL
    lines = [
        f"{ibis:,} IBIs against {archive_count} Archives of {DELAY * 1000:.0f} ms: {check.elapsed:.2f} s "
        f"({check.elapsed / DELAY:.0f}x one Archive's delay), first entry after {check.first:.2f} s; "
        f"outcomes {check.outcomes}; load average {load_before} -> {load()}",
        f"  CPU: worker {cpu:.1f} s ({cpu / ibis * 1000:.2f} ms per IBI), the Archives' process {archives_cpu:.1f} s",
        f"  bound by: {'its CPU' if cpu >= floor else 'the Archives'} (the Archives alone take at least {floor:.1f} s, "
        f"{CONCURRENCY} requests at a time; the worker's CPU, one interpreter lock, {cpu:.1f} s); the worker was on a "
        f"core {cpu / check.elapsed:.0%} of the elapsed time, the rest waiting (for a core, the Archives, a lock)",
        f"  worker memory: {before / 1024:.1f} MiB before, at each fifth of the entries "
        f"{' '.join(f'{rss / 1024:.0f}' for rss in fifths)} MiB, peak {peak / 1024:.1f} MiB "
        f"(+{(peak - before) / 1024:.1f} MiB); second half's peak over the first half's {rise:+.1f} MiB",
        f"  GOAL at most {goal:.1f} s: {'met' if fast else 'NOT met'}; at most {CPU_GOAL * 1000:.0f} ms of CPU per IBI: "
        f"{'met' if frugal else 'NOT met'}"
        + (f"; memory flat (second half at most +{MEMORY_SLACK_MIB} MiB): {'met' if flat else 'NOT met'}"
           if ibis >= MEMORY_GOAL_IBIS else ""),
    ]
    return lines, fast and flat and frugal


def main(cases: list[tuple[int, int, float]], profiled: str | None = None, rounds: int = ROUNDS) -> int:
    if profiled:
        report = "\n".join(profile_case(ibis, archive_count, profiled) for ibis, archive_count, _ in cases[:1])
        print(report)
        print(f"written to {write_results('references-profile', report)}")
        return 0
    load_at_start = load()
    lines = ["POST /api/v1/extract?resolve=1, NDJSON, one gunicorn worker; each IBI's Archives all answer empty "
             f"after {DELAY * 1000:.0f} ms"]
    met = True
    for ibis, archive_count, goal in cases:
        case_lines, case_met = run_case(ibis, archive_count, goal, rounds if ibis <= 200 else 1)
        lines += case_lines
        met = met and case_met
    lines.append(f"load average {load_at_start} at the start, {load()} at the end")
    lines.append("RESULT: PASS (every goal met in every round)" if met else "RESULT: FAIL (a goal above is NOT met)")
    print("\n".join(lines[-2:]))
    print(f"written to {write_results('references', chr(10).join(lines) + chr(10))}")
    return 0 if met else 1


def parse_cases(arguments: list[str]) -> list[tuple[int, int, float]]:
    """``IBIS:ARCHIVES`` arguments; the goal is the issue's for a default case, else a loose one."""
    if not arguments:
        return list(CASES)
    goals = {(ibis, archive_count): goal for ibis, archive_count, goal in CASES}
    cases = []
    for argument in arguments:
        ibis, archive_count = (int(part) for part in argument.split(":"))
        cases.append((ibis, archive_count, goals.get((ibis, archive_count), 3.0 if ibis <= 200 else 30.0)))
    return cases


if __name__ == "__main__":
    arguments = sys.argv[1:]
    clocks = {"--profile": "cpu", "--profile=wall": "wall"}
    rounds = next((int(argument.split("=", 1)[1]) for argument in arguments if argument.startswith("--rounds=")), ROUNDS)
    sys.exit(main(parse_cases([argument for argument in arguments if not argument.startswith("--")]),
                  profiled=next((clocks[argument] for argument in arguments if argument in clocks), None),
                  rounds=rounds))
