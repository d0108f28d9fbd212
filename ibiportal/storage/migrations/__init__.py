"""The schema's history as Alembic migrations, and the ``db upgrade`` that applies them.

``versions/0001`` is the schema of the last release that created its tables itself
(``CREATE TABLE IF NOT EXISTS``): it creates what is missing and adopts the tables such a
database already has, so that database upgrades in place. Each later change is one more file.

Alembic is imported when a migration runs, not with this module: the CLI imports this module in
every process that loads the portal (a gunicorn worker, any ``flask`` command), and Alembic
with what it imports (Mako, Pygments) was a fifth of that import's CPU, for the one command
that uses it.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import create_engine
from sqlalchemy.pool import NullPool

from ..database import database_url, private_sqlite_file

if TYPE_CHECKING:
    from alembic.config import Config

FOLDER = Path(__file__).resolve().parent


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(FOLDER))
    return config


def head_revision() -> str:
    """The newest revision of ``versions/``."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def upgrade(setting: str, revision: str = "head") -> None:
    """Bring the database of ``IBIPORTAL_DATABASE`` ``setting`` to ``revision``, in one
    transaction per run on databases whose DDL is transactional (PostgreSQL, SQLite)."""
    from alembic import command

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
