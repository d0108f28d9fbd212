"""Load test for issue 6: the portal under gunicorn (``gunicorn.conf.py``: several workers) on
loopback, wrk with fixed connections for a bounded time on a mix of persistent URLs.

Run: ``.venv/bin/python benchmarks/load.py`` (needs wrk: ``apt-get install -y wrk``).

The mix (``MIX``), requested in turn on every connection, with the demo Archives:

* five found URLs (§10.1, §10.2, a query passed on to the item, an oai_dc record, an edition
  chain): resolved once per worker, then served from its cache (30 s) — 302;
* a deleted item: an alert, never cached, so a full resolution every time — 410;
* a bad modifier: refused before any resolution — 400.

Not found is measured apart (``NOT_FOUND``, a few requests): the demo Archive "slow" answers
after 30 s, so every not-found resolution waits for its 2 s read timeout, and in the mix it
would measure that Archive, not the portal.

An error is a connection error, no answer within ``CLIENT_TIMEOUT_SECONDS``, or a status
other than the one its URL must get;
the statuses are counted and checked against the mix's proportions. Memory: the resident set
(VmRSS) of every worker, sampled from /proc every ``SAMPLE_SECONDS``, with worker recycling
(``max_requests``) off for the run so that a leak would show; the first interval is the
ramp (thread pools growing to their working size), growth is measured after it. Results go to
``benchmarks/results/load-<date>.txt``.
"""
from __future__ import annotations

import os
import re
import runpy
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.serving import ROOT, portal, require_wrk, rss_kib, thread_count, workdir, wrk, write_results  # noqa: E402

MIX = {
    "/8JMKD3MGP8W/35MMLL8": 302,  # §10.1
    "/8JMKD3MGP8W/35MMLL8!:(oai_dc)": 302,  # §10.2: next edition, then its metadata
    "/8JMKD3MGP8W/35MMLL8?page=2": 302,  # a query passed on to the item
    "/D7N2U8HW/3QDQH85:(oai_dc)": 302,  # a scenario item's oai_dc record
    "/D7N2U8HW/39G4TD2!": 302,  # an edition chain over three Archives
    "/D7N2U8HW/3GBBQK2": 410,  # deleted: resolved every time
    "/8JMKD3MGP8W/35MMLL8::": 400,  # bad modifier
}
NOT_FOUND = "/8JMKD3MGP8W/34PGRBS"
SECONDS = 60
CONNECTIONS = 32
WRK_THREADS = 2
SAMPLE_SECONDS = 10
WARM_UP_SECONDS = 5
#: A request unanswered this long is an error: gunicorn.conf.py's worker timeout, three times a
#: resolution's 10 s deadline (an uncached resolution may legitimately take that deadline).
CLIENT_TIMEOUT_SECONDS = 30


#: status, milliseconds and cache state of a line of gunicorn.conf.py's access log.
ACCESS_LINE = re.compile(r'" (\d{3}) \S+ (\d+)ms cache=(\S+) ')


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


