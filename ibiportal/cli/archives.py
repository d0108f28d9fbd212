"""CLI: ``flask --app app archives register|list|history|remove|check`` – Archives (file 003 §7, §9).

§7.1: an Archive's administrator asks, by e-mail (Example 7.1), to register the Archive with
its archive-service IBI and a registration key of their choice (Table 7.1); the resolver's
administrator enters both here. The Archive is then included when it switches on and sends
``inclusionRequest`` (§7.2). The key is stored hashed and never printed; without ``--key``
it is asked for without echo. With ``--generate`` the portal makes the key and prints it
once, to be sent to the Archive's administrator (the Archives page does the same, through
the same use case: :meth:`ibiportal.application.registry.Registering.register`).

``check ADDRESS [--ibi KNOWN]`` runs the conformance check
(:mod:`ibiportal.resolver.conformance`) against an Archive service address and prints each
rule ✓ passed, ✗ failed, – skipped or ? not checked (the address was refused); it exits with 1
when a rule failed or nothing could be checked.

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
from ..resolver.conformance import ConformanceReport, check_archive
from ..resolver.conformance_rules import Verdict, format_ms
from ..resolver.registry_service import normalize_service_ibi
from ..application.registry import AlreadyRegistered
from ..web.admin.transport import check_transport
from ..web.context import application

archives_cli = AppGroup("archives", help="Register, list and remove the Archives of the resolver (§7.1).")

_COLUMNS = ("IBI", "included", "address", "last confirmation", "updated")


PRIVATE_HINT = "loopback and private addresses are allowed only with IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1"
_MARKS = {Verdict.PASSED: "✓", Verdict.FAILED: "✗", Verdict.SKIPPED: "–", Verdict.NOT_CHECKED: "?"}


@archives_cli.command("register")
@click.argument("service_ibi")
@click.option(
    "--key",
    help="The registration key the Archive's administrator chose (Table 7.1: 10 or more digits, "
    "optionally '-' and 10 or more digits). Asked for without echo when omitted.",
)
@click.option("--generate", is_flag=True, help="Generate the key and print it once, for the Archive's administrator.")
def register_command(service_ibi: str, key: str | None, generate: bool) -> None:
    """Register the Archive whose archive-service IBI is SERVICE_IBI (§7.1, Example 7.1)."""
    _service_ibi(service_ibi)
    if generate and key is not None:
        _fail("--generate", "give either --key or --generate, not both", 2)
    if key is None and not generate:
        key = click.prompt("Registration key", hide_input=True, confirmation_prompt=True)
    try:
        registration = application().registering.register(service_ibi, key)
    except ParseError as exc:
        _fail(service_ibi if exc.field == "service_ibi" else "registration key", str(exc), 2)
    except AlreadyRegistered as exc:
        _fail(exc.service_ibi, "already registered; remove it first to register it with another key", 1)
    click.echo(f"Registered {registration.service_ibi}: it is included when it sends inclusionRequest (§7.2).")
    if registration.generated:
        click.echo(f"Registration key: {registration.key.reveal()}")
        click.echo("Send it to the Archive's administrator now: it is stored hashed and will not be shown again.")


@archives_cli.command("list")
def list_command() -> None:
    """List the registered Archives: IBI, included, address, last confirmation, updated."""
    archives = application().registering.archives()
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
    registering = application().registering
    if registering.find(ibi) is None:
        _fail(ibi, "not registered", 1)
    for event in registering.events(ibi):
        click.echo(f"{event.at}  {event.kind:<10}  {event.detail}")


@archives_cli.command("remove")
@click.argument("service_ibi")
def remove_command(service_ibi: str) -> None:
    """Remove a registered Archive and its history (it can no longer be included)."""
    ibi = _service_ibi(service_ibi)
    if not application().registering.remove(ibi):
        _fail(ibi, "not registered", 1)
    click.echo(f"Removed {ibi}.")


@archives_cli.command("check")
@click.argument("address")
@click.option("--ibi", "known_ibi", help="The IBI of an item the Archive holds (checks its URL list, urlkey "
              "and acknowledgment).")
def check_command(address: str, known_ibi: str | None) -> None:
    """Run the conformance check against the Archive service at ADDRESS, http://<address>/<service IBI>.

    Each rule of file 003 (§6.2, §7.2, §9) is printed passed (✓), failed (✗) or skipped (–);
    the exit status is 1 when a rule failed. Loopback and private addresses are refused
    unless IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1, as for the resolver.
    """
    try:
        with check_transport() as transport:
            report = check_archive(address, transport, known_ibi=known_ibi)
    except ParseError as exc:
        _fail("--ibi" if exc.field == "known_ibi" else address, str(exc), 2)
    _print_report(report)
    if not report.conforms:
        sys.exit(1)


def _print_report(report: ConformanceReport) -> None:
    known = f"known IBI {report.known_ibi}" if report.known_ibi else "no known IBI"
    click.echo(f"Conformance check of {report.target} ({known}; invented IBI {report.unknown_ibi})")
    if report.unreachable:
        click.echo(f"No answer at all: {report.unreachable}")
        if report.refused:
            click.echo(f"(The resolver refuses this address too; {PRIVATE_HINT}.)")
    shown: set[int] = set()
    for result in report.results:
        click.echo(f"{_MARKS[result.outcome]} {result.rule_id:<15} {result.title} [{result.outcome}]")
        click.echo(f"    {result.detail}")
        quote = f' "{result.quote.text}" ("{result.quote.english}")' if result.quote else ""
        click.echo(f"    source: {result.source}{quote}")
        if result.failed:
            for probe in result.evidence:
                click.echo(f"    GET {probe.url}")
                if id(probe) in shown:
                    click.echo("      -> (answer shown above)")
                    continue
                shown.add(id(probe))
                answer = probe.problem or f"HTTP {probe.status}, {probe.content_type or 'no Content-Type'}"
                click.echo(f"      -> {answer}, {format_ms(probe.duration_ms)}")
                for line in probe.excerpt.splitlines()[:6]:
                    click.echo(f"      | {line[:160]}")
    counts = ", ".join(f"{report.count(outcome)} {outcome}" for outcome in Verdict)
    click.echo(f"{counts} in {format_ms(report.duration_ms)}")


def _service_ibi(text: str) -> str:
    try:
        return normalize_service_ibi(text)
    except ParseError as exc:
        _fail(text, str(exc), 2)


def _fail(what: str, message: str, status: int) -> NoReturn:
    click.echo(f"error: {what}: {message}", err=True)
    sys.exit(status)
