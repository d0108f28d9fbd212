"""IBIPORTAL_DATABASE: a file path (the embedded SQLite) or a URL."""
from __future__ import annotations

import os

import pytest

from sqlalchemy import event, insert, select, text, update
from sqlalchemy.exc import IntegrityError, OperationalError

from ibiportal import create_app
from ibiportal.storage.database import Storage, database, database_url
from ibiportal.storage.outage import READ_RETRY_PAUSE_SECONDS, unreachable
from ibiportal.storage.schema import api_token, resolution_generation
from tests.servers import PostgresServer, fresh_sqlite


def test_a_path_is_the_embedded_sqlite(tmp_path):
    assert database_url("instance/portal.sqlite") == "sqlite:///" + os.path.abspath("instance/portal.sqlite")
    assert database_url(str(tmp_path / "p.sqlite")) == f"sqlite:///{tmp_path}/p.sqlite"


def test_urls_are_taken_as_given_with_psycopg_for_postgresql():
    assert database_url("sqlite:////var/lib/ibiportal.sqlite") == "sqlite:////var/lib/ibiportal.sqlite"
    assert database_url("postgresql://portal:s3cret@db.internal:5432/ibiportal") == (
        "postgresql+psycopg://portal:s3cret@db.internal:5432/ibiportal")
    assert database_url("postgresql+psycopg://portal@127.0.0.1:5433/x") == "postgresql+psycopg://portal@127.0.0.1:5433/x"


@pytest.mark.parametrize("setting", ["mysql://root@db/x", "oracle+cx://a@b/c"])
def test_other_databases_are_refused_naming_the_variable(setting):
    with pytest.raises(ValueError, match="IBIPORTAL_DATABASE must be a file path, sqlite:///… or postgresql"):
        database_url(setting)


def test_a_sqlite_url_serves_like_a_path(new_database):
    path = new_database()
    client = create_app({"TESTING": True, "DATABASE": f"sqlite:///{path}", "SECRET_KEY": "t"}).test_client()
    minted = client.post("/api/v1/mint", json={"target_url": "https://example.org/u"})
    assert minted.status_code == 201
    answer = client.get(f"/{minted.get_json()['ibip']}")
    assert answer.status_code == 302 and answer.headers["Location"] == "https://example.org/u"


class _LostConnection:
    """A connection whose server went away: every statement fails as psycopg's do then."""

    def execute(self, *args, **kwargs):
        raise OperationalError("SELECT version_num FROM alembic_version", {}, Exception("server closed the connection"))

    def rollback(self) -> None:
        pass


def test_a_postgresql_server_that_does_not_answer_is_an_outage_not_an_old_schema():
    """A worker's first schema check during a restart used to read "revision None" and answer the
    old-schema 503 without Retry-After; the outage's error now reaches the outage handler."""
    with pytest.raises(OperationalError):
        database("postgresql+psycopg://portal:secret@127.0.0.1:9/portal").revision(_LostConnection())


def test_sqlite_without_the_migrations_table_is_at_no_revision(tmp_path):
    """SQLite says "no such table" with an OperationalError too: that is no revision, not an outage."""
    assert database(str(tmp_path / "new.sqlite")).revision(_LostConnection()) is None


# -- one retry of reads: a brief PostgreSQL restart, for real ------------------------------------

@pytest.fixture(scope="module")
def restarted_server():
    """A PostgreSQL of this module's own: its tests stop and start it again."""
    server = PostgresServer.start()
    yield server
    server.stop()


def _generation(storage: Storage) -> int:
    return storage.read(select(resolution_generation.c.value)).scalar_one()


def _bump(storage: Storage) -> None:
    with storage.write_transaction() as conn:
        conn.execute(update(resolution_generation).values(value=resolution_generation.c.value + 1))


def test_a_read_on_a_connection_a_restart_cut_is_run_once_more_after_the_pause(restarted_server):
    pauses: list[float] = []
    storage = Storage(restarted_server.new_database(), pause=pauses.append)
    try:
        before = _generation(storage)
        _bump(storage)
        restarted_server.halt()
        restarted_server.resume()  # the connection the Storage holds is dead now
        assert _generation(storage) == before + 1
        assert pauses == [READ_RETRY_PAUSE_SECONDS]
    finally:
        storage.close()


def test_connecting_while_the_server_is_down_is_tried_once_more_after_the_pause(restarted_server):
    url = restarted_server.new_database()
    first = Storage(url)  # the schema is checked: what remains is connecting
    before = _generation(first)
    first.close()
    pauses: list[float] = []

    def restart_ends(seconds: float) -> None:  # the server comes back within the pause
        pauses.append(seconds)
        restarted_server.resume()

    restarted_server.halt()
    try:
        storage = Storage(url, pause=restart_ends)
    finally:
        if restarted_server.process.poll() is not None:
            restarted_server.resume()
    assert _generation(storage) == before and pauses == [READ_RETRY_PAUSE_SECONDS]
    storage.close()


