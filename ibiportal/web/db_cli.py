"""``flask --app app db upgrade``: the only way the schema of a database changes.

Run it before starting (or switching to) a new version: on a new database it creates the
tables, on one written by an earlier version it applies the migrations that version lacks,
keeping every row. ``bin/serve`` runs it for the embedded SQLite database.
"""
from __future__ import annotations

import click
from flask import current_app
from flask.cli import AppGroup

from ..storage.database import database
from ..storage.migrations import upgrade

db_cli = AppGroup("db", help="The portal's database schema.")


@db_cli.command("upgrade")
def upgrade_command() -> None:
    """Bring the database (IBIPORTAL_DATABASE) to the schema this version needs."""
    setting = current_app.config["DATABASE"]
    upgrade(setting)
    click.echo(f"The database {database(setting).shown_url} is at the current schema.")
