"""The administrator's Import page: a collection moves in keeping every IBI.

The same use case as ``flask items import`` (``application.import_sources``), from an uploaded
``.bib``, ``.ris`` or ``.csv`` file, an item package ``.zip``, or an OAI-PMH base URL. "Preview"
is the dry run; "Import" writes. Either starts a *run* in the background
(``application.import_runs``) and sends the administrator to its page, which shows its progress
while it runs (records done of how many, the counts, the latest outcomes; ``static/js/
import-progress.js`` renews it in place, a link does without script), then every record's outcome
and the report to download. A preview's page offers "Import", which imports the very source that
was previewed (its file is kept with the run). Runs are read from the database, so a reload,
another worker or another administrator sees the same run; the page lists the latest.
"""
from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for

from ...application.import_runs import state_of
from ...application.import_sources import ImportSource
from ...errors import ParseError
from ...application.import_runs import ImportRun
from ..auth.session import admin_required, current_admin
from ..context import application, known_prefix_pairs
from ..i18n import error_text, gettext
from .forms import ActionForm, ImportForm

bp = Blueprint("admin_import", __name__, url_prefix="/admin/import")

#: The latest outcomes a running import's page shows (all of them once it ends).
LATEST_OUTCOMES = 10


@bp.get("/")
@admin_required
def import_page():
    """The form, and the latest runs."""
    return _form_page(ImportForm(formdata=None))


@bp.post("/")
@admin_required
def start_import():
    """Start a preview (``preview`` pressed: the dry run) or an import of the source given."""
    form = ImportForm()
    if not form.validate_on_submit():
        return _form_page(form, gettext("The form expired: send it again."), 400)
    try:
        source = _source(form)
    except ParseError as error:
        return _form_page(form, error_text(error), 400)
    return _start(source, dry_run="preview" in request.form, update=bool(form.update.data))


@bp.get("/runs/<run_id>")
@admin_required
def run_page(run_id: str):
    """A run: its progress while it runs, every outcome and the report once it ended."""
    run = _run(run_id)
    state = state_of(run, application().clock())
    store = application().import_records
    after = run.done - LATEST_OUTCOMES - 1 if state == "running" else -1
    return render_template("admin/import_run.html", run=run, state=state, outcomes=store.outcomes(run.id, after),
                           form=ActionForm())


@bp.post("/runs/<run_id>/import")
@admin_required
def import_previewed(run_id: str):
    """Import what a finished preview read: its file as kept, or its OAI-PMH URL."""
    run = _run(run_id)
    if not ActionForm().validate_on_submit() or not run.dry_run:
        abort(400, gettext("The form expired: open the preview again and import from there."))
    data = application().import_records.source_data(run.id)
    source = ImportSource(run.source, data)
    return _start(source, dry_run=False, update=run.update)


@bp.get("/runs/<run_id>/report")
@admin_required
def report(run_id: str):
    """Every outcome of the run so far, as JSON Lines (the rows of ``flask items import --report``)."""
    run = _run(run_id)
    rows = application().import_records.outcomes(run.id)
    lines = "".join(current_app.json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return Response(lines, mimetype="application/x-ndjson",
                    headers={"Content-Disposition": 'attachment; filename="import-report.jsonl"'})


def _start(source: ImportSource, *, dry_run: bool, update: bool):
    run_id = application().import_runs.start(source, dry_run=dry_run, update=update, started_by=current_admin() or "",
                                             pairs=known_prefix_pairs())
    return redirect(url_for("admin_import.run_page", run_id=run_id), code=303)


def _run(run_id: str) -> ImportRun:
    run = application().import_records.find(run_id)
    if run is None:
        abort(404, gettext("No such import: only the latest imports are kept."))
    return run


def _form_page(form: ImportForm, error: str | None = None, status: int = 200):
    now = application().clock()
    runs = [(run, state_of(run, now)) for run in application().import_records.recent()]
    return render_template("admin/import.html", form=form, error=error, runs=runs), status


def _source(form: ImportForm) -> ImportSource:
    """The source the form gives: an OAI-PMH base URL, or an uploaded file."""
    if form.source_url.data:
        return ImportSource.of_url(form.source_url.data)
    upload = form.source_file.data
    if not upload or not upload.filename:
        raise ParseError(gettext("Choose a .bib, .ris, .csv or .zip file, or give an OAI-PMH base URL."))
    with upload.stream:  # a large part is spooled to a temporary file: closed now, not at garbage collection
        return ImportSource.of_file(upload.filename, upload.read())
