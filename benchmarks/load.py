"""Load test: the portal under gunicorn (``gunicorn.conf.py``: several workers) on loopback, wrk
with fixed connections for a bounded time, cached hits alone against the mix, in one run.

Run: ``.venv/bin/python benchmarks/load.py [--postgres] [--round-seconds N]`` (needs wrk:
``apt-get install -y wrk``). ``--postgres``: two portal nodes sharing a throwaway PostgreSQL
(fsync on) and Redis (``tests/servers.py``; Debian's ``postgresql`` and ``redis-server``), two
workers each, the connections split between them, as a deployment of several nodes runs;
without it, one node on SQLite. ``--round-seconds`` sets each round's length (20 s; 150 s makes
the four rounds a 10-minute run, for memory).

The mix (``MIX``), requested in turn on every connection, with the demo Archives that take part
in ``GET /<persistent URL>`` (the well-behaved ones: every Archive answers):

* five found URLs (§10.1, §10.2, a query passed on to the item, an oai_dc record, an edition
  chain): resolved once per worker, then served from its cache (30 s) — 302;
* a deleted item — 410, and an IBI nobody holds — 404: stable alerts, resolved once per worker
  and then served from the cache for ``IBIPORTAL_NEGATIVE_CACHE_SECONDS`` (10 s); identical
  requests arriving while one resolves join it (single flight);
* a bad modifier: refused before any resolution — 400.

Rounds alternate (``ROUNDS``: hits, mix, mix, hits) so that other programs on the shared machine
weigh on both alike. The figure that judges is the ratio of the client's p99 over the mix to the
p99 of cached hits alone (goal ≤ 2), with zero errors; with two nodes, a round's p99 is the
larger of the two nodes' (each node's wrk measures its own connections). An error is a connection error, no answer
within ``CLIENT_TIMEOUT_SECONDS``, or a status other than the one its URL must get; the statuses
are counted and checked against the mix's proportions. The access log gives the time in the
server per kind of request and how many requests resolved (``cache=miss``) or joined another's
resolution (``cache=joined``). Memory: the resident set (VmRSS) of every worker, sampled from
/proc every ``SAMPLE_SECONDS``, with worker recycling off for the run so that a leak would show;
the first interval is the ramp, growth is measured after it. Results are appended to
``benchmarks/results/load-<date>.txt``.
"""
from __future__ import annotations

import argparse
import os
import re
import runpy
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.serving import ROOT, portal, require_wrk, rss_kib, thread_count, workdir, wrk, write_results  # noqa: E402

MIX = {
    "/8JMKD3MGP8W/35MMLL8": 302,  # §10.1
    "/8JMKD3MGP8W/35MMLL8!:(oai_dc)": 302,  # §10.2: next edition, then its metadata
    "/8JMKD3MGP8W/35MMLL8?page=2": 302,  # a query passed on to the item
    "/D7N2U8HW/3QDQH85:(oai_dc)": 302,  # a scenario item's oai_dc record
    "/D7N2U8HW/39G4TD2!": 302,  # an edition chain over three Archives
    "/D7N2U8HW/3GBBQK2": 410,  # deleted: a stable alert
    "/8JMKD3MGP8W/34PGRBS": 404,  # held by nobody, every Archive answering: a stable alert
    "/8JMKD3MGP8W/35MMLL8::": 400,  # bad modifier
}
HITS = {path: status for path, status in MIX.items() if status == 302}
ROUNDS = ("hits", "mix", "mix", "hits")
SECONDS = 20  # per round
CONNECTIONS = 32
WRK_THREADS = 2
SAMPLE_SECONDS = 10
WARM_UP_SECONDS = 5
WORKERS_PER_NODE = 2  # with --postgres: two nodes of two workers on the machine's cores
#: A request unanswered this long is an error: gunicorn.conf.py's worker timeout, three times a
#: resolution's 10 s deadline (an uncached resolution may legitimately take that deadline).
CLIENT_TIMEOUT_SECONDS = 30


