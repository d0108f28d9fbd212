"""Check references: every IBI in a reference list, a .bib, .ris or PDF, as a table.

* ``GET /references``: the form;
* ``POST /references``: the IBIs found (``ibiportal.ibi.extract``), each with its line shown and
  the found text highlighted, both forms, the persistent URL, the recogniser's notes and any
  contradiction; the page's script checks the whole list through ``POST /api/v1/extract?resolve=1``
  (NDJSON, entries as they are resolved: ``web.references.checking``);
* ``POST /references.csv`` and ``POST /references.json``: the same, downloaded (the text the
  page read is posted again, as Convert's batch download does), with the resolution of each
  entry that the page's check received (posted back with it).
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

from flask import Blueprint, Response, render_template, request

from ...application.references import NOT_CHECKED_STATUS, CheckOutcome, ReferenceCheck
from ...ibi.documents import TooLarge, check_text_size, text_of
from ...errors import ParseError
from ...ibi.batch import MAX_BYTES, MAX_ROWS, neutralise
from ...ibi.extract import Bounds, Extraction, extract
from .. import limits
from ..context import application, known_prefix_pairs, resolver_base, settings
from ..errors import error_response
from ..form_errors import add_error
from ..i18n import gettext, ngettext, pgettext, translate
from ...resolver.statuses import ALERT_STATUS
from ...resolver.trace import AlertReason
from .checking import resolution_dict, summary
from .forms import ReferencesDownloadForm, ReferencesForm

bp = Blueprint("references", __name__)

#: The resolution's fields, as the page posts them back, and their types.
RESOLUTION_FIELDS = {"outcome": str, "status": int, "location": str, "reason": str, "trace": str, "cache": str}
#: The resolution's columns of the CSV download.
RESOLUTION_COLUMNS = ("outcome", "status", "location", "reason", "trace")
CSV_COLUMNS = ("line", "text", "ibi", "form", "repository name", "IBIp", "persistent URL", "warnings", "error",
               *RESOLUTION_COLUMNS)
#: The errors the page's "Re-check" asks again, whose answer may change with time: not checked
#: (the per-IBI limit), the portal's own failure, no Archive registered or none answering in time.
#: Archives that disagree (409), a loop or an unsafe URL (502) are the Archives' answer, checked:
#: asking again would get it again.
RECHECK_STATUSES = (NOT_CHECKED_STATUS, 500, ALERT_STATUS[AlertReason.NO_ARCHIVES],
                    ALERT_STATUS[AlertReason.NO_ARCHIVE_ANSWERED])
#: Words a text must have to be taken for a reference rather than a mistyped identifier.
REFERENCE_WORDS = 3
#: Room for the pasted text (and the text posted again by a download) beyond the 1 MB limit,
#: so that a text a little over it is refused next to its field, naming the limit.
FORM_MEMORY = 4 * MAX_BYTES


@limits.declare(bp)
def _limits(rules: limits.Rules) -> None:
    """Every POST reads a text (the list, or the list posted again for a download): ``RATELIMIT_TEXT``."""
    rules.text_read(lambda: request.method == "POST")(bp)


@bp.url_value_preprocessor
def _room_for_text(endpoint: str | None, _values: dict | None) -> None:
    """Raise the form-field size limit before CSRFProtect reads the form (as Convert's batch does)."""
    if endpoint and endpoint.startswith("references."):
        request.max_form_memory_size = FORM_MEMORY


def extraction_of(text: str) -> Extraction:
    """The IBIs in ``text``, within the limits: more than 1 MB is a 413 (TooLarge); the reading
    stops at the IBI after the 5,000th (``MAX_ROWS``, as batch conversion's), a 400 naming where
    it starts, and after ``IBIPORTAL_PARSE_SECONDS``, a 413 naming where it got to."""
    check_text_size(text)
    bounds = Bounds(MAX_ROWS, settings().parse_seconds, application().timer)
    return extract(text, known_prefix_pairs(), resolver_base(), bounds)


def reference_hint(text: str) -> dict | None:
    """For a text that is no IBI or persistent URL as a whole: ``{"ibis", "distinct"}`` when it
    is prose of a few words (at least :data:`REFERENCE_WORDS`) holding IBIs, a reference pasted
    into the home box, so it is offered to this page rather than answered with the parser's
    complaint about the whole text; else ``None`` (a mistyped URL such as ``…/35MMLL8!!`` keeps
    the parser's message, which says exactly what is wrong)."""
    if len(text.split()) < REFERENCE_WORDS:
        return None
    found = extract(text, known_prefix_pairs(), resolver_base())
    ibis = len(found.found) - found.broken
    return {"ibis": ibis, "distinct": found.distinct} if ibis else None


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
            add_error(form.file if exc.field == "file" else form.text, translate(exc.message))
            status = 413
        except ParseError as exc:
            add_error(form.file if exc.field == "file" else form.text, translate(exc.message))
    if form.errors and status == 200:
        status = 400
    return _page(form, result, text, status)


def _input_text(form: ReferencesForm) -> str | None:
    upload = form.file.data
    pasted = form.text.data or ""
    if upload and upload.filename:
        if pasted.strip():
            add_error(form.file, gettext("Paste references or choose a file, not both: clear the text box to use the file."))
            return None
        return text_of(upload.filename, upload.read())
    if not pasted.strip():
        add_error(form.text, gettext("Paste a reference list, or choose a .txt, .bib, .ris, .pdf, .docx or .odt file."))
        return None
    return pasted


def _page(form: ReferencesForm, result: Extraction | None, text: str | None, status: int = 200):
    download = ReferencesDownloadForm(formdata=None, text=text) if result is not None else None
    page = render_template(
        "references/references.html", form=form, result=result, download=download, check_words=check_words(),
    )
    return page, status


def check_words() -> dict:
    """What the page and its script (``static/js/references.js``) write, in the page's language:
    the outcomes' names (the API's ``outcome`` values stay English: they are data), and the
    sentences the script fills in (``{found}``…); a sentence with a count has its ``one`` and
    ``other`` forms, ``{n}`` standing for the number, which the script chooses by the page
    language's plural rules. ``recheck`` lists the statuses of the errors worth checking again
    (:data:`RECHECK_STATUSES`), ``notChecked`` the status of an entry the limit left unchecked."""
    def counted(sentence: Callable[[int], str]) -> dict[str, str]:
        return {form: sentence(n) for form, n in (("one", 1), ("other", 2))}

    return {
        "outcomes": {
            "found": pgettext("reference outcome", "found"),
            "deleted": pgettext("reference outcome", "deleted"),
            "not found": pgettext("reference outcome", "not found"),
            "invalid": pgettext("reference outcome", "invalid"),
            "error": pgettext("reference outcome", "error"),
            "not checked": pgettext("reference outcome", "not checked"),
        },
        "checking": gettext("checking…"),
        "checkingCount": counted(lambda n: ngettext("Checking %(count)s IBI…", "Checking %(count)s IBIs…", n,
                                                    count="{n}")),
        "recheck": gettext("Re-check unresolved"),
        "recheckCount": counted(lambda n: ngettext("Re-check %(count)s unresolved", "Re-check %(count)s unresolved", n,
                                                   count="{n}")),
        "noAnswer": gettext("Not checked: the portal did not answer. Re-check when it is back."),
        "refused": gettext("Not checked: %(reason)s", reason="{reason}"),
        "checked": gettext("Checked: %(found)s found, %(deleted)s deleted, %(not_found)s not found, %(invalid)s invalid, %(errors)s%(open)s.",
                           found="{found}", deleted="{deleted}", not_found="{not_found}", invalid="{invalid}",
                           errors="{errors}", open="{open}"),
        "errorCount": counted(lambda n: ngettext("%(count)s error", "%(count)s errors", n, count="{n}")),
        "openCount": counted(lambda n: ngettext("; %(count)s not checked yet", "; %(count)s not checked yet", n,
                                                count="{n}")),
        "recheckStatuses": list(RECHECK_STATUSES),
        "notCheckedStatus": NOT_CHECKED_STATUS,
    }


@bp.post("/references.<any(csv, json):extension>")
def download(extension: str):
    """The table as CSV or as the API's JSON, from the text posted again."""
    form = ReferencesDownloadForm()
    if not form.validate():
        raise ParseError(gettext("post the references again from the Check references page"), field="text")
    try:
        result = extraction_of(form.text.data or "")
    except TooLarge as exc:
        return error_response(exc.message, 413, exc.position, "text")
    resolutions = posted_resolutions(form.resolutions.data, result)
    if extension == "json":
        document = result.to_dict()
        for row, resolution in zip(document["found"], resolutions):
            row["resolution"] = resolution
        document["summary"] = summary(CheckOutcome(resolution["outcome"]) for resolution in resolutions if resolution)
        body, mimetype = json.dumps(document, ensure_ascii=False, indent=2) + "\n", "application/json"
    else:
        body, mimetype = to_csv(result, resolutions), "text/csv"
    return Response(body, mimetype=mimetype,
                    headers={"Content-Disposition": f'attachment; filename="ibis-found.{extension}"'})


def posted_resolutions(posted: str | None, result: Extraction) -> list[dict | None]:
    """The resolutions the page's check received, one per entry (``None`` where it has none),
    as the API gave them: only their known fields, of their types. A broken entry is invalid
    whatever was posted (the page needs no check to know it)."""
    entries = result.found
    try:
        values = json.loads(posted) if posted and posted.strip() else [None] * len(entries)
    except json.JSONDecodeError as exc:
        raise ParseError(gettext("the resolutions posted are not JSON: check the references again"),
                         field="resolutions") from exc
    if not isinstance(values, list) or len(values) != len(entries):
        raise ParseError(gettext("the resolutions posted do not match the references: check them again"),
                         field="resolutions")
    resolutions: list[dict | None] = []
    for entry, value in zip(entries, values):
        if entry.broken:
            resolutions.append(resolution_dict(ReferenceCheck.invalid(entry)))
        elif isinstance(value, dict) and value.get("outcome") in set(CheckOutcome):
            resolutions.append({name: value.get(name) if isinstance(value.get(name), kind) else None
                                for name, kind in RESOLUTION_FIELDS.items()})
        else:
            resolutions.append(None)
    return resolutions


def to_csv(result: Extraction, resolutions: list[dict | None]) -> str:
    """The IBIs found, with their resolutions, as CSV (RFC 4180, formulas neutralised as in
    Convert's batch download); an entry not checked has empty resolution cells."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for found, resolution in zip(result.found, resolutions):
        row = found.to_dict()
        checked = resolution or {}
        writer.writerow([neutralise("" if cell is None else str(cell)) for cell in (
            row["line"], row["text"], row["ibi"], row["form"], row["rep"] or "", row["ibip"] or "",
            row["persistent_url"] or "", " | ".join(row["warnings"]), _error_text(row["error"]),
            *(checked.get(name) for name in RESOLUTION_COLUMNS),
        )])
    return out.getvalue()


def _error_text(error: dict | None) -> str:
    """A broken entry's error in a cell: the message, and where in the entry's text."""
    if error is None:
        return ""
    if error["position"] is None:
        return translate(error["message"])
    return gettext("%(message)s (at character %(position)s)", message=translate(error["message"]),
                   position=error["position"])
