"""Administrator pages: the registered Archives (file 003 §7) and the conformance check (§6.2, §9).

Every route needs a logged-in administrator (:func:`admin_required`) and every POST a CSRF
token. Registering shows a generated key once, in the answer to the POST itself (never in a
URL, the session or a log line), with ``Cache-Control: no-store``: that one answer is not
redirected, and posting it again is refused as already registered, so nothing happens twice.
Registering with one's own key redirects to the instructions (Post/Redirect/Get). The confirmation request
and the conformance check go through a fresh :func:`check_transport`, with the resolver's
address policy, and are bounded in time (:mod:`ibiportal.resolver.conformance`).
"""
from __future__ import annotations

import logging
from collections.abc import Iterator

from flask import Blueprint, abort, flash, redirect, render_template, request, stream_template, url_for
from flask_babel import lazy_gettext
from werkzeug.wrappers import Response

from ...errors import ParseError
from ...resolver.conformance import ConformanceCheck, check_bound, send_confirmation_request
from ...resolver.conformance_probes import CHECK_TIMEOUTS, ServiceAddress
from ...resolver.conformance_rules import RuleResult, format_ms
from ...protocol.registry import Confirmation, RegisteredArchive
from ...resolver.registry_service import normalize_service_ibi
from ..auth.session import admin_required, current_admin
from ..context import application, settings
from ..form_errors import add_error, show_error
from ...i18n import N_
from ..i18n import gettext, translate
from .forms import ActionForm, ConformanceForm, RegisterForm
from ...application.registry import AlreadyRegistered, inclusion_request_pairs
from .inclusion import inclusion_script
from .transport import check_transport

logger = logging.getLogger(__name__)

bp = Blueprint("admin", __name__, url_prefix="/admin")

PRIVATE_HINT = lazy_gettext("Loopback and private addresses are refused, as the resolver refuses them, unless the "
                            "portal runs with IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1.")


@bp.app_template_filter("admin_time")
def admin_time(stamp: str | None, short: bool = False) -> str:
    """``2024-05-01T12:00:03.123456Z`` → ``2024-05-01 12:00:03 UTC``, or ``2024-05-01 12:00`` when
    ``short`` (a table column that says UTC in its header); storage keeps microseconds."""
    if not stamp:
        return "–"
    return f"{stamp[:10]} {stamp[11:16]}" if short else f"{stamp[:10]} {stamp[11:19]} UTC"


@bp.app_template_filter("admin_ms")
def admin_ms(milliseconds: float) -> str:
    """``0.4 ms``, ``12 ms``, with the reader's decimal sign (``0,4 ms``)."""
    return translate(format_ms(milliseconds))


def _registered(service_ibi: str) -> RegisteredArchive:
    """The Archive named in the URL (its IBI in any letter case), or 404."""
    try:
        archive = application().registering.find(normalize_service_ibi(service_ibi))
    except ParseError:
        archive = None
    if archive is None:
        abort(404, gettext("No Archive is registered with the service IBI %(ibi)s.", ibi=service_ibi))
    return archive


def _service_address(archive: RegisteredArchive) -> ServiceAddress | None:
    """Where the Archive's service answers (§6.1), once an inclusion told its address."""
    return None if archive.address is None else ServiceAddress(archive.address, archive.service_ibi)


@bp.get("/archives")
@admin_required
def archives_page():
    """The registered Archives and the registration form."""
    return _archives_page(RegisterForm())


def _archives_page(form: RegisterForm, status: int = 200):
    return render_template("admin/archives.html", archives=application().registering.archives(), form=form,
                           key_check=_key_check_messages()), status


def _key_check_messages() -> dict[str, str]:
    """What static/js/key-check.js says as the key is typed (Table 7.1, as ``check_key`` checks
    it), in the page's language; ``%(name)s`` is filled in by the script. (A count of digits, whose
    noun follows the number, is the script's own plural text: ``SCRIPT_TEXTS``.)"""
    return {
        "dash": gettext("A second '-' at character %(position)s: a key has one '-' at most (Table 7.1)."),
        "digit": gettext("Character %(position)s is not a digit: a key is digits, with one '-' at most (Table 7.1)."),
        "ok": gettext("✓ A well-formed key (Table 7.1)."),
    }


