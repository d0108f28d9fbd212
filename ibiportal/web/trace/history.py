"""The trace history: the kept traces, newest first, filtered by IBI, outcome and day, a page at a
time, and any two of them compared by ticking them (``GET /trace/history``,
``GET /trace/history/compare?compare=<id>&compare=<id>``).

Filters are a GET form, so a filtered history is a link to share. The IBI is matched in both its
forms (known prefix pairs, ibiportal.ibi.conversion) and also as text of the persistent URL, for
traces kept before each trace recorded its IBI.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

from flask import redirect, render_template, request, url_for
from flask_babel import lazy_gettext
from flask_wtf import FlaskForm
from wtforms import DateField, SelectField, StringField
from wtforms.validators import Optional, ValidationError

from ..i18n import gettext, ngettext
from ...errors import ParseError
from ...ibi.conversion import convert
from ...resolver.trace import AlertReason
from ...application.records import HistoryPage, HistoryQuery
from ..context import application, known_prefix_pairs
from ..form_errors import show_error
from ..inputs import recognised_url_input
from .forms import TRACE_ID
from .alerts import HEADLINES, alert_words
from .report import selection_words

#: Traces per page: a screenful on a desktop, a short scroll of cards on a phone.
PER_PAGE = 25


def outcome_choices() -> list[tuple[str, str]]:
    """"any", "found", then each alert: its headline, with its reason as the trace JSON names it."""
    return [("", lazy_gettext("Any outcome")), ("found", lazy_gettext("found (redirected)")),
            *((reason.value, alert_words(reason)) for reason in AlertReason)]


def outcome_words(outcome: str) -> str:
    """A kept trace's outcome (``found`` or an alert's reason) as the Trace page's headline says it."""
    if outcome == "found":
        return gettext("Redirected")
    try:
        return str(HEADLINES[AlertReason(outcome)])
    except ValueError:  # a reason this version does not know
        return outcome


def option_words(options: dict | None) -> list[str]:
    """How a kept trace was asked, in a few words each (the Archives, the faulty demo ones, the
    client): what tells apart two traces of one persistent URL in the list. None for traces kept
    before their options were."""
    if not options:
        return []
    words = [selection_words(options["archives"])] if options.get("archives") else []
    if options.get("include_faulty"):
        words.append(gettext("faulty demo Archives included"))
    if options.get("client_ip"):
        words.append(gettext("client %(ip)s", ip=options["client_ip"]))
    if options.get("accept_language"):
        words.append(gettext("Accept-Language: %(languages)s", languages=options["accept_language"]))
    return words


class HistoryForm(FlaskForm):
    """The history's filters (GET: no CSRF, nothing changes)."""

    class Meta:
        csrf = False

    ibi = StringField(lazy_gettext("IBI"), validators=[Optional()],
                      description=lazy_gettext("Either form, or a persistent URL: such as 8JMKD3MGP8W/35MMLL8."))
    outcome = SelectField(lazy_gettext("Outcome"), choices=outcome_choices, default="", validators=[Optional()])
    since = DateField(lazy_gettext("From (day, UTC)"), validators=[Optional()])
    until = DateField(lazy_gettext("To (day, UTC)"), validators=[Optional()])

    def validate_until(self, field: DateField) -> None:
        if field.data and self.since.data and field.data < self.since.data:
            raise ValidationError(gettext("The last day comes before the first: swap them."))


@dataclass(frozen=True)
class Filtered:
    """The history asked for: its page of traces, the page's number and how many pages in all."""

    history: HistoryPage
    page: int
    pages: int


def ibi_forms(text: str) -> tuple[str, ...]:
    """The IBI of ``text`` (an IBI or a persistent URL) in the forms it is known by: as written,
    and its other form when the prefix table knows it."""
    parsed, _ = recognised_url_input(text)
    ibi = str(parsed.ibi)
    try:
        conversion = convert(ibi, known_prefix_pairs())
    except ParseError:  # the other form is not known: the IBI as written still filters
        forms = [ibi]
    else:
        forms = [form for form in (ibi, conversion.rep, conversion.ibip) if form]
    return tuple(dict.fromkeys(forms))


