"""Routes of the Trace page: run a resolution and show every message of it.

``GET /trace`` shows the form (prefilled from the query string, never resolving);
``POST /trace`` resolves and 303-redirects to the permalink ``GET /trace/<id>`` (a repeat of
the same request within ``IBIPORTAL_TRACE_REPEAT_SECONDS`` goes to the trace already running);
``GET /trace/<id>.json`` is the same JSON as ``GET /api/v1/trace/<id>``, as a download.
"""
from __future__ import annotations

from flask import Blueprint, jsonify, redirect, render_template, request, session, url_for
from flask_babel import lazy_gettext

from ..i18n import gettext
from ...errors import ParseError
from ...resolver.trace import Resolution
from ...application.resolving import ArchiveSet, TraceRequest
from ..context import application, request_client, request_site, settings
from .. import limits
from ..form_errors import show_error
from ..inputs import asked_url_input, client_input
from . import history
from .compare import compare
from .diagram import diagram_of
from .display import RAW_LIMIT, VALUE_LIMIT, clip, marked, visible, visible_text
from .forms import TRACE_ID, TraceForm
from .alerts import alert_words
from .report import build_report
from .sentences import milliseconds

bp = Blueprint("trace", __name__)


@limits.declare(bp)
def _limits(rules: limits.Rules) -> None:
    """Running a trace resolves on demand (``RATELIMIT_TRACE``); the form and permalinks do not."""
    rules.on_demand(lambda: request.endpoint == "trace.run_trace")(bp)


#: Worked examples for the form: the standard's (§10.1, §10.2) and the demo Archives' scenarios.
EXAMPLES = (
    (lazy_gettext("§10.1: an item, no modifier"), "http://urlib.net/8JMKD3MGP8W/35MMLL8", {}),
    (lazy_gettext("§10.2: oai_dc metadata of the last edition"), "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)", {}),
    (lazy_gettext("An edition chain over three Archives"), "http://urlib.net/D7N2U8HW/39G4TD2!", {}),
    (lazy_gettext("A translation chosen by Accept-Language"), "http://urlib.net/D7N2U8HW/3J5AC3H+", {"accept_language": "pt-BR,en;q=0.5"}),
    (lazy_gettext("A deleted item"), "http://urlib.net/D7N2U8HW/3GBBQK2", {}),
    (lazy_gettext("Two Archives claim the original"), "http://urlib.net/D7N2U8HW/3MP9QLE", {"require_original": "y"}),
    (lazy_gettext("An IBI no Archive holds"), "http://urlib.net/8JMKD3MGP8W/34PGRBS", {}),
    (lazy_gettext("An Archive that never answers in time"), "http://urlib.net/D7N2U8HW/3P82998", {"include_faulty": "y"}),
    (lazy_gettext("An Archive whose answer is garbage"), "http://urlib.net/D7N2U8HW/3SNU8PS", {"include_faulty": "y"}),
)


bp.add_app_template_filter(alert_words, "alert_words")


@bp.app_template_filter("visible")
def _visible(text: str | None):
    """Archive data as it came: escaped, controls, invisible and non-ASCII characters shown (display.py)."""
    return visible(text)


@bp.app_template_filter("readable")
def _readable(text: str | None):
    """The page's sentences quoting Archive data: escaped, controls and invisible characters shown."""
    return visible(text, mark_non_ascii=False)


@bp.app_template_filter("tooltip")
def _tooltip(text: str | None) -> str:
    """Archive data in an attribute or an SVG title: controls and invisible characters as escapes."""
    return visible_text(text)


@bp.app_template_filter("ms")
def _ms(value: float | None) -> str:
    """A time in milliseconds as recorded, in the reader's notation (``0,6 ms``)."""
    return milliseconds(value)


@bp.get("/trace")
def trace_page():
    """The form, prefilled from the query string (``/trace?url=…``); nothing is resolved on GET."""
    form = TraceForm(request.args or None, archives=application().resolving.default_archives.group)
    return _form_page(form, 200)


