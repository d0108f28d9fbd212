"""CLI: ``flask --app app items update|release`` – the own Archive's items changed in bulk, or
moved to another Archive.

``update FILE.csv`` changes many items at once: an ``ibi`` column (either form) and one column per
field to change, named as the API names them (:data:`UPDATABLE_FIELDS`; ``creators`` separated by
``;``). An empty cell leaves that field of that item as it is. Every row is checked first and the
changes shown, item by item, old → new; a bad row is reported with its line and column and
changes nothing of its item, the others go on. Then, unless ``--dry-run``, the changes are made,
each through :meth:`ItemService.change` (its history records the command, the resolver's caches
of the item are dropped on every node), after a confirmation (``--yes`` answers it; a run with no
terminal and no ``--yes`` changes nothing). The last line printed is the totals.

``release IBI --successor …`` moves an item to another Archive (``application.releasing``).

``import SOURCE`` brings a URLib collection in, keeping every IBI (``importing``).

``check-targets`` asks the target URL of every own item that is due (``application.targets``),
one line per item, then the totals; ``--report FILE`` then writes the CSV of the items whose
target is failing or moved (``-``: standard output), of one ``--owner`` or ``--creator``. Run
it on a schedule (deploy/systemd/, the Kubernetes CronJob); it exits 0 whatever it found.

Exit status: 0 done; 1 some rows refused, or the release refused (its reason on standard
error); 2 a file, header or argument that cannot be used (nothing changed).
"""
from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import NoReturn

import click
from flask.cli import AppGroup

from ..application.items import EDITABLE_FIELDS, ItemNotFound, ItemService
from ..application.releasing import ReleaseRefused, Successor
from ..ibi.history import Actor
from ..errors import IbiError, ParseError
from ..application.targets import report_csv
from ..ibi.target_check import TargetOutcome
from ..web.context import application
from .importing import import_command

items_cli = AppGroup("items", help="The own Archive's items: imported, changed in bulk, or moved to another Archive.")
items_cli.add_command(import_command)

#: The columns ``items update`` reads besides ``ibi``: target URL and bibliographic fields (links
#: between items are changed one item at a time, where each link is checked as it is made).
UPDATABLE_FIELDS = tuple(name for name in EDITABLE_FIELDS if name not in ("previous_edition", "translation_of"))

#: Who the history says made the changes.
UPDATE_ACTOR = Actor("command", "flask items update")
RELEASE_ACTOR = Actor("command", "flask items release")


@dataclass
class Row:
    """One row of the file: its line, the item (as given, then its IBIp), the fields it sets."""

    line: int
    ibi: str
    fields: dict[str, object]


@dataclass
class Totals:
    rows: int = 0
    changed: int = 0
    unchanged: int = 0
    refused: int = 0

    def line(self, verb: str, tail: str = "") -> str:
        text = (f"{self.rows} row{'s' * (self.rows != 1)}: {self.changed} item{'s' * (self.changed != 1)} {verb}, "
                f"{self.unchanged} unchanged, {self.refused} refused")
        return f"{text}{tail}"


