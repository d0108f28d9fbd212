"""``/api/v1/copies``: copies the own Archive holds of other Archives' items (``application.copies``).

Listing is open, like the Archive's answers that show them; holding and ending a copy need an
API token (``tokens.py``).
"""
from __future__ import annotations

from flask import jsonify

from ...application.copies import HeldCopy
from ..context import application, resolver_base
from ..results import persistent_url
from ..actor import current_actor
from .tokens import token_required
from .views import bp, json_body


@bp.get("/copies")
def list_copies():
    """Every copy held, newest change first."""
    return jsonify([copy_to_dict(copy) for copy in application().copies().held()])


@bp.post("/copies")
@token_required
def hold_copy():
    """Hold a copy of ``ibi`` served at ``target_url``: 201 when new, 200 when moved."""
    body = json_body()
    copy, created = application().copies().hold(body.get("ibi"), body.get("target_url"), actor=current_actor())
    return jsonify(copy_to_dict(copy)), 201 if created else 200


@bp.delete("/copies/<path:ibi>")
@token_required
def end_copy(ibi: str):
    """Stop holding the copy of ``ibi`` (either form): the Archive no longer answers for it."""
    return jsonify(copy_to_dict(application().copies().end(ibi, actor=current_actor())))


def copy_to_dict(copy: HeldCopy) -> dict:
    """The JSON of a copy (``Copy`` in ``openapi.py``)."""
    record = copy.record
    return {
        "ibi": record.ibi,
        "rep": copy.forms.rep,
        "ibip": copy.forms.ibip,
        "persistent_url": persistent_url(resolver_base(), copy.forms.ibip or record.ibi),
        "state": "Copy",
        "target_url": record.target_url,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }
