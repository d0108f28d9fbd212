"""Parse and Compose pages for persistent URLs (file 003, §8.1)."""
from __future__ import annotations

from flask import Blueprint, render_template, request, url_for

from ...errors import ParseError
from ...ibi.classify import ibi_of
from ...ibi.compose import compose
from ..context import canonical_base, resolver_base
from ..form_errors import show_error
from ..i18n import form_query
from ..inputs import query_pairs, recognised_url_input
from ..results import url_to_dict
from .forms import ComposeForm, ParseForm, compose_args, step_rules

bp = Blueprint("urls", __name__)


@bp.get("/parse")
def parse_page():
    """Read a persistent URL: its Table 8.8 fields, relation, meaning and canonical forms."""
    query = form_query()
    form = ParseForm(query)
    result = compose_link = None
    if query:
        try:
            url, recognition = recognised_url_input(form.url.data or "")
        except ParseError as exc:
            show_error(form, exc, default_field="url")
        else:
            result = url_to_dict(url, canonical_base(url), portal=request.url_root, notes=recognition.notes)
            compose_link = url_for("urls.compose_page", **compose_args(url))
    status = 400 if form.errors else 200
    return render_template("urls/parse.html", form=form, result=result, compose_link=compose_link), status


@bp.get("/compose")
def compose_page():
    """Build a persistent URL from an IBI and ordered verbs, in both syntaxes, with its meaning."""
    query = form_query()
    form = ComposeForm(query)
    result = None
    if query and form.validate():
        try:
            ibi, notes = ibi_of(form.ibi.data or "", "ibi")
            url = compose(
                ibi,
                form.chosen_verbs(),
                filepath=form.filepath.data or None,
                original=form.original.data,
                query=query_pairs(form.query_lines()),
                base=form.base.data or resolver_base(),
            )
        except ParseError as exc:
            form.show(exc)
        else:
            result = url_to_dict(url, portal=request.url_root, notes=notes)
    status = 400 if form.errors else 200
    page = render_template("urls/compose.html", form=form, result=result, rules=step_rules(), default_base=resolver_base())
    return page, status
