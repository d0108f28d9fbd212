"""Administrator pages of the own Archive's items: the list with search (and the copies it holds
of other Archives' items, ``application.copies``), an item's edit form,
its files (upload with a progress bar, removal) and its deletion, each removal confirmed on a
page of its own first (works without script).

The pages call the same use cases as the JSON API (``application.items``, ``application.files``)
with the administrator's session instead of a token. Every POST carries a CSRF token. An upload
is sent by ``static/js/upload.js`` as the raw body of a ``PUT`` (so its progress can be shown),
with the token in ``X-CSRFToken``; without script the form posts it as multipart. Both are
exempt from the app's automatic CSRF check, which would read the body as a form under the
8 MB limit of forms before the view could raise it to ``IBIPORTAL_MAX_FILE_BYTES``: each view
checks the token itself, before reading the body.
"""
from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import format_decimal
from flask_wtf.csrf import validate_csrf
from werkzeug.exceptions import RequestEntityTooLarge
from wtforms import ValidationError

from ...application.files import FileTooLarge, Upload, UploadRefused
from ...application.items import EDITABLE_FIELDS, ItemRecord
from ...archive.own import item_directory_url, item_file_url
from ...errors import ParseError
from ..auth.session import admin_required
from ...application.targets import REPORTED_STATES, report_csv
from ...application.targets import STATES as TARGET_STATES
from ..context import application, resolver_base, settings
from ..files import FORM_OVERHEAD_BYTES, UNCAPPED, file_dict
from ..form_errors import show_error
from ..host import portal_url
from ...i18n import N_
from ..i18n import error_text, gettext, translate
from ..results import persistent_url
from ..actor import current_actor
from .forms import ActionForm, FilePathForm, ItemForm, UploadForm

bp = Blueprint("admin_items", __name__, url_prefix="/admin/items")

#: Items per page of the list.
PAGE_SIZE = 50

@bp.get("/")
@admin_required
def items_page():
    """The own Archive's items, newest first, those matching ``q`` (IBI, title, creators) and
    whose target is in the state ``target`` (working, moved, failing, unchecked), with each
    target's state; and the copies it holds of other Archives' items."""
    query = request.args.get("q", "").strip()[:200]
    target = request.args.get("target", "")
    target = target if target in TARGET_STATES else ""
    page = int(request.args["page"]) if request.args.get("page", "").isdigit() and int(request.args["page"]) > 0 else 1
    checks = application().target_checks()
    found = application().items().search(query, PAGE_SIZE + 1, (page - 1) * PAGE_SIZE,
                               checks.in_state(target) if target else None)
    records = found[:PAGE_SIZE]
    return render_template("admin/items.html", records=records, query=query, target=target, page=page,
                           more=len(found) > PAGE_SIZE, copies=application().copies().held(), resolver=resolver_base(),
                           targets=checks.states(record.minted for record in records), target_states=TARGET_STATES)


@bp.get("/targets.csv")
@admin_required
def target_report():
    """The CSV report of the items whose target is failing or moved (``state``: one of those, or
    ``all`` for every checked item), of one ``owner`` or ``creator`` (``flask items check-targets
    --report`` writes the same)."""
    state = request.args.get("state", "")
    states = TARGET_STATES if state == "all" else (state,) if state in TARGET_STATES else REPORTED_STATES
    rows = application().target_checks().report(owner=request.args.get("owner", "").strip()[:200] or None,
                                      creator=request.args.get("creator", "").strip()[:200] or None, states=states)
    return Response(report_csv(rows), mimetype="text/csv",
                    headers={"Content-Disposition": 'attachment; filename="target-report.csv"'})


@bp.get("/<path:ibi>")
@admin_required
def edit_page(ibi: str):
    """One item: its files, the upload form, its fields to change, and Delete."""
    record = application().items().find(ibi)
    return _edit_page(record, ItemForm(formdata=None, data=_form_data(record)))


@bp.post("/<path:ibi>")
@admin_required
def change(ibi: str):
    """Change the item's fields (Post/Redirect/Get); errors next to their fields, nothing changed."""
    record = application().items().find(ibi)
    form = ItemForm()
    if form.validate_on_submit():
        try:
            application().items().change(ibi, {name: form.data[name] for name in EDITABLE_FIELDS}, actor=current_actor())
        except ParseError as exc:
            show_error(form, exc)
        else:
            flash(gettext("Saved: the item's persistent URL answers the change at once."), "success")
            return redirect(url_for("admin_items.edit_page", ibi=record.minted.ibip), code=303)
    return _edit_page(record, form, 400)


@bp.put("/<path:ibi>/files/<path:path>")
@admin_required
def upload(ibi: str, path: str):
    """A file sent as the raw body by ``upload.js``: stored, then JSON (the page reloads)."""
    _check_csrf(request.headers.get("X-CSRFToken"))
    request.max_content_length = UNCAPPED  # counted while spooled, against IBIPORTAL_MAX_FILE_BYTES
    kept = application().item_files().put(ibi, path, Upload(request.stream, request.headers.get("Content-Type"),
                                                  request.content_length), actor=current_actor())
    flash(_stored_message(kept), "success")
    return jsonify(file_dict(kept.file, portal_url(), kept.item.rep, resolver_base())), 200 if kept.replaced else 201


