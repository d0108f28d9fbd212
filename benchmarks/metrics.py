"""Benchmark for issue 37: what Prometheus metrics cost a cached hit. Goal: with metrics on, a
cached resolution keeps at least 97 % of its throughput with metrics off.

Run: ``.venv/bin/python benchmarks/metrics.py [ROUNDS]`` (needs wrk: ``apt-get install -y wrk``;
ROUNDS pairs of runs, 8 by default: about a minute in all). Two portals run side by side under
gunicorn (``gunicorn.conf.py``, 2 workers each, each its own database and metrics folder), one
with ``IBIPORTAL_METRICS=0``; after a warm-up that fills every worker's cache, wrk loads the
same cached demo item on each in alternating rounds (ABBA: a drift of the shared machine hits both
alike). Every request is a hit, counted once with metrics on
(``ibiportal_resolutions_total``), its acknowledgment and notice too; the script reads /metrics
at the end to show they were.

Two ratios, on / off: throughput (median of the rounds' ratios) and requests per CPU-second of
the workers (/proc), which other programs on the machine move less. Results go to
``benchmarks/results/metrics-<date>.txt``.
"""
from __future__ import annotations

import statistics
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.serving import (Portal, cpu_seconds, errors, first_answer, per_second, portal, require_wrk,  # noqa: E402
                                workdir, wrk, write_results)

CACHED = "/8JMKD3MGP8W/35MMLL8"  # §10.1: a demo item, found at mtc-m16c
ROUNDS = 8
SECONDS = 2
CONNECTIONS = 16
WARM_UP_SECONDS = 3
WORKERS = 2
GOAL = 0.97
T = TypeVar("T")


def scrape(base_url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(base_url + "/metrics", timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, ""


def on_off_rounds(variable: str, rounds: int, environment: Callable[[Path], dict[str, str]],
                  after: Callable[[dict[str, Portal]], T]) -> tuple[dict[str, list[dict]], T, str]:
    """Two portals side by side, ``variable`` set to 1 on one ("on") and 0 on the other ("off"),
    each with ``environment(its folder)`` too; after a warm-up, wrk loads the cached item on each
    in alternating rounds (ABBA), each run with its workers' CPU seconds. ``after(portals)`` runs
    while they still serve; its result is returned with the runs and the load average at the start."""
    require_wrk()
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    runs: dict[str, list[dict]] = {"on": [], "off": []}
    with ExitStack() as stack:
        served = {}
        for name, switch in (("on", "1"), ("off", "0")):
            folder = Path(stack.enter_context(workdir()))
            served[name] = stack.enter_context(portal(
                "benchmarks.bench_app:app", folder, workers=WORKERS, extra_args=("--max-requests", "0"),
                environment={variable: switch, **environment(folder)}))
        workers = {name: each.worker_pids() for name, each in served.items()}
        for each in served.values():
            assert first_answer(each.base_url + CACHED)[0] == 302
            wrk(each.base_url + CACHED, WARM_UP_SECONDS, CONNECTIONS)
        for round_number in range(rounds):
            for name in (("off", "on") if round_number % 2 == 0 else ("on", "off")):
                before = cpu_seconds(workers[name])
                run = wrk(served[name].base_url + CACHED, SECONDS, CONNECTIONS)
                run["cpu_seconds"] = cpu_seconds(workers[name]) - before
                runs[name].append(run)
        time.sleep(1)
        outcome = after(served)
    return runs, outcome, load_at_start


def ratio_lines(title: str, variable: str, runs: dict[str, list[dict]], rounds: int,
                load_at_start: str) -> tuple[list[str], float, float]:
    """The report's table of both portals' runs, and the two ratios on/off: throughput (median of
    the rounds' ratios) and requests per CPU-second of the workers."""
    def per_cpu_second(name: str) -> float:
        return sum(run["requests"] for run in runs[name]) / sum(run["cpu_seconds"] for run in runs[name])

    pair_ratios = [per_second(on) / per_second(off) for on, off in zip(runs["on"], runs["off"])]
    lines = [
        title,
        f"gunicorn.conf.py, {WORKERS} gthread workers each; wrk -t1 -c{CONNECTIONS} on {CACHED}, {rounds} x {SECONDS} s "
        f"per portal, alternating (ABBA); load average {load_at_start} at the start, "
        f"{Path('/proc/loadavg').read_text().split()[0]} at the end",
        f"{variable.removeprefix('IBIPORTAL_').lower():<8} {'req/s (median)':>15} {'req/CPU-s':>10} {'p50 ms':>8} "
        f"{'p99 ms':>8} {'errors':>7}",
    ]
    for name in ("off", "on"):
        rates = [per_second(run) for run in runs[name]]
        p50 = statistics.median(run["p50_us"] for run in runs[name]) / 1000
        p99 = statistics.median(run["p99_us"] for run in runs[name]) / 1000
        lines.append(f"{name:<8} {statistics.median(rates):>15.0f} {per_cpu_second(name):>10.0f} {p50:>8.2f} "
                     f"{p99:>8.2f} {sum(errors(run) for run in runs[name]):>7}")
    lines.append(f"per-round throughput ratios on/off: {', '.join(f'{r:.2f}' for r in pair_ratios)}")
    return lines, statistics.median(pair_ratios), per_cpu_second("on") / per_cpu_second("off")


def verdict(throughput_ratio: float, cpu_ratio: float) -> str:
    return (f"RATIO on/off: throughput {throughput_ratio:.3f} (median of rounds), requests per CPU-second "
            f"{cpu_ratio:.3f}; goal >= {GOAL}: " + ("met" if min(throughput_ratio, cpu_ratio) >= GOAL else "NOT met"))


def main(rounds: int = ROUNDS) -> None:
    def metrics_folder(folder: Path) -> dict[str, str]:
        (folder / "metrics").mkdir()
        return {"PROMETHEUS_MULTIPROC_DIR": str(folder / "metrics")}

    def scrapes(served: dict[str, Portal]) -> tuple[tuple[int, str], int]:
        return scrape(served["on"].base_url), scrape(served["off"].base_url)[0]

    runs, ((on_status, exposition), off_status), load_at_start = on_off_rounds(
        "IBIPORTAL_METRICS", rounds, metrics_folder, scrapes)
    hits = sum(float(line.rsplit(" ", 1)[1]) for line in exposition.splitlines()
               if line.startswith('ibiportal_resolutions_total{cache="hit",outcome="found"}'))
    lines, throughput_ratio, cpu_ratio = ratio_lines(
        "Issue 37: a cached hit with Prometheus metrics on vs off, two portals side by side, same run",
        "IBIPORTAL_METRICS", runs, rounds, load_at_start)
    lines += [
        f"/metrics: {on_status} with metrics on ({hits:.0f} hits counted, wrk counted "
        f"{sum(run['requests'] for run in runs['on'])} in the rounds, besides the warm-up), {off_status} with them off",
        verdict(throughput_ratio, cpu_ratio),
    ]
    report = "\n".join(lines) + "\n"
    print(report, end="")
    print(f"written to {write_results('metrics', report)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)
