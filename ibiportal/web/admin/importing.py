"""The administrator's Import page: a collection moves in keeping every IBI.

The same use case as ``flask items import`` (``application.importing``), from an uploaded
``.bib``, ``.ris`` or ``.csv`` file or an OAI-PMH base URL. "Preview" is the dry run: a table
of what would become of each record, nothing written; "Import" writes, and shows the same
table of what happened. Either page's report downloads as JSON Lines. The import runs in the
request: for a collection too large for one request (thousands of records, files on the
server's disk) the CLI is the tool (README "Moving a URLib collection in").
"""
from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator

from flask import Blueprint, Response, abort, current_app, render_template, request, stream_template

from ...application.importing import Outcome, SourceUnreachable, Totals, harvest, http_fetch, is_oai_source
from ...archive.import_formats import read_file
from ...errors import ParseError
from ..auth.session import admin_required, current_admin
from ..context import get_importer, open_storage
from ..i18n import gettext, translate
from .forms import ImportForm, ReportForm

bp = Blueprint("admin_import", __name__, url_prefix="/admin/import")


@bp.url_value_preprocessor
def _room_for_the_source(_endpoint: str | None, _values: dict | None) -> None:
    """A previewed file comes back as a form field (and a report goes out as one): let a field
    be as large as a form may be (``MAX_CONTENT_LENGTH``), not werkzeug's 500 kB, before
    CSRFProtect reads the form (as Convert's batch and References do)."""
    request.max_form_memory_size = current_app.config["MAX_CONTENT_LENGTH"]


@bp.get("/")
@admin_required
def import_page():
    """The form: a file or an OAI-PMH URL."""
    return render_template("admin/import.html", form=ImportForm(formdata=None))


@bp.post("/")
@admin_required
def run_import():
    """Preview (``preview`` pressed: the dry run) or import the source given."""
    form = ImportForm()
    dry_run = "preview" in request.form
    if not form.validate_on_submit():
        return render_template("admin/import.html", form=form, error=gettext("The form expired: send it again.")), 400
    try:
        source, records, text = _source(form)
    except ParseError as error:
        return render_template("admin/import.html", form=form, error=translate(error.message)), 400
    storage = open_storage()  # the request's is closed before a streamed page ends
    run = _Run(get_importer(storage=storage), records, f"{source} (administrator {current_admin()})", dry_run, form.update.data)
    again = ImportForm(formdata=None, data={"source_url": source if is_oai_source(source) else "",
                                            "source_name": "" if is_oai_source(source) else source,
                                            "source_text": text or "", "update": form.update.data})
    # streamed: each record's row reaches the page as it is done (the import's progress), the totals last
    return stream_template("admin/import.html", form=again, run=run, outcomes=run.outcomes(), dry_run=dry_run,
                           source=source)


class _Run:
    """One import as the page shows it: its outcomes as they come, then its totals, why the source
    stopped (if it did) and the report to download."""

    def __init__(self, importer, records, source: str, dry_run: bool, update: bool) -> None:
        self.importer, self.records, self.source = importer, records, source
        self.dry_run, self.update = dry_run, update
        self.done: list[Outcome] = []
        self.totals = Totals()
        self.stopped: str | None = None

    def outcomes(self) -> Iterator[Outcome]:
        try:
            for outcome in self.importer.run(self.records, self.source, dry_run=self.dry_run, update=self.update):
                self.done.append(outcome)
                self.totals.add(outcome)
                yield outcome
        except (SourceUnreachable, ParseError) as error:
            self.stopped = translate(error.message if isinstance(error, ParseError) else error.args[0])
        finally:
            self.importer.store.storage.close()

    def report_form(self) -> ReportForm:
        """The outcomes as JSON Lines, in base64 (as the previewed file: exactly as written)."""
        report = "".join(json.dumps(outcome.to_dict(), ensure_ascii=False) + "\n" for outcome in self.done)
        return ReportForm(formdata=None, data={"report": base64.b64encode(report.encode("utf-8")).decode("ascii")})


@bp.post("/report")
@admin_required
def download_report():
    """The report posted back, as a JSON Lines file to keep."""
    form = ReportForm()
    if not form.validate_on_submit():
        return render_template("admin/import.html", form=ImportForm(formdata=None),
                               error=gettext("The form expired: send it again.")), 400
    try:
        report = base64.b64decode(form.report.data or "", validate=True)
    except binascii.Error:
        abort(400)
    return Response(report, mimetype="application/x-ndjson",
                    headers={"Content-Disposition": 'attachment; filename="import-report.jsonl"'})


def _source(form: ImportForm):
    """``(source name, its records, the file to carry to the import, in base64)``."""
    upload = form.source_file.data
    if form.source_url.data:
        if not is_oai_source(form.source_url.data):
            raise ParseError(gettext("An OAI-PMH base URL begins with http:// or https://."))
        return form.source_url.data, harvest(form.source_url.data, http_fetch), None
    if upload and upload.filename:
        with upload.stream:  # a large part is spooled to a temporary file: closed now, not at garbage collection
            data = upload.read()
        name = upload.filename
    elif form.source_text.data and form.source_name.data:
        try:
            data, name = base64.b64decode(form.source_text.data, validate=True), form.source_name.data
        except binascii.Error:
            raise ParseError(gettext("Choose a .bib, .ris or .csv file, or give an OAI-PMH base URL.")) from None
    else:
        raise ParseError(gettext("Choose a .bib, .ris or .csv file, or give an OAI-PMH base URL."))
    # carried to the import in base64: a form field's line breaks come back as CRLF, and a file's bytes must not change
    return name, read_file(name, data), base64.b64encode(data).decode("ascii")