#: status, milliseconds and cache state of a line of gunicorn.conf.py's access log.
ACCESS_LINE = re.compile(r'" (\d{3}) \S+ (\d+)ms cache=(\S+) ')
KINDS = {"302": "302 found", "410": "410 deleted", "404": "404 not found", "400": "400 bad modifier"}


def paths_arguments(paths: dict[str, int]) -> tuple[str, str]:
    """What ``wrk_paths.lua`` is given: a file listing ``paths`` (one a line, made once per list) and
    wrk's thread count (each thread starts at its own place in the list)."""
    listed = Path(tempfile.gettempdir()) / f"ibiportal-load-{os.getpid()}-{abs(hash(tuple(paths)))}.paths"
    if not listed.exists():
        listed.write_text("\n".join(paths) + "\n")
    return str(listed), str(WRK_THREADS)


def percentile(values: list[int], percent: int) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, len(ordered) * percent // 100)]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def status_of(url: str) -> tuple[int, float]:
    """Status and seconds of one GET, the redirect not followed."""
    opener = urllib.request.build_opener(_NoRedirect)
    start = time.perf_counter()
    try:
        status = opener.open(url, timeout=30).status
    except urllib.error.HTTPError as answer:
        status = answer.code
    return status, time.perf_counter() - start


def sample(start: float, workers: list[int]) -> tuple[float, dict[int, int], int]:
    return time.monotonic() - start, {pid: rss_kib(pid) for pid in workers}, sum(map(thread_count, workers))


def load_round(nodes, paths: dict[str, int], seconds: int, start: float, workers: list[int], samples: list) -> dict:
    """One wrk round on ``paths`` in turn, against every node at once (the connections split
    between them), memory sampled meanwhile; the summary (the larger p50/p90/p99/max of the
    nodes, the sums of the rest) and the access logs of the round."""
    results: list[dict] = [{} for _ in nodes]

    def run(index: int) -> None:
        results[index] = wrk(nodes[index].base_url + "/", seconds, CONNECTIONS // len(nodes), threads=WRK_THREADS,
                             script="wrk_paths.lua", args=paths_arguments(paths), timeout_seconds=CLIENT_TIMEOUT_SECONDS)

    logs_before = [len(node.log_text()) for node in nodes]
    loads = [threading.Thread(target=run, args=(index,)) for index in range(len(nodes))]
    for load in loads:
        load.start()
    while any(load.is_alive() for load in loads):
        samples.append(sample(start, workers))
        deadline = time.monotonic() + SAMPLE_SECONDS
        for load in loads:
            load.join(max(0.0, deadline - time.monotonic()))
    time.sleep(1)  # requests still in flight when wrk stopped are logged
    result = {name: max(each[name] for each in results) for name in ("p50_us", "p90_us", "p99_us", "max_us", "duration_us")}
    for name in ("requests", "connect_errors", "read_errors", "write_errors", "timeouts"):
        result[name] = sum(each[name] for each in results)
    result["statuses"] = {}
    for each in results:
        for status, count in each["statuses"].items():
            result["statuses"][status] = result["statuses"].get(status, 0) + count
    result["log"] = "".join(node.log_text()[before:] for node, before in zip(nodes, logs_before))
    return result


def errors_of(result: dict, paths: dict[str, int]) -> tuple[int, int, int, list[int]]:
    """Unexpected statuses, socket errors and timeouts, statuses off the mix's shares (count, list)."""
    statuses = {int(status): count for status, count in result["statuses"].items()}
    answered = sum(statuses.values())
    wrong = sum(count for status, count in statuses.items() if status not in set(paths.values()))
    socket_errors = sum(result[name] for name in ("connect_errors", "read_errors", "write_errors", "timeouts"))
    expected_share = {status: list(paths.values()).count(status) / len(paths) for status in set(paths.values())}
    off_share = [status for status, share in expected_share.items()
                 if abs(statuses.get(status, 0) - share * answered) > CONNECTIONS + 0.02 * answered]
    return wrong + socket_errors + len(off_share), wrong, socket_errors, off_share


