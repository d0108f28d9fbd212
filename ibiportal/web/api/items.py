"""``/api/v1/items/<ibi>``: an own item read, changed and deleted (``application.items``).

``<ibi>`` is either form (the repository name keeps its slashes in the path). Reading is open,
like the item's own persistent URL; PATCH, DELETE and the release (``application.releasing``)
need an API token (``tokens.py``).
"""
from __future__ import annotations

from dataclasses import asdict

import tempfile

from flask import jsonify, send_file

from ...application.items import ItemNotFound, ItemRecord
from ...application.packaging import write_package
from ...application.releasing import Successor
from ...errors import ParseError
from ...ibi.identifier import parse_ibi
from ...i18n import N_
from ...ibi.history import HistoryEntry
from ...archive.model import format_timestamp
from ...archive.own import item_page_url
from ..context import application, request_client, resolver_base
from ..files import file_dict
from ..host import portal_url
from ..results import persistent_url
from ..actor import current_actor
from .tokens import bearer_token, refusal, token_required
from .views import bp, json_body


@bp.get("/items/<item:ibi>")
def get_item(ibi: str):
    """An own item: both forms, state, URLs, relations and metadata; a deleted one's tombstone too."""
    return jsonify(item_to_dict(application().items().find(ibi)))


@bp.patch("/items/<item:ibi>")
@token_required
def change_item(ibi: str):
    """Change the fields the body gives (null clears one); the others stay."""
    return jsonify(item_to_dict(application().items().change(ibi, json_body(), actor=current_actor())))


@bp.delete("/items/<item:ibi>")
@token_required
def delete_item(ibi: str):
    """Make the item Deleted: the resolver answers 410 from now on; the IBI is never reused."""
    return jsonify(item_to_dict(application().items().delete(ibi, actor=current_actor())))


@bp.post("/items/<item:ibi>/release")
@token_required
def release_item(ibi: str):
    """Move the item to the successor Archive of the body (``successor``: its service URL, or its
    address with ``successor_service_ibi``): once it answers the item as its Original, this
    Archive answers the IBI nothing; else 409 with the reason, and nothing changes."""
    body = json_body()
    successor = Successor.parse(_text(body, "successor"), _text(body, "successor_service_ibi") or None)
    record = application().releasing().release(ibi, successor, actor=current_actor(), client_ips=request_client().ip_addresses)
    return jsonify(item_to_dict(record))


@bp.get("/items/<item:ibi>/package")
@token_required
def package_item(ibi: str):
    """The item as one zip (``application.packaging``): its metadata, relations, files and
    history, for ``flask items import`` (or ``POST /api/v1/items/import``) on the portal it moves to."""
    return package_response(ibi)


def package_response(ibi: str):
    """The package of the own item ``ibi`` as a download (the API's, and the Move page's)."""
    record, entries = application().items().history(ibi)
    minted = record.minted
    built = application()
    stored = built.stored_files(minted.ibip)
    out = tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024)
    write_package(out, minted, item_to_dict(record), entries, stored,
                  lambda file: built.file_chunks(file, 0, file.size))
    out.seek(0)
    name = minted.ibip.replace("/", "-") + ".zip"
    response = send_file(out, mimetype="application/zip", as_attachment=True, download_name=name)
    response.call_on_close(out.close)
    return response


def _text(body: dict, name: str) -> str:
    """The text field ``name`` of the body, ``""`` when absent; a 400 when it is not text."""
    value = body.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ParseError(N_("%(field)s must be text", field=name), field=name)
    return value


@bp.get("/items/<item:ibi>/history")
def item_history(ibi: str):
    """Every change of an own item, oldest first: when (UTC), what, and who. Who by name (the
    administrator's user name, the API token's name) only for a request with a valid token; to
    anyone else, what kind of actor (``history_to_dict``). Entries are never changed or removed."""
    record, entries = application().items().history(ibi)
    named = bearer_token() is not None and refusal() is None
    return jsonify({"rep": record.minted.rep, "ibip": record.minted.ibip,
                    "history": [history_to_dict(entry, named) for entry in entries]})


@bp.get("/items/<item:ibi>/usage")
def item_usage(ibi: str):
    """How often the IBI was resolved (``application.usage``): every UTC day of the last 90,
    totals per modifier kind, relative-link activations per citing item. An own item's two forms
    are summed; any other IBI is counted as asked."""
    try:
        minted = application().items().find(ibi).minted
        forms = (minted.rep, minted.ibip)
    except ItemNotFound:
        minted, forms = None, (str(parse_ibi(ibi)),)
    usage = application().usage_report().report(forms)
    return jsonify({
        "ibi": forms[-1], "own_item": minted is not None, "forms": list(forms), "total": usage.total,
        "kinds": usage.kinds, "days": [{"day": day.isoformat(), "count": count} for day, count in usage.days],
        "activations": usage.activations,
        "citing": [{"ibi": citing or None, "count": count} for citing, count in usage.citing],
    })


def history_to_dict(entry: HistoryEntry, named: bool) -> dict:
    """The JSON of a history entry (``HistoryEntry`` in ``openapi.py``)."""
    actor = {"kind": entry.actor.kind, "name": entry.actor.name if named else None}
    return {"at": entry.at, "action": entry.action, "actor": actor, "details": dict(entry.details)}


def item_to_dict(record: ItemRecord) -> dict:
    """The JSON of an item (documented as ``Item`` in ``openapi.py``)."""
    minted, relations = record.minted, record.relations
    deleted = minted.deleted or minted.released
    return {
        "rep": minted.rep,
        "ibip": minted.ibip,
        "utc": minted.utc,
        "persistent_url": persistent_url(resolver_base(), minted.ibip),
        "state": str(record.state),
        "timestamp": format_timestamp(minted.timestamp),
        "updated_at": minted.updated_at,
        "deleted_at": minted.deleted_at,
        "released_at": minted.released_at,
        "successor": minted.successor,
        "target_url": minted.target_url,
        "url": None if deleted else minted.target_url or item_page_url(portal_url(), minted.ibip),
        "relations": {
            "previous_edition": relations.previous_edition,
            "next_edition": relations.next_edition,
            "translation_of": None if relations.translation_of is None else
            {"ibi": relations.translation_of, "language": relations.translation_language},
            "translations": [{"language": language, "ibi": ibi} for language, ibi in relations.translations],
        },
        "metadata": {
            "title": minted.title,
            "creators": list(minted.creators),
            "date": minted.item_date,
            "language": minted.language,
            **asdict(minted.bibliographic),
        },
        "files": [file_dict(stored, portal_url(), minted.rep, resolver_base())
                  for stored in application().item_files().listing(minted.ibip).files],
    }
