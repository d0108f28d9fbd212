"""``/api/v1/items/{ibi}/files``: the files of the own Archive's items.

``PUT …/files/{path}`` stores the raw request body as the file at ``path`` (its
``Content-Type`` kept; 201 when new, 200 when it replaced one), ``GET …/files`` lists them,
``DELETE …/files/{path}`` removes one (204). ``{ibi}`` is either form. Writes need an API
token. Refusals: a path or type that cannot be a file's 400, no such item or file 404, a
deleted item 410 (its files can be listed, not changed), over
``IBIPORTAL_MAX_FILE_BYTES`` 413 (before a byte is read when ``Content-Length`` says so);
nothing is stored unless the whole body arrived (``ibiportal.application.files``). The routes
join the ``api`` blueprint of :mod:`.views`.
"""
from __future__ import annotations

from flask import jsonify, request

from ...application.files import Upload
from ..context import application, resolver_base
from ..files import UNCAPPED, file_dict, listing_response
from ..host import portal_url
from ..actor import current_actor
from .tokens import token_required
from .views import bp


@bp.put("/items/<item:ibi>/files/<path:path>")
@token_required
def put_file(ibi: str, path: str):
    """Store the request's body as a file of the item."""
    request.max_content_length = UNCAPPED  # counted while spooled, against IBIPORTAL_MAX_FILE_BYTES
    upload = Upload(request.stream, request.headers.get("Content-Type"), request.content_length)
    kept = application().item_files().put(ibi, path, upload, actor=current_actor())
    body = file_dict(kept.file, portal_url(), kept.item.rep, resolver_base())
    return jsonify(body), 200 if kept.replaced else 201, {"Location": body["url"]}


@bp.get("/items/<item:ibi>/files")
def list_files(ibi: str):
    """The item's files."""
    return listing_response(application().item_files().listing(ibi), portal_url(), resolver_base())


@bp.delete("/items/<item:ibi>/files/<path:path>")
@token_required
def delete_file(ibi: str, path: str):
    """Remove one file of the item."""
    application().item_files().delete(ibi, path, actor=current_actor())
    return "", 204
