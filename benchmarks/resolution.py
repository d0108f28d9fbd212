"""Benchmark for issue 4: resolution time with 1, 10 and 50 Archives on loopback that each take
100 ms to answer, asked in parallel (the engine) and one by one (for comparison).

Run: ``.venv/bin/python benchmarks/resolution.py``. Every figure is a ratio measured in the
same run: parallel time / one Archive's delay (the goal: within 1.15x at 50 Archives), and
one-by-one time / parallel time. Each run is appended to ``benchmarks/results/resolution-<date>.txt``
with the machine's load average, which moves the figure on a shared machine. The IBI asked for is held by none of them, so the resolver
must wait for every answer: the worst case for the fan-out.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.serving import write_results  # noqa: E402
from ibiportal.archive.demo import load_demo_archives  # noqa: E402
from ibiportal.archive.http_server import ArchiveHTTPServer  # noqa: E402
from ibiportal.config import DEFAULTS  # noqa: E402
from ibiportal.resolver.engine import ClientInfo, Resolver  # noqa: E402
from ibiportal.resolver.transport import ArchiveEndpoint, HttpTransport, Timeouts  # noqa: E402
from ibiportal.web.services import resolver_threads  # noqa: E402

DELAY = 0.1
UNKNOWN = "http://urlib.net/8JMKD3MGP8W/34PGRBS"
CLIENT = ClientInfo(("192.0.2.50",), None)
ROUNDS = 5


def serve_archives(count: int) -> None:
    """Child process: ``count`` Archives, each holding answers back DELAY s; their addresses on stdout.

    The Archives run in a process of their own, as real Archives run on other machines, so
    their work does not compete with the resolver's threads for the interpreter.
    """
    service = load_demo_archives()["mtc-m16c"].service
    servers = [ArchiveHTTPServer(service, "127.0.0.1", 0, DELAY) for _ in range(count)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(server.service.identity.address, server.service.identity.service_ibi.forms()[0], flush=True)
    sys.stdin.read()  # until the parent closes it


def start_archives(count: int) -> tuple[subprocess.Popen, list[ArchiveEndpoint]]:
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(count)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    lines = [child.stdout.readline().split() for _ in range(count)]
    return child, [ArchiveEndpoint(address, ibi, f"a{i}", "http") for i, (address, ibi) in enumerate(lines)]


def parallel_seconds(resolver: Resolver) -> float:
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        resolution = resolver.resolve(UNKNOWN, CLIENT)
        times.append(time.perf_counter() - start)
        assert resolution.alert is not None and resolution.alert.reason.value == "not-found", resolution.alert
    return statistics.median(times)


def one_by_one_seconds(transport: HttpTransport, archives: list[ArchiveEndpoint]) -> float:
    query = "servicesubject=urlRequest&clientinformation.ipaddress=192.0.2.50&parsedibiurl.ibi=8JMKD3MGP8W/34PGRBS"
    start = time.perf_counter()
    for archive in archives:
        exchange = transport.fetch(f"http://{archive.address}/{archive.service_ibi}?{query}", Timeouts(3.0, 5.0, 60.0))
        assert exchange.status == 200
    return time.perf_counter() - start


def main() -> None:
    transport = HttpTransport(allow_private=True, pool_maxsize=64)
    executor = ThreadPoolExecutor(max_workers=resolver_threads(DEFAULTS["THREADS"]))  # the pool the portal uses
    load_at_start = Path("/proc/loadavg").read_text().split()[0]  # other programs on the machine
    lines = [f"each Archive answers after {DELAY * 1000:.0f} ms; median of {ROUNDS} resolutions",
             f"{'archives':>8} {'parallel':>10} {'/delay':>8} {'one by one':>11} {'speed-up':>9}"]
    print("\n".join(lines))
    for count in (1, 10, 50):
        child, archives = start_archives(count)
        resolver = Resolver(archives, {"http": transport}, executor=executor)
        try:
            resolver.resolve(UNKNOWN, CLIENT)  # warm the connection pools
            parallel = parallel_seconds(resolver)
            sequential = one_by_one_seconds(transport, archives)
        finally:
            child.stdin.close()
            child.wait(timeout=10)
        lines.append(f"{count:>8} {parallel * 1000:>8.0f}ms {parallel / DELAY:>7.2f}x {sequential * 1000:>9.0f}ms "
                     f"{sequential / parallel:>8.1f}x")
        print(lines[-1])
    transport.close()
    executor.shutdown()
    ratio = parallel / DELAY
    lines.append(f"load average {load_at_start} at the start, {Path('/proc/loadavg').read_text().split()[0]} at the end")
    lines.append(f"RATIO at 50 Archives: {ratio:.2f}x one Archive's delay; goal <= 1.15: {'met' if ratio <= 1.15 else 'NOT met'}")
    print("\n".join(lines[-2:]))
    print(f"written to {write_results('resolution', chr(10).join(lines) + chr(10))}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve_archives(int(sys.argv[2]))
    else:
        main()
