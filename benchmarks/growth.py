"""Cost as the collection grows: an uncached resolution, a mint and an import, each per request,
on a collection of 1,000 items against one of 100,000 (``--sizes``), in one run, on SQLite or
(``--postgres``) on PostgreSQL.

Run: ``.venv/bin/python benchmarks/growth.py [--sizes 1000 100000] [--rounds R] [--postgres]``.
The collections are made by the importer (``benchmarks/collection.py``). SQLite's are kept in
``/dev/shm`` for the next run while the machine is up (1,000,000 items take a while to import),
and each run works on a copy. PostgreSQL's are made in each run, in a throwaway cluster started
as the tests start one (``tests.servers.PostgresServer``, here with ``fsync`` on, as in
production); the script says how long their import took. Every figure is CPU time of this
process per request (``time.process_time``: not how long other
programs on the machine kept it waiting), through the portal's WSGI app (Flask's test client),
the two collections in alternating rounds (A B, B A, …), each round its own distinct items:

* **resolution**: ``GET /<IBIp>`` of an item not asked before (an uncached resolution, its
  trace stored), the demo Archives off; the items asked are spread evenly over the whole
  collection, in a shuffled order (``spread_items``), so a large collection's lookups touch
  its index pages everywhere;
* **mint**: ``POST /api/v1/mint`` with a title and a target URL;
* **import**: one record more through the importer (``Importer.run``), a new IBI.

The judging figure is, for each, the large collection's cost over the small one's (goal ≤ 1.10).
Before the rounds, the query plans (SQLite's ``EXPLAIN QUERY PLAN``) of the statements a
resolution runs are printed (PostgreSQL's ``EXPLAIN``, after ``ANALYZE``, with ``--postgres``):
each must search an index, none scan a table. Results are appended to
``benchmarks/results/growth-<date>.txt``.
"""
from __future__ import annotations

import argparse
import random
import os
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.collection import csv_text, import_items, kept_collection  # noqa: E402
from benchmarks.serving import write_results  # noqa: E402

KEPT = Path("/dev/shm")
ROUNDS = 6
PER_ROUND = 150
GOAL = 1.10
#: The reads of a resolution of an own item and of a mint, as SQLite plans them.
PLANS = {
    "find the item (either form)": "SELECT * FROM minted_item WHERE rep = 'x' OR ibip = 'x'",
    "its links, links to it, its files": "SELECT ibi FROM item_link WHERE ibi = 'x' UNION ALL SELECT ibi FROM item_link "
                                         "WHERE target = 'x' UNION ALL SELECT path FROM item_file WHERE ibi = 'x'",
    "changes since (cache generation)": "SELECT max(id) FROM resolution_change",
    "a trace's pruning (count)": "SELECT id FROM trace ORDER BY created_at DESC, id DESC LIMIT -1 OFFSET 1000",
    "the subsystem's clock (mint)": "SELECT last_date FROM subsystem_clock WHERE subsystem = 'x'",
}


def sqlite_collection(size: int, folder: Path) -> str:
    """A copy of the kept SQLite collection of ``size`` items (made on first use), for one run."""
    from ibiportal.storage.migrations import upgrade

    database = folder / f"portal-{size}.sqlite"
    shutil.copyfile(kept_collection(KEPT / f"ibiportal-growth-{size}.sqlite", size), database)
    upgrade(str(database))  # a collection kept from an earlier schema
    return str(database)


def postgres_collection(server, size: int) -> str:
    """A database of ``size`` items imported into the cluster ``server``, its statistics taken."""
    import psycopg

    from ibiportal.storage.database import database

    url = server.new_database()
    started = time.monotonic()
    import_items(url, size)
    print(f"imported {size} items into PostgreSQL in {time.monotonic() - started:.0f} s", flush=True)
    database(url).engine.dispose()
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as connection:
        connection.execute("ANALYZE")
    return url


class Portal:
    """The portal's app over a collection of its own, and the requests of the rounds."""

    def __init__(self, size: int, database: str, folder: Path, asked: int) -> None:
        from ibiportal import create_app
        from ibiportal.web.context import application

        self.size = size
        self.database = database
        self.app = create_app({"DATABASE": database, "SECRET_KEY": "benchmark", "DEMO_ARCHIVES": False,
                               "RATELIMIT_ENABLED": False, "INSTANCE_PATH": str(folder / str(size)),
                               "TRUSTED_HOSTS": ["localhost"]})
        self.client = self.app.test_client()
        self.items = ["/" + ibip for ibip in spread_items(database, asked)]
        self.asked = 0
        self.imported = size
        self.get_importer = lambda: application().importing()

    def resolve(self, count: int) -> float:
        paths = self.items[self.asked:self.asked + count]
        self.asked += count
        started = time.process_time()
        for path in paths:
            assert self.client.get(path).status_code == 302
        return (time.process_time() - started) / count

    def mint(self, count: int) -> float:
        started = time.process_time()
        for number in range(count):
            answer = self.client.post("/api/v1/mint", json={"title": f"Minted {number}",
                                                            "target_url": "https://example.org/minted.pdf"})
            assert answer.status_code == 201, answer.get_data(as_text=True)[:300]
        return (time.process_time() - started) / count

    def import_more(self, count: int) -> float:
        from ibiportal.ibi.history import Actor
        from ibiportal.archive.import_formats import read_csv

        text = csv_text(count, 10_000_000 + self.imported)  # dates past both collections' items
        self.imported += count
        with self.app.app_context():
            importer = self.get_importer()
            started = time.process_time()
            outcomes = list(importer.run(read_csv(text), Actor("import", "growth.csv")))
            spent = time.process_time() - started
        assert all(outcome.outcome == "created" for outcome in outcomes), outcomes[0]
        return spent / count


