"""An uncached resolution of an own item against a real peer resolver, in one run: the portal
beside arklet (the Internet Archive's ARK resolver, one database read a request), with and
without persistent database connections, all under gunicorn on loopback.

Run: ``.venv/bin/python benchmarks/uncached.py [--items N] [--rounds R] [--seconds S] [--demo]``
(needs wrk: ``apt-get install -y wrk``; arklet is installed from PyPI into ``benchmarks/.peers/``
on the first run: ``benchmarks/peers.py``), or ``… uncached.py profile [--items N]`` for the
profile of the same requests in one process (cProfile, the top entries by own and by cumulative
time).

The portal's collection is made by the importer (``benchmarks/collection.py``, ``--items`` items,
kept in ``benchmarks/.peers/`` for the next run); arklet's database holds as many ARKs bound to
URLs. Each wrk thread walks the list of items from its own place (``wrk_paths.lua``), so no two
requests in flight ask the same item, and the portal's cache keeps an outcome 1 s
(``IBIPORTAL_RESOLUTION_CACHE_SECONDS=1``) while the list takes longer than that to come round:
every request resolves (the access log's ``cache=miss`` count says so), its outcome is cached as
usual, and its trace is stored. The demo Archives are off (a production portal's own items), unless
``--demo``.

Every server has 2 gthread workers × 8 threads and its access log on (``benchmarks/peers.py``).
The rounds alternate the systems (A B C, C B A, …) so that other programs on the shared machine
weigh on all alike. Figures per system: requests per second (median of rounds), the server's CPU
per request (its workers' user + system time over all rounds, /proc), p99 latency, and how many
of the 2 cores the server kept busy (its CPU seconds over the wall-clock seconds). The judging
figures are ratios: the portal's throughput over arklet's with persistent connections (goal ≥ 1),
and its CPU per request (goal ≤ 2 ms). Results are appended to
``benchmarks/results/uncached-<date>.txt``.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import statistics
import sys
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.collection import ibips, kept_collection  # noqa: E402
from benchmarks.peers import PEERS, WORKERS, arklet, arklet_database, arklet_paths  # noqa: E402
from benchmarks.serving import cpu_seconds, portal, require_wrk, workdir, wrk, write_results  # noqa: E402

ITEMS = 20_000
ROUNDS = 6
SECONDS = 5
CONNECTIONS = 32
WRK_THREADS = 2
GOAL_CPU_MS = 2.0
SYSTEMS = ("arklet", "arklet, persistent connections", "portal, uncached")


def collection(count: int) -> Path:
    """A SQLite database of ``count`` imported items, made once and kept in ``benchmarks/.peers``."""
    return kept_collection(PEERS / "collections" / f"items-{count}.sqlite", count)


def copy_database(source: Path, folder: Path) -> Path:
    """A fresh copy of a kept database for one run (the run writes traces into it)."""
    target = folder / "portal.sqlite"
    shutil.copyfile(source, target)
    return target


def paths_file(folder: Path, name: str, paths: list[str]) -> Path:
    path = folder / f"{name}.paths"
    path.write_text("\n".join(paths) + "\n")
    return path


def portal_environment(database: Path, demo: bool) -> dict[str, str]:
    return {"IBIPORTAL_DATABASE": str(database), "IBIPORTAL_RESOLUTION_CACHE_SECONDS": "1",
            "IBIPORTAL_DEMO_ARCHIVES": "1" if demo else "0", "IBIPORTAL_TRUSTED_HOSTS": "127.0.0.1,localhost"}


def run_round(server, paths: Path, seconds: int) -> dict:
    """One wrk round over ``paths``; the server's CPU seconds and the wall-clock ones with it."""
    pids = server.worker_pids()
    before, started = cpu_seconds(pids), time.monotonic()
    result = wrk(server.base_url + "/", seconds, CONNECTIONS, threads=WRK_THREADS, script="wrk_paths.lua",
                 args=(str(paths), str(WRK_THREADS)))
    result["wall_seconds"] = time.monotonic() - started
    result["cpu_seconds"] = cpu_seconds([pid for pid in pids if Path(f"/proc/{pid}").exists()]) - before
    return result


