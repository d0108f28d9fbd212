"""A cached hit on an own item against the framework's floor, in one run: the portal (``app:app``,
its ``gunicorn.conf.py``, access log on), the same portal with its hits answered through Flask's
dispatch (``benchmarks/through_flask.py``: without ``ibiportal/web/cached_hits.py``, as before it)
and a bare Flask app answering ``redirect(...)`` (``benchmarks/bare_flask.py``) under the same
gunicorn, 2 gthread workers × 8 threads each; and what recycling workers (``max_requests``) costs
of a minute's throughput.

Run: ``.venv/bin/python benchmarks/cache.py [--rounds R] [--seconds S]`` (needs wrk:
``apt-get install -y wrk``); ``cache.py profile [--requests N]``: the CPU of a hit in one process,
through the layer and through Flask (alternating blocks), and cProfile's top entries of each. The portal's collection is the one ``benchmarks/uncached.py`` makes;
:data:`HELD` of its items are asked in turn, every one a cache hit after the warm-up (entries live
an hour; the access log's ``cache=hit`` count says so), each hit sending its acknowledgment (Table 8.11) to the own
Archive as a resolution does. Rounds alternate the servers (A B C, C B A, …).

Figures, all from this run: requests per second (median of rounds) and requests per CPU-second of
the server's workers (/proc) for each; the judging ratio is the portal's throughput over the bare
app's (median of the rounds' ratios; goal ≥ 0.8). Recycling costs ``workers × (requests a second per worker / max_requests) × 60 × that CPU`` of a
minute's ``60 × cores`` CPU-seconds, at the throughput measured here (goal ≤ 2 %), with the
``max_requests`` of ``gunicorn.conf.py`` (recycling is off during the rounds, so that the CPU of the
same workers is read). Results go to ``benchmarks/results/cache-<date>.txt``.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
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
SYSTEMS = ("bare Flask redirect", "portal, cached hit", "portal, hit through Flask")


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
    options.add_argument("mode", nargs="?", choices=("measure", "profile"), default="measure")
    options.add_argument("--rounds", type=int, default=ROUNDS)
    options.add_argument("--seconds", type=int, default=SECONDS)
    options.add_argument("--requests", type=int, default=20_000, help="profile: hits measured on each path")
    arguments = options.parse_args()
    (profile if arguments.mode == "profile" else measure)(arguments)


def hit_environ(path: str) -> dict:
    """What gunicorn hands the app for ``GET path`` from wrk."""
    return {"REQUEST_METHOD": "GET", "SCRIPT_NAME": "", "PATH_INFO": path, "QUERY_STRING": "", "RAW_URI": path,
            "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1:8000", "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": "40000",
            "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
            "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False}


def profile(arguments: argparse.Namespace) -> None:
    """Hits in this process, each a call of the WSGI app as gunicorn makes it: the CPU of one
    through the cached-hit layer and through Flask (blocks of 1,000 alternating), then cProfile's
    top entries of each path."""
    from ibiportal import create_app

    def start_response(status, headers, exc_info=None):  # type: ignore[no-untyped-def]
        assert status.startswith("302"), status

    with workdir() as folder:
        database = copy_database(collection(ITEMS), Path(folder))
        app = create_app({"DATABASE": str(database), "SECRET_KEY": "benchmark", "DEMO_ARCHIVES": False,
                          "INSTANCE_PATH": folder, "TRUSTED_HOSTS": ["127.0.0.1", "localhost"],
                          "RESOLUTION_CACHE_SECONDS": 3600})  # no entry expires within the measure
        paths = {"the layer": app.wsgi_app, "through Flask": app.wsgi_app.app.wsgi_app}  # type: ignore[attr-defined]
        environs = [hit_environ("/" + ibip) for ibip in ibips(HELD)]

        def hits(wsgi, count: int) -> None:  # type: ignore[no-untyped-def]
            for number in range(count):
                body = wsgi(dict(environs[number % HELD]), start_response)
                b"".join(body)
                getattr(body, "close", lambda: None)()

        hits(paths["through Flask"], 2 * HELD)  # resolved once, then cached
        cpu = {name: 0.0 for name in paths}
        for _ in range(max(1, arguments.requests // 1000)):
            for name, wsgi in paths.items():
                started = time.process_time()
                hits(wsgi, 1000)
                cpu[name] += time.process_time() - started
        out = io.StringIO()
        for name, wsgi in paths.items():
            hits(wsgi, HELD)  # entries fresh again
            profiler = cProfile.Profile(time.process_time)
            profiler.enable()
            hits(wsgi, 5000)
            profiler.disable()
            out.write(f"--- {name}: 5000 hits under cProfile, by cumulative CPU\n")
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
    blocks = max(1, arguments.requests // 1000) * 1000
    per_hit = {name: seconds / blocks * 1e6 for name, seconds in cpu.items()}
    header = (f"CPU of a cached hit in one process ({blocks} hits on each path, blocks of 1,000 alternating; load "
              f"average {Path('/proc/loadavg').read_text().split()[0]}): the layer {per_hit['the layer']:.0f} µs, "
              f"through Flask {per_hit['through Flask']:.0f} µs ({per_hit['the layer'] / per_hit['through Flask']:.2f})")
    text = out.getvalue().replace(str(ROOT) + "/", "").replace(str(Path(sys.prefix)), "<venv>")
    text = "\n".join(line for line in text.splitlines() if line.strip())
    print(header)
    print(text)
    print(f"written to {write_results('cache-profile', header + chr(10) + text + chr(10))}")


def measure(arguments: argparse.Namespace) -> None:
    require_wrk()
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    runs: dict[str, list[dict]] = {name: [] for name in SYSTEMS}
    with ExitStack() as stack:
        folder = Path(stack.enter_context(workdir()))
        database = copy_database(collection(ITEMS), folder)
        # Entries outlive the run: every measured request is a hit (with the default 30 s, each
        # worker resolved each item again every 30 s, misses of 6 ms that weighed on the hits' figures).
        environment = {"IBIPORTAL_DATABASE": str(database), "IBIPORTAL_DEMO_ARCHIVES": "0",
                       "IBIPORTAL_TRUSTED_HOSTS": "127.0.0.1,localhost", "IBIPORTAL_RESOLUTION_CACHE_SECONDS": "3600"}
        bare_folder = folder / "bare"
        bare_folder.mkdir()
        flask_folder = folder / "through-flask"
        flask_folder.mkdir()
        servers = {SYSTEMS[0]: stack.enter_context(bare_flask(bare_folder)),
                   SYSTEMS[1]: stack.enter_context(portal("app:app", folder, workers=WORKERS, environment=environment,
                                                          extra_args=("--max-requests", "0"))),
                   SYSTEMS[2]: stack.enter_context(portal("benchmarks.through_flask:app", flask_folder, workers=WORKERS,
                                                          environment=environment, extra_args=("--max-requests", "0")))}
        start_cpu = worker_start_cpu(environment, folder)
        paths = paths_file(folder, "held", ["/" + ibip for ibip in ibips(HELD)])
        for server in servers.values():  # every worker resolves the items once, pools warm
            wrk(server.base_url + "/", 3, CONNECTIONS, threads=2, script="wrk_paths.lua", args=(str(paths), "2"))
        logs_before = {name: len(servers[name].log_text()) for name in SYSTEMS[1:]}
        for number in range(arguments.rounds):
            for name in (SYSTEMS if number % 2 == 0 else tuple(reversed(SYSTEMS))):
                runs[name].append(run_round(servers[name], paths, arguments.seconds))
        time.sleep(1)
        logs = {name: servers[name].log_text()[logs_before[name]:] for name in SYSTEMS[1:]}
    lines = report(runs, logs, arguments, load_at_start, start_cpu)
    print("\n".join(lines))
    print(f"written to {write_results('cache', chr(10).join(lines) + chr(10))}")


def report(runs, logs: dict[str, str], arguments, load_at_start: str, start_cpu: float) -> list[str]:  # type: ignore[no-untyped-def]
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
    def pairs(name: str) -> list[float]:
        return [rate(hit) / rate(floor) for hit, floor in zip(runs[name], runs[SYSTEMS[0]])]

    ratio = statistics.median(pairs(SYSTEMS[1]))
    cpu_ratio = per_cpu_second(SYSTEMS[1]) / per_cpu_second(SYSTEMS[0])
    before = statistics.median(pairs(SYSTEMS[2]))
    config = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    per_worker = statistics.median(rate(run) for run in runs[SYSTEMS[1]]) / WORKERS
    restarts_a_minute = WORKERS * per_worker * 60 / config["max_requests"]
    recycling = restarts_a_minute * start_cpu / (60 * (os.cpu_count() or 1))
    lines += [
        *(f"{name} requests in the access log: {log.count('cache=hit')} cache hits, {log.count('cache=miss')} resolved"
          for name, log in logs.items()),
        *(f"per-round throughput ratios {name}/bare: {', '.join(f'{each:.2f}' for each in pairs(name))}"
          for name in SYSTEMS[1:]),
        f"recycling: a worker's start costs {start_cpu:.2f} CPU-s; max_requests {config['max_requests']} "
        f"(+ up to {config['max_requests_jitter']}) at {per_worker:.0f} req/s per worker: {restarts_a_minute:.2f} "
        f"restarts a minute, {recycling * 100:.2f} % of a minute's CPU (goal <= {RECYCLING_GOAL * 100:.0f} %: "
        f"{'met' if recycling <= RECYCLING_GOAL else 'NOT met'}; at the issue's 1,300 req/s: "
        f"{1300 * 60 / config['max_requests'] * start_cpu / (60 * (os.cpu_count() or 1)) * 100:.2f} %)",
        f"RATIO portal cached hit / bare Flask: throughput {ratio:.2f} (median of rounds), requests per CPU-second "
        f"{cpu_ratio:.2f}; goal >= {GOAL}: {'met' if ratio >= GOAL else 'NOT met'}",
        f"before the layer (hit through Flask) / bare Flask: throughput {before:.2f}, requests per CPU-second "
        f"{per_cpu_second(SYSTEMS[2]) / per_cpu_second(SYSTEMS[0]):.2f}",
    ]
    return lines


if __name__ == "__main__":
    main()
