"""CLI: ``flask --app app api-token create|list|revoke`` – tokens for the API's writes.

``create NAME`` prints the new token as the last line of its output, the only time it is
shown: the portal keeps only its hash (``ibiportal.storage.tokens``). A name already in use,
or a revoke of an unknown name, exits with 1; a bad name with 2.
"""
from __future__ import annotations

import re
import sys

import click
from flask.cli import AppGroup

from ..storage.tokens import TokenNameTaken
from ..web.context import application

token_cli = AppGroup("api-token", help="Tokens for the JSON API's writes (Authorization: Bearer <token>).")

#: A token's name: what an administrator types to revoke it, so plain and short.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,99}")


def _checked_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise click.BadParameter(
            "1 to 100 letters, digits, '.', '_', '@' or '-', starting with a letter or digit", param_hint="NAME"
        )
    return name


@token_cli.command("create")
@click.argument("name")
def create_command(name: str) -> None:
    """Create token NAME and print it (last line): store it now, it is never shown again."""
    try:
        token = application().tokens.create(_checked_name(name))
    except TokenNameTaken as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    click.echo(f"API token {name} created. It is shown only now; send it as Authorization: Bearer <token>.")
    click.echo(token)


@token_cli.command("list")
def list_command() -> None:
    """Every token's name, when it was created and last used (never the token)."""
    records = application().tokens.records()
    if not records:
        click.echo("No API tokens. Create one with: flask --app app api-token create NAME")
        return
    width = max(len("name"), *(len(record.name) for record in records))
    click.echo(f"{'name':<{width}}  {'created':<27}  last used")
    for record in records:
        click.echo(f"{record.name:<{width}}  {record.created_at:<27}  {record.last_used_at or 'never'}")


@token_cli.command("revoke")
@click.argument("name")
def revoke_command(name: str) -> None:
    """Revoke token NAME: requests bearing it are refused (401) from now on."""
    if not application().tokens.revoke(name):
        click.echo(f"error: there is no API token named {name!r} (see: flask --app app api-token list)", err=True)
        sys.exit(1)
    click.echo(f"API token {name} revoked.")