def nodes_of(stack: ExitStack, postgres: bool) -> list:
    """One node on SQLite, or two on a throwaway PostgreSQL and Redis; each serving the app with
    recycling off, so that a leak would show."""
    if not postgres:
        folder = Path(stack.enter_context(workdir()))
        return [stack.enter_context(portal("app:app", folder, extra_args=("--max-requests", "0")))]
    from tests.servers import PostgresServer, RedisServer  # only this mode needs the servers

    database_server, redis = PostgresServer.start(durable=True), RedisServer.start()
    stack.callback(database_server.stop)
    stack.callback(redis.stop)
    database = database_server.new_database()
    nodes = []
    for _ in range(2):
        folder = stack.enter_context(workdir())
        environment = {"IBIPORTAL_DATABASE": database, "IBIPORTAL_REDIS_URL": redis.url, "IBIPORTAL_INSTANCE": folder}
        nodes.append(stack.enter_context(portal("app:app", Path(folder), workers=WORKERS_PER_NODE,
                                                extra_args=("--max-requests", "0"), environment=environment)))
    return nodes


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--postgres", action="store_true", help="two nodes on PostgreSQL and Redis")
    options.add_argument("--round-seconds", type=int, default=SECONDS, help="length of each round")
    options.add_argument("--warm-up-seconds", type=int, default=WARM_UP_SECONDS,
                         help="the mix before the rounds (120: caches expired and refilled, thread pools at their size)")
    arguments = options.parse_args()
    require_wrk()
    load_at_start = Path("/proc/loadavg").read_text().split()[0]  # other programs on the machine
    samples: list[tuple[float, dict[int, int], int]] = []  # seconds, RSS kB per worker, threads in all
    rounds: list[tuple[str, dict]] = []
    with ExitStack() as stack:
        nodes = nodes_of(stack, arguments.postgres)
        workers = [pid for node in nodes for pid in node.worker_pids()]
        for node in nodes:
            for path, expected in MIX.items():  # each URL answers as it should before the load
                status, _ = status_of(node.base_url + path)
                assert status == expected, f"{path}: {status}, expected {expected}"
            wrk(node.base_url + "/", arguments.warm_up_seconds, CONNECTIONS, threads=WRK_THREADS, script="wrk_paths.lua",
                args=paths_arguments(MIX), timeout_seconds=CLIENT_TIMEOUT_SECONDS)  # every worker resolves the URLs and fills its cache
        start = time.monotonic()
        for kind in ROUNDS:
            rounds.append((kind, load_round(nodes, HITS if kind == "hits" else MIX, arguments.round_seconds,
                                            start, workers, samples)))
        samples.append(sample(start, workers))
        assert [pid for node in nodes for pid in node.worker_pids()] == workers, "a worker was replaced during the run"

    p99 = {kind: [result["p99_us"] / 1000 for each, result in rounds if each == kind] for kind in ("hits", "mix")}
    ratio = statistics.median(p99["mix"]) / statistics.median(p99["hits"])
    checked = [(kind, result, errors_of(result, HITS if kind == "hits" else MIX)) for kind, result in rounds]
    errors = sum(found[0] for _, _, found in checked)
    first, settled, last = samples[0][1], samples[1][1], samples[-1][1]  # settled: after the first interval
    growth = max(last[pid] - settled[pid] for pid in workers)

    by_kind: dict[str, list[int]] = {}
    for kind, result in rounds:
        if kind != "mix":
            continue
        for status, milliseconds, cache in ACCESS_LINE.findall(result["log"]):  # the server's own time
            by_kind.setdefault(f"{KINDS.get(status, status)} ({cache})", []).append(int(milliseconds))

    where = ("two nodes on PostgreSQL (fsync on) and Redis, wrk against both at once, the connections split"
             if arguments.postgres else "one node on SQLite")
    lines = [
        "Load test: cached hits alone against the mix, the portal under gunicorn.conf.py on loopback",
        f"{where}; {len(workers)} gthread workers in all x {runpy.run_path(str(ROOT / 'gunicorn.conf.py'))['threads']} "
        f"threads on {os.cpu_count()} cores (recycling off for the run); wrk -t{WRK_THREADS} -c{CONNECTIONS} in all, "
        f"the mix {arguments.warm_up_seconds} s to warm up, then rounds {', '.join(ROUNDS)} of {arguments.round_seconds} s; "
        f"load average {load_at_start} at the start, {Path('/proc/loadavg').read_text().split()[0]} at the end",
        f"mix, in turn on every connection: {', '.join(f'{path} ({status})' for path, status in MIX.items())}",
        "",
        "| round | requests/s | p50 / p90 / p99 / max (ms) | statuses | errors |",
        "| --- | --- | --- | --- | --- |",
    ]
    for kind, result, (count, wrong, socket_errors, off_share) in checked:
        statuses = ", ".join(f"{status}: {n}" for status, n in sorted(result["statuses"].items()))
        lines.append(
            f"| {kind} | {result['requests'] / (result['duration_us'] / 1e6):.0f} | {result['p50_us'] / 1000:.1f} / "
            f"{result['p90_us'] / 1000:.1f} / {result['p99_us'] / 1000:.1f} / {result['max_us'] / 1000:.0f} | "
            f"{statuses} | {count} (statuses {wrong}, sockets {socket_errors}, off share {off_share or 'none'}) |")
    lines += [
        f"| worker memory (RSS, MiB, all workers) at 0 s / {samples[1][0]:.0f} s / end | {sum(first.values()) / 1024:.1f} / "
        f"{sum(settled.values()) / 1024:.1f} / {sum(last.values()) / 1024:.1f}; largest growth of one worker after "
        f"{samples[1][0]:.0f} s: {growth / 1024:.1f} MiB | | | |",
        "",
        "time in the server per request in the mix rounds (access log; miss = resolved, joined = shared one), ms:",
        f"{'kind':<30} {'count':>7} {'p50':>6} {'p90':>6} {'p99':>6} {'max':>6}",
        *(f"{kind:<30} {len(times):>7} {percentile(times, 50):>6} {percentile(times, 90):>6} "
          f"{percentile(times, 99):>6} {max(times):>6}" for kind, times in sorted(by_kind.items())),
        "",
        "worker RSS samples (MiB), seconds into the run:",
        f"{'t (s)':>6} " + " ".join(f"{pid:>8}" for pid in workers) + f" {'total':>8} {'threads':>8}",
    ]
    for at, rss, threads in samples:
        lines.append(f"{at:>6.0f} " + " ".join(f"{rss[pid] / 1024:>8.1f}" for pid in workers)
                     + f" {sum(rss.values()) / 1024:>8.1f} {threads:>8}")
    lines.append(f"RATIO client p99 mix/hits: {ratio:.2f} ({' and '.join(f'{v:.1f}' for v in p99['mix'])} ms over "
                 f"{' and '.join(f'{v:.1f}' for v in p99['hits'])} ms, medians of rounds); goal <= 2: "
                 f"{'met' if ratio <= 2 else 'NOT met'}")
    lines.append(f"RESULT: {'zero errors' if errors == 0 else f'{errors} ERRORS'}; memory after the first "
                 f"{samples[1][0]:.0f} s " + ("flat" if growth < 5 * 1024 else "GROWING")
                 + f" (largest growth of one worker {growth / 1024:.1f} MiB; flat = under 5 MiB)")
    report = "\n".join(lines) + "\n"
    print(report, end="")
    print(f"written to {write_results('load', report)}")


if __name__ == "__main__":
    main()
