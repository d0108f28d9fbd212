"""IBIPORTAL_DATABASE: a file path (the embedded SQLite) or a URL."""
from __future__ import annotations

import os

import pytest

from ibiportal import create_app
from sqlalchemy.exc import OperationalError

from ibiportal.storage.database import database, database_url


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
