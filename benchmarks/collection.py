"""A collection of own items for the benchmarks, made the way an operator makes one: records of a
CSV file brought in by the importer (``flask items import``'s :class:`Importer`), each item with
its history, all-or-nothing (a batch of records a transaction).

The items are INPE repository names of ``sid.inpe.br/mtc-m21c`` (a known prefix pair, so each
gets its IBIp), one a second from 2019-01-01, with a title, two creators, a date and a target URL:
what a URLib collection's records carry. :func:`ibips` gives their IBIps, in the order imported,
for the clients to ask in turn.
"""
from __future__ import annotations

import csv
import io
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ibiportal.archive.import_formats import read_csv  # noqa: E402
from ibiportal.ibi.conversion import convert  # noqa: E402
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS  # noqa: E402

PREFIX = "sid.inpe.br/mtc-m21c"
START = datetime(2019, 1, 1, tzinfo=timezone.utc)
HEADER = ("ibi", "title", "creators", "date", "target_url")


def rep_names(count: int, first: int = 0) -> Iterator[str]:
    """``count`` repository names, one a second from :data:`START` (the ``first``-th on)."""
    for index in range(first, first + count):
        moment = START + timedelta(seconds=index)
        yield f"{PREFIX}/{moment:%Y/%m.%d.%H.%M.%S}"


def ibips(count: int, first: int = 0) -> list[str]:
    """The IBIps of the items :func:`import_items` makes."""
    return [convert(rep, KNOWN_PREFIX_PAIRS).ibip for rep in rep_names(count, first)]


def csv_text(count: int, first: int = 0) -> str:
    """A CSV of ``count`` records, as ``flask items import`` reads it."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(HEADER)
    for index, rep in enumerate(rep_names(count, first), start=first):
        writer.writerow((rep, f"Report number {index} on the benchmark of a growing collection",
                         f"Silva, João; Souza, Maria {index % 97}", str(2019 + index % 5),
                         f"https://repository.example.org/col/{rep}/doc/report-{index}.pdf"))
    return out.getvalue()


def import_items(database: str, count: int, first: int = 0, chunk: int = 10_000) -> float:
    """Import ``count`` items into ``database`` (a SQLite path or a database URL) through the
    importer; the seconds it took per item."""
    from ibiportal import create_app
    from ibiportal.ibi.history import Actor
    from ibiportal.storage.migrations import upgrade
    from ibiportal.web.context import application

    upgrade(database)

    # an instance folder of its own: the portal makes its instance folder private (0770), which
    # the database's folder (/dev/shm, shared by every user) must never be made
    instance = tempfile.mkdtemp(prefix="ibiportal-import-")
    app = create_app({"DATABASE": database, "SECRET_KEY": "benchmark", "TESTING": False, "INSTANCE_PATH": instance})
    started = time.perf_counter()
    with app.app_context():
        importer = application().importing()
        for start in range(first, first + count, chunk):
            size = min(chunk, first + count - start)
            outcomes = list(importer.run(read_csv(csv_text(size, start)), Actor("import", "benchmark.csv")))
            refused = [outcome for outcome in outcomes if outcome.outcome != "created"]
            if refused:
                raise RuntimeError(f"the import refused {len(refused)} records, the first: {refused[0]}")
    shutil.rmtree(instance, ignore_errors=True)
    return (time.perf_counter() - started) / count


def kept_collection(kept: Path, count: int) -> Path:
    """``kept``, a SQLite database of ``count`` imported items, made on first use (the
    benchmarks keep their collections between runs: a large one takes long to import)."""
    if kept.exists():
        return kept
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_suffix(".partial")
    for leftover in partial.parent.glob(partial.name + "*"):
        leftover.unlink()
    started = time.monotonic()
    import_items(str(partial), count)
    print(f"imported {count} items in {time.monotonic() - started:.0f} s", flush=True)
    connection = sqlite3.connect(partial)  # the write-ahead log into the file: the file alone holds every item
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    partial.rename(kept)
    for leftover in partial.parent.glob(partial.name + "-*"):  # the files the portal kept beside it
        leftover.unlink()
    return kept
