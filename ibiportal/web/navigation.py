"""The site's main navigation, shared by every page through ``base.html``."""
from __future__ import annotations

from flask import Flask, request

from .auth.session import current_admin

# (label, endpoint, administrators only, section): the link is marked current on every page
# whose endpoint starts with its section (e.g. the prefix table belongs to Convert).
MAIN_NAVIGATION = [
    ("Mint", "identifiers.mint", False, "identifiers.mint"),
    ("Convert", "convert.convert_page", False, "convert."),
    ("Compose", "urls.compose_page", False, "urls.compose"),
    ("Parse", "urls.parse_page", False, "urls.parse"),
    ("Trace", "trace.trace_page", False, "trace."),
    ("Cite", "cite.cite_page", False, "cite."),
    ("References", "references.references_page", False, "references."),
    ("Items", "admin_items.items_page", True, "admin_items."),
    ("Archives", "admin.archives_page", True, "admin."),
]


def navigation_context() -> dict:
    """Links for the visitor (Archives only for administrators), the current one marked."""
    admin = current_admin()
    endpoint = request.endpoint or ""
    links = [
        (label, target, endpoint.startswith(section))
        for label, target, admin_only, section in MAIN_NAVIGATION
        if admin or not admin_only
    ]
    return {"main_navigation": links, "admin": admin}


def init_app(app: Flask) -> None:
    app.context_processor(navigation_context)
