"""Per-request access to storage and to the application (flaskr ``db.py`` style: one connection on ``g``).

The :class:`~ibiportal.application.Application` is built once by ``create_app`` and kept in
``app.extensions``; :func:`application` hands it to the views, and :func:`request_caller` and
:func:`request_site` translate the request into the values its use cases take.
"""
from __future__ import annotations

from flask import Flask, current_app, g, request

from ..application.files import ItemFiles
from ..application.copies import CopyService
from ..application.idempotent_minting import IdempotentMinting
from ..application.items import ItemService
from ..application.importing import Importer
from ..application.releasing import Releasing
from ..ibi.url import PersistentUrl, normalize_base
from ..application.minting import Minter
from ..resolver.addresses import client_ip_list
from ..resolver.engine import ClientInfo
from ..storage.database import Storage
from ..storage.files import FileStore
from ..storage.copies import CopyStore
from ..storage.identifiers import IdentifierStore
from ..storage.mint_keys import MintKeyStore
from ..storage.history import HistoryStore
from ..storage.targets import TargetStore
from ..application.targets import TargetChecks, TargetSettings
from ..application.usage import Usage
from ..storage.usage import UsageStore
from ..resolver.http_transport import HttpTransport
from ..resolver.target_probe import HostPacer, TargetChecker
from .. import __version__
from ..application import Application, Holdings
from ..application.resolving import Caller, Site
from .host import portal_url, portal_url_for, request_address

#: The key of the application in ``app.extensions``.
APPLICATION = "ibiportal.application"


def application() -> Application:
    """The application this Flask app was built with (``create_app``)."""
    return current_app.extensions[APPLICATION]


def holdings() -> Holdings:
    """The Archives this process answers for, at the address this request came to."""
    return application().holdings(portal_url())


def request_caller(environ: dict | None = None) -> Caller:
    """Who sent the request, as received: peer address, X-Forwarded-For, Accept-Language (read
    from the WSGI environment, ``environ`` when the caller read it already: a cache hit is a few
    dozen microseconds of work in all)."""
    environ = request.environ if environ is None else environ
    return Caller(environ.get("REMOTE_ADDR"), environ.get("HTTP_X_FORWARDED_FOR"), environ.get("HTTP_ACCEPT_LANGUAGE"))


def request_client() -> ClientInfo:
    """Table 8.6 from the request: the client then its proxies (trusted ones only), and Accept-Language."""
    return application().resolving.client(request_caller())


def request_site(address: str | None = None) -> Site:
    """Where the request was served: the portal's own address, the request's root URL (built
    from its parts: request.url_root's IRI conversion cost a cached redirect 200 µs), and the
    base of persistent URLs (IBIPORTAL_RESOLVER_BASE, else that root). ``address``: the
    request's :func:`request_address`, when the caller read it already. Each part of the request
    is read once: a read through Flask's ``request`` proxy costs a microsecond, a cached hit's view
    a few dozen (benchmarks/cache.py)."""
    address, config = address or request_address(), current_app.config
    root = f"{address}{request.script_root}/"
    return Site(portal_url_for(address, config), root, config.get("RESOLVER_BASE") or root)


def client_address() -> str:
    """The client's IP: the first of Table 8.10's list (trusted proxies' X-Forwarded-For believed)."""
    ips = client_ip_list(
        request.remote_addr, request.headers.get("X-Forwarded-For"), current_app.config["TRUSTED_PROXIES"]
    )
    return ips[0] if ips else (request.remote_addr or "unknown")


def get_storage() -> Storage:
    """The request's database connection, opened on first use."""
    if "storage" not in g:
        built = application()
        g.storage = Storage(current_app.config["DATABASE"], announce=built.announce, clock=built.clock)
    return g.storage


def close_storage(_exc: BaseException | None = None) -> None:
    storage = g.pop("storage", None)
    if storage is not None:
        storage.close()


def get_minter() -> Minter:
    """The portal's identification subsystem, as configured (validated at start-up)."""
    return Minter(IdentifierStore(get_storage()), application().subsystem, application().unix_clock)


