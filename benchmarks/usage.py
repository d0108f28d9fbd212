"""Benchmark for issue 37: what counting usage costs a cached hit. Goal: with usage counted
(IBIPORTAL_USAGE=1, the default), a cached resolution keeps at least 97 % of its throughput with
it off.

Run: ``.venv/bin/python benchmarks/usage.py [ROUNDS]`` (needs wrk: ``apt-get install -y wrk``;
ROUNDS pairs of runs, 8 by default: about a minute in all). As ``benchmarks/metrics.py``: two
portals side by side under gunicorn (2 workers each, each its own database), one with
``IBIPORTAL_USAGE=0``; after a warm-up, wrk loads the same cached demo item on each in
alternating rounds (ABBA). Every request is a hit, and with usage on each is counted in its
worker's memory (``application.usage_counting``) and flushed every few seconds; at the end the
script reads the item's usage from the API, which must hold every request wrk made (flushes
included while it ran: each adds to the database without holding up a request).

Two ratios, on / off: throughput (median of the rounds' ratios) and requests per CPU-second of
the workers (/proc). Results go to ``benchmarks/results/usage-<date>.txt``.
"""
from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.metrics import CACHED, GOAL, ROUNDS, on_off_rounds, ratio_lines, verdict  # noqa: E402
from benchmarks.serving import Portal, write_results  # noqa: E402
from werkzeug.test import EnvironBuilder  # noqa: E402

from ibiportal import create_app  # noqa: E402
from ibiportal.application.usage_counting import UsageCounter, UsageKey  # noqa: E402
from ibiportal.storage.migrations import upgrade  # noqa: E402
from ibiportal.ibi.url import parse_persistent_url  # noqa: E402

#: Flushes while wrk runs (the default is 5 s: a round of 2 s would often see none).
FLUSH_SECONDS = "1"


def total(base_url: str) -> int:
    with urllib.request.urlopen(f"{base_url}/api/v1/items{CACHED}/usage", timeout=30) as answer:
        return json.load(answer)["total"]


def count_cost(calls: int = 200_000) -> float:
    """Seconds one count takes on a request (``UsageCounter.count`` of a cached entry's key), the
    best of five runs of ``calls``: what usage adds to a hit, measured apart from the load's noise."""
    counter = UsageCounter(lambda counts: None, 3600, background=False)
    key = UsageKey.of(parse_persistent_url(CACHED))
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(calls):
            counter.count(key)
        best = min(best, (time.perf_counter() - started) / calls)
    return best


def in_process_ratio(rounds: int = 20, requests_per_round: int = 2000) -> tuple[float, float, float]:
    """Cached hits served by the app itself, with no server or network around it: two apps in this
    process (usage on and off, each its own database, the on one flushing on its thread as a
    worker does) take the same prepared WSGI request in alternating rounds (ABBA); the CPU time of
    a hit (``time.process_time``, which other programs on the machine move far less than wall
    time) per round. Returns the median of the rounds' ratios off/on (the throughput kept with
    usage on, the CPU being the bottleneck) and each app's median CPU seconds per hit."""
    apps = {}
    with tempfile.TemporaryDirectory(prefix="ibiportal-bench-") as folder:
        for name, switch in (("on", True), ("off", False)):
            database = str(Path(folder) / f"{name}.sqlite")
            upgrade(database)
            apps[name] = create_app({"DATABASE": database, "SECRET_KEY": "bench", "USAGE": switch,
                                     "USAGE_FLUSH_SECONDS": 1.0, "RATELIMIT_ENABLED": False,
                                     "INSTANCE_PATH": str(Path(folder) / name)})
        environ = EnvironBuilder(path=CACHED, base_url="http://127.0.0.1:8000",
                                 environ_overrides={"REMOTE_ADDR": "127.0.0.1"}).get_environ()
        statuses: list[str] = []

        def serve(app, count: int) -> float:
            started = time.process_time()
            for _ in range(count):
                answer = app.wsgi_app(dict(environ), lambda status, headers, exc_info=None: statuses.append(status))
                b"".join(answer)
                answer.close()
            return (time.process_time() - started) / count

        for app in apps.values():
            serve(app, 200)  # the first answer fills the cache; the rest warm up
        assert set(statuses) == {"302 FOUND"}, set(statuses)
        per_hit: dict[str, list[float]] = {"on": [], "off": []}
        for round_number in range(rounds):
            for name in (("off", "on") if round_number % 2 == 0 else ("on", "off")):
                per_hit[name].append(serve(apps[name], requests_per_round))
    ratios = [off / on for on, off in zip(per_hit["on"], per_hit["off"])]
    return statistics.median(ratios), statistics.median(per_hit["on"]), statistics.median(per_hit["off"])


def main(rounds: int = ROUNDS) -> None:
    def counted(served: dict[str, Portal]) -> tuple[int, int]:
        time.sleep(float(FLUSH_SECONDS) * 2)  # the last sums flushed
        return total(served["on"].base_url), total(served["off"].base_url)

    runs, (on_total, off_total), load_at_start = on_off_rounds(
        "IBIPORTAL_USAGE", rounds, lambda folder: {"IBIPORTAL_USAGE_FLUSH_SECONDS": FLUSH_SECONDS}, counted)
    lines, throughput_ratio, cpu_ratio = ratio_lines(
        "Issue 37: a cached hit with usage counted vs not, two portals side by side, same run",
        "IBIPORTAL_USAGE", runs, rounds, load_at_start)
    measured = sum(run["requests"] for run in runs["on"])
    per_count = count_cost()
    kept, on_hit, off_hit = in_process_ratio()
    hit_cpu = sum(run["cpu_seconds"] for run in runs["off"]) / sum(run["requests"] for run in runs["off"])
    lines += [
        f"usage of {CACHED}: {on_total} resolutions counted with it on (wrk made {measured} in the rounds, "
        f"besides the warm-up and the first answer), {off_total} with it off",
        f"one count alone: {per_count * 1e6:.2f} us, {per_count / hit_cpu:.2%} of a cached hit's CPU time with "
        f"usage off ({hit_cpu * 1e6:.0f} us)",
        f"in process (the app's WSGI call, no server; 20 ABBA rounds of 2,000 hits, CPU time): "
        f"{off_hit * 1e6:.0f} us a hit off, {on_hit * 1e6:.0f} us on; throughput kept with usage on "
        f"{kept:.3f} (median of rounds); goal >= {GOAL}: " + ("met" if kept >= GOAL else "NOT met"),
        verdict(throughput_ratio, cpu_ratio),
    ]
    report = "\n".join(lines) + "\n"
    print(report, end="")
    print(f"written to {write_results('usage', report)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)
