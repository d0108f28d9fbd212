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
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.cache import CACHED  # noqa: E402
from benchmarks.metrics import ROUNDS, on_off_rounds, ratio_lines, verdict  # noqa: E402
from benchmarks.serving import Portal, write_results  # noqa: E402
from ibiportal.application.usage_counting import UsageCounter, UsageKey  # noqa: E402
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
    hit_cpu = sum(run["cpu_seconds"] for run in runs["off"]) / sum(run["requests"] for run in runs["off"])
    lines += [
        f"usage of {CACHED}: {on_total} resolutions counted with it on (wrk made {measured} in the rounds, "
        f"besides the warm-up and the first answer), {off_total} with it off",
        f"one count alone: {per_count * 1e6:.2f} us, {per_count / hit_cpu:.2%} of a cached hit's CPU time with "
        f"usage off ({hit_cpu * 1e6:.0f} us)",
        verdict(throughput_ratio, cpu_ratio),
    ]
    report = "\n".join(lines) + "\n"
    print(report, end="")
    print(f"written to {write_results('usage', report)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)
