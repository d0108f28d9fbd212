"""A reference list's check for the request at hand: the use case
(``ibiportal.application.references``) with this portal's resolution, threads and rate limit, and
its answer as one JSON document or as a stream of lines (NDJSON).

Each distinct request is answered as ``GET /<persistent URL>`` on this portal answers it, by the
same call (``Resolving.answer``): the same Archives, cache hits, single flight and trace, with the
registry read once for the whole check and its outcomes not kept in the cache. The request is read
once, when the check starts; the resolutions run on the application's reference-check threads,
each a unit of work of its own (the storage it opens through the application is closed when it
ends), with no copy of this request's context.
"""
from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from ...application.references import CheckedEntry, CheckOutcome, EntryResolution, ReferenceCheck
from ...application.resolving import Answer, Batch, Caller, Received, Resolving, Site
from ...i18n import Message
from ...ibi.extract import Extraction, Found
from ..limits import reference_budget
from ..context import application, request_caller, request_site
from ..host import request_address
from ..i18n import translate
from ...resolver.statuses import ALERT_STATUS, FOUND_STATUS

#: The media type of the streamed answer: one JSON object per line.
NDJSON = "application/x-ndjson"


def answer_as_get(resolving: Resolving, batch: Batch, caller: Caller, site: Site, address: str, entry: Found) -> Answer:
    """The answer ``GET /<the entry's request>`` at ``address`` gets from ``caller``: the same
    call, with the entry's URL as its reading read it (not read again) and the registry the check
    read once (``batch``)."""
    received = Received(f"{address}{entry.reading.resolver_path}", parsed=entry.reading.url)
    return resolving.answer(received, caller, site, batch)


def reference_check() -> ReferenceCheck:
    """The check, wired to this portal, with the request and the registry read once for all its resolutions."""
    resolving, site = application().resolving, request_site()
    answer = functools.partial(answer_as_get, resolving, resolving.batch(site), request_caller(), site, request_address())
    return ReferenceCheck(answer, application().reference_executor,
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
    reasons = Reasons()
    for checked in checked_entries(extraction):
        rows[checked.index]["resolution"] = resolution_dict(checked.resolution, reasons)
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
    reasons = Reasons()
    for batch in reference_check().batches(extraction.found, reference_budget()):
        lines = []
        for checked in batch:
            counts[checked.resolution.outcome] += 1
            lines.append(_line({"index": checked.index, **checked.entry.to_dict(),
                                "resolution": resolution_dict(checked.resolution, reasons)}))
        yield "".join(lines)  # one write for the entries resolved together
    yield _line({"summary": summary(counts.elements())})


def resolution_dict(resolution: EntryResolution, reasons: Callable[[str], str] = translate) -> dict:
    """An entry's resolution as the API gives it: its ``reason`` in the reader's language
    (``reasons``: one check's :class:`Reasons`; the ``outcome`` stays the API's word)."""
    return {**resolution.to_dict(), "reason": reasons(resolution.reason)}


class Reasons:
    """``translate`` for the reasons of one check, each distinct reason translated once: the
    entries of a list share a few reasons ("not found: the 4 Archives that answered do not hold
    this IBI", "no Archive answered usably; …"), and those of one request share its resolution's.

    A core message is known by its template, its plural and its English words: with the same
    template, the same words are the same values, so the same words in every language. At most
    :data:`KEPT` are kept, then forgotten all at once and learnt again: a check's memory must not
    grow with its list, and each found entry's reason ("redirects to <its URL>") is its own."""

    #: Distinct reasons kept at once.
    KEPT = 64

    def __init__(self) -> None:
        self._known: dict[tuple[str, str | None, str], str] = {}

    def __call__(self, reason: str) -> str:
        if not isinstance(reason, Message):
            return translate(reason)
        key = (reason.template, reason.plural, str.__str__(reason))
        known = self._known.get(key)
        if known is None:
            if len(self._known) >= self.KEPT:
                self._known.clear()
            known = self._known[key] = translate(reason)
        return known


def _line(value: dict) -> str:
    return json.dumps(value, ensure_ascii=False) + "\n"
