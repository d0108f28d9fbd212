"""``POST /api/v1/items/import``: an item package or a collection's file imported with an API
token, as ``flask items import`` imports it (``application.import_sources``).

The body is a multipart form whose ``file`` part is an item package ``.zip`` (``GET
/api/v1/items/<ibi>/package`` of another portal: the item comes in with the same IBI, state
Original, its files and history), or a ``.bib``, ``.ris`` or ``.csv`` file of records; the part's
file name says which. ``?dry_run=1`` writes nothing and says what would happen; ``?update=1``
writes a record's data over an item held here with other data (records only: a package's item is
held whole or not at all). The answer is every record's outcome, as a line of the CLI's
``--report``, and the totals. An OAI-PMH harvest takes minutes: it is the CLI's and the Import
page's, not one request's.

A package carries its item's files: the body may be as large as ``IBIPORTAL_MAX_FILE_BYTES`` (the
form's parts are spooled to disk by werkzeug), not the ``MAX_CONTENT_LENGTH`` of forms and JSON;
so the edge does not read this form before the view (``web.edge.RAW_BODY_ENDPOINTS``). The route
joins the ``api`` blueprint of :mod:`.views`.
"""
from __future__ import annotations

from flask import g, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from ...application.files import FileTooLarge
from ...application.import_sources import ImportSource, Reading
from ...application.importing import Totals
from ...ibi.history import Actor
from ...errors import ParseError
from ...i18n import N_
from ..context import application, settings
from ..errors import error_response
from ..files import FORM_OVERHEAD_BYTES
from ..i18n import translate
from .tokens import token_required
from .views import bp, query_flag

@bp.post("/items/import")
@token_required
def import_items():
    """Import the form's ``file``; every record's outcome and the totals."""
    dry_run, update = query_flag("dry_run"), query_flag("update")
    limit = settings().max_file_bytes
    request.max_content_length = limit + FORM_OVERHEAD_BYTES
    try:
        upload = request.files.get("file")
    except RequestEntityTooLarge:
        return error_response(FileTooLarge(limit).args[0], 413, field="file")
    if upload is None or not upload.filename:
        raise ParseError(N_('send the source as the "file" part of a multipart form: an item package .zip, or a .bib, '
                            '.ris or .csv file'), field="file")
    with upload.stream:
        source = ImportSource.of_file(upload.filename, upload.read())
    actor = Actor("import", f"{source.file_name} (API token {g.api_token_name})")
    totals, rows = Totals(), []
    for outcome in Reading(source, application().importing(), dry_run=dry_run, update=update, actor=actor):
        totals.add(outcome)  # a file refused whole raises before any outcome (400, or 413 for a package too large)
        rows.append({**outcome.to_dict(), "reason": translate(outcome.reason)})
    return jsonify({"source": source.file_name, "dry_run": dry_run, "update": update, "records": rows,
                    "totals": totals.to_dict()})
