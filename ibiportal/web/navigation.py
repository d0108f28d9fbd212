"""The site's main navigation, shared by every page through ``base.html``."""
from __future__ import annotations

from flask import Flask, request

from .auth.session import current_admin

# (label, endpoint, administrators only)
MAIN_NAVIGATION = [
    ("Mint", "identifiers.mint", False),
    ("Convert", "convert.convert_page", False),
    ("Compose", "urls.compose_page", False),
    ("Parse", "urls.parse_page", False),
    ("Trace", "trace.trace_page", False),
    ("Cite", "cite.cite_page", False),
    ("Archives", "admin.archives_page", True),
]


def navigation_context() -> dict:
    """Links to the pages that exist, the current one marked for ``aria-current``."""
    admin = current_admin()
    links = [
        (label, endpoint, endpoint == request.endpoint)
        for label, endpoint, admin_only in MAIN_NAVIGATION
        if (admin or not admin_only) and endpoint in _endpoints()
    ]
    return {"main_navigation": links, "admin": admin}


def _endpoints() -> set[str]:
    from flask import current_app

    return set(current_app.view_functions)


def init_app(app: Flask) -> None:
    app.context_processor(navigation_context)