@bp.post("/trace")
def run_trace():
    """Resolve the persistent URL with the options given, keep the trace, and go to its permalink."""
    resolving = application().resolving
    form = TraceForm(archives=resolving.default_archives.group)
    valid = form.validate()  # CSRF and the fields' own checks; then the core's, so every error shows at once
    text = form.url.data or ""
    where = None
    asked = None
    if text.strip():
        try:
            asked = asked_url_input(text)
        except ParseError as exc:
            show_error(form, exc)
            where = marked(text, exc.position) if exc.position else None
    try:
        client = client_input(request_client(), form.client_ip.data or None,
                              None if form.accept_language.errors else form.accept_language.data or None)
    except ParseError as exc:
        show_error(form, exc, default_field="client_ip")
    if valid and not form.errors and asked is not None:  # the select field has checked ``archives`` against ArchiveGroup's values
        archives = ArchiveSet.parse(form.archives.data, form.include_faulty.data)
        if form.require_original.data:
            asked = asked.requiring_original()
        trace_id = resolving.trace_once(TraceRequest(_requester(), asked, archives, client, form.previous.data or None),
                                        request_site())
        target = url_for("trace.trace_view", trace_id=trace_id, compare=form.previous.data or None)
        return redirect(target, code=303)
    return _form_page(form, 400, where)


bp.add_url_rule("/trace/history", "history", history.history_page)
bp.add_url_rule("/trace/history/compare", "compare_ticked", history.compare_ticked)


@bp.get("/trace/<trace_id>")
def trace_view(trace_id: str):
    """A stored trace: outcome, sequence diagram, every Archive's answer, the decisions in words."""
    body = _load(trace_id)
    if body is None:
        return _missing(trace_id)
    report = build_report(trace_id, body)
    comparison, earlier_missing = None, None
    earlier = request.args.get("compare", "")
    if earlier and earlier != trace_id:
        earlier_body = _load(earlier)
        if earlier_body is None:
            earlier_missing = earlier
        else:
            comparison = compare(earlier, Resolution.from_dict(earlier_body), report.resolution)
    return render_template(
        "trace/view.html", report=report, diagram=diagram_of(report.sequence), comparison=comparison,
        earlier_missing=earlier_missing, clip=clip, marked=marked,
        raw_limit=RAW_LIMIT, value_limit=VALUE_LIMIT,
        permalink=url_for("trace.trace_view", trace_id=trace_id, _external=True),
    )


def not_kept(trace_id: str) -> str:
    """Why a trace cannot be shown: this download's and the API's 404 alike."""
    return gettext("no trace %(id)s: unknown, or older than the last %(kept)s kept", id=trace_id,
                   kept=settings().trace_retention)


@bp.get("/trace/<trace_id>.json")
def trace_json(trace_id: str):
    """The stored trace as JSON (as ``GET /api/v1/trace/<id>``), downloaded as a file."""
    body = _load(trace_id)
    if body is None:
        return jsonify({"error": {"message": not_kept(trace_id), "position": None}}), 404
    response = jsonify({"id": trace_id, **body})
    response.headers["Content-Disposition"] = f'attachment; filename="ibi-trace-{trace_id}.json"'
    return response


def _requester() -> str:
    """Who is asking, for telling a repeated request from another person's: the session's CSRF
    secret, which the form page set before any click (so that clicks sent before the first answer
    share it), else the client's address (a form posted without a session)."""
    secret = session.get("csrf_token")
    return f"session {secret}" if secret else f"address {' '.join(request_client().ip_addresses)}"


def _load(trace_id: str) -> dict | None:
    if not TRACE_ID.fullmatch(trace_id):
        return None
    return application().traces.load(trace_id)


def _missing(trace_id: str):
    page = render_template("trace/missing.html", trace_id=trace_id, kept=settings().trace_retention)
    return page, 404


def _form_page(form: TraceForm, status: int, where: tuple[str, str, str] | None = None):
    """The form; ``where`` splits a bad URL around the character its error names."""
    client = request_client()
    return render_template(
        "trace/form.html", form=form, examples=EXAMPLES, show_examples=settings().demo_archives,
        own_ip=" ".join(client.ip_addresses), own_language=client.language_preference, where=where,
    ), status
