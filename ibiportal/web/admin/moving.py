"""The administrator's Move page: an own item goes to a successor Archive with no gap
(``application.releasing``, the same use case as ``POST /api/v1/items/<ibi>/release``).

The page asks for the successor (its service URL, or its address with its service IBI), then
*checks* it: the own Archive sends it the ``urlRequest`` a resolver would, over the guarded
transport, and the page shows what it answered (its ``state`` and ``url``, or why that answer does
not let the item go). Only an answer that does offers the release; the release asks the successor
again (it may have let the item go since) and, refused, shows the 409 and its reason with nothing
changed. The page also gives the item's package, to import it into the successor first. The routes
join the ``admin_items`` blueprint (its error pages for unknown and deleted items).
"""
from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for

from ...application.items import ItemRecord
from ...application.releasing import ReleaseRefused, Successor, SuccessorCheck
from ...errors import ParseError
from ..actor import current_actor
from ..api.items import package_response
from ..auth.session import admin_required
from ..context import application, request_client
from ..form_errors import show_error
from ..i18n import gettext, translate
from .forms import MoveForm
from .items import bp


@bp.get("/<path:ibi>/move")
@admin_required
def move_page(ibi: str):
    """The successor to check; a deleted or released item goes back to its page."""
    record = application().items().find(ibi)
    if not record.changeable:
        return redirect(url_for("admin_items.edit_page", ibi=record.minted.ibip), code=303)
    return _page(record, MoveForm(formdata=None))


@bp.post("/<path:ibi>/move")
@admin_required
def move(ibi: str):
    """Check the successor (its answer shown, nothing changed), or, with ``release``, release the
    item to it once it answers it as its Original (asked again now). One address for both, so that
    the page a POST shows is the page's own (its language links, a reload)."""
    record = application().items().find(ibi)
    if not record.changeable:
        return redirect(url_for("admin_items.edit_page", ibi=record.minted.ibip), code=303)
    form = MoveForm()
    successor = _successor(form)
    if successor is None:
        return _page(record, form, status=400)
    client_ips = request_client().ip_addresses
    if "release" not in request.form:
        return _page(record, form, checked=application().releasing().check(record.minted.ibip, successor, client_ips=client_ips))
    try:
        released = application().releasing().release(record.minted.ibip, successor, actor=current_actor(), client_ips=client_ips)
    except ReleaseRefused as refused:
        return _page(record, form, refused=translate(refused.reason), status=409)
    flash(gettext("Released to the Archive at %(successor)s: this Archive answers the IBI nothing from now on, so "
                  "resolvers find the item there.", successor=released.minted.successor), "success")
    return redirect(url_for("admin_items.edit_page", ibi=record.minted.ibip), code=303)


@bp.get("/<path:ibi>/package")
@admin_required
def package(ibi: str):
    """The item's package (as ``GET /api/v1/items/<ibi>/package``), to import into the successor."""
    return package_response(ibi)


def _successor(form: MoveForm) -> Successor | None:
    """The successor the form names; ``None`` with the error next to its field (or an expired form)."""
    if not form.validate_on_submit():
        if "csrf_token" in form.errors:
            form.form_errors.append(gettext("The form expired: send it again."))
        return None
    try:
        return Successor.parse(form.successor.data or "", form.successor_service_ibi.data or None)
    except ParseError as error:
        show_error(form, error, "successor")
        return None


def _page(record: ItemRecord, form: MoveForm, *, checked: SuccessorCheck | None = None, refused: str | None = None,
          status: int = 200):
    return render_template("admin/item_move.html", record=record, form=form, checked=checked, refused=refused), status