def _spellings(ibi: str) -> tuple[str, ...]:
    """A repository name with and without its default port (``sid.inpe.br/mtc-m18@80/…`` is
    ``sid.inpe.br/mtc-m18/…``, Algorithm 1): a trace keeps the IBI as it was asked."""
    parts = ibi.split("/")
    if len(parts) < 3:  # an IBIp
        return (ibi,)
    if parts[1].endswith("@80"):
        other = parts[1].removesuffix("@80")
    elif "@" not in parts[1]:
        other = parts[1] + "@80"
    else:
        return (ibi,)
    return (ibi, "/".join([parts[0], other, *parts[2:]]))


def filtered(form: HistoryForm, ibis: tuple[str, ...], page: int) -> Filtered:
    since = form.since.data.isoformat() if form.since.data else None
    before = (form.until.data + timedelta(days=1)).isoformat() if form.until.data else None
    store = application().traces
    ibis = tuple(dict.fromkeys(spelling for ibi in ibis for spelling in _spellings(ibi)))
    query = HistoryQuery(ibis, form.outcome.data or None, since, before, page, PER_PAGE)
    history = store.history(query)
    pages = max(1, math.ceil(history.total / PER_PAGE))
    if page > pages:  # a link to a page the filter no longer has: its last one
        history, page = store.history(HistoryQuery(ibis, query.outcome, since, before, pages, PER_PAGE)), pages
    return Filtered(history, page, pages)


def history_page():
    """The filtered history (``compare_error`` when a comparison was asked with other than two ticked)."""
    form = HistoryForm(request.args)
    ibis: tuple[str, ...] = ()
    valid = form.validate()
    if form.ibi.data and form.ibi.data.strip():
        try:
            ibis = ibi_forms(form.ibi.data.strip())
        except ParseError as error:
            show_error(form, error, default_field="ibi")  # the reader names `url`: here it is this field
            valid = False
    if not valid:
        return render_template("trace/history.html", form=form, result=None), 400
    page = request.args.get("page", "1")
    result = filtered(form, ibis, int(page) if page.isdigit() and int(page) > 0 else 1)
    ticked = request.args.getlist("compare")
    compare_error = None
    if "compare_error" in request.args:
        ticked_count = request.args.get("compare_error", "")
        compare_error = ngettext("Tick exactly two traces to compare them (%(num)s ticked).",
                                 "Tick exactly two traces to compare them (%(num)s ticked).",
                                 int(ticked_count) if ticked_count.isdigit() else 0)
    return render_template("trace/history.html", form=form, result=result, ibis=ibis, ticked=ticked,
                           outcome_words=outcome_words, option_words=option_words,
                           compare_error=compare_error, filters=_filters()), 200 if compare_error is None else 400


def compare_ticked():
    """Two ticked traces: the newer one's page, compared with the older; otherwise back to the
    history (its filters and page kept) saying how many were ticked."""
    ticked = [trace_id for trace_id in request.args.getlist("compare") if TRACE_ID.fullmatch(trace_id)]
    if len(set(ticked)) != 2:
        return redirect(url_for("trace.history", **_filters(), page=request.args.get("page") or None,
                                compare=ticked or None, compare_error=len(set(ticked))) + "#compare-form", code=303)
    newer, older = ticked  # the history lists the newest first, and ticked boxes come in page order
    return redirect(url_for("trace.trace_view", trace_id=newer, compare=older) + "#compare", code=303)


def _filters() -> dict[str, str]:
    """The filters of this request, to keep them in links (pagination, back from a comparison)."""
    return {name: request.args[name] for name in ("ibi", "outcome", "since", "until") if request.args.get(name)}