def measure(arguments: argparse.Namespace) -> None:
    require_wrk()
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    runs: dict[str, list[dict]] = {name: [] for name in SYSTEMS}
    with ExitStack() as stack:
        folder = Path(stack.enter_context(workdir()))
        database = copy_database(collection(arguments.items), folder)
        ark_database = arklet_database(folder, arguments.items)
        servers = {
            SYSTEMS[0]: stack.enter_context(arklet(ark_database, persistent=False)),
            SYSTEMS[1]: stack.enter_context(arklet(ark_database, persistent=True)),
            SYSTEMS[2]: stack.enter_context(portal("app:app", folder, workers=WORKERS,
                                                   environment=portal_environment(database, arguments.demo))),
        }
        paths = {SYSTEMS[0]: paths_file(folder, "arklet", arklet_paths(arguments.items)),
                 SYSTEMS[1]: paths_file(folder, "arklet", arklet_paths(arguments.items)),
                 SYSTEMS[2]: paths_file(folder, "portal", ["/" + ibip for ibip in ibips(arguments.items)])}
        for name, server in servers.items():  # connections, imports and pools warm
            wrk(server.base_url + "/", 2, CONNECTIONS, threads=WRK_THREADS, script="wrk_paths.lua",
                args=(str(paths[name]), str(WRK_THREADS)))
        log_before = len(servers[SYSTEMS[2]].log_text())
        for number in range(arguments.rounds):
            for name in (SYSTEMS if number % 2 == 0 else tuple(reversed(SYSTEMS))):
                runs[name].append(run_round(servers[name], paths[name], arguments.seconds))
        time.sleep(1)
        log = servers[SYSTEMS[2]].log_text()[log_before:]
    lines = report(runs, log, arguments, load_at_start)
    print("\n".join(lines))
    print(f"written to {write_results('uncached', chr(10).join(lines) + chr(10))}")


def report(runs: dict[str, list[dict]], log: str, arguments: argparse.Namespace, load_at_start: str) -> list[str]:
    def rate(run: dict) -> float:
        return run["requests"] / (run["duration_us"] / 1e6)

    def cpu_ms(name: str) -> float:
        return sum(run["cpu_seconds"] for run in runs[name]) / sum(run["requests"] for run in runs[name]) * 1000

    def busy(name: str) -> float:
        return sum(run["cpu_seconds"] for run in runs[name]) / sum(run["wall_seconds"] for run in runs[name])

    lines = [
        f"Uncached own-item resolution against arklet {arguments.items} items (ARKs), distinct in flight; "
        f"gunicorn {WORKERS} gthread workers x 8 threads, access logs on; demo Archives "
        f"{'on' if arguments.demo else 'off'}; wrk -t{WRK_THREADS} -c{CONNECTIONS}, {arguments.rounds} rounds x "
        f"{arguments.seconds} s per system, alternating; load average {load_at_start} at the start, "
        f"{Path('/proc/loadavg').read_text().split()[0]} at the end",
        f"{'system':<34} {'req/s (median)':>14} {'CPU/request':>12} {'cores busy':>10} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'statuses'}",
    ]
    for name in SYSTEMS:
        lines.append(f"{name:<34} {statistics.median(rate(run) for run in runs[name]):>14.0f} "
                     f"{cpu_ms(name):>10.2f}ms {busy(name):>10.2f} {latencies_and_statuses(runs[name])}")
    misses, hits = log.count("cache=miss"), log.count("cache=hit")
    pairs = [rate(portal_run) / rate(peer) for portal_run, peer in zip(runs[SYSTEMS[2]], runs[SYSTEMS[1]])]
    ratio, cpu = statistics.median(pairs), cpu_ms(SYSTEMS[2])
    lines += [
        f"portal requests in the access log: {misses} resolved (cache=miss), {hits} cache hits",
        f"per-round throughput ratios portal/arklet persistent: {', '.join(f'{each:.2f}' for each in pairs)}",
        f"RATIO portal/arklet (persistent connections) throughput {ratio:.2f} (goal >= 1: "
        f"{'met' if ratio >= 1 else 'NOT met'}); portal CPU per request {cpu:.2f} ms (goal <= {GOAL_CPU_MS}: "
        f"{'met' if cpu <= GOAL_CPU_MS else 'NOT met'}); portal keeps {busy(SYSTEMS[2]):.2f} of "
        f"{os.cpu_count()} cores busy",
    ]
    return lines