def get_idempotent_minting() -> IdempotentMinting:
    """Minting that a client may retry with the same ``Idempotency-Key`` (API and Mint page)."""
    storage = get_storage()
    return IdempotentMinting(get_minter(), MintKeyStore(storage), IdentifierStore(storage), application().clock)


def get_items() -> ItemService:
    """The own Archive's items, to read, change and delete (API and administrator's pages)."""
    storage = get_storage()
    return ItemService(IdentifierStore(storage), HistoryStore(storage))


def get_releasing() -> Releasing:
    """Releasing own items to successor Archives: the request's storage, the guarded ``requests``
    transport (with the address policy of ``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES``)."""
    return Releasing(get_items(), application().http_transport, current_app.config["ARCHIVE_SERVICE_IBI"])


def get_item_files() -> ItemFiles:
    """The files of the own Archive's items, over the request's connection."""
    storage = get_storage()
    return ItemFiles(IdentifierStore(storage), FileStore(storage), current_app.config["MAX_FILE_BYTES"])


def get_importer(extra_pairs=()) -> Importer:
    """Imports into the own Archive (``items import``, ``POST /api/v1/items/import``), with the
    known prefix pairs and ``extra_pairs`` (given for one import), over the request's storage."""
    return application().importer(get_storage(), application().known_prefix_pairs(extra_pairs))


def get_copies() -> CopyService:
    """The copies the own Archive holds of other Archives' items (API and administrator's pages)."""
    storage = get_storage()
    return CopyService(CopyStore(storage), IdentifierStore(storage), known_prefix_pairs(),
                       current_app.config["ARCHIVE_SERVICE_IBI"])


def get_usage() -> Usage:
    """How often items were resolved, over the request's connection."""
    storage = get_storage()
    return Usage(UsageStore(storage), IdentifierStore(storage), application().clock)


def target_settings() -> TargetSettings:
    """IBIPORTAL_TARGET_FAILURES and IBIPORTAL_TARGET_RECHECK_HOURS."""
    config = current_app.config
    return TargetSettings(config["TARGET_FAILURES"], config["TARGET_RECHECK_HOURS"])


def get_target_checks() -> TargetChecks:
    """The own items' target checks and their states, over the request's (the command's) connection."""
    storage = get_storage()
    return TargetChecks(TargetStore(storage), IdentifierStore(storage), target_settings(), application().clock)


def target_checker() -> TargetChecker:
    """A checker of target URLs: a guarded ``requests`` transport of its own (the address policy of
    ``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES``, a user agent naming the portal's check), paced per host."""
    portal = current_app.config.get("PORTAL_URL")
    agent = f"IBI-Portal-target-check/{__version__}" + (f" (+{portal})" if portal else "")
    transport = HttpTransport(allow_private=current_app.config["ALLOW_PRIVATE_ARCHIVES"], user_agent=agent)
    return TargetChecker(transport, HostPacer())


def known_prefix_pairs() -> list[tuple[str, ...]]:
    """The prefix pairs conversion knows (:meth:`Application.known_prefix_pairs`)."""
    return application().known_prefix_pairs()


def resolver_base() -> str:
    """Base of persistent URLs: ``IBIPORTAL_RESOLVER_BASE``, else this portal's own address."""
    return current_app.config.get("RESOLVER_BASE") or request.url_root


def canonical_base(url: PersistentUrl, given: str | None = None) -> str:
    """Base of a parsed URL's canonical forms: the resolver host it came with, else ``given``, else :func:`resolver_base`.

    A ``given`` base is checked even when the URL's own host wins: a mistyped base is said, not
    silently unused (:raises ParseError: naming ``base``)."""
    if given is not None:
        given = normalize_base(given)
    if url.resolver not in (None, "/"):
        return url.resolver
    return given or resolver_base()


def init_app(app: Flask, built: Application) -> None:
    app.extensions[APPLICATION] = built
    app.teardown_appcontext(close_storage)
