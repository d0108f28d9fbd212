"""CLI: ``flask --app app ibi mint|convert|extract|prefix-pair``.

Errors go to standard error as ``error: <input>: <message> (at character N)`` and the
command exits non-zero, so scripts can rely on the status.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

import click
from flask.cli import AppGroup

from ..ibi.documents import check_found_count, check_text_size, text_of
from ..errors import ParseError
from ..ibi.extract import extract
from ..ibi.classify import ibi_of, notes_as_warnings
from ..ibi.batch import iter_conversions, iter_csv_rows, write_csv
from ..ibi.conversion import convert
from ..ibi.prefixes import check_prefix_pair, is_claim
from ..citation.types import SLUGS
from ..ibi.mint_request import MAX_CLI_COUNT, parse_mint
from ..application.prefix_pairs import PAIR_REJECTED
from ..ibi.history import Actor
from ..web.context import application, known_prefix_pairs, settings
from ..web.results import minted_to_dict

#: Base of persistent URLs printed by the CLI when ``IBIPORTAL_RESOLVER_BASE`` is unset:
#: the address ``bin/serve`` listens on.
CLI_DEFAULT_BASE = "http://127.0.0.1:8000/"

ibi_cli = AppGroup("ibi", help="Mint and convert IBIs, and find them in files.")


@ibi_cli.command("mint")
@click.option("--count", default="1", show_default=True, help=f"How many identifiers (1 to {MAX_CLI_COUNT}).")
@click.option("--title", default=None, help="Title of the item.")
@click.option("--target-url", default=None, help="Where the item lives (http or https).")
@click.option("--creator", "creators", multiple=True, help="A creator, 'Family, Given' (repeat for each).")
@click.option("--date", default=None, help="Date of the item: YYYY, YYYY-MM or YYYY-MM-DD.")
@click.option("--item-type", default=None, help=f"Kind of item: {', '.join(SLUGS)}.")
@click.option("--publisher", default=None, help="Publisher, or the institution of a thesis.")
@click.option("--place", default=None, help="Place of publication.")
@click.option("--extent", default=None, help="Number of pages.")
@click.option("--degree", default=None, help="A thesis's degree, e.g. 'Doutorado em Computação Aplicada'.")
@click.option("--report-number", default=None, help="A report's number, or INPE's document-type code (NTC).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def mint_command(count: str, title: str | None, target_url: str | None, as_json: bool, **described) -> None:
    """Mint identifiers of the portal's identification subsystem."""
    try:
        how_many, mint_request = parse_mint({"count": count, "title": title, "target_url": target_url, **described},
                                            MAX_CLI_COUNT)
    except ParseError as exc:
        _fail(exc.field or "input", exc)
    base = settings().resolver_base or CLI_DEFAULT_BASE
    for item in application().minter().mint_many(how_many, mint_request, actor=Actor("command", "flask mint")):
        result = minted_to_dict(item, base)
        if as_json:
            click.echo(json.dumps(result))
        else:
            click.echo(f"{result['rep']}\t{result['ibip']}\t{result['utc']}\t{result['persistent_url']}")


@ibi_cli.command("convert")
@click.argument("identifiers", nargs=-1)
@click.option("--host", default=None, help="Host of the subsystem, for the repository-name prefix.")
@click.option("--ip", default=None, help="IP of the subsystem, for the IBIp prefix.")
@click.option("--port", type=int, default=None, help="Port that goes with --host or --ip.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per identifier.")
@click.option("--csv", "csv_file", type=click.File("r", encoding="utf-8-sig", lazy=False), default=None,
              help="Convert a CSV file ('-': standard input) as the Convert page does, without its size limit; "
                   "the result is CSV on standard output.")
