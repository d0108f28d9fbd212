"""``flask --app app items import SOURCE`` (joined to the ``items`` group in ``items_cli``): move a URLib collection into the own Archive,
keeping every IBI (``application.importing``; README "Moving a URLib collection in").

One line per record as it is done (its outcome, its IBI, the reason), so a long import shows its
progress; the last line is the totals. The exit status is 0 when every record was read and none
failed, 1 otherwise, 2 for a SOURCE or an option that cannot be used at all.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext

from ..application.importing import CREATED, FAILED, UNCHANGED, SourceUnreachable, Totals, harvest, http_fetch, is_oai_source
from ..application.packaging import PackageImporter
from ..archive.import_formats import FILE_SUFFIXES, read_file
from ..archive.import_records import SourceRecord
from ..errors import ParseError
from ..ibi.prefixes import check_prefix_pair
from ..storage.files import FileStore
from ..storage.identifiers import IdentifierStore, import_source
from .context import application, get_importer, get_storage

@click.command("import")
@with_appcontext
@click.argument("source")
@click.option("--dry-run", is_flag=True, help="Write nothing; print what would happen to each record.")
@click.option("--update", is_flag=True, help="Write the source's data over items held here with other data.")
@click.option("--files", "files_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="A folder of items' files, DIR/<repository name>/doc/… (a URLib Archive's col/ folder).")
@click.option("--report", "report_file", type=click.File("w", encoding="utf-8"), default=None,
              help="Write every record's outcome to FILE as JSON Lines.")
@click.option("--prefix-pair", "prefix_pairs", multiple=True, metavar="REP_PREFIX=IBIP_PREFIX",
              help="A prefix pair for records that give one form only (repeat for each; kept with the others "
                   "unless --dry-run).")
def import_command(source: str, dry_run: bool, update: bool, files_dir: Path | None, report_file, prefix_pairs) -> None:
    """Import SOURCE: an OAI-PMH base URL (http://… or https://…, harvested with ListRecords in
    oai_dc), an item package .zip (GET /api/v1/items/<ibi>/package), or a .bib, .ris or .csv file (a CSV names its columns: ibi, title, creators, date,
    type, language, target_url, files)."""
    if source.lower().endswith(".zip"):
        _import_package(source)
    given = [_pair(text) for text in prefix_pairs]
    try:
        records = _records(source)
    except ParseError as error:
        _fail(source, error)
    store = IdentifierStore(get_storage())
    if not dry_run:
        for rep, ibip in given:
            store.add_prefix_pair(rep, ibip, import_source(source))
    importer = get_importer(given)
    totals = Totals()
    stopped = None
    try:
        for outcome in importer.run(records, source, dry_run=dry_run, update=update, files_dir=files_dir):
            totals.add(outcome)
            ibi = " = ".join(form or "?" for form in (outcome.rep, outcome.ibip)) if outcome.rep or outcome.ibip else "-"
            click.echo(f"{outcome.outcome}\t{outcome.where}\t{ibi}\t{outcome.reason}")
            if report_file is not None:
                report_file.write(json.dumps(outcome.to_dict(), ensure_ascii=False) + "\n")
                report_file.flush()
    except (SourceUnreachable, ParseError) as error:
        stopped = str(error)
        click.echo(f"error: {source}: {stopped}; the records before it were imported, run again to go on", err=True)
    click.echo(totals.line(dry_run))
    sys.exit(1 if stopped or totals.counts[FAILED] else 0)


def _import_package(source: str) -> None:
    """An item package (``GET /api/v1/items/<ibi>/package``, ``application.packaging``): one
    outcome line and the totals; exit 2 when the package is refused whole."""
    try:
        with open(source, "rb") as package:
            outcome = PackageImporter(IdentifierStore(get_storage()), FileStore(get_storage()), application().subsystem,
                                      current_app.config["MAX_FILE_BYTES"]).run(package, Path(source).name)
    except OSError as error:
        _fail(source, ParseError(f"cannot read {source}: {error.strerror}"))
    except ParseError as error:
        _fail(source, error)
    totals = Totals()
    totals.add(outcome)
    click.echo(f"{outcome.outcome}\t{outcome.where}\t{outcome.rep} = {outcome.ibip}\t{outcome.reason}")
    click.echo(totals.line())
    sys.exit(0 if outcome.outcome in (CREATED, UNCHANGED) else 1)


def _records(source: str) -> Iterator[SourceRecord]:
    """The records of SOURCE, by its kind; ParseError for a SOURCE that is neither."""
    if is_oai_source(source):
        return harvest(source, http_fetch)
    if not source.lower().endswith(FILE_SUFFIXES):
        raise ParseError("SOURCE must be an OAI-PMH base URL (http://… or https://…) or a .bib, .ris or .csv file")
    try:
        data = Path(source).read_bytes()
    except OSError as error:
        raise ParseError(f"cannot read {source}: {error.strerror}") from None
    return read_file(source, data)


def _pair(text: str) -> tuple[str, str]:
    rep, equals, ibip = text.partition("=")
    try:
        if not equals:
            raise ParseError("--prefix-pair takes REP_PREFIX=IBIP_PREFIX, e.g. sid.inpe.br/mtc-m18@80=8JMKD3MGP8W")
        return check_prefix_pair(rep.strip(), ibip.strip())
    except ParseError as error:
        _fail(text, error)
        raise  # _fail exits


def _fail(what: str, error: ParseError) -> None:
    click.echo(f"error: {what}: {error}", err=True)
    sys.exit(2)
