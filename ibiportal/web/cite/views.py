"""The Cite page: the citations of any IBI, from the oai_dc record its Archive serves.

* ``GET /cite?ibi=…[&style=…&locale=…]``: the item's metadata, its persistent URL, formatted
  citations (INPE, ABNT, APA, IEEE, Harvard, and any CSL style asked for) and BibTeX, RIS and
  CSL-JSON, each with a copy button;
* ``GET /cite.bib|.ris|.json?ibi=…``: the same BibTeX, RIS or CSL-JSON as a download.

Everything comes from :func:`.lookup.cite`; this module only shows it.
"""
from __future__ import annotations

import json

from flask import Blueprint, Response, abort, render_template, request
from flask_babel import get_locale

from ...citation import STYLES
from ...citation.csl import UnknownLocale, UnknownStyle, csl_citation, locale_name
from ...errors import ParseError
from .. import limits
from ..form_errors import add_error, labelled, show_error
from ..i18n import translate
from .display import language_name, language_tag, record_date
from .embedded import embedded_metadata
from .forms import CiteForm
from .lookup import CiteProblem, CiteResult, cite, cite_or_last_edition, other_style, trace_links

bp = Blueprint("cite", __name__)
bp.add_app_template_filter(record_date, "record_date")  # the Cite and item pages show records' values
bp.add_app_template_filter(language_name, "language_name")
bp.add_app_template_filter(language_tag, "language_tag")


@limits.declare(bp)
def _limits(rules: limits.Rules) -> None:
    """A citation resolves on demand (``RATELIMIT_TRACE``); the page without an ``ibi`` is just the form."""
    rules.on_demand(lambda: bool(request.args.get("ibi")))(bp)


#: The CSL locales the page offers first (any other tag is accepted too).
OFFERED_LOCALES = ("pt-BR", "en-US", "en-GB", "es-ES", "fr-FR", "de-DE", "it-IT")

#: Download formats: media type and what the file holds.
DOWNLOADS = {
    "bib": "application/x-bibtex; charset=utf-8",
    "ris": "application/x-research-info-systems; charset=utf-8",
    "json": "application/vnd.citationstyles.csl+json; charset=utf-8",
}


@bp.get("/cite")
def cite_page():
    """The form, and for ``?ibi=…`` the citations or what prevented them."""
    form = CiteForm(request.args)
    result = problem = other = closest = earlier = None
    status = 200
    if "ibi" in request.args:
        try:
            wanted = other_style(form.style.data, form.locale.data or page_csl_locale())
            result, earlier = cite_or_last_edition(form.ibi.data)
            other = csl_citation(result.record, *wanted) if wanted else None
        except UnknownStyle as exc:
            add_error(form.style, labelled(translate(exc.args[0]), form.style))
            closest, status = exc.closest, 406
        except UnknownLocale as exc:
            add_error(form.locale, labelled(translate(exc.args[0]), form.locale))
            status = 406
        except ParseError as exc:
            show_error(form, exc, default_field="ibi")
            status = 400
        except CiteProblem as exc:
            problem, status = exc, exc.status
    trace_id = result.trace_id if result else problem.trace_id if problem else None
    return (
        render_template(
            "cite/cite.html",
            form=form,
            result=result,
            problem=problem,
            earlier=earlier,
            cited_ibi=earlier.suggestion.ibi if earlier else form.ibi.data,
            other=other,
            closest=closest,
            trace=trace_links(trace_id) if trace_id else None,
            styles=STYLES,
            csl_locale=page_csl_locale(),
            csl_locales=OFFERED_LOCALES,
            csl_json=csl_json_file(result) if result else None,
            embedded=embedded_metadata(result.record if result else None),
        ),
        status,
    )


@bp.get("/cite.<any(bib, ris, json):extension>")
def download(extension: str):
    """BibTeX, RIS or CSL-JSON of ``ibi`` as a file named by its citation key."""
    try:
        result = cite(request.args.get("ibi"))
    except CiteProblem as problem:
        abort(problem.status, description=problem.message)
    forms = result.citations
    body = {"bib": forms.bibtex, "ris": forms.ris, "json": csl_json_file(result)}[extension]
    return Response(
        body,
        mimetype=None,
        content_type=DOWNLOADS[extension],
        headers={"Content-Disposition": f'attachment; filename="{forms.key}.{extension}"'},
    )


def page_csl_locale() -> str:
    """The CSL locale of the page's language (``pt-BR`` on a Portuguese page, ``en-US`` on an
    English one): a CSL style asked for without a language is written in the reader's. The API
    keeps CSL's own default (en-US), so that a URL always answers the same."""
    return locale_name(str(get_locale()))


def csl_json_file(result: CiteResult) -> str:
    """A CSL-JSON file: an array of items (here one), as reference managers import it."""
    return json.dumps([result.citations.csl_json], ensure_ascii=False, indent=2) + "\n"