def convert_command(
    identifiers: tuple[str, ...], host: str | None, ip: str | None, port: int | None, as_json: bool,
    csv_file: TextIO | None,
) -> None:
    """Convert IBIs to the other form (arguments, one per line from standard input, or --csv).

    Input is read and output written one identifier at a time, so a catalogue of millions of
    identifiers converts in constant memory."""
    pairs = tuple(tuple(pair) for pair in known_prefix_pairs())
    if csv_file is not None:
        if identifiers or host or ip or port or as_json:
            _fail("input", ParseError("--csv takes no identifiers, --host, --ip, --port or --json"))
        try:
            failed_rows = write_csv(iter_conversions(iter_csv_rows(csv_file), pairs), sys.stdout)
        except ParseError as exc:
            _fail("csv", exc)
        sys.exit(1 if failed_rows else 0)
    inputs = identifiers or (line.strip() for line in sys.stdin if line.strip())
    failed = False
    for text in inputs:
        try:
            ibi, notes = ibi_of(text)
            conversion = convert(ibi, pairs, host=host, ip=ip, port=port).to_dict()
            conversion.update(input=text, warnings=[*notes_as_warnings(ibi, notes), *conversion["warnings"]])
        except ParseError as exc:
            click.echo(f"error: {text}: {exc}", err=True)
            failed = True
            continue
        if as_json:
            click.echo(json.dumps(conversion))
        else:
            warnings = "".join(f"\n  warning: {w}" for w in conversion["warnings"])
            click.echo(
                f"{conversion['input']}\n  rep:  {conversion['rep'] or 'unknown'}"
                f"\n  ibip: {conversion['ibip'] or 'unknown'}\n  utc:  {conversion['utc']}{warnings}"
            )
    if failed:
        sys.exit(1)


@ibi_cli.command("extract")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON answer instead of one line per IBI.")
def extract_command(file: str, as_json: bool) -> None:
    """Find every IBI in FILE (.txt, .bib, .ris, .pdf, .docx or .odt; - reads text from standard input)."""
    try:
        if file == "-":
            text = sys.stdin.read()
            check_text_size(text)
        else:
            text = text_of(file, Path(file).read_bytes())
        result = extract(text, known_prefix_pairs(), settings().resolver_base or CLI_DEFAULT_BASE)
        check_found_count(len(result.found))
    except ParseError as exc:
        _fail(file, exc)
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False))
        return
    for found in result.found:
        row = found.to_dict()
        text = " ".join(row["text"].split())
        if found.broken:
            click.echo(f"{row['line']}\t{text}\tnot an IBI: {found.reading.error}")
        else:
            click.echo(f"{row['line']}\t{text}\t{row['rep'] or 'unknown'}\t{row['ibip'] or 'unknown'}\t{row['persistent_url']}")
    broken = f", {result.broken} not IBIs" if result.broken else ""
    click.echo(f"{len(result.found) - result.broken} IBIs found, {result.distinct} distinct items{broken}", err=True)


@ibi_cli.command("prefix-pair")
@click.argument("rep_prefix", required=False)
@click.argument("ibip_prefix", required=False)
@click.option("--reject", is_flag=True, help="Reject the pair an Archive reported instead of adding or confirming it.")
def prefix_pair_command(rep_prefix: str | None, ibip_prefix: str | None, reject: bool) -> None:
    """List the known prefix pairs (an Archive's unconfirmed claim marked "suggested"), or add
    REP_PREFIX IBIP_PREFIX (one subsystem's two prefixes; a pair an Archive reported is so
    confirmed), or reject a reported pair with --reject."""
    if rep_prefix is None:
        for pair in known_prefix_pairs():
            click.echo("\t".join((pair[0], pair[1], *(["suggested"] if is_claim(pair) else []))))
        return
    if ibip_prefix is None:
        _fail("input", ParseError("give both prefixes: REP_PREFIX IBIP_PREFIX"))
    try:
        rep, ibip = check_prefix_pair(rep_prefix, ibip_prefix)
    except ParseError as exc:
        _fail(exc.field or "prefix", exc)
    pairs = application().prefix_pairs()
    if reject:
        if not pairs.decide(rep, ibip, PAIR_REJECTED):
            _fail("input", ParseError(f"no reported pair {rep} = {ibip} awaits a decision"))
        click.echo(f"rejected {rep} = {ibip}")
    elif pairs.add(rep, ibip):
        click.echo(f"added {rep} = {ibip}")
    else:
        click.echo(f"{rep} = {ibip} is already in the table (or was rejected)")


def _fail(what: str, exc: ParseError) -> None:
    """Every error ``exc`` stands for (a mint request's, one per field), the first about ``what``."""
    first, *others = exc.errors
    click.echo(f"error: {what}: {first}", err=True)
    for error in others:
        click.echo(f"error: {error.field or what}: {error}", err=True)
    sys.exit(2)
