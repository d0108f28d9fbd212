"""Per-request access to storage and services (flaskr ``db.py`` style: one connection on ``g``)."""
from __future__ import annotations

from flask import Flask, current_app, g, request

from ..application.files import ItemFiles
from ..application.items import ItemService
from ..ibi.prefixes import KNOWN_PREFIX_PAIRS
from ..ibi.url import PersistentUrl
from ..minting import Minter, Subsystem
from ..storage.database import Storage
from ..storage.files import FileStore
from ..storage.identifiers import IdentifierStore
from .services import change_announcer


def get_storage() -> Storage:
    """The request's database connection, opened on first use."""
    if "storage" not in g:
        g.storage = Storage(current_app.config["DATABASE"], announce=change_announcer())
    return g.storage


def close_storage(_exc: BaseException | None = None) -> None:
    storage = g.pop("storage", None)
    if storage is not None:
        storage.close()


def get_minter() -> Minter:
    """The portal's identification subsystem, as configured (validated at start-up)."""
    return Minter(IdentifierStore(get_storage()), current_app.extensions["ibiportal.subsystem"])


def get_items() -> ItemService:
    """The own Archive's items, to read, change and delete (API and administrator's pages)."""
    return ItemService(IdentifierStore(get_storage()))


def get_item_files() -> ItemFiles:
    """The files of the own Archive's items, over the request's connection."""
    storage = get_storage()
    return ItemFiles(IdentifierStore(storage), FileStore(storage), current_app.config["MAX_FILE_BYTES"])


def known_prefix_pairs() -> list[tuple[str, str]]:
    """The standard's pairs first, then those added by administrators or learnt."""
    return list(KNOWN_PREFIX_PAIRS) + IdentifierStore(get_storage()).prefix_pairs()


def resolver_base() -> str:
    """Base of persistent URLs: ``IBIPORTAL_RESOLVER_BASE``, else this portal's own address."""
    return current_app.config.get("RESOLVER_BASE") or request.url_root


def canonical_base(url: PersistentUrl, given: str | None = None) -> str:
    """Base of a parsed URL's canonical forms: the resolver host it came with, else ``given``, else :func:`resolver_base`."""
    if url.resolver not in (None, "/"):
        return url.resolver
    return given or resolver_base()


def init_app(app: Flask) -> None:
    app.extensions["ibiportal.subsystem"] = Subsystem.from_config(app.config)
    app.teardown_appcontext(close_storage)
