"""JSON API: convert many identifiers at once, the batch of the Convert page.

``POST /api/v1/convert/batch`` with ``{"identifiers": ["8JMKD3MGP8W/34PGRBS", ...]}`` (at most
:data:`~ibiportal.ibi.batch.MAX_ROWS`, 1 MB in all) answers ``{"rows": [...], "converted",
"failed"}``: one row per identifier, in order, each with its conversion or its own ``error``
``{"message", "position"}``; a bad identifier never stops the others. A body that is not such
an object is a 400 naming the ``field`` and, for an item, its ``position`` in the list (from 1).
The routes join the ``api`` blueprint of :mod:`.views`.
"""
from __future__ import annotations

from flask import jsonify

from ...errors import ParseError
from ...i18n import N_
from ...ibi.batch import convert_rows, rows_from_list
from ..context import known_prefix_pairs
from .views import bp, json_body


@bp.post("/convert/batch")
def convert_batch():
    """Convert every identifier of the list; per-row errors, never all-or-nothing (except the limits)."""
    identifiers = json_body().get("identifiers")
    if not isinstance(identifiers, list):
        raise ParseError(
            N_('give "identifiers": a JSON array of strings, such as ["8JMKD3MGP8W/34PGRBS"]'), field="identifiers"
        )
    for number, item in enumerate(identifiers, start=1):
        if not isinstance(item, str):
            raise ParseError(
                N_("identifier %(number)s is %(value)s, not a string", number=number, value=_json_kind(item)), position=number, field="identifiers"
            )
    try:
        rows = rows_from_list(identifiers)
    except ParseError as exc:
        raise ParseError(exc.message, exc.position, "identifiers") from exc
    result = convert_rows(rows, known_prefix_pairs())
    return jsonify(
        {"rows": [row.to_dict() for row in result.rows], "converted": result.converted, "failed": result.failed}
    )


def _json_kind(value: object) -> str:
    """What a JSON value is, in JSON's words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return N_("a boolean")
    if isinstance(value, (int, float)):
        return N_("a number")
    return N_("an array") if isinstance(value, list) else N_("an object")
