"""``GET /api/v1/cite?ibi=…``: the citations of an item, from its oai_dc metadata.

The routes join the ``api`` blueprint of :mod:`.views`. A bad ``ibi`` is a 400 naming the
character; an item without usable metadata is ``{"error": {"message", "position": null},
"trace": …}`` with the resolution's status (404 not found, 410 deleted, 502 a bad record…), plus
``"suggestion": {"ibi", "persistent_url", "reason"}`` when its last edition has metadata (§10.2).
``style=<CSL style>`` not in the collection is a 406 with the ``closest`` names.
"""
from __future__ import annotations

from flask import jsonify, request

from ...citation.csl import CslCitation, UnknownLocale, UnknownStyle, csl_citation
from ..cite.lookup import CiteProblem, CiteResult, cite, other_style, trace_links
from ..i18n import translate
from .views import bp


@bp.get("/cite")
def cite_api():
    """BibTeX, RIS, CSL-JSON and formatted citations of ``ibi`` (an IBI or a persistent URL);
    ``style`` (and ``locale``) adds any CSL style to ``formatted`` and ``formatted_html``."""
    try:
        other = other_style(request.args.get("style"), request.args.get("locale"))
    except UnknownStyle as unknown:
        body = {"error": {"message": translate(unknown.args[0]), "position": None, "field": "style"},
                "closest": unknown.closest}
        return jsonify(body), 406
    except UnknownLocale as unknown:
        return jsonify({"error": {"message": translate(unknown.args[0]), "position": None, "field": "locale"}}), 406
    try:
        result = cite(request.args.get("ibi"))
    except CiteProblem as problem:
        body = {"error": {"message": translate(problem.message), "position": None}}
        if problem.trace_id:
            body["trace"] = trace_links(problem.trace_id)["api"]
        if problem.suggestion:
            body["suggestion"] = {**problem.suggestion.to_dict(), "reason": translate(problem.suggestion.reason)}
        return jsonify(body), problem.status
    return jsonify(result_to_dict(result, csl_citation(result.record, *other) if other else None))


def result_to_dict(result: CiteResult, other: CslCitation | None = None) -> dict:
    """The API's answer: what was cited, where the metadata came from, every citation form
    (``other``, a CSL style asked for, beside the six)."""
    record = result.record
    formatted, formatted_html = result.citations.formatted, result.citations.formatted_html
    if other is not None:
        formatted, formatted_html = {**formatted, other.style: other.plain}, {**formatted_html, other.style: other.html}
    return {
        "ibi": record.ibi,
        "repository": record.repository,
        "persistent_url": record.persistent_url,
        "metadata_url": result.metadata_url,
        "oai_dc_url": result.oai_dc_url,
        "metadata": {
            "title": record.title,
            "creators": list(record.creators),
            "date": record.date,
            "language": record.language,
            "item_type": record.item_type.slug,
            "publisher": record.publisher,
            "place": record.place,
            "extent": record.extent,
            "degree": record.degree,
            "report_number": record.report_number,
        },
        "trace": trace_links(result.trace_id)["api"],
        "citations": {
            "key": result.citations.key,
            "formatted": formatted,
            "formatted_html": formatted_html,
            "bibtex": result.citations.bibtex,
            "ris": result.citations.ris,
            "csl_json": result.citations.csl_json,
        },
    }