@bp.post("/<path:ibi>/files")
@admin_required
def upload_form(ibi: str):
    """The same upload posted as a multipart form (no script); the outcome on the item's page."""
    record = application().items().find(ibi)
    request.max_content_length = settings().max_file_bytes + FORM_OVERHEAD_BYTES
    try:
        form = UploadForm(meta={"csrf": False})  # checked below, once the form is read
        _check_csrf(request.form.get("csrf_token"))
        sent = request.files.get("file")
        if sent is None or not sent.filename:
            raise UploadRefused(N_("choose a file to upload"))
        kept = application().item_files().put(ibi, form.path.data or sent.filename, Upload(sent.stream, sent.mimetype),
                                    actor=current_actor())
    except (ParseError, FileTooLarge, UploadRefused, RequestEntityTooLarge) as refused:
        if isinstance(refused, RequestEntityTooLarge):
            refused = FileTooLarge(settings().max_file_bytes)
        why = error_text(refused) if isinstance(refused, ParseError) else translate(refused.args[0])
        flash(gettext("Nothing was stored: %(why)s.", why=why), "error")
    else:
        flash(_stored_message(kept), "success")
    return redirect(url_for("admin_items.edit_page", ibi=record.minted.ibip, _anchor="files"), code=303)


@bp.get("/<path:ibi>/files/delete")
@admin_required
def confirm_file_removal(ibi: str):
    """Ask before removing a file."""
    record = application().items().find(ibi)
    stored = application().item_files().file(record.minted.ibip, request.args.get("path", ""))
    form = FilePathForm(formdata=None, data={"path": stored.path})
    return render_template("admin/item_remove_file.html", record=record, stored=stored, form=form)


@bp.post("/<path:ibi>/files/delete")
@admin_required
def remove_file(ibi: str):
    """Remove a file, after :func:`confirm_file_removal`."""
    record = application().items().find(ibi)
    form = FilePathForm()
    if not form.validate_on_submit():
        abort(400, gettext("The form expired: open the item again and remove the file from there."))
    removed = application().item_files().delete(record.minted.ibip, form.path.data or "", actor=current_actor())
    flash(gettext("Removed %(path)s: its URL and persistent URL answer 404 from now on.", path=removed.path), "success")
    return redirect(url_for("admin_items.edit_page", ibi=record.minted.ibip, _anchor="files"), code=303)


@bp.get("/<path:ibi>/delete")
@admin_required
def confirm_deletion(ibi: str):
    """Ask before making the item Deleted, saying what that does."""
    record = application().items().find(ibi)
    if not record.changeable:
        return redirect(url_for("admin_items.edit_page", ibi=record.minted.ibip), code=303)
    files = application().item_files().listing(record.minted.ibip).files
    return render_template("admin/item_delete.html", record=record, files=files, form=ActionForm())


@bp.post("/<path:ibi>/delete")
@admin_required
def delete(ibi: str):
    """Make the item Deleted, after :func:`confirm_deletion`."""
    form = ActionForm()
    if not form.validate_on_submit():
        abort(400, gettext("The form expired: open the item again and delete it from there."))
    record = application().items().delete(ibi, actor=current_actor())
    flash(gettext("Deleted %(ibi)s: its persistent URL answers 410 Gone from now on, and the IBI is never issued "
                  "again.", ibi=record.minted.ibip), "success")
    return redirect(url_for("admin_items.items_page"), code=303)


def _edit_page(record: ItemRecord, form: ItemForm, status: int = 200):
    held = application().item_files().listing(record.minted.ibip)
    _, history = application().items().history(record.minted.ibip)
    page = render_template(
        "admin/item.html", record=record, form=form, files=held.files, upload_form=UploadForm(),
        persistent=persistent_url(resolver_base(), record.minted.ibip), max_file_bytes=settings().max_file_bytes,
        file_urls={stored.path: item_file_url(portal_url(), record.minted.rep, stored.path) for stored in held.files},
        folder_url=item_directory_url(portal_url(), record.minted.rep), history=history,
        checks=application().target_checks().results(record.minted.ibip),
    )
    return page, status


def _form_data(record: ItemRecord) -> dict:
    """The item as the edit form's fields."""
    minted, relations = record.minted, record.relations
    return {
        "title": minted.title, "creators": "\n".join(minted.creators), "date": minted.item_date,
        "language": minted.language, "target_url": minted.target_url,
        "item_type": minted.bibliographic.item_type or "", "publisher": minted.bibliographic.publisher,
        "place": minted.bibliographic.place, "extent": minted.bibliographic.extent,
        "degree": minted.bibliographic.degree, "report_number": minted.bibliographic.report_number,
        "previous_edition": relations.previous_edition, "translation_of": relations.translation_of,
    }


def _stored_message(kept) -> str:
    values = {"path": kept.file.path, "size": format_decimal(kept.file.size), "type": kept.file.content_type}
    if kept.replaced:
        return gettext("Replaced %(path)s (%(size)s bytes, %(type)s).", **values)
    return gettext("Stored %(path)s (%(size)s bytes, %(type)s).", **values)


def _check_csrf(token: str | None) -> None:
    """The CSRF check the app makes on every other POST (module docstring)."""
    if not current_app.config.get("WTF_CSRF_ENABLED", True):
        return
    try:
        validate_csrf(token)
    except ValidationError as exc:
        abort(400, f"The page's security token is missing or expired ({exc}): reload the page and upload again.")
