"""Scale-out figures, in one run: mint throughput on PostgreSQL as a fraction of the temporal
distributor's 1/r limit (SQLite beside it, measured the same way), and cached-resolution
throughput of two portal nodes against one.

Run: ``.venv/bin/python benchmarks/scaleout.py`` (needs Debian's ``postgresql``,
``redis-server`` and ``wrk``). The servers are throwaway ones on loopback (``tests/servers.py``):
PostgreSQL made by ``initdb`` in a temporary folder, with fsync ON as in production; Redis
without persistence. Results are appended to ``benchmarks/results/scaleout-<date>.txt``.

Both nodes run on this machine, so two nodes share the cores one node had: the ratio says what
the shared state costs (nothing on a cache hit: no database, Redis only for changes), not how a
second machine would add capacity.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import threading
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.identifiers import mint_fraction_of_limit  # noqa: E402
from benchmarks.serving import cpu_seconds, errors, per_second, portal, require_wrk, wrk, write_results  # noqa: E402
from ibiportal.application.minting import Minter  # noqa: E402
from ibiportal.ibi.history import Actor  # noqa: E402
from ibiportal.ibi.mint_request import MintRequest  # noqa: E402
from ibiportal.ibi.clock import unix_time, utc_now  # noqa: E402
from ibiportal.ibi.subsystem import Subsystem  # noqa: E402
from ibiportal.storage.database import Storage  # noqa: E402
from ibiportal.storage.identifiers import IdentifierStore  # noqa: E402
from tests.servers import PostgresServer, RedisServer  # noqa: E402

R = Decimal("0.01")
MINTS = 500
ROUNDS = 6  # one node, then two, alternating (ABBA)
SECONDS = 3
CONNECTIONS = 32  # in all: a node alone gets 32, each of two nodes 16
WORKERS = 2  # per node


def mint_item(database: str) -> str:
    """One own item with a target URL: the cached resolution measured."""
    storage = Storage(database)
    try:
        subsystem = Subsystem("bench.example.org", 80, "192.0.2.7", 800, R)
        minter = Minter(IdentifierStore(storage), subsystem, lambda: unix_time(utc_now()))
        item = minter.mint(MintRequest.parse({"target_url": "https://example.org/x"}), actor=Actor("command", "scaleout benchmark"))
    finally:
        storage.close()
    return f"/{item.ibip}"


def load_together(urls: list[str]) -> list[dict]:
    """wrk against every URL at once, the connections split between them."""
    runs: list[dict] = [{} for _ in urls]

    def run(index: int) -> None:
        runs[index] = wrk(urls[index], SECONDS, CONNECTIONS // len(urls))

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(urls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return runs


def main() -> None:
    require_wrk()
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    postgres, redis = PostgresServer.start(durable=True), RedisServer.start()
    try:
        sqlite_rate, sqlite_fraction = mint_fraction_of_limit(MINTS, R)
        pg_rate, pg_fraction = mint_fraction_of_limit(MINTS, R, database=postgres.new_database())

        database = postgres.new_database()
        path = mint_item(database)
        common = {"IBIPORTAL_DATABASE": database, "IBIPORTAL_REDIS_URL": redis.url,
                  "IBIPORTAL_SECRET_KEY": "benchmark", "IBIPORTAL_DEMO_ARCHIVES": "0"}
        one: list[float] = []
        two: list[float] = []
        failed = 0
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b, \
                portal("app:app", Path(a), workers=WORKERS, extra_args=("--max-requests", "0"),
                       environment={**common, "IBIPORTAL_INSTANCE": a}) as first, \
                portal("app:app", Path(b), workers=WORKERS, extra_args=("--max-requests", "0"),
                       environment={**common, "IBIPORTAL_INSTANCE": b}) as second:
            workers = first.worker_pids() + second.worker_pids()
            for node in (first, second):  # every worker resolves once and warms up
                wrk(node.base_url + path, 2, CONNECTIONS)
            cpu_before = cpu_seconds(workers)
            for round_number in range(ROUNDS):
                order = ("one", "two") if round_number % 2 == 0 else ("two", "one")
                for how in order:
                    urls = [first.base_url + path] if how == "one" else [first.base_url + path, second.base_url + path]
                    runs = load_together(urls)
                    failed += sum(errors(run) for run in runs)
                    (one if how == "one" else two).append(sum(per_second(run) for run in runs))
            cpu_used = cpu_seconds(workers) - cpu_before
            hits = first.log_text().count("cache=hit") + second.log_text().count("cache=hit")
    finally:
        postgres.stop()
        redis.stop()

    ratios = [b / a for a, b in zip(one, two)]
    lines = [
        "Scale-out: minting on PostgreSQL, and cached resolution on two nodes against one (one run)",
        f"load average {load_at_start} at the start, {Path('/proc/loadavg').read_text().split()[0]} at the end",
        f"mint throughput at r={R}, {MINTS} in a row, one process:",
        f"  SQLite:     {sqlite_rate:6.1f}/s = {sqlite_fraction:.3f} of the 1/r limit ({1 / R:.0f}/s)",
        f"  PostgreSQL: {pg_rate:6.1f}/s = {pg_fraction:.3f} of the 1/r limit (fsync on, row lock per mint)",
        f"cached resolution of {path} (own item), wrk {SECONDS} s x {ROUNDS} rounds each, {CONNECTIONS} connections "
        f"in all, {WORKERS} gthread workers per node, PostgreSQL + Redis shared:",
        f"  one node:  {statistics.median(one):8.0f} req/s (median; rounds {', '.join(f'{x:.0f}' for x in one)})",
        f"  two nodes: {statistics.median(two):8.0f} req/s (median; rounds {', '.join(f'{x:.0f}' for x in two)})",
        f"  errors {failed}; cache hits logged {hits}; worker CPU {cpu_used:.1f} s",
        f"RATIO two nodes / one node: {statistics.median(ratios):.2f} (median of rounds: "
        f"{', '.join(f'{r:.2f}' for r in ratios)}); both nodes share this machine's cores",
        f"RATIO PostgreSQL mint throughput / 1/r: {pg_fraction:.3f} (SQLite {sqlite_fraction:.3f})",
    ]
    report = "\n".join(lines) + "\n"
    print(report, end="")
    print(f"written to {write_results('scaleout', report)}")


if __name__ == "__main__":
    main()
