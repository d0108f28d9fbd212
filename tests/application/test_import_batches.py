"""An import writes its records a batch at a time, in one transaction: a record the database refuses
in the middle of a batch leaves nothing of itself (its item, its history, its files, its change
signal), is reported with the database's reason, and the records before and after it in the batch
are kept (the batch is written again one record a transaction); on SQLite, then on PostgreSQL."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import func, select

from ibiportal.application import importing
from ibiportal.application.importing import Harvest, Importer
from ibiportal.archive.import_records import SourceRecord
from ibiportal.ibi.clock import unix_time, utc_now
from ibiportal.ibi.conversion import convert
from ibiportal.ibi.history import FILE_ADDED, IMPORTED, Actor
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS
from ibiportal.ibi.subsystem import Subsystem
from ibiportal.storage.database import Storage
from ibiportal.storage.files import FileStore
from ibiportal.storage.history import HistoryStore
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.storage.schema import resolution_change

SUBSYSTEM = Subsystem(host="portal.example", port=80, ip="192.0.2.1", ibip_port=800, granularity=Decimal(1))
OWN_PAIR = (SUBSYSTEM.rep_prefix, SUBSYSTEM.ibip_prefix)
ACTOR = Actor("import", "batch.csv")
REPS = [f"sid.inpe.br/mtc-m21c/2019/01.01.00.00.{second:02d}" for second in range(5)]

#: A database that refuses one file's row: the refusal comes after the record's item, history
#: entry and first file were written.
REFUSE_FILE = {
    "sqlite": ["CREATE TRIGGER refuse_file BEFORE UPDATE ON item_file WHEN NEW.path = 'refused.pdf' "
               "BEGIN SELECT RAISE(ABORT, 'no room for refused.pdf'); END"],
    "postgresql": ["CREATE FUNCTION refuse_file() RETURNS trigger LANGUAGE plpgsql AS "
                   "$$ BEGIN RAISE EXCEPTION 'no room for refused.pdf'; END $$",
                   "CREATE TRIGGER refuse_file BEFORE UPDATE ON item_file FOR EACH ROW "
                   "WHEN (NEW.path = 'refused.pdf') EXECUTE FUNCTION refuse_file()"],
}


@pytest.fixture
def announced() -> list[int]:
    return []


@pytest.fixture
def storage(database_setting, announced):
    storage = Storage(database_setting, announce=announced.append)
    yield storage
    storage.close()


def importer_over(storage: Storage, store: IdentifierStore | None = None) -> Importer:
    return Importer(store or IdentifierStore(storage), FileStore(storage), SUBSYSTEM, [*KNOWN_PREFIX_PAIRS, OWN_PAIR],
                    1_000_000, lambda: unix_time(utc_now()))


@pytest.fixture
def col(tmp_path) -> Path:
    """Each item's ``a.pdf``, and the third's ``refused.pdf`` too, in a URLib ``col/`` folder."""
    for rep in REPS:
        (tmp_path / "col" / rep / "doc").mkdir(parents=True)
        (tmp_path / "col" / rep / "doc" / "a.pdf").write_bytes(f"%PDF {rep}".encode())
    return tmp_path / "col"


def records(col: Path | None = None, refused: int | None = None) -> list[SourceRecord]:
    """A record of each of :data:`REPS`, naming its ``a.pdf`` in ``col`` when given; the
    ``refused``-th also names ``refused.pdf``."""
    if refused is not None:
        (col / REPS[refused] / "doc" / "refused.pdf").write_bytes(b"%PDF refused")
    named = {number: ("a.pdf", "refused.pdf") if number == refused else ("a.pdf",) for number in range(len(REPS))}
    return [SourceRecord(f"line {number + 2}", (rep,), {"title": f"Report {number}"},
                         files=named[number] if col else ()) for number, rep in enumerate(REPS)]


def ibip_of(storage: Storage, rep: str) -> str | None:
    item = IdentifierStore(storage).find_minted(rep=rep)
    return item.ibip if item else None


@pytest.mark.parametrize("refused", [2, 4], ids=["in the middle", "last"])
def test_a_record_refused_in_a_batch_is_undone_alone_and_the_others_kept(storage, announced, col, refused):
    for statement in REFUSE_FILE[storage.dialect]:
        storage.connection.exec_driver_sql(statement)
    ibips = [convert(rep, KNOWN_PREFIX_PAIRS).ibip for rep in REPS]

    outcomes = list(importer_over(storage).run(records(col, refused), ACTOR, files_dir=col))

    assert [outcome.outcome for outcome in outcomes] == ["failed" if number == refused else "created"
                                                         for number in range(len(REPS))]
    assert "the database refused the item" in str(outcomes[refused].reason)
    assert "no room for refused.pdf" in str(outcomes[refused].reason)
    assert outcomes[refused].ibip == ibips[refused]
    files, history = FileStore(storage), HistoryStore(storage)
    for number, rep in enumerate(REPS):
        if number == refused:  # nothing of it: neither the item, its history, its first file, nor its change signal
            assert ibip_of(storage, rep) is None
            assert files.files(ibips[number]) == [] and history.entries(ibips[number]) == []
            signalled = storage.read(select(resolution_change.c.ibi).where(
                resolution_change.c.ibi == ibips[number].casefold())).all()
            assert signalled == []
        else:
            assert ibip_of(storage, rep) == ibips[number]
            assert [stored.path for stored in files.files(ibips[number])] == ["a.pdf"]
            assert [entry.action for entry in history.entries(ibips[number])] == [IMPORTED, FILE_ADDED]
    # each commit announced with the newest change it committed (none that was rolled back)
    newest = storage.read(select(func.max(resolution_change.c.id))).scalar_one()
    assert announced == sorted(set(announced)) and announced[-1] == 2 * newest


def test_an_update_refused_last_in_its_batch_takes_nothing_with_it(storage, announced, col):
    """Updates tell the resolution caches record by record (their files'): the one rolled back
    must not be a number a commit announces (it may be drawn again later)."""
    for statement in REFUSE_FILE[storage.dialect]:
        storage.connection.exec_driver_sql(statement)
    list(importer_over(storage).run(records(col), ACTOR, files_dir=col))
    announced.clear()
    for rep in REPS:
        (col / rep / "doc" / "a.pdf").write_bytes(f"%PDF second edition {rep}".encode())

    outcomes = list(importer_over(storage).run(records(col, refused=4), ACTOR, files_dir=col, update=True))

    assert [outcome.outcome for outcome in outcomes] == ["updated"] * 4 + ["failed"]
    files = FileStore(storage)
    sizes = [files.find(convert(rep, KNOWN_PREFIX_PAIRS).ibip, "a.pdf").size for rep in REPS]
    assert sizes == [len(f"%PDF second edition {rep}") for rep in REPS[:4]] + [len(f"%PDF {REPS[4]}")]
    newest = storage.read(select(func.max(resolution_change.c.id))).scalar_one()
    assert announced == sorted(set(announced)) and announced[-1] == 2 * newest


def test_a_batch_whose_transaction_fails_is_written_record_by_record(storage):
    class ClockRefused(IdentifierStore):
        """The own clock's row cannot be written: the batch's last statement fails."""

        def move_clock_past(self, conn, subsystem, date, reading):
            raise RuntimeError("the clock's row is locked")

    own = SourceRecord("line 3", (f"{SUBSYSTEM.rep_prefix}/2024/01.02.03.04",), {"title": "Our own"})
    source = [*records()[:1], own, *records()[1:2]]

    outcomes = list(importer_over(storage, ClockRefused(storage)).run(source, ACTOR))

    assert [outcome.outcome for outcome in outcomes] == ["created", "failed", "created"]
    assert "the clock's row is locked" in str(outcomes[1].reason)
    store = IdentifierStore(storage)
    assert store.find_minted(rep=f"{SUBSYSTEM.rep_prefix}/2024/01.02.03.04") is None
    assert [ibip_of(storage, rep) is not None for rep in REPS[:2]] == [True, True]


def test_batches_follow_the_source_in_order_and_a_repeat_across_them_is_skipped(storage, monkeypatch):
    monkeypatch.setattr(importing, "BATCH_RECORDS", 2)
    source = [*records(), SourceRecord("line 7", (REPS[0],), {"title": "Report 0 again"})]

    outcomes = list(importer_over(storage).run(source, ACTOR))

    assert [outcome.where for outcome in outcomes] == [f"line {number}" for number in range(2, 8)]
    assert [outcome.outcome for outcome in outcomes] == ["created"] * 5 + ["skipped"]
    assert "the source gave this IBI already, in line 2" in str(outcomes[-1].reason)


def test_a_harvest_page_is_written_before_the_next_is_asked_for(storage):
    """A page's records are a batch of their own: the next page may be minutes away."""
    given: list = []

    def fetch(url, parameters):
        page = 0 if "metadataPrefix" in parameters else 1
        if page == 1:
            assert [outcome.outcome for outcome in given] == ["created", "created"]
        identifiers = "".join(
            f"<record><header><identifier>oai:urlib.net:{rep}</identifier><datestamp>2026-01-01</datestamp></header>"
            f'<metadata><oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" '
            f'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Report</dc:title></oai_dc:dc></metadata></record>'
            for rep in REPS[2 * page:2 * page + 2])
        token = '<resumptionToken completeListSize="4">page-1</resumptionToken>' if page == 0 else ""
        return (f'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>{identifiers}{token}'
                f"</ListRecords></OAI-PMH>").encode()

    for outcome in importer_over(storage).run(Harvest("http://archive.example.org/oai", fetch), ACTOR):
        given.append(outcome)
    assert [outcome.outcome for outcome in given] == ["created"] * 4
