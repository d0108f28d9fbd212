"""Import runs (the Import page's background imports): each outcome and the counts kept as the run
goes, its end said whatever stopped it, a sign of life while a source is slow, and a run whose
process ended taken for interrupted; only the newest runs kept."""
from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from ibiportal.application.import_runs import STALE_SECONDS, ImportRuns, state_of
from ibiportal.application.import_sources import ImportSource
from ibiportal.application.importing import OUTCOMES, Importer
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS
from ibiportal.ibi.clock import unix_time, utc_now
from ibiportal.ibi.subsystem import Subsystem
from ibiportal.storage.database import Storage
from ibiportal.storage.files import FileStore
from ibiportal.storage.history import HistoryStore
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.storage.import_runs import KEPT_RUNS, ImportRun, ImportRunStore
from tests.servers import fresh_sqlite

CSV = (Path(__file__).resolve().parents[1] / "data" / "import" / "urlib.csv").read_bytes()
SUBSYSTEM = Subsystem(host="portal.example", port=80, ip="192.0.2.1", ibip_port=800, granularity=Decimal(1))


@pytest.fixture
def database(tmp_path) -> str:
    return fresh_sqlite(tmp_path / "runs.sqlite")


def importer(storage: Storage, pairs) -> Importer:
    return Importer(IdentifierStore(storage), FileStore(storage), SUBSYSTEM, pairs, 1_000_000, lambda: unix_time(utc_now()))


def runs_over(database: str, make=importer, heartbeat_seconds: float = 10.0) -> ImportRuns:
    return ImportRuns(lambda: Storage(database), make, heartbeat_seconds)


def run_of(database: str, run_id: str) -> ImportRun:
    storage = Storage(database)
    try:
        return ImportRunStore(storage).find(run_id)
    finally:
        storage.close()


def outcomes_of(database: str, run_id: str) -> list[dict]:
    storage = Storage(database)
    try:
        return ImportRunStore(storage).outcomes(run_id)
    finally:
        storage.close()


def test_a_run_keeps_each_outcome_and_its_counts_and_ends(database):
    runs = runs_over(database)
    run_id = runs.start(ImportSource.of_file("urlib.csv", CSV), dry_run=False, update=False, started_by="ada",
                        pairs=KNOWN_PREFIX_PAIRS)
    runs.threads[run_id].join(20)

    run = run_of(database, run_id)
    assert (run.source, run.started_by, run.dry_run, run.total, run.done) == ("urlib.csv", "ada", False, 3, 3)
    assert run.counts == {**dict.fromkeys(OUTCOMES, 0), "created": 2, "skipped": 1}
    assert run.finished_at and run.stopped is None
    assert state_of(run, datetime.now(timezone.utc)) == "finished"
    rows = outcomes_of(database, run_id)
    assert [row["outcome"] for row in rows] == ["created", "created", "skipped"]
    assert rows[2]["reason"].template.startswith("no IBI in the record")  # a message again: shown translated
    storage = Storage(database)
    assert ImportRunStore(storage).source_data(run_id) == CSV
    history = HistoryStore(storage).entries("8JMKD3MGP3W34R/3UGHFGH")
    storage.close()
    assert str(history[0].actor) == "import urlib.csv (administrator ada)"


def test_a_run_that_breaks_is_said_stopped_with_the_items_before_it_whole(database):
    class Breaking(Importer):
        def run(self, records, actor, **options):
            for number, outcome in enumerate(super().run(records, actor, **options)):
                if number == 1:
                    raise RuntimeError("a fault of the portal")
                yield outcome

    runs = runs_over(database, lambda storage, pairs: Breaking(IdentifierStore(storage), FileStore(storage), SUBSYSTEM,
                                                               pairs, 1_000_000, lambda: unix_time(utc_now())))
    run_id = runs.start(ImportSource.of_file("urlib.csv", CSV), dry_run=False, update=False, started_by="ada",
                        pairs=KNOWN_PREFIX_PAIRS)
    runs.threads[run_id].join(20)

    run = run_of(database, run_id)
    assert state_of(run, datetime.now(timezone.utc)) == "stopped" and "error of the portal" in run.stopped
    assert run.done == 1
    storage = Storage(database)
    held = [item.ibip for item in IdentifierStore(storage).minted_items()]
    storage.close()
    assert held == ["8JMKD3MGP3W34R/3UGHFGH", "8JMKD3MGP3W34T/4B9G5HL"]  # the second was written before the fault


