"""A reference list's check for the request at hand: the use case
(``ibiportal.application.references``) with this portal's resolution, threads and rate limit, and
its answer as one JSON document or as a stream of lines (NDJSON).

Each distinct request is resolved as ``GET /<persistent URL>`` on this portal would resolve it
(:func:`resolve_as_get`): the same Archives, cache hits, single flight and trace, with the
registry read once for the whole check and its outcomes not kept in the cache. The resolutions run
on the reference-check threads, each a unit of work of the application's own (its storage opened
and closed there), with the client and the portal's address read from the request beforehand.
"""
from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Iterable, Iterator

from flask import request

from ...application.references import Answer, CheckedEntry, EntryResolution, CheckOutcome, ReferenceCheck
from ...application.resolving import Asked, Batch, Caller, Resolving, Site
from ...ibi.extract import Extraction, Found
from ...resolver.cache import CachedRedirect
from ..limits import reference_budget
from ..context import application, request_caller, request_site
from ..i18n import translate
from ...resolver.statuses import ALERT_STATUS, FOUND_STATUS

#: The media type of the streamed answer: one JSON object per line.
NDJSON = "application/x-ndjson"


def resolve_as_get(resolving: Resolving, batch: Batch, root: str, caller: Caller, site: Site, entry: Found) -> Answer:
    """The answer ``GET /<the entry's request>`` on this portal gives: from the cache when it
    holds it, else resolved (with single flight) with the registry the check read once
    (``batch``), and not kept in the cache (``Resolving.resolve``)."""
    url = f"{root}{entry.reading.resolver_path}"
    hit = resolving.cached(url, caller, site)
    if hit is not None:
        outcome, state = hit
        if isinstance(outcome, CachedRedirect):
            return Answer(outcome.url, None, outcome.trace_url, state)
        return Answer(None, outcome.resolution.alert, outcome.trace_url, state)
    stored = resolving.resolve(Asked(url, entry.reading.url), caller, site, batch)
    resolution = stored.resolution
    return Answer(resolution.url, resolution.alert, site.trace_link(stored.trace_id), resolving.cache_state(stored))


def reference_check() -> ReferenceCheck:
    """The check, wired to this portal, with the registry read once for all its resolutions."""
    site, resolving = request_site(), application().resolving
    resolve = functools.partial(resolve_as_get, resolving, resolving.batch(site), f"{request.scheme}://{request.host}",
                                request_caller(), site)
    return ReferenceCheck(resolve, application().reference_executor,
                          alert_status=ALERT_STATUS, found_status=FOUND_STATUS)


def checked_entries(extraction: Extraction) -> Iterator[CheckedEntry]:
    """Every entry of ``extraction`` with its resolution, as they come, within this client's budget."""
    return reference_check().run(extraction.found, reference_budget())


def summary(outcomes: Iterable[CheckOutcome]) -> dict[str, int]:
    """How many entries came to each outcome (every outcome named, zeros included)."""
    counts = Counter(outcomes)
    return {outcome.value: counts[outcome] for outcome in CheckOutcome}


def resolved_document(extraction: Extraction) -> dict:
    """The extraction's JSON with each entry's ``resolution`` and the ``summary``, in text order."""
    body = extraction.to_dict()
    rows = body["found"]
    outcomes = []
    for checked in checked_entries(extraction):
        rows[checked.index]["resolution"] = resolution_dict(checked.resolution)
        outcomes.append(checked.resolution.outcome)
    body["summary"] = summary(outcomes)
    return body


def resolved_lines(extraction: Extraction) -> Iterator[str]:
    """The same as NDJSON, each entry on its line as soon as it is resolved (not in text order):
    first ``{"count", "distinct", "broken", "requests"}``, then each entry with its ``index`` in
    the text order, last ``{"summary": {…}}``."""
    requests = len({entry.reading.resolver_path for entry in extraction.found if not entry.broken})
    yield _line({"count": len(extraction.found), "distinct": extraction.distinct, "broken": extraction.broken,
                 "requests": requests})
    counts: Counter = Counter()
    for checked in checked_entries(extraction):
        counts[checked.resolution.outcome] += 1
        yield _line({"index": checked.index, **checked.entry.to_dict(), "resolution": resolution_dict(checked.resolution)})
    yield _line({"summary": summary(counts.elements())})


def resolution_dict(resolution: EntryResolution) -> dict:
    """An entry's resolution as the API gives it: its ``reason`` in the reader's language (the
    ``outcome`` stays the API's word)."""
    return {**resolution.to_dict(), "reason": translate(resolution.reason)}


def _line(value: dict) -> str:
    return json.dumps(value, ensure_ascii=False) + "\n"
