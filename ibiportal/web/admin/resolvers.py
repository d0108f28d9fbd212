"""The Resolvers page: the own Archive joins and leaves outside resolvers (file 003 §7.2, the
Archive's side), as ``flask resolvers`` does (:mod:`ibiportal.application.joining`).

An administrator's page with a CSRF-protected POST. The request waits for the resolver, which
calls this portal back before answering (Example 7.4), so another request thread of the portal
answers that confirmation while this one waits (gunicorn runs ``IBIPORTAL_THREADS`` per worker).
The outcome is shown after a redirect (Post/Redirect/Get) from the flashed sentence and the
stored last status; the key goes into the one request to the resolver and nowhere else (not
the page, the session, the database or a log line).
"""
from __future__ import annotations

import logging

from flask import flash, redirect, render_template, request, url_for

from ...application.joining import NotReady
from ..i18n import translate
from ...errors import ParseError
from ..auth.session import admin_required, current_admin
from ..form_errors import show_error
from .forms import ResolverRequestForm
from .joining import LABELS, SUBJECTS, joining, outcome_sentence
from .views import bp

logger = logging.getLogger(__name__)


@bp.get("/resolvers")
@admin_required
def resolvers_page():
    """The resolvers asked (last status and date) and the join/leave form."""
    form = ResolverRequestForm(formdata=None)
    form.resolver_url.data = request.args.get("resolver_url", "")
    return _page(form)


def _page(form: ResolverRequestForm, status: int = 200):
    use_case = joining()
    try:
        identity, not_ready = use_case.identity(), None
    except NotReady as exc:
        identity, not_ready = None, exc.args[0]
    page = render_template("admin/resolvers.html", form=form, resolvers=use_case.resolvers(), identity=identity,
                           not_ready=not_ready, subjects=SUBJECTS, labels=LABELS)
    return page, status


@bp.post("/resolvers")
@admin_required
def resolver_request():
    """Send inclusionRequest (Join) or exclusionRequest (Leave); show the outcome after a redirect."""
    form = ResolverRequestForm()
    if not form.validate_on_submit():
        return _page(form, 400)
    use_case = joining()
    try:
        answer = (use_case.leave if form.leave.data else use_case.join)(form.resolver_url.data,
                                                                         form.registration_key.data)
    except ParseError as exc:
        show_error(form, exc, default_field="resolver_url")
        return _page(form, 400)
    except NotReady as exc:
        form.form_errors.append(translate(exc.args[0]))
        return _page(form, 400)
    logger.info("%s sent to %s by %s: %s", SUBJECTS[answer.action], answer.resolver_url, current_admin(),
                answer.outcome)
    flash(outcome_sentence(answer), "success" if answer.succeeded else "failure")
    return redirect(url_for("admin.resolvers_page"), code=303)
