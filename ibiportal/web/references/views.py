"""Check references: every IBI in a reference list, a .bib, .ris or PDF, as a table.

* ``GET /references``: the form;
* ``POST /references``: the IBIs found (``ibiportal.ibi.extract``), each with its line shown and
  the found text highlighted, both forms, the persistent URL and the recogniser's notes; the
  page's script checks resolution on demand through ``POST /api/v1/trace`` (each check is one
  trace, counted by the trace rate limit);
* ``POST /references.csv`` and ``POST /references.json``: the same, downloaded (the text the
  page read is posted again, as Convert's batch download does).
"""
from __future__ import annotations

import csv
import io
import json

from flask import Blueprint, Response, render_template, request

from ...documents import TooLarge, check_found_count, check_text_size, text_of
from ...errors import ParseError
from ...ibi.batch import MAX_BYTES, neutralise
from ...ibi.extract import Extraction, extract
from ..context import known_prefix_pairs, resolver_base
from ..errors import error_response
from ..form_errors import add_error
from ..resolution import default_selection
from .forms import ReferencesDownloadForm, ReferencesForm

bp = Blueprint("references", __name__)

CSV_COLUMNS = ("line", "text", "ibi", "form", "repository name", "IBIp", "persistent URL", "warnings", "error")
#: Room for the pasted text (and the text posted again by a download) beyond the 1 MB limit,
#: so that a text a little over it is refused next to its field, naming the limit.
FORM_MEMORY = 4 * MAX_BYTES


@bp.url_value_preprocessor
def _room_for_text(endpoint: str | None, _values: dict | None) -> None:
    """Raise the form-field size limit before CSRFProtect reads the form (as Convert's batch does)."""
    if endpoint and endpoint.startswith("references."):
        request.max_form_memory_size = FORM_MEMORY


def extraction_of(text: str) -> Extraction:
    """The IBIs in ``text``, within the limits (TooLarge: 413; too many: 400)."""
    check_text_size(text)
    found = extract(text, known_prefix_pairs(), resolver_base())
    check_found_count(len(found.found))
    return found


@bp.get("/references")
def references_page():
    return _page(ReferencesForm(formdata=None), None, None)


@bp.post("/references")
def check_references():
    form = ReferencesForm()
    result = text = None
    status = 200
    if form.validate():
        try:
            text = _input_text(form)
            result = extraction_of(text) if text is not None else None
        except TooLarge as exc:
            add_error(form.file if exc.field == "file" else form.text, exc.message)
            status = 413
        except ParseError as exc:
            add_error(form.file if exc.field == "file" else form.text, exc.message)
    if form.errors and status == 200:
        status = 400
    return _page(form, result, text, status)


def _input_text(form: ReferencesForm) -> str | None:
    upload = form.file.data
    pasted = form.text.data or ""
    if upload and upload.filename:
        if pasted.strip():
            add_error(form.file, "Paste references or choose a file, not both: clear the text box to use the file.")
            return None
        return text_of(upload.filename, upload.read())
    if not pasted.strip():
        add_error(form.text, "Paste a reference list, or choose a .txt, .bib, .ris, .pdf, .docx or .odt file.")
        return None
    return pasted


def _page(form: ReferencesForm, result: Extraction | None, text: str | None, status: int = 200):
    download = ReferencesDownloadForm(formdata=None, text=text) if result is not None else None
    page = render_template(
        "references/references.html", form=form, result=result, download=download, archives=default_selection().group,
    )
    return page, status


@bp.post("/references.<any(csv, json):extension>")
def download(extension: str):
    """The table as CSV or as the API's JSON, from the text posted again."""
    form = ReferencesDownloadForm()
    if not form.validate():
        raise ParseError("post the references again from the Check references page", field="text")
    try:
        result = extraction_of(form.text.data or "")
    except TooLarge as exc:
        return error_response(exc.message, 413, field="text")
    if extension == "json":
        body, mimetype = json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n", "application/json"
    else:
        body, mimetype = to_csv(result), "text/csv"
    return Response(body, mimetype=mimetype,
                    headers={"Content-Disposition": f'attachment; filename="ibis-found.{extension}"'})


def to_csv(result: Extraction) -> str:
    """The IBIs found as CSV (RFC 4180, formulas neutralised as in Convert's batch download)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for found in result.found:
        row = found.to_dict()
        writer.writerow([neutralise(str(cell)) for cell in (
            row["line"], row["text"], row["ibi"], row["form"], row["rep"] or "", row["ibip"] or "",
            row["persistent_url"] or "", " | ".join(row["warnings"]), _error_text(row["error"]),
        )])
    return out.getvalue()


def _error_text(error: dict | None) -> str:
    """A broken entry's error in a cell: the message, and where in the entry's text."""
    if error is None:
        return ""
    return error["message"] + ("" if error["position"] is None else f" (at character {error['position']})")
