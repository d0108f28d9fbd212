"""Error handlers: a clear message and a 4xx for bad input, never a stack trace to a user."""
from __future__ import annotations

import logging
from collections.abc import Sequence

from flask import Flask, Response, current_app, jsonify, make_response, render_template, request
from werkzeug import exceptions as http
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge, SecurityError

from .. import metrics
from ..errors import Conflict, FieldErrors, Gone, IbiError, Invalid, NotFound, ParseError, Refused
from ..log_limits import LimitedLog
from ..application.outage import SchemaNotCurrent, unreachable
from .context import settings
from .i18n import gettext, translate

#: Every request meets an outage, an old schema or a defect alike: one line a minute per cause.
_LOG = LimitedLog(logging.getLogger(__name__))


def wants_json() -> bool:
    """API paths always get JSON; elsewhere, a client that prefers JSON to HTML."""
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" and request.accept_mimetypes[best] > request.accept_mimetypes["text/html"]


def error_response(message: str, status: int, position: int | None = None, field: str | None = None,
                   errors: Sequence[ParseError] = ()):
    """The error as the API's JSON or the error page, its message in the reader's language (a core
    :class:`~ibiportal.i18n.Message` translated; docs/translations.md); ``errors``: every field's
    error of a request read once (a mint request), each as its own body, under ``errors``."""
    body = _error_body(message, position, field)
    if errors:
        body["errors"] = [_error_body(each.message, each.position, each.field) for each in errors]
    if wants_json():
        return jsonify({"error": body}), status
    return render_template("error.html", status=status, error=body), status


def _error_body(message: str, position: int | None, field: str | None) -> dict:
    body: dict = {"message": translate(message), "position": position}
    if field is not None:
        body["field"] = field
    return body


def handle_refusal(error: IbiError):
    """An error of a kind (``ibiportal/errors.py``): its status, its message in the reader's
    language, and for a parse error where in which field; JSON for the API, else the error page."""
    if isinstance(error, FieldErrors):
        return error_response(error.message, error.status, error.position, error.field, error.errors)
    if isinstance(error, ParseError):
        return error_response(error.message, error.status, error.position, error.field)
    return error_response(error.args[0] if error.args else error.__class__.__doc__, error.status, field=error.field)


def handle_http_exception(exc: HTTPException):
    if isinstance(exc, RequestEntityTooLarge) and exc.description == RequestEntityTooLarge.description:
        # werkzeug's words name no limit
        limit = current_app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
        return error_response(gettext("The request is too large: the portal reads at most %(limit)s MB.", limit=limit), 413)
    if isinstance(exc, SecurityError):  # an untrusted Host (web.host): no page links may be built for it
        message = gettext("This portal does not answer for the host this request named; "
                          "its administrator lists the hosts it answers for in IBIPORTAL_TRUSTED_HOSTS.")
        if wants_json():
            return jsonify({"error": {"message": message, "position": None, "field": "Host"}}), 400
        return Response(message + "\n", 400, mimetype="text/plain")
    if isinstance(exc, MethodNotAllowed):  # werkzeug's words name neither the method nor the way
        allowed = sorted(set(exc.valid_methods or ()) - {"HEAD", "OPTIONS"})
        if allowed:
            message = gettext("%(method)s is not possible at %(path)s: it answers %(allowed)s only.",
                              method=request.method, path=request.path, allowed=gettext(" and ").join(allowed))
        else:
            message = gettext("%(method)s is not possible at %(path)s.", method=request.method, path=request.path)
        response = make_response(error_response(message, 405))
        response.headers["Allow"] = ", ".join(exc.valid_methods or ())
        return response
    if isinstance(exc, http.NotFound) and exc.description == http.NotFound.description:  # werkzeug's own words
        if request.path.startswith("/api/"):
            return error_response(gettext("There is no API endpoint %(path)s on this portal.", path=request.path), 404)
        return error_response(gettext("There is no page %(path)s on this portal.", path=request.path), 404)
    return error_response(exc.description or exc.name, exc.code or 500)


def handle_undecodable(exc: UnicodeDecodeError):
    """A query string with raw bytes that are not UTF-8 (werkzeug cannot read ``request.args``): 400.

    Any other undecodable text is a bug of ours, handled as one.
    """
    try:
        request.query_string.decode("utf-8")
    except UnicodeDecodeError as bad:
        byte = bad.object[bad.start]
        message = gettext("the query string has the byte 0x%(byte)s, which is not UTF-8: percent-encode it (%%%(byte)s)",
                          byte=f"{byte:02X}")
        return error_response(message, 400, bad.start + 1, "query")
    return handle_unexpected(exc)


def database_unreachable(exc: Exception):
    """The database does not answer (an outage, a restart): 503 with ``Retry-After``, saying so.
    Logged once a minute with the number of requests it turned away, not once per request."""
    _LOG.warning("database", "database unreachable, answering 503: %s", exc.__class__.__name__)
    metrics.unreachable("database")
    retry_after = settings().outage_retry_after
    response = make_response(error_response(gettext(
        "The portal's database is not answering at the moment (a restart or an outage); links to items "
        "already looked up still lead on. Try again in %(seconds)s seconds.", seconds=retry_after), 503))
    response.headers["Retry-After"] = str(retry_after)
    return response


def handle_schema_not_current(exc: SchemaNotCurrent):
    """A database behind this version's schema (an upgrade not run yet): 503 until it is."""
    _LOG.error("schema", "%s", exc)
    return error_response(gettext("The portal's database is not ready for this version yet; try again in a moment."), 503)


def handle_unexpected(exc: Exception):
    if isinstance(exc, HTTPException):
        return handle_http_exception(exc)
    if unreachable(exc):
        return database_unreachable(exc)
    _LOG.exception(f"{type(exc).__name__} at {request.endpoint}", "unhandled error on %s", request.path)
    return error_response(gettext(
        "The server encountered an internal error and was unable to complete your request. Either the server is "
        "overloaded or there is an error in the application."), 500)


def register_errorhandlers(app: Flask) -> None:
    for kind in (Invalid, NotFound, Gone, Conflict, Refused):  # ParseError and TooLarge are Invalid
        app.register_error_handler(kind, handle_refusal)
    app.register_error_handler(UnicodeDecodeError, handle_undecodable)
    app.register_error_handler(SchemaNotCurrent, handle_schema_not_current)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(Exception, handle_unexpected)
