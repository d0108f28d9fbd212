"""The own Archive's files over HTTP: served as URLib serves them, read from the request's raw
body, described as JSON, and the statuses of what goes wrong.

Serving (RFC 9110): ``ETag`` (the SHA-256 of the bytes), ``Last-Modified`` (the upload),
conditional GETs answered 304, one byte range answered 206 (what PDF viewers ask for) and
``If-Range`` honoured, an unsatisfiable range 416; several ranges get the whole file (200),
as they may. The body is read from the database one chunk at a time, never whole
(``Application.file_chunks``).

No uploaded file may run script in the portal's origin. Every file is served as its bare
``type/subtype`` (``media_types.bare_media_type``: no parameter a browser could read as a
second type), the one value every decision below is taken from, with ``nosniff`` and, except
PDFs, with ``Content-Security-Policy: sandbox`` (a document that runs in an opaque
origin, without script). Types that a browser would render as an active document (HTML, SVG,
XML, anything not known to be passive) are also served as ``Content-Disposition: attachment``,
so the browser saves them instead of showing them. PDFs are shown inline without the sandbox
(Chromium's viewer refuses a sandboxed PDF); their scripts run in the viewer, not the page.
"""
from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import datetime, timezone
from urllib.parse import quote

from flask import Response, jsonify, request
from werkzeug.http import http_date, is_resource_modified

from .i18n import gettext
from ..ibi.media_types import bare_media_type
from ..archive.own import item_file_url
from ..log_limits import LimitedLog
from ..application import Application
from ..application.files import FileChanged, StoredFile
from .context import application

_ENDED_EARLY = LimitedLog(logging.getLogger(__name__))

#: Types a browser shows without running anything of the file's in the page: served inline.
PASSIVE_TYPES = frozenset({
    "application/pdf", "text/plain", "text/csv", "application/json",
    "image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp",
})
PASSIVE_PREFIXES = ("audio/", "video/")

#: The policy of every file but a PDF: an opaque origin, no script, nothing loaded from elsewhere.
SANDBOX_POLICY = "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'"

#: Files can be replaced: a cache keeps them but asks again (cheap: the ETag answers 304).
CACHE_CONTROL = "no-cache"

#: ``request.max_content_length`` of an upload: MAX_CONTENT_LENGTH (for forms and JSON) does not
#: apply, the file use case counts the body against IBIPORTAL_MAX_FILE_BYTES itself (a declared
#: length first), and says which limit it is.
UNCAPPED = 2**63 - 1

#: What a multipart upload may carry beyond the file itself (its boundaries, the part's headers,
#: the path, the token): its route reads IBIPORTAL_MAX_FILE_BYTES and this (so does nginx).
FORM_OVERHEAD_BYTES = 64 * 1024

def is_passive(media_type: str) -> bool:
    """Whether a browser shows this bare media type without running anything of the file's."""
    return media_type in PASSIVE_TYPES or media_type.startswith(PASSIVE_PREFIXES)


def file_response(stored: StoredFile) -> Response:
    """The file, whole or the range asked for, with its validators (module docstring)."""
    last_modified = _moment(stored.uploaded_at)
    headers = {
        "ETag": f'"{stored.sha256}"',
        "Last-Modified": http_date(last_modified),
        "Cache-Control": CACHE_CONTROL,
        "Accept-Ranges": "bytes",
        "X-Content-Type-Options": "nosniff",
    }
    media_type = bare_media_type(stored.content_type)  # any row, however it came to be kept
    disposition = "inline" if is_passive(media_type) else "attachment"
    headers["Content-Disposition"] = f"{disposition}; filename*=UTF-8''{quote(stored.path.rsplit('/', 1)[-1], safe='')}"
    if media_type != "application/pdf":
        headers["Content-Security-Policy"] = SANDBOX_POLICY
    if not is_resource_modified(request.environ, etag=stored.sha256, last_modified=last_modified):
        return Response(status=304, headers=headers)
    start, stop, status = 0, stored.size, 200
    asked = request.range
    if asked is not None and _if_range_holds(stored.sha256, last_modified):
        span = asked.range_for_length(stored.size)
        if span is not None:
            (start, stop), status = span, 206
            headers["Content-Range"] = f"bytes {start}-{stop - 1}/{stored.size}"
        elif len(asked.ranges) == 1:
            headers["Content-Range"] = f"bytes */{stored.size}"
            return Response(gettext("The file has %(size)s bytes: the range asked for is outside it.", size=stored.size) + "\n", 416,
                            headers=headers, mimetype="text/plain")
    headers["Content-Length"] = str(stop - start)
    body = _body(application(), stored, start, stop)
    return Response(body, status, headers=headers, content_type=media_type, direct_passthrough=True)


def _if_range_holds(etag: str, last_modified: datetime) -> bool:
    """Whether a ``Range`` applies: no ``If-Range``, or one naming the file as it is now."""
    if_range = request.if_range
    if if_range.etag is not None:
        return if_range.etag == etag
    if if_range.date is not None:
        return if_range.date == last_modified
    return "If-Range" not in request.headers


def _body(built: Application, stored: StoredFile, start: int, stop: int) -> Iterator[bytes]:
    """The bytes, read after the view returned (outside the app context), each chunk on a
    connection of its own; a file replaced meanwhile ends the body early (the client sees it
    incomplete), with a warning (one a minute: clients may be downloading it by the hundred)."""
    try:
        yield from built.file_chunks(stored, start, stop)
    except FileChanged as changed:
        _ENDED_EARLY.warning("file changed", "download ended early: %s", changed)


def _moment(iso: str) -> datetime:
    """A stored ISO 8601 UTC time, to the second (what ``Last-Modified`` can say)."""
    return datetime.strptime(iso[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)


def file_dict(stored: StoredFile, portal_url: str, rep: str, resolver_base: str) -> dict:
    """A file as the API and the file-list page's JSON describe it."""
    return {
        "path": stored.path,
        "content_type": stored.content_type,
        "size": stored.size,
        "sha256": stored.sha256,
        "uploaded_at": stored.uploaded_at,
        "url": item_file_url(portal_url, rep, stored.path),
        "persistent_url": f"{resolver_base.rstrip('/')}/{stored.ibi}/{quote(stored.path)}",
    }


def listing_response(held, portal_url: str, resolver_base: str):
    """An item's files as JSON: ``{"ibi": {"rep", "ibip"}, "files": [...]}``."""
    item = held.item
    return jsonify({
        "ibi": {"rep": item.rep, "ibip": item.ibip},
        "files": [file_dict(stored, portal_url, item.rep, resolver_base) for stored in held.files],
    })
