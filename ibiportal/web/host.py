"""The portal's own address: ``IBIPORTAL_PORTAL_URL``, or else the address each request came to.

Links to the portal's own pages (its items, the demo Archives' files) and the redirects kept in
the resolution cache are built from it. Taken from a request, it is only believed for the hosts
of ``IBIPORTAL_TRUSTED_HOSTS`` (default: the loopback names and the hosts gunicorn binds): Flask
then refuses any other ``Host`` header with a 400 before a view runs, so a forged ``Host`` can
neither put its name into a page's links nor into a cached redirect other users receive.
"""
from __future__ import annotations

from flask import Flask, has_request_context, request

from ..config import Settings
from . import context  # the settings, at call time: context imports this module

#: The address a portal without a request (the CLI) assumes: gunicorn's default bind.
DEFAULT_PORTAL_URL = "http://127.0.0.1:8000"


def init_app(app: Flask) -> None:
    """Flask refuses, with a 400, any ``Host`` but those the settings serve (``TRUSTED_HOSTS``,
    which Flask reads itself: :attr:`~ibiportal.config.Settings.served_hosts`)."""
    served = context.settings(app).served_hosts
    app.config["TRUSTED_HOSTS"] = None if served is None else list(served)


def portal_url() -> str:
    """This portal's base URL, without a trailing ``/``."""
    return portal_url_for(request_address() if has_request_context() else DEFAULT_PORTAL_URL)


def portal_url_for(address: str, given: Settings | None = None) -> str:
    """This portal's base URL, for a request that came to ``address`` (:func:`request_address`);
    ``given``: the app's settings, when the caller has them already."""
    configured = (context.settings() if given is None else given).portal_url
    return configured.rstrip("/") if configured else address


def request_address() -> str:
    """The scheme and host the request came to. The host was checked against TRUSTED_HOSTS when
    the request was routed; not request.host_url, whose IRI conversion of an address in ASCII
    costs a cache hit 200 µs."""
    return f"{request.scheme}://{request.host}"
