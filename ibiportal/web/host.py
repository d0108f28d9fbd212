"""The portal's own address: ``IBIPORTAL_PORTAL_URL``, or else the address each request came to.

Links to the portal's own pages (its items, the demo Archives' files) and the redirects kept in
the resolution cache are built from it. Taken from a request, it is only believed for the hosts
of ``IBIPORTAL_TRUSTED_HOSTS`` (default: the loopback names and the hosts gunicorn binds): Flask
then refuses any other ``Host`` header with a 400 before a view runs, so a forged ``Host`` can
neither put its name into a page's links nor into a cached redirect other users receive.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, current_app, has_request_context, request

#: Names a portal on this machine is reached by.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")
#: The address a portal without a request (the CLI) assumes: gunicorn's default bind.
DEFAULT_PORTAL_URL = "http://127.0.0.1:8000"


def bind_hosts(bind: str) -> list[str]:
    """The hosts of ``IBIPORTAL_BIND`` (``127.0.0.1:8000,[::1]:8000`` → ``127.0.0.1``, ``::1``)."""
    hosts = []
    for address in (part.strip() for part in bind.split(",")):
        if address.startswith("unix:") or not address:
            continue
        host = address[1:].split("]", 1)[0] if address.startswith("[") else address.rsplit(":", 1)[0]
        if host and host not in ("0.0.0.0", "::"):
            hosts.append(host)
    return hosts


def init_app(app: Flask) -> None:
    """Without ``PORTAL_URL``, only trusted hosts are served (Flask's ``TRUSTED_HOSTS``)."""
    if app.config.get("TRUSTED_HOSTS") is None and not app.config.get("PORTAL_URL"):
        app.config["TRUSTED_HOSTS"] = [*LOOPBACK_NAMES, *bind_hosts(app.config.get("BIND", ""))]


def portal_url() -> str:
    """This portal's base URL, without a trailing ``/``."""
    return portal_url_for(request_address() if has_request_context() else DEFAULT_PORTAL_URL)


def portal_url_for(address: str, config: Mapping[str, Any] | None = None) -> str:
    """This portal's base URL, for a request that came to ``address`` (:func:`request_address`);
    ``config``: the app's, when the caller read it already."""
    configured = (current_app.config if config is None else config).get("PORTAL_URL")
    return configured.rstrip("/") if configured else address


def request_address() -> str:
    """The scheme and host the request came to. The host was checked against TRUSTED_HOSTS when
    the request was routed; not request.host_url, whose IRI conversion of an address in ASCII
    costs a cache hit 200 µs."""
    return f"{request.scheme}://{request.host}"
