"""What the portal counts for Prometheus, through ``prometheus-client``.

Every metric is defined here, once per process, and counted through the small functions below,
which the use cases, the resolver and the storage call where the event happens. Under gunicorn
each worker is a process of its own: ``PROMETHEUS_MULTIPROC_DIR`` (set by ``bin/run`` and
``gunicorn.conf.py`` to a fresh folder before any worker starts) makes ``prometheus-client``
keep each worker's values in a memory-mapped file there, and :func:`exposition` sums them, so
``/metrics`` answers the same totals whichever worker serves it. Without it (the Flask dev
server, the tests) the process's own registry answers.

Bounded label values only: outcomes and kinds are the trace's enumerations, actions the
history's, and an Archive is labelled by its archive service IBI only for the registered
Archives the resolver asks over the network (the registry bounds them); the own and demo
Archives answer in the process, where an exchange's time says nothing of an Archive.

Counting costs a cached hit three counter increments (the resolution, its acknowledgment and
the notice), each child looked up once per label set and kept; ``IBIPORTAL_METRICS=0`` turns all
counting off (:func:`switch`), which is what ``benchmarks/metrics.py`` compares against.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client import multiprocess, values

RESOLUTIONS = Counter(
    "ibiportal_resolutions_total",
    "Resolutions of GET /<persistent URL> and of reference checks, by outcome (found, or the alert's "
    "reason) and cache state (hit, stale, miss, joined: shared an identical request's resolution, off)",
    ["outcome", "cache"])
EXCHANGE_SECONDS = Histogram(
    "ibiportal_archive_exchange_seconds",
    "Time of each urlRequest (3) to a registered Archive until its answer or failure",
    ["archive"], buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
EXCHANGE_FAILURES = Counter(
    "ibiportal_archive_failures_total",
    "urlRequest (3) exchanges with a registered Archive that brought no usable answer, by kind",
    ["archive", "kind"])
ACKNOWLEDGMENTS = Counter(
    "ibiportal_acknowledgments_total",
    "Acknowledgments (5) by outcome: sent, not-sent (could not be built, or too many notices "
    "awaited), dropped (a cached redirect's, with too many queued)",
    ["outcome"])
NOTICES = Counter(
    "ibiportal_notices_total",
    "Answers to acknowledgments (6) by outcome: notice, unexpected (another answer), no-answer",
    ["outcome"])
ITEM_CHANGES = Counter(
    "ibiportal_item_changes_total",
    "Changes of the own Archive's items committed, by the action their history records "
    "(minted, imported, edited, deleted, files, links, copies)",
    ["action"])
RATE_LIMITED = Counter(
    "ibiportal_rate_limit_refusals_total",
    "Requests refused by a rate limit (429), and IBIs of reference lists left unchecked by theirs",
    ["limit"])
UNREACHABLE = Counter(
    "ibiportal_store_unreachable_total",
    "Operations that found the database or Redis not answering (a 503, a stale answer, a "
    "publication or a single flight kept to the worker)",
    ["store"])

#: The failures of an exchange (:class:`~ibiportal.resolver.trace.Status` values): answers that
#: say "not held" (empty) or were not waited for are not failures.
FAILED_STATUSES = frozenset({"malformed", "http-error", "timeout", "refused", "transport-error"})

_on = True
#: Each metric's child per label values, looked up once: ``labels()`` cost a cached hit several
#: times the increment itself (it checks and joins the values under a lock on every call).
_children: dict[tuple, Any] = {}


def _child(metric: Counter | Histogram, *values: str) -> Any:
    key = (metric, *values)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*values)
    return child


def switch(on: bool) -> None:
    """Count (the default) or not: ``IBIPORTAL_METRICS``, set for the process by ``create_app``."""
    global _on
    _on = on


def counting() -> bool:
    return _on


def resolved(outcome: str, cache: str) -> None:
    """One resolution through the cache (``GET /<persistent URL>``, a reference check's IBI):
    ``found`` or the alert's reason, and how the cache served it."""
    if _on:
        _child(RESOLUTIONS, outcome, cache).inc()


def exchanged(archive: str, seconds: float | None, failure: str | None) -> None:
    """One urlRequest to the registered Archive ``archive`` (its service IBI): its time when it
    ended (``None``: the deadline came first), and the Status it ended with when that is a failure."""
    if not _on:
        return
    if seconds is not None:
        _child(EXCHANGE_SECONDS, archive).observe(seconds)
    if failure in FAILED_STATUSES:
        _child(EXCHANGE_FAILURES, archive, failure).inc()


def acknowledgment(outcome: str) -> None:
    if _on:
        _child(ACKNOWLEDGMENTS, outcome).inc()


def notice(outcome: str) -> None:
    if _on:
        _child(NOTICES, outcome).inc()


def items_changed(actions: Iterable[str]) -> None:
    """Changes committed together (one transaction): each counted by its history action."""
    if _on:
        for action in actions:
            _child(ITEM_CHANGES, action).inc()


def rate_limited(limit: str) -> None:
    if _on:
        _child(RATE_LIMITED, limit).inc()


def unreachable(store: str) -> None:
    """``database`` or ``redis`` did not answer an operation."""
    if _on:
        _child(UNREACHABLE, store).inc()


def exposition() -> tuple[bytes, str]:
    """The text format of every metric and its content type: summed over gunicorn's workers
    (live and dead: a counter of a replaced worker still counts) when they share a folder, else
    this process's."""
    if values.ValueClass._multiprocess:  # how this process stores its values, chosen as prometheus-client was imported
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
