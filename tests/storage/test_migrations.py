"""The schema changes only through migrations: a database of the last release upgrades in place
with nothing lost, a new one gets exactly the tables the queries are written against, and code
refuses (clearly) a database whose schema is behind it."""
from __future__ import annotations

import sqlite3
from contextlib import closing
from decimal import Decimal
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine
from sqlalchemy.pool import NullPool
from werkzeug.security import check_password_hash

from ibiportal import create_app
from ibiportal.application.minting import Minter
from ibiportal.ibi.mint_request import MintRequest
from ibiportal.ibi.subsystem import Subsystem
from ibiportal.ibi.minted import ItemLink
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.storage.accounts import AccountStore
from ibiportal.storage.database import SchemaNotCurrent, Storage, database_url
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.storage.migrations import head_revision, upgrade
from ibiportal.storage.registry import ArchiveStore
from ibiportal.storage.schema import SCHEMA_REVISION, metadata
from ibiportal.storage.signal import read_changes
from ibiportal.storage.traces import TraceStore
from tests.storage.trace_measure import stored_bytes
from ibiportal.ibi.history import Actor

TESTER = Actor("command", "tests")

RELEASE_DUMP = Path(__file__).with_name("release_5964d45.sql")
ARCHIVE = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"


def release_database(path: Path) -> str:
    """A SQLite file exactly as the release at 5964d45 left it (its own dump, replayed)."""
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript(RELEASE_DUMP.read_text(encoding="utf-8"))
    return str(path)


def test_the_code_needs_the_newest_migration():
    assert SCHEMA_REVISION == head_revision()


def test_a_release_database_upgrades_in_place_with_nothing_lost(tmp_path):
    database = release_database(tmp_path / "release.sqlite")
    with pytest.raises(SchemaNotCurrent, match="flask --app app db upgrade"):
        Storage(database)
    app = create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "t"})
    result = app.test_cli_runner().invoke(args=["db", "upgrade"])
    assert result.exit_code == 0 and "is at the current schema" in result.output, result.output

    storage = Storage(database)
    identifiers = IdentifierStore(storage)
    items = identifiers.minted_items()
    assert [item.ibip for item in items] == ["8JMKD3MGP8W/34PGRBS", "8JMKD3MGP8W/34PGRE5", "8JMKD3MGP8W/34PGRGB"]
    first = items[0]
    assert (first.rep, first.date, first.title, first.creators, first.language) == (
        "sid.inpe.br/mtc-m18/2009/02.16.17.46", Decimal("1234806360"), "Relatório técnico", ("Banon, Gerald",), "pt")
    assert identifiers.item_links(first.ibip) == [
        ItemLink("nextedition", "8JMKD3MGP8W/34PGRE5"), ItemLink("translation", "8JMKD3MGP8W/34PGRGB", "en")]
    assert identifiers.prefix_pairs() == [("dpi.inpe.br/banon", "J8LNKAN8PW")]
    assert check_password_hash(AccountStore(storage).admin_password_hash("ada"), "correct horse battery")
    archive = ArchiveStore(storage).find_archive(ARCHIVE)
    assert archive.included and archive.address == "mtc-m21.sid.inpe.br"
    assert archive.key_hash.matches(RegistrationKey("1234567890"))
    assert [event.kind for event in ArchiveStore(storage).archive_events(ARCHIVE)] == ["registered", "included"]
    assert TraceStore(storage).load_trace("ReleaseTrace1")["note"] == "açúcar"
    body_bytes = len(Path(RELEASE_DUMP).read_text(encoding="utf-8").split("'found','", 1)[1].split("');", 1)[0].encode())
    assert stored_bytes(storage) == (1, body_bytes)  # the new size column, filled in
    assert read_changes(storage, None).generation == 3

    # Minting goes on after the release's last date, from its persisted state.
    subsystem = Subsystem("mtc-m18.sid.inpe.br", 80, "150.163.34.243", 800, Decimal("1"))
    minter = Minter(identifiers, subsystem, clock=lambda: Decimal("1234806480.75"), sleep=lambda seconds: None)
    assert minter.mint(MintRequest(), actor=TESTER).date > items[-1].date
    storage.close()


def test_a_database_of_the_code_before_migrations_keeps_its_bibliographic_columns(tmp_path):
    """Between the release and the migrations the code added the bibliographic columns itself."""
    database = release_database(tmp_path / "between.sqlite")
    with closing(sqlite3.connect(database)) as connection:
        for column in ("item_type", "publisher", "place", "extent", "degree", "report_number"):
            connection.execute(f"ALTER TABLE minted_item ADD COLUMN {column} TEXT")
        connection.execute("UPDATE minted_item SET item_type = 'report', report_number = 'NTC' WHERE id = 1")
        connection.commit()
    upgrade(database)
    storage = Storage(database)
    first = IdentifierStore(storage).minted_items()[0]
    assert (first.bibliographic.item_type, first.bibliographic.report_number) == ("report", "NTC")
    storage.close()


def test_kept_file_types_are_made_bare(tmp_path):
    """Files uploaded before 0015 kept the whole Content-Type they declared; a parameter can be
    read as a second type by a browser (``web.files``)."""
    database = str(tmp_path / "files.sqlite")
    upgrade(database, "0014")
    with closing(sqlite3.connect(database)) as connection:
        for path, declared in (("a.pdf", 'application/pdf; a="\\"; b=",text/html;c="'),
                               ("b.txt", "Text/Plain; charset=utf-8"), ("c.png", "image/png")):
            connection.execute("INSERT INTO item_file (ibi, path, content_type, size, sha256, chunk_bytes, uploaded_at)"
                               " VALUES ('8JMKD3MGP8W/34PGRBS', ?, ?, 0, '', 1, '2026-11-28T00:00:00Z')", (path, declared))
        connection.commit()
    upgrade(database)
    with closing(sqlite3.connect(database)) as connection:
        kept = dict(connection.execute("SELECT path, content_type FROM item_file"))
    assert kept == {"a.pdf": "application/pdf", "b.txt": "text/plain", "c.png": "image/png"}


def test_upgrade_twice_changes_nothing(new_database):
    database = new_database()
    upgrade(database)
    storage = Storage(database)
    assert storage.database.revision(storage.connection) == SCHEMA_REVISION
    storage.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_new_database_gets_exactly_the_tables_the_queries_use(backend, tmp_path, request):
    if backend == "sqlite":
        setting = str(tmp_path / "new.sqlite")
    else:
        setting = request.getfixturevalue("postgres_server").new_database(migrated=False)
    with pytest.raises(SchemaNotCurrent, match="empty"):
        Storage(setting)
    upgrade(setting)
    engine = create_engine(database_url(setting), poolclass=NullPool)
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), metadata)
    engine.dispose()
    assert differences == []
    Storage(setting).close()


def test_pages_and_readiness_say_the_schema_is_behind(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "empty.sqlite"), "SECRET_KEY": "t"})
    client = app.test_client()
    page = client.post("/api/v1/mint", json={})
    assert page.status_code == 503
    assert "not ready for this version" in page.get_json()["error"]["message"]
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.get_json()["checks"]["database"] == {
        "ok": False, "revision": None, "expected": SCHEMA_REVISION,
        "error": "migrations not current: run 'flask --app app db upgrade'"}
    assert app.test_cli_runner().invoke(args=["db", "upgrade"]).exit_code == 0
    assert client.get("/readyz").status_code == 200
    assert client.post("/api/v1/mint", json={}).status_code == 201
