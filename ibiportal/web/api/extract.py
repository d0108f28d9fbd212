"""``POST /api/v1/extract``: every IBI in a text or a file (the Check references page's finder).

The body is JSON ``{"text": "…"}``, or a multipart form with a ``file`` (.txt, .bib, .ris or
.pdf) or a ``text`` field. The answer is ``{"found": [{"text", "line", "start", "end", "ibi",
"form", "rep", "ibip", "persistent_url", "warnings"}], "count", "distinct"}`` (``start`` and
``end`` are 0-based offsets in the text, ``text[start:end]``). Limits as for batch conversion:
more than 1 MB of text is a 413 naming the limit, more than 5,000 IBIs a 400; a PDF that cannot
be read is a 400 saying so. The routes join the ``api`` blueprint of :mod:`.views`.
"""
from __future__ import annotations

from flask import jsonify, request

from ...documents import TooLarge, text_of
from ...errors import ParseError
from ..errors import error_response
from ..references.views import extraction_of
from .views import bp, json_body


@bp.post("/extract")
def extract_api():
    try:
        text = _body_text()
        result = extraction_of(text)
    except TooLarge as exc:
        return error_response(exc.message, 413, exc.position, exc.field)
    return jsonify(result.to_dict())


def _body_text() -> str:
    upload = request.files.get("file")
    if upload is not None and upload.filename:
        return text_of(upload.filename, upload.read())
    text = request.form.get("text") if request.form else json_body().get("text")
    if not isinstance(text, str):
        raise ParseError('give "text" (a JSON string, or a form field) or a "file" (.txt, .bib, .ris or .pdf)', field="text")
    return text
