"""Fan-out benchmark: resolution time with 1, 10 and 50 Archives on loopback that each take
100 ms to answer, for the portal's fan-out transport (libcurl, one thread) and for the one it
replaced (``requests``, a thread per exchange), in the same run.

Run: ``.venv/bin/python benchmarks/resolution.py [--threaded-archives]``. Every figure is a ratio measured in this
run: resolution time / one Archive's delay (the goal: within 1.15x at 50 Archives, with the
portal's transport), and one-by-one time / parallel time. Each run is appended to
``benchmarks/results/resolution-<date>.txt`` with the machine's load average, which moves the
figures on a shared machine. The IBI asked for is held by none of the Archives, so the resolver
must wait for every answer: the worst case for the fan-out.

The Archives stand for 50 machines, each answering on its own, so they run in a child process
as one event loop that writes each answer 100 ms after reading its request; each answer is
computed once (the benchmark always asks the same question), since a real Archive's own work
happens on its own machine. An Archive process with a thread per connection (the
``ArchiveHTTPServer`` of the demo Archives) spends its own interpreter time on every request in
turn and spread its 50 answers over 6-7 ms, which the resolver would be charged for. The child
reports how far apart its answers left in each round ("answers spread": how far apart the
requests arrived, plus the Archives' process's own turns), so that what remains is visibly the
resolver's; the resolver's CPU time per resolution is reported beside it. ``--threaded-archives`` runs the Archives as that thread-per-connection server
instead, for comparison with the runs before (no spread reported).
"""
from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.serving import write_results  # noqa: E402
from ibiportal.archive.demo import load_demo_archives  # noqa: E402
from ibiportal.archive.http_server import ArchiveHTTPServer, with_address  # noqa: E402
from ibiportal.config import DEFAULTS  # noqa: E402
from ibiportal.resolver.curl_transport import CurlTransport  # noqa: E402
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver  # noqa: E402
from ibiportal.resolver.transport import ArchiveEndpoint, Timeouts, Transport  # noqa: E402
from ibiportal.resolver.http_transport import HttpTransport  # noqa: E402
from ibiportal.application import resolver_threads  # noqa: E402

DELAY = 0.1
UNKNOWN = "http://urlib.net/8JMKD3MGP8W/34PGRBS"
CLIENT = ClientInfo(("192.0.2.50",))
ROUNDS = 7
COUNTS = (1, 10, 50)


