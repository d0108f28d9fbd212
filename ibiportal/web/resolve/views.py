"""``GET /<ibi><modifiers><path>?<query>``: the portal as a resolver, like urlib.net (Figure 8.1).

A redirect found, or a stable alert, is served again from the worker's cache for a short while
(``ibiportal.resolver.cache``): ``X-IBI-Cache: hit`` then says so, and the trace headers point to
the trace of the resolution that found it; ``stale`` is the previous outcome, served while an
identical request resolves it again after its lifetime ended. ``miss`` is a fresh resolution; ``joined`` one that
shared the resolution of an identical request under way (its own trace links that one); ``off``
when the cache keeps no outcome of this kind (IBIPORTAL_RESOLUTION_CACHE_SECONDS=0 for
redirects, IBIPORTAL_NEGATIVE_CACHE_SECONDS=0 for alerts).
"""
from __future__ import annotations

from collections.abc import Callable
from flask import Blueprint, Response, jsonify, render_template, request
from markupsafe import escape
from werkzeug.routing import PathConverter

from ...application.resolving import Answer, Received
from ...resolver.diagnosis import NotFoundDiagnosis
from ..context import application, request_caller, request_site, resolver_base
from ..host import portal_url, request_address
from ..results import persistent_url
from ..signposting import landing_ibip, redirect_link_header
from .. import limits
from ..errors import error_response, wants_json
from ..i18n import gettext, translate
from ...resolver.statuses import ALERT_STATUS, FOUND_STATUS
from .alert_page import deleted_record, shown_message, unanswered
from .negotiation import citation_response, mentions_citation, negotiate
from .next_steps import next_step_links

bp = Blueprint("resolve", __name__)

#: The WSGI environ key of the answer (or the failure) of a resolution made before Flask's
#: dispatch (``web/cached_hits.py``), which the view renders instead of resolving again.
ANSWERED = "ibiportal.resolve.answered"
bp.add_app_template_global(next_step_links)


def _asks_for_citation() -> bool:
    """``GET /<IBI>`` with a citation type in ``Accept``: a citation, made like the Cite page's."""
    return mentions_citation(request.headers.get("Accept", ""))


@limits.declare(bp)
def _limits(rules: limits.Rules) -> None:
    """Resolution is not limited (it is the portal's main job and must take the load test's
    traffic), nor even looked at by the limiter, whose per-request work was a third of a
    cached resolution's view (benchmarks/cache.py); a citation asked for in ``Accept`` counts
    against ``RATELIMIT_TRACE``."""
    rules.unmetered(lambda: request.endpoint == "resolve.resolve" and not _asks_for_citation())
    rules.on_demand(_asks_for_citation)(bp)


class PersistentPathConverter(PathConverter):
    """Any path but the JSON API's: no IBI begins with ``api/`` (a repository name begins with a
    domain, an IBIp with a base-27 numeral), so a GET of an API path that only takes POST is
    the API's 405 with its ``Allow``, not a resolution."""

    regex = r"(?!api/)[^/].*?"


bp.record_once(lambda state: state.app.url_map.converters.setdefault("persistent", PersistentPathConverter))


@bp.get("/<persistent:ibi_path>")
def resolve(ibi_path: str):
    """Resolve a persistent URL: 302 to the URL an Archive answered, or the alert; or, for an
    ``Accept`` that asks for a citation type above all else, the item's citation.

    The request is read once: its URI as sent (``ibi_path``, the router's decoded reading, is not
    what the standard resolves: message (2) is the URL as received), who sent it and where; one
    call (``Resolving.answer``) takes it to the answer, which is rendered: the redirect, the
    alert, or why the path is no persistent URL (a 404 for a page that is not there or a URLib
    link to no item this portal can read, a 400 for a persistent URL that does not read). A
    request resolved before Flask's dispatch (``web/cached_hits.py``) brings its answer, or the
    failure the call raised, in ``environ[ANSWERED]``: rendered, or raised, here as if made here.
    """
    environ = request.environ  # read once: each read through Flask's request proxy costs a microsecond
    answered = environ.get(ANSWERED)
    if isinstance(answered, Exception):
        raise answered
    if answered is not None:
        return answer_response(answered)
    address = request_address()
    received = Received.request(_raw_path(environ), address)
    wanted = negotiate(environ.get("HTTP_ACCEPT"))
    if wanted is not None:  # a citation type asked for above all else (negotiation.py)
        return citation_response(wanted, received.url)
    answer = application().resolving.answer(received, request_caller(environ), request_site(address))
    return answer_response(answer)


def answer_response(answer: Answer):
    """The answer rendered: the redirect, the alert with its trace headers, or the refusal."""
    refusal = answer.refusal
    if refusal is not None:
        return error_response(refusal.message, refusal.status, refusal.position, refusal.field)
    if answer.url is not None:
        return found_response(answer.url, answer.rescued, answer.trace_url, answer.cache)
    response = alert_response(answer.resolution, answer.trace_url, answer.diagnosis, answer.rescued)
    return with_trace_headers(response, answer.trace_url, answer.cache)


