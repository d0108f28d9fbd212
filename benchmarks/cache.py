"""A cached hit on an own item against the framework's floor, in one run: the portal (``app:app``,
its ``gunicorn.conf.py``, access log on) and a bare Flask app answering ``redirect(...)``
(``benchmarks/bare_flask.py``) under the same gunicorn, 2 gthread workers × 8 threads each; and
what recycling workers (``max_requests``) costs of a minute's throughput.

Run: ``.venv/bin/python benchmarks/cache.py [--rounds R] [--seconds S]`` (needs wrk:
``apt-get install -y wrk``). The portal's collection is the one ``benchmarks/uncached.py`` makes;
:data:`HELD` of its items are asked in turn, every one a cache hit after the warm-up (the access
log's ``cache=hit`` count says so), each hit sending its acknowledgment (Table 8.11) to the own
Archive as a resolution does. Rounds alternate the two servers (A B, B A, …).

Figures, all from this run: requests per second (median of rounds) and requests per CPU-second of
the server's workers (/proc) for each; the judging ratio is the portal's throughput over the bare
app's (median of the rounds' ratios; goal ≥ 0.8). Recycling costs ``workers × (requests a second per worker / max_requests) × 60 × that CPU`` of a
minute's ``60 × cores`` CPU-seconds, at the throughput measured here (goal ≤ 2 %), with the
``max_requests`` of ``gunicorn.conf.py`` (recycling is off during the rounds, so that the CPU of the
same workers is read). Results go to ``benchmarks/results/cache-<date>.txt``.
"""
from __future__ import annotations

import argparse
import os
import resource
import runpy
import statistics
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.collection import ibips  # noqa: E402
from benchmarks.peers import WORKERS, bare_flask  # noqa: E402
from benchmarks.serving import ROOT, portal, require_wrk, workdir, wrk, write_results  # noqa: E402
from benchmarks.uncached import ITEMS, collection, copy_database, latencies_and_statuses, paths_file, run_round  # noqa: E402

HELD = 100
ROUNDS = 10
SECONDS = 5
CONNECTIONS = 32
GOAL = 0.8
RECYCLING_GOAL = 0.02
SYSTEMS = ("bare Flask redirect", "portal, cached hit")


def worker_start_cpu(environment: dict[str, str], folder: Path) -> float:
    """The CPU seconds a worker's start costs: a process importing the app (``app.py``, which makes
    it) and answering one hit, as a new worker does before it serves (with the interpreter's own
    start, which a forked worker does not pay: an upper bound)."""
    metrics = folder / "start-metrics"
    metrics.mkdir()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", "import app; app.app.test_client().get('/" + ibips(1)[0] + "')"],
                   cwd=ROOT, env={**os.environ, **environment, "PROMETHEUS_MULTIPROC_DIR": str(metrics)}, check=True,
                   capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--rounds", type=int, default=ROUNDS)
    options.add_argument("--seconds", type=int, default=SECONDS)
    arguments = options.parse_args()
    require_wrk()
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    runs: dict[str, list[dict]] = {name: [] for name in SYSTEMS}
    with ExitStack() as stack:
        folder = Path(stack.enter_context(workdir()))
        database = copy_database(collection(ITEMS), folder)
        environment = {"IBIPORTAL_DATABASE": str(database), "IBIPORTAL_DEMO_ARCHIVES": "0",
                       "IBIPORTAL_TRUSTED_HOSTS": "127.0.0.1,localhost"}
        bare_folder = folder / "bare"
        bare_folder.mkdir()
        servers = {SYSTEMS[0]: stack.enter_context(bare_flask(bare_folder)),
                   SYSTEMS[1]: stack.enter_context(portal("app:app", folder, workers=WORKERS, environment=environment,
                                                          extra_args=("--max-requests", "0")))}
        start_cpu = worker_start_cpu(environment, folder)
        paths = paths_file(folder, "held", ["/" + ibip for ibip in ibips(HELD)])
        for server in servers.values():  # every worker resolves the items once, pools warm
            wrk(server.base_url + "/", 3, CONNECTIONS, threads=2, script="wrk_paths.lua", args=(str(paths), "2"))
        log_before = len(servers[SYSTEMS[1]].log_text())
        for number in range(arguments.rounds):
            for name in (SYSTEMS if number % 2 == 0 else tuple(reversed(SYSTEMS))):
                runs[name].append(run_round(servers[name], paths, arguments.seconds))
        time.sleep(1)
        log = servers[SYSTEMS[1]].log_text()[log_before:]
    lines = report(runs, log, arguments, load_at_start, start_cpu)
    print("\n".join(lines))
    print(f"written to {write_results('cache', chr(10).join(lines) + chr(10))}")


