"""``flask --app app demo-archive list|serve|seed``: the demo Archives as standalone HTTP servers,
and the own Archive's demo items (``bin/serve`` seeds them on a new demo portal)."""
from __future__ import annotations

import click
from flask.cli import AppGroup

from ..application.demo_items import DEMO_FILE
from ..archive.http_server import ArchiveHTTPServer
from ..config import DEMO_MINT_HOST
from ..web.context import application, holdings, settings

demo_cli = AppGroup("demo-archive", help="The demo Archives (file 003 §10 and support scenarios).")


@demo_cli.command("list")
def list_command() -> None:
    """The demo Archives, with what each shows."""
    for name, archive in holdings().demo.items():
        click.echo(f"{name:12} {archive.service.identity.address:28} {archive.description}")


@demo_cli.command("serve")
@click.argument("name")
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port (0: any free one).")
@click.option("--delay", type=float, default=0.0, help="Seconds to hold every answer back.")
def serve_command(name: str, host: str, port: int, delay: float) -> None:
    """Run demo Archive NAME over HTTP; it answers as http://HOST:PORT/<its archive service IBI>."""
    archives = holdings().demo
    if name not in archives:
        raise click.BadParameter(f"no demo Archive {name!r}; one of: {', '.join(archives)}", param_hint="NAME")
    archive = archives[name]
    server = ArchiveHTTPServer(archive.service, host, port, delay, malformed=archive.behaviour.malformed)
    click.echo(f"demo Archive {name} at {server.base_url} (Ctrl-C to stop)", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@demo_cli.command("seed")
def seed_command() -> None:
    """Give a new demo portal's own Archive its demo items: one with a file, its translation, its
    second edition and that edition's translation (only with the demo subsystem, and only into an
    Archive that has minted nothing)."""
    demo_subsystem = settings().mint_host == DEMO_MINT_HOST
    seeded = application().demo_seeder(demo_subsystem).seed()
    if seeded is None:
        reason = "its items are minted already" if demo_subsystem else "it mints with a real subsystem (IBIPORTAL_MINT_*)"
        click.echo(f"The own Archive gets no demo items: {reason}.")
        return
    original = seeded.original.ibip
    click.echo(f"Demo items minted: {original} (with the file {DEMO_FILE}), its translation "
               f"{seeded.translation.ibip} (pt), its second edition {seeded.second_edition.ibip} and that "
               f"edition's translation {seeded.second_translation.ibip}.")
    click.echo(f"Try /{original}/{DEMO_FILE}, /{original}+(pt), /{original}!, /{original}!+(pt):(oai_dc)")
