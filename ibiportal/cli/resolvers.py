"""CLI: ``flask --app app resolvers join|leave|list`` – the own Archive and outside resolvers (file 003 §7.2).

``join RESOLVER_SERVICE_URL`` sends the ``inclusionRequest`` of Example 7.2 (the eight pairs of
Table 7.2) to a resolver service such as ``http://urlib.net/J8LNKB5R7W/3FUQHC5``; the resolver
calls the portal's own Archive service back (Example 7.4), so the portal must be running at
``IBIPORTAL_PORTAL_URL``. ``leave`` sends the ``exclusionRequest`` (Example 7.3). Both print the
resolver's status line as it came, then what it means. The registration key is the one this
Archive was registered with at that resolver (§7.1): without ``--key`` it is asked for without
echo, and it is never stored or printed. ``list`` shows each resolver's last status and date.

Exit status: 0 included with confirmation, or excluded; 1 refused, included without
confirmation, or no usable answer; 2 bad input or configuration (``error: <what>: <message>``
on standard error, as ``flask archives``).
"""
from __future__ import annotations

import sys
from typing import NoReturn

import click
from flask.cli import AppGroup

from ..application.joining import Action, NotReady, ResolverAnswer, ResolverService
from ..errors import ParseError
from ..web.admin.joining import SUBJECTS, joining, outcome_sentence

resolvers_cli = AppGroup("resolvers", help="Join and leave outside resolvers as this portal's Archive (§7.2).")

_KEY_HELP = ("The registration key this Archive was registered with at that resolver (Table 7.1). "
             "Asked for without echo when omitted; never stored.")
_COLUMNS = ("resolver", "last request", "outcome", "date (UTC)", "status or reason")


@resolvers_cli.command("join")
@click.argument("resolver_url")
@click.option("--key", help=_KEY_HELP)
def join_command(resolver_url: str, key: str | None) -> None:
    """Send inclusionRequest (Example 7.2) to RESOLVER_URL, e.g. http://urlib.net/J8LNKB5R7W/3FUQHC5."""
    _send(Action.JOIN, resolver_url, key)


@resolvers_cli.command("leave")
@click.argument("resolver_url")
@click.option("--key", help=_KEY_HELP)
def leave_command(resolver_url: str, key: str | None) -> None:
    """Send exclusionRequest (Example 7.3) to RESOLVER_URL."""
    _send(Action.LEAVE, resolver_url, key)


@resolvers_cli.command("list")
def list_command() -> None:
    """Each resolver asked: the last request, its outcome and date, the status or the reason."""
    statuses = joining().resolvers()
    if not statuses:
        click.echo("No resolver has been asked yet: flask --app app resolvers join RESOLVER_SERVICE_URL.")
        return
    rows = [_COLUMNS] + [
        (status.service_url, SUBJECTS[Action(status.action)], status.outcome, f"{status.at[:10]} {status.at[11:19]}",
         " – ".join(part for part in (status.status, status.reason) if part) or "-")
        for status in statuses
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(_COLUMNS))]
    for row in rows:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())


def _send(action: Action, resolver_url: str, key: str | None) -> None:
    use_case = joining()
    try:  # what can be checked before the key is asked for
        resolver = ResolverService.parse(resolver_url)
        identity = use_case.identity()
    except ParseError as exc:
        _fail("resolver URL", str(exc), 2)
    except NotReady as exc:
        _fail("configuration", str(exc), 2)
    if key is None:
        key = click.prompt("Registration key", hide_input=True)
    click.echo(f"Sending {SUBJECTS[action]} to {resolver.url} as the Archive at {identity.address} "
               f"(archive service {identity.service_ibi}, IP {identity.ip}, administrator {identity.admin_email})…")
    for note in identity.notes:
        click.echo(f"note: {note}", err=True)
    try:
        answer = use_case.join(resolver_url, key) if action is Action.JOIN else use_case.leave(resolver_url, key)
    except ParseError as exc:  # a key's error names it already
        _fail("resolver URL" if exc.field == "resolver_url" else None, str(exc), 2)
    except NotReady as exc:
        _fail("configuration", str(exc), 2)
    _report(answer)


def _report(answer: ResolverAnswer) -> None:
    if answer.status:
        click.echo(answer.status)
    if answer.succeeded:
        click.echo(outcome_sentence(answer))
        return
    click.echo(f"error: {answer.resolver_url}: {outcome_sentence(answer)}", err=True)
    sys.exit(1)


def _fail(what: str | None, message: str, status: int) -> NoReturn:
    click.echo(f"error: {what}: {message}" if what else f"error: {message}", err=True)
    sys.exit(status)
