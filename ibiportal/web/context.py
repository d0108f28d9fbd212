"""The web layer's one door into the application.

The :class:`~ibiportal.application.Application` is built once by ``create_app`` and kept in
``app.extensions``; :func:`application` hands it to the views and the commands, each use case
already wired, and :func:`request_caller` and :func:`request_site` translate the request into the
values its use cases take. A request is a unit of work: the storage it opened through the
application is closed when its app context ends (:func:`init_app`).
"""
from __future__ import annotations

from flask import Flask, current_app, request

from ..application import Application, Holdings
from ..application.resolving import Caller, Site
from ..config import Settings
from ..ibi.url import PersistentUrl, normalize_base
from ..resolver.addresses import client_ip_list
from ..resolver.engine import ClientInfo
from .host import portal_url, portal_url_for, request_address

#: The key of the application in ``app.extensions``.
APPLICATION = "ibiportal.application"


def application() -> Application:
    """The application this Flask app was built with (``create_app``)."""
    return current_app.extensions[APPLICATION]


def settings(app: Flask | None = None) -> Settings:
    """The portal's typed settings, those the application was built with: of ``app`` while it is
    set up, else of the current app. Every ``IBIPORTAL_*`` setting a view, hook or command needs is
    read here, never from ``app.config``: the settings are frozen, so none changes behind the
    application's back."""
    return (current_app if app is None else app).extensions[APPLICATION].settings


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
    return site_at(address or request_address(), request.script_root, settings())


def site_at(address: str, script_root: str, given: Settings) -> Site:
    """:func:`request_site` from its parts and the app's settings, for a caller outside Flask's
    request (``web.cached_hits``)."""
    root = f"{address}{script_root}/"
    return Site(portal_url_for(address, given), root, given.resolver_base or root)


def client_address() -> str:
    """The client's IP: the first of Table 8.10's list (trusted proxies' X-Forwarded-For believed)."""
    ips = client_ip_list(
        request.remote_addr, request.headers.get("X-Forwarded-For"), settings().trusted_proxies
    )
    return ips[0] if ips else (request.remote_addr or "unknown")


def known_prefix_pairs() -> list[tuple[str, ...]]:
    """The prefix pairs conversion knows (:meth:`Application.known_prefix_pairs`)."""
    return application().known_prefix_pairs()


def resolver_base() -> str:
    """Base of persistent URLs: ``IBIPORTAL_RESOLVER_BASE``, else this portal's own address."""
    return settings().resolver_base or request.url_root


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
    app.jinja_env.globals["settings"] = built.settings  # the templates' too, not Flask's ``config``
    app.teardown_appcontext(_end_unit_of_work)


def _end_unit_of_work(_exc: BaseException | None = None) -> None:
    """The request (or the command's app context) ended: close the storage it opened, through the application."""
    application().close_storage()
