"""The home page (one box for anything) and minting identifiers."""
from __future__ import annotations

import secrets

from flask import Blueprint, Response, redirect, render_template, request, session, url_for

from ...citation import STYLES
from ...config import DEMO_MINT_HOST
from ...errors import ParseError
from ...i18n import N_
from ...ibi.classify import classify
from ...ibi.explain import explain
from ...application.idempotent_minting import KeyReused, fingerprint, idempotency_key
from ...application.resolving import Answer, Received
from ...ibi.url import normalize_base, parse_persistent_url
from ...ibi.mint_request import MintRequest
from ..auth.session import admin_required_if
from ..cite.embedded import embedded_metadata, record_held_here
from ..context import (application, client_address, known_prefix_pairs, request_caller, request_site, resolver_base,
                       settings)
from ..errors import error_response
from ..form_errors import show_error
from ..i18n import current_language, gettext
from ..references.views import reference_hint
from ..inputs import persistent_url_input
from ..actor import current_actor
from .actions import actions_for
from .cards import minted_card
from .forms import LookupForm, MintForm, new_idempotency_key
from .qr import qr_svg

bp = Blueprint("identifiers", __name__)


@bp.get("/")
def home():
    """What IBIs are, the box that says what a text is and offers what to do with it, and the tools."""
    form = LookupForm(request.args)
    result = actions = meaning = embedded = reference = now = None
    if "q" in request.args and form.validate():
        result = classify(form.q.data or "", known_prefix_pairs(), resolver_base())
        if result.recognised:
            actions = actions_for(result, request.script_root)
            meaning = explain(result.url, current_language())
            embedded = embedded_metadata(record_held_here(str(result.url.ibi)))
            now = _where_now(result) if result.archive_link else None
        elif (reference := reference_hint(result.text)) is None:
            show_error(form, result.error, default_field="q")
    status = 400 if form.errors else 200
    return (
        render_template(
            "identifiers/home.html", form=form, result=result, actions=actions, meaning=meaning,
            where=None if reference else _where(result), embedded=embedded, reference=reference, now=now,
        ),
        status,
    )


def _where_now(result) -> tuple[Answer, str]:
    """Where the item of a pasted direct Archive link lives now: its persistent URL on this portal,
    answered as a ``GET`` of it is (the Archive in the link may have moved or died), with the
    trace's permalink."""
    received = Received(result.portal_url, parsed=parse_persistent_url(result.portal_url))
    answer = application().resolving.answer(received, request_caller(), request_site())
    return answer, answer.trace_url


def _where(result) -> tuple[str, str, str] | None:
    """The unrecognised text split around the character at fault: ``(before, character, after)``."""
    if result is None or result.recognised or not result.error.position:
        return None
    index = result.error.position - 1
    text = result.text
    return text[:index], text[index : index + 1] or " ", text[index + 1 :]


#: Mint results a browser session keeps (the newest), so that its cookie stays small: each
#: is a list of up to MAX_COUNT IBIps.
KEPT_MINT_RESULTS = 5
MINT_RESULTS = "mint_results"


@bp.route("/mint", methods=["GET", "POST"])
@admin_required_if(lambda given: given.mint_requires_token)
def mint():
    """Mint identifiers of the portal's subsystem, then 303 to their result page
    (Post/Redirect/Get: reloading the result never mints again)."""
    form = MintForm()
    if form.is_submitted():
        valid = form.validate()  # the CSRF token, the count; the fields are the core's to read
        try:
            mint_request = MintRequest.parse(form.data)  # once: every field's error at once
        except ParseError as exc:
            show_error(form, exc)
        else:
            if valid:
                return _minted(form, mint_request)
    status = 400 if form.errors else 200
    return _mint_page(form, [], status)


def _minted(form: MintForm, mint_request: MintRequest):
    """Mint what a valid form asked for, then 303 to the result page; the form again, with what
    went wrong, when the items it links to or its idempotency key refuse it."""
    fields = {name: value for name, value in form.data.items() if name not in ("csrf_token", "idempotency_key")}
    try:
        key = idempotency_key(form.idempotency_key.data or None, "idempotency_key")
        items = application().idempotent_minting().mint(form.count.data or 1, mint_request, key,
                                                        f"page:{client_address()}", fingerprint(fields),
                                                        actor=current_actor()).items
    except ParseError as exc:
        show_error(form, exc)
    except KeyReused:  # the same form posted again with other values: it becomes a new form
        form.idempotency_key.data = new_idempotency_key()
        form.form_errors.append(gettext("This form was used already with other values: check them and press Mint again."))
    else:
        links = [(N_("Next edition of"), mint_request.previous_edition), (N_("Translation of"), mint_request.translation_of)]
        result_id = _keep_result([item.ibip for item in items], [(label, str(ibi)) for label, ibi in links if ibi is not None])
        return redirect(url_for("identifiers.mint_result", result_id=result_id), code=303)
    status = 400 if form.errors else 200
    return _mint_page(form, [], status)


@bp.get("/mint/result/<result_id>")
def mint_result(result_id: str):
    """What one Mint press made: only the browser session that minted it sees it (the ids are
    kept in its signed session cookie), with an empty form to mint more."""
    kept = session.get(MINT_RESULTS, {}).get(result_id)
    if kept is None:
        message = N_("This mint result is shown only in the browser session that minted it, and only for its last "
                     "%(kept)s results. Each minted item has its own public page, /archive/items/<IBI>, which the "
                     "result links to: share that, or the persistent URL.", kept=KEPT_MINT_RESULTS)
        return error_response(message, 404)
    base, found = resolver_base(), application().minted(kept["ibips"])
    links = [tuple(link) for link in kept["links"]]
    return _mint_page(MintForm(formdata=None), [minted_card(item, base, links) for item in found], 200)


def _keep_result(ibips: list[str], links: list[tuple[str, str]]) -> str:
    result_id = secrets.token_urlsafe(9)
    results = dict(session.get(MINT_RESULTS, {}))
    results[result_id] = {"ibips": ibips, "links": links}
    session[MINT_RESULTS] = dict(list(results.items())[-KEPT_MINT_RESULTS:])
    return result_id


def _mint_page(form: MintForm, cards: list[dict], status: int):
    page = render_template("identifiers/mint.html", form=form, cards=cards, demo=_is_demo(), citation_styles=STYLES)
    return page, status


@bp.get("/mint/qr.svg")
def qr_download():
    """The QR code of a persistent URL on this portal's resolver base, as an SVG file to save.

    Only this portal's persistent URLs: the portal does not make QR codes of arbitrary text.
    """
    text = request.args.get("url")
    url = persistent_url_input(text)
    base = normalize_base(resolver_base())
    if url.resolver != base:
        raise ParseError(N_("only persistent URLs on this portal's resolver (%(base)s) get a QR code here", base=base), 1, "url")
    name = str(url.ibi).replace("/", "-").replace("@", "-")
    return Response(
        qr_svg(text.strip()),
        mimetype="image/svg+xml",
        headers={"Content-Disposition": f'attachment; filename="qr-{name}.svg"'},
    )


def _is_demo() -> bool:
    return settings().mint_host == DEMO_MINT_HOST
