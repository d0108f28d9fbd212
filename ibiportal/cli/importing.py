"""``flask --app app items import SOURCE`` (joined to the ``items`` group in ``items_cli``): move a URLib collection into the own Archive,
keeping every IBI (``application.import_sources``; docs/moving-collections.md).

One line per record as it is done (its outcome, its IBI, the reason), so a long import shows its
progress; the last line is the totals. The exit status is 0 when every record was read and none
failed, 1 otherwise, 2 for a SOURCE or an option that cannot be used at all (a file that cannot be
read, a package refused whole: nothing was written).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from flask.cli import with_appcontext

from ..application.import_sources import SOURCE_SUFFIXES, ImportSource, Reading
from ..application.importing import FAILED, SourceUnreachable, Totals, is_oai_source
from ..ibi.history import Actor
from ..errors import ParseError
from ..ibi.prefixes import check_prefix_pair
from ..web.context import application

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
    oai_dc), an item package .zip (GET /api/v1/items/<ibi>/package), or a .bib, .ris or .csv file
    (a CSV names its columns: ibi, title, creators, date, type, language, target_url, files)."""
    given = [_pair(text) for text in prefix_pairs]
    try:
        named = _source(source)
    except ParseError as error:
        _fail(source, error)
    if not dry_run:
        pairs = application().prefix_pairs()
        for rep, ibip in given:
            pairs.add_for_import(rep, ibip, source)
    reading = Reading(named, application().importing(given), dry_run=dry_run, update=update, files_dir=files_dir,
                      actor=Actor("import", source))
    totals = Totals()
    stopped = None
    try:
        for outcome in reading:
            totals.add(outcome)
            ibi = " = ".join(form or "?" for form in (outcome.rep, outcome.ibip)) if outcome.rep or outcome.ibip else "-"
            click.echo(f"{outcome.outcome}\t{outcome.where}\t{ibi}\t{outcome.reason}")
            if report_file is not None:
                report_file.write(json.dumps(outcome.to_dict(), ensure_ascii=False) + "\n")
                report_file.flush()
    except ParseError as error:
        if not totals.records:  # the file cannot be read at all: nothing was written
            _fail(source, error)
        stopped = str(error)
    except SourceUnreachable as error:
        stopped = str(error)
    if stopped:
        click.echo(f"error: {source}: {stopped}; the records before it were imported, run again to go on", err=True)
    click.echo(totals.line(dry_run))
    sys.exit(1 if stopped or totals.counts[FAILED] else 0)


def _source(source: str) -> ImportSource:
    """SOURCE by its kind; ParseError for a SOURCE that is neither, or a file that cannot be read."""
    if is_oai_source(source):
        return ImportSource.of_url(source)
    if not source.lower().endswith(SOURCE_SUFFIXES):
        raise ParseError("SOURCE must be an OAI-PMH base URL (http://… or https://…), an item package .zip, or a "
                         ".bib, .ris or .csv file")
    try:
        return ImportSource.of_file(source, Path(source).read_bytes())
    except OSError as error:
        raise ParseError(f"cannot read {source}: {error.strerror}") from None


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
