"""``flask --app app db upgrade``: the only way the schema of a database changes.

Run it before starting (or switching to) a new version: on a new database it creates the
tables, on one written by an earlier version it applies the migrations that version lacks,
keeping every row. ``bin/serve`` runs it for the embedded SQLite database.
"""
from __future__ import annotations

import os

import click
from flask.cli import AppGroup

from ..storage.private_files import make_private
from ..storage.database import Storage, database
from ..storage.migrations import upgrade
from ..storage.transfer import TransferRefused, export_lines, import_lines
from ..web.context import settings

db_cli = AppGroup("db", help="The portal's database: its schema, and its data moved out and in.")


@db_cli.command("upgrade")
def upgrade_command() -> None:
    """Bring the database (IBIPORTAL_DATABASE) to the schema this version needs."""
    setting = settings().database
    upgrade(setting)
    click.echo(f"The database {database(setting).shown_url} is at the current schema.")


@db_cli.command("export")
@click.argument("path", type=click.Path(dir_okay=False, writable=True, allow_dash=True))
def export_command(path: str) -> None:
    """Write everything the portal holds to PATH ('-': standard output) as ibiportal-export JSON Lines."""
    storage = Storage(settings().database)
    # The export holds what the database does (password and token hashes, traces): its user's alone.
    # click writes a new file with the mode of the one it replaces, else 0666 less the umask.
    if path != "-":
        make_private(path)
    umask = os.umask(0o077)
    try:
        with click.open_file(path, "w", encoding="utf-8", atomic=path != "-") as out:
            rows = 0
            for line in export_lines(storage):
                out.write(line + "\n")
                rows += 1
    except TransferRefused as refusal:
        raise click.ClickException(str(refusal)) from refusal
    finally:
        os.umask(umask)
        storage.close()
    if path != "-":
        click.echo(f"Exported {rows - 2} rows of {database(settings().database).shown_url} to {path}.")


@db_cli.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
def import_command(path: str) -> None:
    """Load an ibiportal-export file into this portal's empty database (run db upgrade first)."""
    storage = Storage(settings().database)
    try:
        with click.open_file(path, "r", encoding="utf-8") as lines:
            counts = import_lines(storage, lines)
    except (TransferRefused, ValueError) as refusal:
        raise click.ClickException(f"nothing was imported: {refusal}") from refusal
    finally:
        storage.close()
    shown = ", ".join(f"{name} {count}" for name, count in counts.items() if count)
    click.echo(f"Imported {sum(counts.values())} rows ({shown or 'none'}).")