async def serve_archives(count: int) -> None:
    """Child process: ``count`` Archives on one event loop; their addresses on stdout, then, when
    stdin closes, the spread of each round's answers (first to last written, in ms)."""
    service = load_demo_archives()["mtc-m16c"].service
    written: list[float] = []

    def archive(answers: dict[str, bytes], holder: list) -> object:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                read_at = time.monotonic()
                query = urlsplit(head.split(b" ", 2)[1].decode("ascii")).query
                if query not in answers:
                    answer = holder[0].respond(query)
                    body = answer.text.encode("ascii")
                    answers[query] = (f"HTTP/1.1 {answer.status} OK\r\nContent-Type: text/plain; charset=us-ascii\r\n"
                                      f"Content-Length: {len(body)}\r\n\r\n").encode("ascii") + body
                await asyncio.sleep(DELAY - (time.monotonic() - read_at))
                writer.write(answers[query])
                written.append(time.monotonic())
        return handle

    servers = []
    for _ in range(count):
        holder: list = []
        server = await asyncio.start_server(archive({}, holder), "127.0.0.1", 0)
        address = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
        holder.append(with_address(service, address))
        servers.append(server)
        print(address, holder[0].identity.service_ibi.forms()[0], flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the parent closes it
    rounds: list[list[float]] = []
    for moment in written:
        if not rounds or moment - rounds[-1][0] > DELAY / 2:
            rounds.append([moment])
        else:
            rounds[-1].append(moment)
    print(" ".join(f"{(round_[-1] - round_[0]) * 1000:.2f}" for round_ in rounds if len(round_) == count), flush=True)


def serve_threaded_archives(count: int) -> None:
    """Child process: ``count`` demo Archive servers (a thread per connection), each holding its
    answers back DELAY s; their addresses on stdout, then an empty line (no spread) when stdin closes."""
    service = load_demo_archives()["mtc-m16c"].service
    for _ in range(count):
        server = ArchiveHTTPServer(service, "127.0.0.1", 0, DELAY)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(server.service.identity.address, server.service.identity.service_ibi.forms()[0], flush=True)
    sys.stdin.read()
    print(flush=True)


class Archives:
    """The child process of :func:`serve_archives` (or :func:`serve_threaded_archives`) and its endpoints."""

    def __init__(self, count: int, threaded: bool) -> None:
        serve = "--serve-threaded" if threaded else "--serve"
        self.child = subprocess.Popen([sys.executable, __file__, serve, str(count)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        lines = [self.child.stdout.readline().split() for _ in range(count)]
        self.endpoints = [ArchiveEndpoint(address, ibi, f"a{i}", "http") for i, (address, ibi) in enumerate(lines)]

    def close(self) -> list[float]:
        """Stop the Archives; how far apart their answers left in each round, in seconds."""
        self.child.stdin.close()
        spreads = [float(value) / 1000 for value in self.child.stdout.readline().split()]
        self.child.wait(timeout=10)
        return spreads


def parallel_seconds(resolver: Resolver) -> tuple[float, float]:
    """Median time of a resolution that must wait for every Archive, and the resolver process's
    CPU time per resolution (every thread: the request's, the executor's, the transport's)."""
    resolver.resolve(Asked.parse(UNKNOWN), CLIENT)  # connections made, pools warm
    times = []
    cpu = time.process_time()
    for _ in range(ROUNDS):
        start = time.perf_counter()
        resolution = resolver.resolve(Asked.parse(UNKNOWN), CLIENT)
        times.append(time.perf_counter() - start)
        assert resolution.alert is not None and resolution.alert.reason.value == "not-found", resolution.alert
    return statistics.median(times), (time.process_time() - cpu) / ROUNDS


def one_by_one_seconds(transport: Transport, archives: list[ArchiveEndpoint]) -> float:
    query = "servicesubject=urlRequest&clientinformation.ipaddress=192.0.2.50&parsedibiurl.ibi=8JMKD3MGP8W/34PGRBS"
    start = time.perf_counter()
    for archive in archives:
        exchange = transport.fetch(f"http://{archive.address}/{archive.service_ibi}?{query}", Timeouts(3.0, 5.0, 60.0))
        assert exchange.status == 200, exchange
    return time.perf_counter() - start


def main(threaded: bool) -> None:
    executor = ThreadPoolExecutor(max_workers=resolver_threads(DEFAULTS["THREADS"]))  # the pool the portal uses
    transports: dict[str, Transport] = {
        "libcurl": CurlTransport(allow_private=True),  # the portal's fan-out
        "requests": HttpTransport(allow_private=True, pool_maxsize=64),  # the fan-out it replaced
    }
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    kind = "a thread per connection (ArchiveHTTPServer)" if threaded else "one event loop"
    lines = [f"each Archive answers {DELAY * 1000:.0f} ms after reading its request; Archives: {kind}; "
             f"median of {ROUNDS} resolutions",
             f"{'archives':>8} {'client':>9} {'answers spread':>15} {'time':>6} {'/delay':>7} {'resolver CPU':>13}"]
    print("\n".join(lines))
    ratios: dict[str, float] = {}
    for count in COUNTS:
        archives = Archives(count, threaded)
        try:
            measured = {name: parallel_seconds(Resolver(archives.endpoints, {"http": transport}, executor=executor))
                        for name, transport in transports.items()}
            sequential = one_by_one_seconds(transports["libcurl"], archives.endpoints)
        finally:
            spreads = archives.close()
        ratios = {name: seconds / DELAY for name, (seconds, _) in measured.items()}
        for index, (name, (seconds, cpu)) in enumerate(measured.items()):
            rounds = spreads[index * (ROUNDS + 1): (index + 1) * (ROUNDS + 1)]  # in the order asked, warm-up included
            spread = f"{statistics.median(rounds) * 1000:.2f}ms" if rounds else "n/a"
            lines.append(f"{count:>8} {name:>9} {spread:>15} {seconds * 1000:>4.0f}ms {ratios[name]:>6.2f}x "
                         f"{cpu * 1000:>11.1f}ms")
            print(lines[-1])
        lines.append(f"{count:>8} {'libcurl, one by one':>25} {sequential * 1000:>6.0f}ms: "
                     f"{sequential / measured['libcurl'][0]:.1f}x the parallel time")
        print(lines[-1])
    for transport in transports.values():
        transport.close()
    executor.shutdown()
    ratio = ratios["libcurl"]
    lines.append(f"load average {load_at_start} at the start, {Path('/proc/loadavg').read_text().split()[0]} at the end")
    lines.append(f"RATIO at 50 Archives: {ratio:.2f}x one Archive's delay (requests, a thread per exchange: "
                 f"{ratios['requests']:.2f}x); goal <= 1.15: {'met' if ratio <= 1.15 else 'NOT met'}")
    print("\n".join(lines[-2:]))
    print(f"written to {write_results('resolution', chr(10).join(lines) + chr(10))}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        asyncio.run(serve_archives(int(sys.argv[2])))
    elif sys.argv[1:2] == ["--serve-threaded"]:
        serve_threaded_archives(int(sys.argv[2]))
    else:
        main(threaded=sys.argv[1:2] == ["--threaded-archives"])