def test_a_source_that_cannot_be_read_ends_the_run_saying_why(database):
    runs = runs_over(database)
    run_id = runs.start(ImportSource.of_file("items.csv", b"title\nno ibi\n"), dry_run=True, update=False,
                        started_by="ada", pairs=KNOWN_PREFIX_PAIRS)
    runs.threads[run_id].join(20)
    run = run_of(database, run_id)
    assert state_of(run, datetime.now(timezone.utc)) == "stopped" and "one of them `ibi`" in run.stopped
    assert run.stopped.template.startswith("the CSV's first line")  # kept as a message, shown translated


def test_a_run_waiting_on_its_source_shows_it_is_alive(database):
    """A slow OAI-PMH page, a large file: no outcome for a while, yet the run says it is alive."""
    asked, go_on = threading.Event(), threading.Event()

    def slow_fetch(url, parameters):
        asked.set()
        go_on.wait(20)
        return b'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords></ListRecords></OAI-PMH>'

    runs = ImportRuns(lambda: Storage(database), importer, heartbeat_seconds=0.05, fetch=slow_fetch)
    try:
        run_id = runs.start(ImportSource.of_url("http://archive.example.org/oai"), dry_run=True, update=False,
                            started_by="ada", pairs=KNOWN_PREFIX_PAIRS)
        assert asked.wait(20)
        first = run_of(database, run_id).alive_at
        renewed = threading.Event()
        for _ in range(500):  # a few heartbeats at most
            if renewed.wait(0.02) or run_of(database, run_id).alive_at != first:
                break
        assert run_of(database, run_id).alive_at > first
        assert state_of(run_of(database, run_id), datetime.now(timezone.utc)) == "running"
    finally:
        go_on.set()
    runs.threads[run_id].join(20)
    assert state_of(run_of(database, run_id), datetime.now(timezone.utc)) == "finished"


def test_a_run_not_heard_from_for_long_is_interrupted():
    now = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)

    def run(alive_seconds_ago: float, finished: bool = False, stopped: str | None = None) -> ImportRun:
        alive = (now - timedelta(seconds=alive_seconds_ago)).isoformat().replace("+00:00", "Z")
        return ImportRun("r", "s", False, False, "ada", alive, alive, alive if finished else None, None, 0,
                         stopped=stopped)

    assert state_of(run(1), now) == "running"
    assert state_of(run(STALE_SECONDS + 1), now) == "interrupted"
    assert state_of(run(STALE_SECONDS + 1, finished=True), now) == "finished"
    assert state_of(run(1, finished=True, stopped="the source stopped"), now) == "stopped"


def test_only_the_newest_runs_are_kept(database):
    storage = Storage(database)
    store = ImportRunStore(storage)
    def new(number: int) -> str:
        run_id = store.create(f"source {number}", b"x", dry_run=True, update=False, started_by="ada", counts={},
                              stale_before="2026-01-01T00:00:00.000000Z")
        store.record(run_id, 0, {"record": "r", "outcome": "created", "reason": "new here"}, {"created": 1}, 1)
        return run_id

    running = new(0)  # not finished, and heard from since stale_before: kept however old
    ids = [new(number) for number in range(1, KEPT_RUNS + 2)]
    for run_id in ids:
        store.finish(run_id, None, 1)
    ids.append(new(KEPT_RUNS + 2))
    kept = [run.id for run in store.recent(100)]
    assert len(kept) == KEPT_RUNS + 1 and running in kept and ids[0] not in kept and ids[-1] in kept
    assert store.find(ids[0]) is None and store.outcomes(ids[0]) == []
    storage.close()
