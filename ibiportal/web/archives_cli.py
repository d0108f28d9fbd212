"""CLI: ``flask --app app archives register|list|history|remove`` – Archive registration (file 003 §7.1).

§7.1: an Archive's administrator asks, by e-mail (Example 7.1), to register the Archive with
its archive-service IBI and a registration key of their choice (Table 7.1); the resolver's
administrator enters both here. The Archive is then included when it switches on and sends
``inclusionRequest`` (§7.2). The key is stored hashed and never printed; without ``--key``
it is asked for without echo.

Bad input goes to standard error as ``error: <what>: <message>`` with exit status 2; an
Archive already registered (``register``) or not registered (``history``, ``remove``) exits
with 1.
"""
from __future__ import annotations

import sys
from typing import NoReturn

import click
from flask.cli import AppGroup

from ..errors import ParseError
from ..protocol.messages import RegistrationKey
from ..resolver.registration import KeyHash, normalize_service_ibi, utc_now
from ..storage import ArchiveStore
from .context import get_storage

archives_cli = AppGroup("archives", help="Register, list and remove the Archives of the resolver (§7.1).")

_COLUMNS = ("IBI", "included", "address", "last confirmation", "updated")


@archives_cli.command("register")
@click.argument("service_ibi")
@click.option(
    "--key",
    prompt="Registration key",
    hide_input=True,
    confirmation_prompt=True,
    help="The registration key the Archive's administrator chose (Table 7.1: 10 or more digits, "
    "optionally '-' and 10 or more digits). Asked for without echo when omitted.",
)
def register_command(service_ibi: str, key: str) -> None:
    """Register the Archive whose archive-service IBI is SERVICE_IBI (§7.1, Example 7.1)."""
    ibi = _service_ibi(service_ibi)
    try:
        registration_key = RegistrationKey(key)
    except ParseError as exc:
        _fail("registration key", str(exc), 2)
    if not ArchiveStore(get_storage()).register_archive(ibi, KeyHash.of(registration_key), utc_now()):
        _fail(ibi, "already registered; remove it first to register it with another key", 1)
    click.echo(f"Registered {ibi}: it is included when it sends inclusionRequest (§7.2).")


@archives_cli.command("list")
def list_command() -> None:
    """List the registered Archives: IBI, included, address, last confirmation, updated."""
    archives = ArchiveStore(get_storage()).archives()
    if not archives:
        click.echo("No Archive is registered.")
        return
    rows = [_COLUMNS] + [
        (
            archive.service_ibi,
            "yes" if archive.included else "no",
            archive.address or "-",
            archive.last_confirmation or "-",
            archive.updated_at,
        )
        for archive in archives
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(_COLUMNS))]
    for row in rows:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())


@archives_cli.command("history")
@click.argument("service_ibi")
def history_command(service_ibi: str) -> None:
    """Show a registered Archive's events: registration, inclusions, exclusions, refusals."""
    ibi = _service_ibi(service_ibi)
    store = ArchiveStore(get_storage())
    if store.find_archive(ibi) is None:
        _fail(ibi, "not registered", 1)
    for event in store.archive_events(ibi):
        click.echo(f"{event.at}  {event.kind:<10}  {event.detail}")


@archives_cli.command("remove")
@click.argument("service_ibi")
def remove_command(service_ibi: str) -> None:
    """Remove a registered Archive and its history (it can no longer be included)."""
    ibi = _service_ibi(service_ibi)
    if not ArchiveStore(get_storage()).remove_archive(ibi):
        _fail(ibi, "not registered", 1)
    click.echo(f"Removed {ibi}.")


def _service_ibi(text: str) -> str:
    try:
        return normalize_service_ibi(text)
    except ParseError as exc:
        _fail(text, str(exc), 2)


def _fail(what: str, message: str, status: int) -> NoReturn:
    click.echo(f"error: {what}: {message}", err=True)
    sys.exit(status)