@bp.post("/archives")
@admin_required
def register():
    """Register an Archive (§7.1); a generated key is shown in this answer only."""
    form = RegisterForm()
    if not form.validate_on_submit():
        return _archives_page(form, 400)
    try:
        registration = application().registering.register(form.service_ibi.data, form.registration_key.data or None)
    except ParseError as exc:
        show_error(form, exc, default_field="service_ibi")
        return _archives_page(form, 400)
    except AlreadyRegistered as exc:
        add_error(form.service_ibi, gettext("%(ibi)s is already registered; remove it first to register it with "
                                            "another key.", ibi=exc.service_ibi))
        return _archives_page(form, 400)
    logger.info("archive %s registered by %s (key %s)", registration.service_ibi, current_admin(),
                "generated" if registration.generated else "entered")
    if registration.generated:  # the key is shown in this answer only (module docstring)
        return _registered_page(_registered(registration.service_ibi), registration.key.reveal())
    return redirect(url_for("admin.registered", service_ibi=registration.service_ibi), code=303)


@bp.get("/archives/<path:service_ibi>/registered")
@admin_required
def registered(service_ibi: str):
    """What to do after registering with a key of one's own (Post/Redirect/Get)."""
    return _registered_page(_registered(service_ibi), None)


def _registered_page(archive: RegisteredArchive, generated_key: str | None):
    """A generated key, once, above the next steps (the key written into their script)."""
    page = render_template("admin/registered.html", archive=archive, key=generated_key,
                           **_inclusion(archive, generated_key))
    return Response(page, 200, headers={"Cache-Control": "no-store"}, content_type="text/html; charset=utf-8")


def _inclusion(archive: RegisteredArchive, key: str | None = None) -> dict:
    """What the next steps show: the resolver-service URL and the inclusion request (§7.2) as
    pairs and as ``curl`` lines, with ``key`` written in when it was just generated."""
    service_url = request.url_root + settings().resolver_service_ibi
    pairs = [(name, key if name == "registrationkey" and key else value)
             for name, value in inclusion_request_pairs(archive.service_ibi)]
    return {"service_url": service_url, "pairs": pairs, "script": inclusion_script(service_url, archive.service_ibi, key),
            "allow_private": settings().allow_private_archives}


@bp.get("/archives/<path:service_ibi>")
@admin_required
def archive_page(service_ibi: str):
    """One Archive: its state, its history, and what can be done with it."""
    return _archive_page(_registered(service_ibi))


def _archive_page(archive: RegisteredArchive, **outcome):
    events = list(reversed(application().registering.events(archive.service_ibi)))
    check = ConformanceForm(formdata=None)
    target = _service_address(archive)
    if target is not None:
        check.address.data = target.base_url
    return render_template(
        "admin/archive.html", archive=archive, events=events, target=target, action=ActionForm(), check=check,
        private_hint=PRIVATE_HINT, **_inclusion(archive),
        **outcome,
    )


def _posted_action_on(service_ibi: str) -> RegisteredArchive:
    """The registered Archive an action button was posted for, its CSRF token checked (else 400)."""
    archive = _registered(service_ibi)
    if not ActionForm().validate_on_submit():
        abort(400, gettext("The form expired; reload the page and try again."))
    return archive


@bp.post("/archives/<path:service_ibi>/confirm")
@admin_required
def confirm(service_ibi: str):
    """Send "Solicitar confirmação" (§7.2 message 3) now; show what went and what came back."""
    archive = _posted_action_on(service_ibi)
    target = _service_address(archive)
    if target is None:
        abort(409, gettext("This Archive has not been included yet: the portal does not know its address."))
    with check_transport() as transport:
        probe, result = send_confirmation_request(target, transport)
    confirmation = Confirmation(result.passed, result.detail)
    application().registering.record_confirmation(archive.service_ibi, confirmation)
    logger.info("confirmation request to %s by %s: %s", archive.service_ibi, current_admin(), result.outcome)
    return _archive_page(_registered(archive.service_ibi), confirmation=(probe, result))