def found_response(url: str, rescued: str | None, trace_url: str, cache: str) -> Response:
    """The redirect (7) with its trace headers (:func:`trace_headers`), made in one go: adding the
    headers to what ``redirect`` makes cost a cached redirect 3 µs of the 20 its view takes
    beyond a trivial redirect's (benchmarks/cache.py). For a rescued direct link whose Archive
    answers this very address (the own Archive's file URLs look like URLib's), a 404 instead
    of a redirect loop."""
    if rescued is not None and _same_resource(url, request.url):
        response = error_response(gettext("The Archive holding the item of %(link)s answers this very address, "
                                          "where this portal holds no such file.", link=rescued), 404)
        return with_trace_headers(response, trace_url, cache)
    headers = found_headers(url, trace_url, cache, portal_url, resolver_base)
    return Response(redirect_body(url), FOUND_STATUS, headers, mimetype="text/html")


def redirect_body(url: str) -> str:
    """The redirect's page, for a client that does not follow ``Location``."""
    link = escape(url)
    return f'<!doctype html>\n<title>Redirecting</title>\n<p>Redirecting to <a href="{link}">{link}</a>.\n'


def found_headers(url: str, trace_url: str, cache: str, portal: Callable[[], str],
                  base: Callable[[], str]) -> list[tuple[str, str]]:
    """The redirect's own headers: ``Location``, :func:`trace_headers`, and for a redirect to an
    own item's landing page the FAIR signposts known from its IBIp (``web.signposting``:
    ``cite-as``, ``describedby`` its metadata, ``linkset``) in a second ``Link`` header, built once
    per item and worker; ``portal`` and ``base`` give this portal's address and the resolver
    base, asked only for such a redirect (``web/cached_hits.py`` answers from the same function)."""
    headers = [("Location", url), *trace_headers(trace_url, cache)]
    if "/archive/items/" in url:  # maybe an own item's landing page; any other redirect pays this test alone
        address = portal()
        ibip = landing_ibip(url, address)
        if ibip is not None:
            headers.append(("Link", redirect_link_header(address, persistent_url(base(), ibip), ibip)))
    return headers


def trace_headers(trace_url: str, cache: str) -> list[tuple[str, str]]:
    """The trace permalink in ``Link`` and ``X-IBI-Trace``, ``X-IBI-Cache``, and no HTTP caching:
    each request must reach the resolver, so that its Archive is acknowledged (Table 8.11)."""
    return [
        ("Link", f'<{trace_url}>; rel="describedby"; type="application/json"'),
        ("X-IBI-Trace", trace_url),
        ("X-IBI-Cache", cache),
        ("Cache-Control", "no-store"),
        ("Vary", "Accept"),  # a citation type in Accept gets the citation instead (negotiation.py)
    ]


def with_trace_headers(response: Response, trace_url: str, cache: str) -> Response:
    """``response`` with :func:`trace_headers` (none of them is set yet)."""
    response.headers.extend(trace_headers(trace_url, cache))
    return response


def _raw_path(environ: dict) -> str:
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if not raw:
        raw = request.full_path if request.query_string else request.path
    return raw


def _same_resource(url: str, requested: str) -> bool:
    """An answer that sends the browser back to the address it asked (a loop, not a rescue)."""
    return url.split("#", 1)[0].rstrip("/") == requested.split("#", 1)[0].rstrip("/")


def alert_response(resolution, trace_url: str, diagnosis: NotFoundDiagnosis | None = None,
                   rescued: str | None = None) -> Response:
    """The alert (7) as JSON, plain text or an HTML page, with its status; a not-found says why
    and what to do next (``diagnosis``); ``rescued`` is the direct Archive link the request was,
    named beside the item's persistent URL."""
    alert = resolution.alert
    status = ALERT_STATUS[alert.reason]
    if wants_json():
        body = {"alert": alert.to_dict(), "persistent_url": resolution.persistent_url, "trace": trace_url}
        if rescued is not None:
            body["rescued_from"] = rescued
        if diagnosis is not None:
            body["diagnosis"] = diagnosis.to_dict()
        response = jsonify(body)
        response.status_code = status
        return response
    best = request.accept_mimetypes.best_match(["text/html", "text/plain"])
    if best == "text/plain" and request.accept_mimetypes[best] > request.accept_mimetypes["text/html"]:
        # The line keys (the reason, next:, trace:) are for scripts and stay; the sentences are the reader's.
        when = f" ({alert.timestamp})" if alert.timestamp and alert.timestamp not in alert.message else ""
        text = f"{alert.reason.value}: {translate(alert.message)}{when}\n"
        if rescued is not None:
            text += gettext("%(link)s is a direct link to an Archive's copy of the item; its persistent URL: %(url)s",
                            link=rescued, url=resolution.persistent_url) + "\n"
        if diagnosis is not None:
            text += f"{translate(diagnosis.subsystem.decoded)}\n"
            for step in diagnosis.next_steps:
                links = next_step_links(step, diagnosis, resolution.persistent_url, external=True)
                text += f"next: {translate(step.sentence)}\n" + "".join(f"  {label}: {href}\n" for label, href in links)
        text += f"trace: {trace_url}\n"
        return Response(text, status, mimetype="text/plain")
    page = render_template("resolve/alert.html", resolution=resolution, alert=alert, trace_url=trace_url,
                           diagnosis=diagnosis, rescued=rescued, message=shown_message(alert),
                           deleted=deleted_record(resolution), unanswered=unanswered(resolution, diagnosis))
    return Response(page, status)
