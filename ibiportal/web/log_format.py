"""Request ids and log lines a machine can read.

Every response carries ``X-Request-ID``: the one the request came with when it is sane (at most
:data:`MAX_REQUEST_ID` characters of letters, digits and ``._:+/=-``, as nginx's ``$request_id``,
a UUID or a load balancer's trace id are), else one made here; an id that is not sane is
replaced rather than logged, since it would let a client write into the operator's logs. It is
set by a WSGI middleware around the app, before Flask's request handling, so that it costs a
cached redirect nothing but the id.

``IBIPORTAL_LOG_FORMAT=json`` makes the app's log lines (the ``ibiportal`` logger and its
children) and gunicorn's (``RedactingGunicornLogger``) one JSON object per line: ``time`` (UTC,
ISO 8601), ``level``, ``logger``, ``message``, and within a request its ``request_id``,
``method`` and ``path``; an access line adds ``status``, ``duration_ms``, ``cache`` (X-IBI-Cache)
and ``trace`` (the id of the resolution's trace, from X-IBI-Trace). No query string, ever: the
resolver service's carry registration keys (Table 7.1), and the key filter
(:mod:`.log_redaction`) still blanks any ``…key=`` in what is written.
"""
from __future__ import annotations

import itertools
import json
import logging
import os
import re
import sys
from datetime import datetime, timezone
from typing import Any

from flask import Flask, has_request_context, request
from flask.logging import default_handler, has_level_handler

from .context import settings
from .log_redaction import _FILTER, redact

#: The WSGI environ key of the request's id.
REQUEST_ID = "ibiportal.request_id"
MAX_REQUEST_ID = 128
_SANE = re.compile(r"[A-Za-z0-9._:+/=-]{1,%d}" % MAX_REQUEST_ID)


class _Ids:
    """Ids unique across processes and nodes: a random prefix per process (made again in a forked
    child) and a counter, cheaper than random bytes for every request."""

    def __init__(self) -> None:
        self.renew()
        os.register_at_fork(after_in_child=self.renew)

    def renew(self) -> None:
        self.prefix, self.count = os.urandom(6).hex(), itertools.count(1)

    def next(self) -> str:
        return f"{self.prefix}-{next(self.count):x}"


_IDS = _Ids()


def request_id(given: str | None) -> str:
    """``given`` when it is a sane id, else a new one."""
    return given if given is not None and _SANE.fullmatch(given) else _IDS.next()


class RequestIds:
    """WSGI middleware: the request's id in its environ (:data:`REQUEST_ID`) and in the response."""

    def __init__(self, app) -> None:  # type: ignore[no-untyped-def]
        self.app = app

    def __call__(self, environ: dict, start_response):  # type: ignore[no-untyped-def]
        rid = environ[REQUEST_ID] = request_id(environ.get("HTTP_X_REQUEST_ID"))

        def start(status, headers, exc_info=None):  # type: ignore[no-untyped-def]
            headers.append(("X-Request-ID", rid))
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


def trace_id(trace_header: str | None) -> str | None:
    """The trace's id, the last segment of the permalink in ``X-IBI-Trace``."""
    return trace_header.rstrip("/").rsplit("/", 1)[-1] or None if trace_header else None


class JsonLines(logging.Formatter):
    """One JSON object per record; an access line's fields come in the record's ``fields``. Its
    message and traceback are blanked by the key filter (``RedactKeys``) of the logger or handler
    before they get here; the request's path, which is not part of them, is blanked here."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),  # blanked already by the key filter (RedactKeys) on the way
        }
        fields = getattr(record, "fields", None)
        if fields is not None:
            line.update(fields)
        elif has_request_context():
            environ = request.environ
            line.update(request_id=environ.get(REQUEST_ID), method=environ.get("REQUEST_METHOD"),
                        path=redact(environ.get("PATH_INFO", "")))
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False, default=str)


def access_fields(resp, environ: dict, request_time) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """gunicorn's access line as fields (its ``access`` arguments): never the query string, and
    keys blanked in every field a client writes (the path, X-Forwarded-For, the user agent), as
    in the text line (:mod:`.access_log`): the key filter reads the message, not these fields."""
    headers = {name.lower(): value for name, value in resp.headers}
    status = resp.status.split(None, 1)[0] if isinstance(resp.status, str) else resp.status
    return {
        "request_id": environ.get(REQUEST_ID) or headers.get("x-request-id"),
        "method": environ.get("REQUEST_METHOD"),
        "path": redact(environ.get("PATH_INFO", "")),
        "status": int(status),
        "duration_ms": round(request_time.total_seconds() * 1000, 3),
        "cache": headers.get("x-ibi-cache"),
        "trace": trace_id(headers.get("x-ibi-trace")),
        "bytes": getattr(resp, "sent", None),
        "remote": environ.get("REMOTE_ADDR"),
        "forwarded_for": _redacted(environ.get("HTTP_X_FORWARDED_FOR")),
        "user_agent": _redacted(environ.get("HTTP_USER_AGENT")),
    }


def _redacted(value: str | None) -> str | None:
    return None if value is None else redact(value)


#: The handler of the app's lines in JSON (one per process, whatever the number of apps).
JSON_HANDLER = logging.StreamHandler(sys.stderr)
JSON_HANDLER.setFormatter(JsonLines())
JSON_HANDLER.addFilter(_FILTER)  # the children's records too, which the logger's own filter does not see


def init_app(app: Flask) -> None:
    """Request ids on every response; the app's lines in the format of ``LOG_FORMAT``."""
    app.wsgi_app = RequestIds(app.wsgi_app)  # type: ignore[method-assign]
    logger = app.logger
    if settings(app).log_format == "json":
        logger.removeHandler(default_handler)
        if JSON_HANDLER not in logger.handlers:
            logger.addHandler(JSON_HANDLER)
    else:  # as Flask sets it up (an earlier app of this process may have been JSON)
        logger.removeHandler(JSON_HANDLER)
        if not has_level_handler(logger):
            logger.addHandler(default_handler)