def test_there_is_one_retry_per_storage_and_an_outage_outlasting_it_is_raised(restarted_server):
    storage = Storage(restarted_server.new_database(), pause=lambda seconds: None)
    restarted_server.halt()
    try:
        with pytest.raises(OperationalError) as raised:
            _generation(storage)
        assert unreachable(raised.value)  # the web answers it with 503 and Retry-After
    finally:
        restarted_server.resume()
    with pytest.raises(OperationalError):  # the retry was spent: a request is held up once at most
        restarted_server.halt()
        try:
            _generation(storage)
        finally:
            restarted_server.resume()
    storage.close()


def test_writes_are_never_retried(restarted_server):
    """A COMMIT whose answer was lost may or may not have happened: running it again could
    store twice. So a write that meets a restart fails (503) and its client retries it, with an
    Idempotency-Key for a mint."""
    pauses: list[float] = []
    storage = Storage(restarted_server.new_database(), pause=pauses.append)
    before = _generation(storage)
    try:
        restarted_server.halt()
        restarted_server.resume()
        with pytest.raises(OperationalError):
            _bump(storage)
        assert pauses == []
    finally:
        storage.close()
    checking = Storage(restarted_server.url(storage.database.engine.url.database))
    assert _generation(checking) == before
    checking.close()


def test_sqlite_is_never_retried(tmp_path):
    """A file has no restart to bridge: its errors (a missing table, a lock) are raised at once."""
    pauses: list[float] = []
    storage = Storage(fresh_sqlite(tmp_path / "p.sqlite"), pause=pauses.append)
    try:
        with pytest.raises(OperationalError, match="no such table"):
            storage.read(text("SELECT * FROM no_such_table"))
        assert pauses == []
    finally:
        storage.close()


def test_a_statement_sent_with_the_commit_is_committed_with_it_or_rolls_everything_back(database_setting):
    """``execute_with_commit`` (on PostgreSQL, the statement's values written into the SQL and sent
    with the COMMIT): its effect is committed, quotes and all; when it fails, nothing of the
    transaction stays and the connection goes on."""
    storage = Storage(database_setting)
    with storage.write_transaction() as conn:
        conn.execute(insert(api_token).values(name="a", token_hash="h1", created_at="t"))
        storage.execute_with_commit(update(api_token).where(api_token.c.name == "a").values(last_used_at="it's; now"))
    assert storage.read(select(api_token.c.last_used_at)).scalar_one() == "it's; now"
    with pytest.raises(IntegrityError):
        with storage.write_transaction() as conn:
            conn.execute(insert(api_token).values(name="b", token_hash="h2", created_at="t"))
            storage.execute_with_commit(insert(api_token).values(name="c", token_hash="h1", created_at="t"))  # h1 is a's
    assert storage.read(select(api_token.c.name)).scalars().all() == ["a"]
    with storage.write_transaction() as conn:
        conn.execute(insert(api_token).values(name="d", token_hash="h4", created_at="t"))
    assert sorted(storage.read(select(api_token.c.name)).scalars()) == ["a", "d"]
    storage.close()


def test_a_sqlite_write_that_need_not_wait_for_the_disk_commits_without_and_the_next_waits_again(new_database):
    storage = Storage(new_database())
    synchronous = "PRAGMA synchronous"
    assert storage.connection.exec_driver_sql(synchronous).scalar() == 2  # FULL: every commit waits
    before = _generation(storage)
    set_to: list[str] = []
    event.listen(storage.connection, "before_cursor_execute",
                 lambda conn, cursor, statement, *rest: set_to.append(statement) if "synchronous=" in statement else None)

    def during(durable: bool) -> int:
        with storage.write_transaction(durable=durable) as conn:
            return conn.exec_driver_sql(synchronous).scalar()

    with storage.write_transaction(durable=False) as conn:
        first = conn.exec_driver_sql(synchronous).scalar()
        conn.execute(update(resolution_generation).values(value=resolution_generation.c.value + 1))
    assert first == 1  # NORMAL for that transaction
    assert during(False) == 1 and set_to == ["PRAGMA synchronous=NORMAL"]  # set once for a run of them
    assert during(True) == 2  # the next durable write waits for the disk again
    assert set_to == ["PRAGMA synchronous=NORMAL", "PRAGMA synchronous=FULL"]
    with pytest.raises(RuntimeError), storage.write_transaction(durable=False):
        raise RuntimeError("rolled back")
    assert during(True) == 2
    assert _generation(storage) == before + 1  # committed; the rolled back one is not
    storage.close()


def test_a_sqlite_file_is_read_through_a_memory_map(new_database):
    from ibiportal.storage.database import SQLITE_MMAP_BYTES

    storage = Storage(new_database())
    assert storage.connection.exec_driver_sql("PRAGMA mmap_size").scalar() == SQLITE_MMAP_BYTES
    storage.close()
