"""``flask admin set-password USERNAME``: the only way to create an administrator."""
from __future__ import annotations

import click
from flask.cli import AppGroup
from werkzeug.security import generate_password_hash

from ..web.context import application

MIN_PASSWORD_LENGTH = 12

admin_cli = AppGroup("admin", help="Administrators of the portal.")


@admin_cli.command("set-password")
@click.argument("username")
@click.password_option("--password", prompt="Password", help="Prompted for (hidden) when not given.")
def set_password(username: str, password: str) -> None:
    """Create administrator USERNAME, or change their password. Stores only a scrypt hash."""
    if not username.strip() or len(username) > 100:
        raise click.BadParameter("give a username of 1 to 100 characters", param_hint="USERNAME")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise click.BadParameter(f"use at least {MIN_PASSWORD_LENGTH} characters", param_hint="--password")
    application().accounts.set_password_hash(username, generate_password_hash(password))
    click.echo(f"Password set for administrator {username}.")