def report(runs, log: str, arguments, load_at_start: str, start_cpu: float) -> list[str]:  # type: ignore[no-untyped-def]
    def rate(run: dict) -> float:
        return run["requests"] / (run["duration_us"] / 1e6)

    def per_cpu_second(name: str) -> float:
        return sum(run["requests"] for run in runs[name]) / sum(run["cpu_seconds"] for run in runs[name])

    lines = [
        f"Cached hit on an own item against a bare Flask redirect, the same gunicorn ({WORKERS} gthread workers x 8 "
        f"threads, access logs on); {HELD} items in turn; wrk -t2 -c{CONNECTIONS}, {arguments.rounds} rounds x "
        f"{arguments.seconds} s per server, alternating; load average {load_at_start} at the start, "
        f"{Path('/proc/loadavg').read_text().split()[0]} at the end",
        f"{'server':<24} {'req/s (median)':>14} {'req/CPU-s':>10} {'CPU/request':>12} {'p50 ms':>7} {'p99 ms':>7} statuses",
    ]
    for name in SYSTEMS:
        lines.append(f"{name:<24} {statistics.median(rate(run) for run in runs[name]):>14.0f} "
                     f"{per_cpu_second(name):>10.0f} {1000 / per_cpu_second(name):>10.2f}ms "
                     f"{latencies_and_statuses(runs[name])}")
    pairs = [rate(hit) / rate(floor) for hit, floor in zip(runs[SYSTEMS[1]], runs[SYSTEMS[0]])]
    ratio = statistics.median(pairs)
    cpu_ratio = per_cpu_second(SYSTEMS[1]) / per_cpu_second(SYSTEMS[0])
    config = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    per_worker = statistics.median(rate(run) for run in runs[SYSTEMS[1]]) / WORKERS
    restarts_a_minute = WORKERS * per_worker * 60 / config["max_requests"]
    recycling = restarts_a_minute * start_cpu / (60 * (os.cpu_count() or 1))
    lines += [
        f"portal requests in the access log: {log.count('cache=hit')} cache hits, {log.count('cache=miss')} resolved",
        f"per-round throughput ratios portal/bare: {', '.join(f'{each:.2f}' for each in pairs)}",
        f"recycling: a worker's start costs {start_cpu:.2f} CPU-s; max_requests {config['max_requests']} "
        f"(+ up to {config['max_requests_jitter']}) at {per_worker:.0f} req/s per worker: {restarts_a_minute:.2f} "
        f"restarts a minute, {recycling * 100:.2f} % of a minute's CPU (goal <= {RECYCLING_GOAL * 100:.0f} %: "
        f"{'met' if recycling <= RECYCLING_GOAL else 'NOT met'}; at the issue's 1,300 req/s: "
        f"{1300 * 60 / config['max_requests'] * start_cpu / (60 * (os.cpu_count() or 1)) * 100:.2f} %)",
        f"RATIO portal cached hit / bare Flask: throughput {ratio:.2f} (median of rounds), requests per CPU-second "
        f"{cpu_ratio:.2f}; goal >= {GOAL}: {'met' if ratio >= GOAL else 'NOT met'}",
    ]
    return lines


if __name__ == "__main__":
    main()