@bp.post("/archives/<path:service_ibi>/exclude")
@admin_required
def exclude(service_ibi: str):
    """Switch an Archive off as its ``exclusionRequest`` would (§7.2): it is no longer asked, the
    resolution caches are emptied, its registration, address and history are kept."""
    archive = _posted_action_on(service_ibi)
    if archive.included:
        application().registering.exclude(archive.service_ibi, N_("excluded by the administrator %(name)s", name=current_admin()))
        logger.info("archive %s excluded by %s", archive.service_ibi, current_admin())
        flash(gettext("Excluded %(ibi)s: the resolver no longer asks it. Its registration and history are kept; "
                      "include it again here, or the Archive can send inclusionRequest.", ibi=archive.service_ibi),
              "success")
    else:
        flash(gettext("%(ibi)s was already excluded: nothing changed.", ibi=archive.service_ibi), "notice")
    return redirect(url_for("admin.archive_page", service_ibi=archive.service_ibi), code=303)


@bp.post("/archives/<path:service_ibi>/include")
@admin_required
def include_again(service_ibi: str):
    """Include an excluded Archive again at the address of its last inclusion (no request from it)."""
    archive = _posted_action_on(service_ibi)
    if archive.included:
        flash(gettext("%(ibi)s is already included: nothing changed.", ibi=archive.service_ibi), "notice")
    elif application().registering.include_again(archive.service_ibi,
                                                 N_("again at %(address)s by the administrator %(name)s",
                                                    address=archive.address, name=current_admin())):
        logger.info("archive %s included again by %s", archive.service_ibi, current_admin())
        flash(gettext("Included %(ibi)s again at %(address)s: the resolver asks it from now on. Send a confirmation "
                      "request to check that it still answers there.", ibi=archive.service_ibi, address=archive.address),
              "success")
    else:
        flash(gettext("%(ibi)s has never been included, so its address is not known: the Archive must send "
                      "inclusionRequest itself (§7.2).", ibi=archive.service_ibi), "failure")
    return redirect(url_for("admin.archive_page", service_ibi=archive.service_ibi), code=303)


@bp.route("/archives/<path:service_ibi>/remove", methods=["GET", "POST"])
@admin_required
def remove(service_ibi: str):
    """Remove an Archive and its history, after a confirmation step."""
    archive = _registered(service_ibi)
    form = ActionForm()
    if request.method == "POST":
        if not form.validate_on_submit():
            abort(400, gettext("The form expired; reload the page and try again."))
        application().registering.remove(archive.service_ibi)
        logger.info("archive %s removed by %s", archive.service_ibi, current_admin())
        flash(gettext("Removed %(ibi)s and its history: it can no longer be included.", ibi=archive.service_ibi),
              "success")
        return redirect(url_for("admin.archives_page"))
    return render_template("admin/remove.html", archive=archive, form=form)


@bp.route("/conformance", methods=["GET", "POST"])
@admin_required
def conformance_page():
    """Check an Archive service against file 003 (§6.2, §7.2, §9): each rule passed or failed.

    The page is streamed: each rule appears as soon as it is decided, the summary last, so an
    administrator watches a slow Archive's check progress without any script."""
    form = ConformanceForm()
    check = None
    if form.validate_on_submit():
        try:
            check = ConformanceCheck(form.address.data, known_ibi=form.known_ibi.data or None)
        except ParseError as exc:
            show_error(form, exc, default_field="address")
    context = {"form": form, "private_hint": PRIVATE_HINT, "timeouts": CHECK_TIMEOUTS, "bound": check_bound()}
    if check is None:
        return render_template("admin/conformance.html", check=None, **context), 400 if form.errors else 200
    return stream_template("admin/conformance.html", check=check, results=_run(check), **context)


def _run(check: ConformanceCheck) -> Iterator[RuleResult]:
    """The check's results as they come, sent through a transport made for it, then logged."""
    with check_transport() as transport:
        yield from check.results(transport)
    report = check.report()
    logger.info("conformance check of %s by %s: %d failed, %d passed", report.target, current_admin(),
                report.count("failed"), report.count("passed"))