def main() -> None:
    require_wrk()
    load_at_start = Path("/proc/loadavg").read_text().split()[0]  # other programs on the machine
    samples: list[tuple[float, dict[int, int], int]] = []  # seconds, RSS kB per worker, threads in all
    with workdir() as folder, portal("app:app", Path(folder), extra_args=("--max-requests", "0")) as served:
        workers = served.worker_pids()
        for path, expected in MIX.items():  # each URL answers as it should before the load
            status, _ = status_of(served.base_url + path)
            assert status == expected, f"{path}: {status}, expected {expected}"
        wrk(served.base_url + "/", WARM_UP_SECONDS, CONNECTIONS, threads=WRK_THREADS, script="wrk_mix.lua",
            args=tuple(MIX))  # every worker resolves the found URLs once and fills its cache
        result: dict = {}
        load = threading.Thread(target=lambda: result.update(wrk(
            served.base_url + "/", SECONDS, CONNECTIONS, threads=WRK_THREADS, script="wrk_mix.lua", args=tuple(MIX),
            timeout_seconds=CLIENT_TIMEOUT_SECONDS,
        )))
        log_before = len(served.log_text())
        start = time.monotonic()
        load.start()
        while load.is_alive():
            samples.append(sample(start, workers))
            load.join(SAMPLE_SECONDS)
        samples.append(sample(start, workers))
        assert served.worker_pids() == workers, "a worker was replaced during the run"
        time.sleep(1)  # requests still in flight when wrk stopped are logged
        run_log = served.log_text()[log_before:]
        with ThreadPoolExecutor(max_workers=4) as pool:
            not_found = list(pool.map(status_of, [served.base_url + NOT_FOUND] * 12))

    statuses = {int(status): count for status, count in result["statuses"].items()}
    answered = sum(statuses.values())
    wrong = sum(count for status, count in statuses.items() if status not in set(MIX.values()))
    socket_errors = sum(result[name] for name in ("connect_errors", "read_errors", "write_errors", "timeouts"))
    expected_share = {status: list(MIX.values()).count(status) / len(MIX) for status in set(MIX.values())}
    off_share = [status for status, share in expected_share.items()
                 if abs(statuses.get(status, 0) - share * answered) > CONNECTIONS + 0.02 * answered]
    errors = wrong + socket_errors + len(off_share)
    seconds = result["duration_us"] / 1e6
    first, settled, last = samples[0][1], samples[1][1], samples[-1][1]  # settled: after the first interval
    growth = max(last[pid] - settled[pid] for pid in workers)
    nf_times = sorted(seconds_ for _, seconds_ in not_found)

    by_kind: dict[str, list[int]] = {}
    for status, milliseconds, cache in ACCESS_LINE.findall(run_log):  # the server's own time per request
        kind = {"302": f"302 found ({cache})", "410": "410 deleted (resolved)", "400": "400 bad modifier"}.get(status, status)
        by_kind.setdefault(kind, []).append(int(milliseconds))

    lines = [
        "Issue 6: load test, the portal under gunicorn.conf.py on loopback",
        f"{len(workers)} gthread workers x {runpy.run_path(str(ROOT / 'gunicorn.conf.py'))['threads']} threads on "
        f"{os.cpu_count()} cores "
        f"(recycling off for the run); wrk -t{WRK_THREADS} -c{CONNECTIONS} for {SECONDS} s; "
        f"load average {load_at_start} at the start, {Path('/proc/loadavg').read_text().split()[0]} at the end",
        f"mix, in turn on every connection: {', '.join(f'{path} ({status})' for path, status in MIX.items())}",
        "",
        "| measure | value |",
        "| --- | --- |",
        f"| resolutions per second | {answered / seconds:.0f} ({answered} in {seconds:.1f} s) |",
        f"| latency p50 / p90 / p99 / max | {result['p50_us'] / 1000:.1f} / {result['p90_us'] / 1000:.1f} / "
        f"{result['p99_us'] / 1000:.1f} / {result['max_us'] / 1000:.0f} ms |",
        f"| statuses | {', '.join(f'{status}: {count}' for status, count in sorted(statuses.items()))} |",
        f"| errors | {errors} (unexpected statuses {wrong}, socket errors and timeouts {socket_errors}, "
        f"statuses off the mix's shares {off_share or 'none'}) |",
        f"| worker memory (RSS, MiB, all workers) at 0 s / {samples[1][0]:.0f} s / end | {sum(first.values()) / 1024:.1f} / "
        f"{sum(settled.values()) / 1024:.1f} / {sum(last.values()) / 1024:.1f}; largest growth of one worker after "
        f"{samples[1][0]:.0f} s: {growth / 1024:.1f} MiB |",
        f"| not found, measured apart (12 requests, 4 at once) | {sorted({s for s, _ in not_found})}, p50 "
        f"{statistics.median(nf_times):.2f} s, max {nf_times[-1]:.2f} s (the demo Archive 'slow' times out at 2 s) |",
        "",
        "time in the server per request (access log), ms:",
        f"{'kind':<26} {'count':>7} {'p50':>6} {'p90':>6} {'p99':>6} {'max':>6}",
        *(f"{kind:<26} {len(times):>7} {percentile(times, 50):>6} {percentile(times, 90):>6} "
          f"{percentile(times, 99):>6} {max(times):>6}" for kind, times in sorted(by_kind.items())),
        "",
        "worker RSS samples (MiB), seconds into the run:",
        f"{'t (s)':>6} " + " ".join(f"{pid:>8}" for pid in workers) + f" {'total':>8} {'threads':>8}",
    ]
    for at, rss, threads in samples:
        lines.append(f"{at:>6.0f} " + " ".join(f"{rss[pid] / 1024:>8.1f}" for pid in workers)
                     + f" {sum(rss.values()) / 1024:>8.1f} {threads:>8}")
    lines.append(f"RESULT: {'zero errors' if errors == 0 else f'{errors} ERRORS'}; memory after the first "
                 f"{samples[1][0]:.0f} s " + ("flat" if growth < 5 * 1024 else "GROWING")
                 + f" (largest growth of one worker {growth / 1024:.1f} MiB; flat = under 5 MiB)")
    report = "\n".join(lines) + "\n"
    print(report, end="")
    print(f"written to {write_results('load', report)}")


if __name__ == "__main__":
    main()
