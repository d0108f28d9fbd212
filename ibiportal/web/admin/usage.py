"""The Usage page: the items resolved most (``application.usage``), over the last days or all
time; each own item links to its page, where its chart and totals are."""
from __future__ import annotations

from flask import render_template, request

from ..auth.session import admin_required
from ..context import application
from .views import bp

#: Items listed.
LISTED = 50

#: The windows the page offers, in days (``None``: all time); the first is the default.
WINDOWS = (30, 7, 90, None)


@bp.get("/usage")
@admin_required
def usage_page():
    """The :data:`LISTED` items resolved most in the window ``days`` (7, 30, 90, or ``all``)."""
    asked = request.args.get("days", "")
    days = None if asked == "all" else int(asked) if asked.isdigit() and int(asked) in WINDOWS else WINDOWS[0]
    return render_template("admin/usage.html", ranked=application().usage_report().most_resolved(LISTED, days), days=days,
                           windows=WINDOWS)