@items_cli.command("update")
@click.argument("csv_file", metavar="FILE.csv", type=click.Path(exists=True, dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Show what would change, change nothing.")
@click.option("--yes", is_flag=True, help="Make the changes without asking (needed when no terminal is attached).")
def update_command(csv_file: str, dry_run: bool, yes: bool) -> None:
    """Change target URLs and bibliographic fields of the items in FILE.csv: an ibi column and one
    column per field to change (an empty cell leaves the field as it is)."""
    items = application().items()
    totals = Totals()
    planned: list[Row] = []
    seen: dict[str, int] = {}
    header, rows = _read(csv_file)
    for row in rows:
        totals.rows += 1
        if isinstance(row, str):
            click.echo(row)
            totals.refused += 1
            continue
        try:
            record, changes = items.preview(row.ibi, row.fields)
        except ParseError as error:
            _refuse(row, error.field or "ibi", error, header, totals)
            continue
        except IbiError as error:
            _refuse(row, "ibi", error, header, totals)
            continue
        earlier = seen.setdefault(record.minted.ibip, row.line)
        if earlier != row.line:
            _refuse(row, "ibi", f"{record.minted.ibip} is changed by line {earlier} already: give each item once",
                    header, totals)
            continue
        row.ibi = record.minted.ibip
        if not changes:
            click.echo(f"line {row.line}: {row.ibi}: no change")
            totals.unchanged += 1
            continue
        click.echo(f"line {row.line}: {row.ibi}")
        for change in changes:
            click.echo(f"  {change['field']}: {_shown(change['old'])} → {_shown(change['new'])}")
        planned.append(row)
    totals.changed = len(planned)  # to change, until they are made
    if dry_run or not planned:
        click.echo(totals.line("to change" if planned else "changed", " (dry run: nothing changed)" if dry_run else ""))
        sys.exit(1 if totals.refused else 0)
    if not yes:
        if not sys.stdin.isatty():
            click.echo("error: no terminal to confirm the changes: run again with --yes to make them, or --dry-run "
                       "to see them only", err=True)
            click.echo(totals.line("to change", ": nothing changed"))
            sys.exit(1)
        if not click.confirm(f"Change {len(planned)} item{'s' * (len(planned) != 1)}?"):
            click.echo(totals.line("to change", ": nothing changed"))
            sys.exit(1)
    totals.changed = 0
    for row in planned:
        try:
            items.change(row.ibi, row.fields, actor=UPDATE_ACTOR)
        except ParseError as error:  # the item changed meanwhile, or a link no longer holds
            _refuse(row, error.field or "ibi", error, header, totals)
            continue
        except IbiError as error:
            _refuse(row, "ibi", error, header, totals)
            continue
        totals.changed += 1
    click.echo(totals.line("changed"))
    sys.exit(1 if totals.refused else 0)


def _read(path: str) -> tuple[list[str], Iterator[Row | str]]:
    """The file's header, and each data row as a :class:`Row` or as the line reporting why it is
    refused; a file or header that cannot be read ends the command (status 2, nothing changed)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        _fail(f"{path}: cannot be read as UTF-8 text: {error}")
    reader = csv.reader(io.StringIO(text))
    try:
        header = [name.strip() for name in next(reader, [])]
    except csv.Error as error:
        _fail(f"{path}: line 1: {error}")
    _check_header(path, header)
    return header, _data_rows(reader, header)


def _data_rows(reader, header: list[str]) -> Iterator[Row | str]:
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            yield f"line {start}: error: {error}"
            start = reader.line_num + 1
            continue
        line, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            yield (f"line {line}, column {min(len(cells), len(header)) + 1}: error: {len(cells)} cells where the "
                   f"header has {len(header)}")
            continue
        values = dict(zip(header, cells))
        yield Row(line, values["ibi"].strip(), {name: _value(name, value) for name, value in values.items()
                                                if name != "ibi" and value.strip()})


def _check_header(path: str, header: list[str]) -> None:
    if "ibi" not in header:
        _fail(f"{path}: line 1: no ibi column; the first line names the columns: ibi and the fields to change "
              f"({', '.join(UPDATABLE_FIELDS)})")
    for index, name in enumerate(header, 1):
        if name != "ibi" and name not in UPDATABLE_FIELDS:
            _fail(f"{path}: line 1, column {index} ({name or 'empty'}): not a field this command changes; its "
                  f"columns are ibi and {', '.join(UPDATABLE_FIELDS)}")
        if header.index(name) != index - 1:
            _fail(f"{path}: line 1, column {index} ({name}): given twice (first in column {header.index(name) + 1})")
    if len(header) == 1:
        _fail(f"{path}: line 1: only the ibi column: name the fields to change too ({', '.join(UPDATABLE_FIELDS)})")


def _value(name: str, cell: str) -> object:
    """A cell as the field's value: ``creators`` separated by ``;``, the others as text."""
    if name == "creators":
        return [creator.strip() for creator in cell.split(";") if creator.strip()]
    return cell.strip()


def _refuse(row: Row, column: str, error: object, header: list[str], totals: Totals) -> None:
    """Report the row refused, at the column of the field at fault (the ibi column for the item's own)."""
    column = column if column in header else "ibi"
    where = f"column {header.index(column) + 1} ({column})"
    click.echo(f"line {row.line}, {where}: error: {error}")
    totals.refused += 1


def _shown(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, (list, tuple)):
        return '"' + "; ".join(str(item) for item in value) + '"'
    return f'"{value}"'


@items_cli.command("release")
@click.argument("ibi")
@click.option("--successor", required=True,
              help="The successor Archive's service URL, http://<address>/<archive service IBI>, or its address "
                   "(host[:port]) with --service-ibi.")
@click.option("--service-ibi", default=None, help="The successor's archive service IBI, when --successor is an address.")
def release_command(ibi: str, successor: str, service_ibi: str | None) -> None:
    """Move the item IBI to the successor Archive: once it answers the item as its Original, this
    Archive answers the IBI nothing (Algorithm 2 lines 3-4), so resolvers find it there."""
    try:
        target = Successor.parse(successor, service_ibi)
        record = application().releasing().release(ibi, target, actor=RELEASE_ACTOR, client_ips=("127.0.0.1",))
    except ParseError as error:
        _fail(f"{error.field or 'ibi'}: {error}")
    except ItemNotFound as error:
        _fail(str(error))
    except ReleaseRefused as error:
        click.echo(f"error: {error.reason}", err=True)
        sys.exit(1)
    except IbiError as error:  # deleted, or released already
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    url = _released_url(application().items(), record.minted.ibip)
    click.echo(f"Released {record.minted.ibip} to the Archive at {record.minted.successor}, which answers it as its "
               f"Original at {url}. This Archive answers the IBI nothing from now on.")


def _released_url(items: ItemService, ibi: str) -> str:
    """The url the successor answered, as the history recorded it."""
    _, history = items.history(ibi)
    details: Mapping[str, object] = history[-1].details
    return str(details.get("url", ""))


@items_cli.command("check-targets")
@click.option("--report", "report_path", metavar="FILE", default=None,
              help="After the checks, write the CSV report of the items whose target is failing or moved "
                   "(- for standard output).")
@click.option("--owner", default=None, help="The report's items minted or imported by this administrator or API "
                                            "token (its name).")
@click.option("--creator", default=None, help="The report's items with a creator whose name contains this.")
def check_targets_command(report_path: str | None, owner: str | None, creator: str | None) -> None:
    """Ask the target URL of every own item that is due (HEAD, then GET; one request per second per
    host; the resolver's address policy) and keep each result; an item is reported failing after
    IBIPORTAL_TARGET_FAILURES failed checks in a row, IBIPORTAL_TARGET_RECHECK_HOURS apart."""
    checks = application().target_checks()
    out = sys.stderr if report_path == "-" else sys.stdout

    def said(target, record) -> None:
        if record.outcome == TargetOutcome.FAILED:
            words = f"failed ({record.failures} in a row): {record.detail}"
        elif record.moved_to:
            words = f"moved (HTTP {record.redirect_status}) to {record.moved_to}"
        else:
            words = f"working (HTTP {record.status})"
        click.echo(f"{target.ibi} {target.target_url}: {words}", file=out)

    checker = application().target_checker()
    try:
        totals = checks.run(checker, on_checked=said)
    finally:
        checker.transport.close()
    outcomes = ", ".join(f"{count} {outcome}" for outcome, count in sorted(totals.by_outcome.items()))
    click.echo(f"{totals.due} target{'s' * (totals.due != 1)} checked{': ' + outcomes if outcomes else ''}; "
               f"{totals.failing} item{'s' * (totals.failing != 1)} failing", file=out)
    if report_path is not None:
        text = report_csv(checks.report(owner=owner, creator=creator))
        if report_path == "-":
            click.echo(text, nl=False)
        else:
            with open(report_path, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)
