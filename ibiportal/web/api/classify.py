"""JSON API: what a pasted text is (the home page's box, and its classify-as-you-type).

The route joins the ``api`` blueprint of :mod:`.views`; the answer is
:meth:`~ibiportal.ibi.classify.Classification.to_dict`.
"""
from __future__ import annotations

from flask import jsonify, request

from ...ibi.classify import classify
from ..context import known_prefix_pairs, resolver_base
from ..i18n import translate
from ..references.views import reference_hint
from .views import bp


@bp.get("/classify")
def classify_text():
    """Say what ``q`` is: an IBI (``rep`` or ``ibip``, both forms where known), a persistent ``url``,
    or ``unknown`` with ``"error": {"message", "position", "field": "q"}`` saying why.

    Always 200: every text gets an answer, "unknown" being one (the home page asks as the user
    types, half-typed texts included). A 4xx is for a request the API cannot read. An unknown text
    that holds IBIs (a reference) also gets ``"reference": {"ibis", "distinct"}``. Its sentences
    are in the reader's language, as the API's error messages are.
    """
    text = request.args.get("q", "")
    result = classify(text, known_prefix_pairs(), resolver_base())
    return jsonify({**in_readers_language(result.to_dict()), "reference": None if result.recognised else reference_hint(text)})


def in_readers_language(answer: dict) -> dict:
    """The answer's sentences (``description``, ``warnings``, each note's and the error's
    ``message``) in the language of the request (README, Languages: the portal's scripts show them
    as they come); the identifiers, URLs and positions as they are."""
    return {
        **answer,
        "description": translate(answer["description"]),
        "warnings": [translate(warning) for warning in answer["warnings"]],
        "notes": [{**note, "message": translate(note["message"])} for note in answer["notes"]],
        "error": answer["error"] and {**answer["error"], "message": translate(answer["error"]["message"])},
    }
