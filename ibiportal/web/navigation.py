"""The site's main navigation, shared by every page through ``base.html``."""
from __future__ import annotations

from flask import Flask, request
from flask_babel import lazy_gettext

from .auth.session import current_admin

# (label, endpoint, administrators only, section): the link is marked current on every page
# whose endpoint starts with its section, the longest such (e.g. the prefix table belongs to Convert).
MAIN_NAVIGATION = [
    (lazy_gettext("Mint"), "identifiers.mint", False, "identifiers.mint"),
    (lazy_gettext("Convert"), "convert.convert_page", False, "convert."),
    (lazy_gettext("Compose"), "urls.compose_page", False, "urls.compose"),
    (lazy_gettext("Parse"), "urls.parse_page", False, "urls.parse"),
    (lazy_gettext("Trace"), "trace.trace_page", False, "trace."),
    (lazy_gettext("Cite"), "cite.cite_page", False, "cite."),
    (lazy_gettext("References"), "references.references_page", False, "references."),
    (lazy_gettext("Items"), "admin_items.items_page", True, "admin_items."),
    (lazy_gettext("Usage"), "admin.usage_page", True, "admin.usage"),
    (lazy_gettext("Archives"), "admin.archives_page", True, "admin."),
]


def navigation_context() -> dict:
    """Links for the visitor (Archives only for administrators), the current one marked."""
    admin = current_admin()
    endpoint = request.endpoint or ""
    shown = [entry for entry in MAIN_NAVIGATION if admin or not entry[2]]
    # the longest section the endpoint starts with (admin.usage within admin.)
    current = max((section for *_, section in shown if endpoint.startswith(section)), key=len, default=None)
    links = [(label, target, section == current) for label, target, _, section in shown]
    return {"main_navigation": links, "admin": admin}


def init_app(app: Flask) -> None:
    app.context_processor(navigation_context)
