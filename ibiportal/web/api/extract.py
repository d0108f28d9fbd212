"""``POST /api/v1/extract``: every IBI in a text or a file (the Check references page's finder).

The body is JSON ``{"text": "…"}``, or a multipart form with a ``file`` (.txt, .bib, .ris, .pdf,
.docx or .odt, by its name; a part without a file name is read as text) or a ``text`` field.
The answer is ``{"found": [{"text", "line", "start", "end", "ibi", "form", "rep", "ibip",
"persistent_url", "warnings", "error"}], "count", "distinct", "broken"}``
(``start`` and ``end`` are 0-based offsets in the text, ``text[start:end]``). Limits as for
batch conversion: more than 1 MB of text is a 413 naming the limit, more than 5,000 IBIs a 400;
a PDF that cannot be read is a 400 saying so. The routes join the ``api`` blueprint of :mod:`.views`.

``?resolve=1`` also checks every entry (``web.references.checking``): each gets a
``resolution`` and the answer a ``summary``; with ``Accept: application/x-ndjson`` the entries
stream, one JSON line each, as they are resolved.
"""
from __future__ import annotations

from flask import Response, jsonify, request, stream_with_context

from ...ibi.documents import TooLarge, text_of
from ...errors import ParseError
from ...i18n import N_
from ..errors import error_response
from ..references.checking import NDJSON, resolved_document, resolved_lines
from ..references.views import extraction_of
from .views import bp, json_body, query_flag


@bp.post("/extract")
def extract_api():
    try:
        text = _body_text()
        result = extraction_of(text)
        resolve = query_flag("resolve")
    except TooLarge as exc:
        return error_response(exc.message, 413, exc.position, exc.field)
    if not resolve:
        return jsonify(result.to_dict())
    if request.accept_mimetypes.best_match([NDJSON, "application/json"]) == NDJSON:
        return Response(stream_with_context(resolved_lines(result)), mimetype=NDJSON,
                        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    return jsonify(resolved_document(result))


#: The parts a form may have: anything else is a mistake said so, not ignored.
_FORM_FIELDS = frozenset({"file", "text"})


def _body_text() -> str:
    unknown = sorted((set(request.form) | set(request.files)) - _FORM_FIELDS)
    if unknown:
        raise ParseError(N_("the form has a part %(part)r: send a part named `file` or `text`", part=unknown[0]), field=unknown[0])
    upload = request.files.get("file")
    if upload is not None and upload.filename:
        return text_of(upload.filename, upload.read())
    if "text" not in request.form and "file" in request.form:
        # A file part sent without a file name (curl -F 'file=<refs.bib') is a form field to
        # werkzeug: nothing names its kind, so it is read as a text file.
        return text_of("file.txt", request.form["file"].encode("utf-8", "surrogateescape"))
    text = request.form.get("text") if request.form else json_body().get("text")
    if not isinstance(text, str):
        raise ParseError(N_('give "text" (a JSON string, or a form field) or a "file" (.txt, .bib, .ris, .pdf, .docx or .odt)'), field="text")
    return text