def latencies_and_statuses(runs: list[dict]) -> str:
    """A system's median p50 and p99 over its rounds (ms), and its answers counted by status."""
    statuses: dict[str, int] = {}
    for run in runs:
        for status, count in run["statuses"].items():
            statuses[status] = statuses.get(status, 0) + count
    return (f"{statistics.median(run['p50_us'] for run in runs) / 1000:>7.2f} "
            f"{statistics.median(run['p99_us'] for run in runs) / 1000:>7.2f} "
            f"{', '.join(f'{status}: {count}' for status, count in sorted(statuses.items()))}")


def profile(arguments: argparse.Namespace) -> None:
    """The requests of :func:`measure`, in this process through the WSGI app (Flask's test
    client), under cProfile: what an uncached resolution spends its time on."""
    from ibiportal import create_app

    with workdir() as folder:
        database = copy_database(collection(arguments.items), Path(folder))
        app = create_app({"DATABASE": str(database), "SECRET_KEY": "benchmark", "DEMO_ARCHIVES": arguments.demo,
                          "RESOLUTION_CACHE_SECONDS": 1, "INSTANCE_PATH": folder, "TRUSTED_HOSTS": ["localhost"]})
        client = app.test_client()
        paths = ["/" + ibip for ibip in ibips(arguments.items)]
        for path in paths[:50]:  # imports, pools and first connections
            assert client.get(path).status_code == 302
        measured = paths[50:50 + arguments.requests]
        cpu = time.process_time()
        for path in measured:
            client.get(path)
        unprofiled = (time.process_time() - cpu) / len(measured) * 1000
        profiler = cProfile.Profile(time.process_time)  # CPU, not the waits of a shared machine
        profiler.enable()
        for path in paths[50 + arguments.requests:50 + 2 * arguments.requests]:
            client.get(path)
        profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(r"ibiportal|sqlalchemy|json|flask", 30)
    stats.sort_stats("tottime").print_stats(25)
    text = out.getvalue().replace(str(Path(__file__).resolve().parent.parent) + "/", "")
    text = "\n".join(line for line in text.splitlines() if line.strip())
    header = (f"Profile of {arguments.requests} uncached own-item resolutions in one process (demo Archives "
              f"{'on' if arguments.demo else 'off'}): {unprofiled:.2f} ms of CPU each without the profiler")
    print(header)
    print(text)
    print(f"written to {write_results('uncached-profile', header + chr(10) + text + chr(10))}")


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("mode", nargs="?", choices=("measure", "profile"), default="measure")
    options.add_argument("--items", type=int, default=ITEMS, help="items in the collection (and ARKs)")
    options.add_argument("--rounds", type=int, default=ROUNDS)
    options.add_argument("--seconds", type=int, default=SECONDS, help="length of each round")
    options.add_argument("--requests", type=int, default=1000, help="profile: resolutions measured")
    options.add_argument("--demo", action="store_true", help="the demo Archives take part (IBIPORTAL_DEMO_ARCHIVES=1)")
    arguments = options.parse_args()
    (profile if arguments.mode == "profile" else measure)(arguments)


if __name__ == "__main__":
    main()