def spread_items(database: str, count: int) -> list[str]:
    """The IBIps of ``count`` items spread evenly over the whole collection (every n-th by id), in
    a shuffled order: the lookups of a large collection touch its index pages everywhere, as the
    requests of many readers would, not only the first pages (the oldest items in turn)."""
    from sqlalchemy import text

    from ibiportal.storage.database import Storage

    storage = Storage(database)
    try:
        total = storage.read(text("SELECT count(*) FROM minted_item")).scalar_one()
        step = max(1, total // count)
        found = list(storage.read(text("SELECT ibip FROM minted_item WHERE id % :step = 0 ORDER BY id LIMIT :count"),
                                  {"step": step, "count": count}).scalars())
    finally:
        storage.close()
    random.Random(total).shuffle(found)
    return found


def plans(database: str) -> list[str]:
    """Each of :data:`PLANS` as the database plans it, its steps on one line."""
    if "://" not in database:
        connection = sqlite3.connect(database)
        planned = {name: [row[3] for row in connection.execute("EXPLAIN QUERY PLAN " + statement)]
                   for name, statement in PLANS.items()}
    else:
        import psycopg

        connection = psycopg.connect(database.replace("postgresql+psycopg", "postgresql"), autocommit=True)
        planned = {name: [row[0].strip().removeprefix("->  ") for row in connection.execute(
            "EXPLAIN (COSTS OFF) " + statement.replace("LIMIT -1", "LIMIT ALL"))] for name, statement in PLANS.items()}
    connection.close()
    return [f"  {name}: {'; '.join(steps)}" for name, steps in planned.items()]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--sizes", type=int, nargs=2, default=(1000, 100_000))
    options.add_argument("--rounds", type=int, default=ROUNDS)
    options.add_argument("--per-round", type=int, default=PER_ROUND)
    options.add_argument("--postgres", action="store_true", help="on PostgreSQL (a throwaway cluster), not SQLite")
    arguments = options.parse_args()
    load_at_start = Path("/proc/loadavg").read_text().split()[0]
    small, large = arguments.sizes
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"ibiportal-growth-{os.getpid()}"
    work.mkdir()
    kinds = ("resolution", "mint", "import")
    costs: dict[tuple[str, int], list[float]] = {(kind, size): [] for kind in kinds for size in (small, large)}
    server = None
    try:
        if arguments.postgres:
            from tests.servers import PostgresServer

            server = PostgresServer.start(durable=True)
            databases = {size: postgres_collection(server, size) for size in (small, large)}
        else:
            databases = {size: sqlite_collection(size, work) for size in (small, large)}
        asked = 20 + arguments.rounds * arguments.per_round  # the warm-up's and the rounds'
        portals = {size: Portal(size, databases[size], work, asked) for size in (small, large)}
        lines = [f"query plans on the {large}-item collection:", *plans(portals[large].database)]
        for portal in portals.values():  # imports, pools, first connections
            portal.resolve(20), portal.mint(5), portal.import_more(5)
        for number in range(arguments.rounds):
            for size in ((small, large) if number % 2 == 0 else (large, small)):
                portal = portals[size]
                costs[("resolution", size)].append(portal.resolve(arguments.per_round))
                costs[("mint", size)].append(portal.mint(arguments.per_round // 3))
                costs[("import", size)].append(portal.import_more(arguments.per_round // 3))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if server is not None:
            server.stop()
    engine = "PostgreSQL" if arguments.postgres else "SQLite"
    lines[:0] = [f"Cost per request as the collection grows, on {engine}: {small} items against {large} (made by the importer); CPU "
                 f"of this process per request, {arguments.rounds} alternating rounds; load average {load_at_start} "
                 f"at the start, {Path('/proc/loadavg').read_text().split()[0]} at the end"]
    lines.append(f"{'request':<12} {f'{small} items':>12} {f'{large} items':>14} {'ratio':>6}")
    verdicts = []
    for kind in kinds:
        few, many = statistics.median(costs[(kind, small)]), statistics.median(costs[(kind, large)])
        verdicts.append(many / few)
        lines.append(f"{kind:<12} {few * 1000:>10.2f}ms {many * 1000:>12.2f}ms {many / few:>6.2f}")
    lines.append(f"RATIO {large}/{small} items: " + ", ".join(f"{kind} {ratio:.2f}" for kind, ratio in zip(kinds, verdicts))
                 + f"; goal <= {GOAL}: {'met' if max(verdicts) <= GOAL else 'NOT met'}")
    print("\n".join(lines))
    print(f"written to {write_results('growth-postgres' if arguments.postgres else 'growth', chr(10).join(lines) + chr(10))}")


if __name__ == "__main__":
    main()
