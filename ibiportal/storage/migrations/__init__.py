"""The schema's history as Alembic migrations, and the ``db upgrade`` that applies them.

``versions/0001`` is the schema of the last release that created its tables itself
(``CREATE TABLE IF NOT EXISTS``): it creates what is missing and adopts the tables such a
database already has, so that database upgrades in place. Each later change is one more file.
"""
from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine
from sqlalchemy.pool import NullPool

from ..database import database_url, private_sqlite_file

FOLDER = Path(__file__).resolve().parent


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(FOLDER))
    return config


def head_revision() -> str:
    """The newest revision of ``versions/``."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def upgrade(setting: str, revision: str = "head") -> None:
    """Bring the database of ``IBIPORTAL_DATABASE`` ``setting`` to ``revision``, in one
    transaction per run on databases whose DDL is transactional (PostgreSQL, SQLite)."""
    url = database_url(setting)
    private_sqlite_file(url)
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    finally:
        engine.dispose()
