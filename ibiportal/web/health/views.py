"""The Archive health page (public, read-only): how each Archive has been answering the
resolver lately, from the traces the portal keeps and the registry's state
(``ibiportal.resolver.health``). ``GET /api/v1/archives/health`` is the same as JSON."""
from __future__ import annotations

from flask import Blueprint, render_template

from ...resolver.health import NEAR_TIMEOUT_SHARE, RECENT_ROUNDS, ArchiveHealth, archive_health
from ...resolver.local_transport import LOCAL_READ_TIMEOUT
from ..context import application, holdings, settings
from .chart import latency_chart

bp = Blueprint("health", __name__)

#: How many of the newest traces are summarised: enough to see a pattern, few enough to read
#: and parse on every view of the page (each trace is a few kilobytes of JSON).
HEALTH_WINDOW = 200


def current_health() -> tuple[list[ArchiveHealth], int]:
    """Each Archive's row, and how many traces they were counted from."""
    traces = application().traces.recent(HEALTH_WINDOW)
    local = {archive.service.identity.address: "demo, in-process" for archive in holdings().demo.values()}
    local[holdings().own_local.service.identity.address] = "this portal's own"
    return archive_health(traces, application().registering.archives(), local), len(traces)


@bp.get("/archives/health")
def archives_health():
    """Each Archive as a row (a card on a phone): its condition, its recent exchanges drawn
    against the resolver's limit, its counts and its last failure."""
    rows, traces = current_health()
    timeout_ms = settings().archive_read_timeout * 1000
    return render_template("health/archives.html", rows=rows, traces=traces, window=HEALTH_WINDOW,
                           timeout_ms=timeout_ms, demo_timeout_ms=LOCAL_READ_TIMEOUT * 1000, near_share=NEAR_TIMEOUT_SHARE, recent=RECENT_ROUNDS,
                           latency_chart=latency_chart)
