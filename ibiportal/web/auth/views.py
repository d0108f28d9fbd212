"""Log in and out as an administrator."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for

from ..i18n import gettext
from ...i18n import N_
from .. import limits
from ..form_errors import add_error
from .forms import LoginForm
from .session import check_credentials, log_in, log_out, safe_next

bp = Blueprint("auth", __name__, url_prefix="/admin")


@limits.declare(bp)
def _limits(rules: limits.Rules) -> None:
    """``RATELIMIT_LOGIN``: failed logins (a POST without the redirect of a success), per IP."""
    rules.limit(rules.settings.ratelimit_login, N_("failed logins from your address"), scope="login", methods=["POST"],
                deduct_when=lambda response: response.status_code != 302,
                exempt_when=lambda: request.endpoint != "auth.login")(bp)


@bp.route("/login", methods=["GET", "POST"])
def login():
    form = LoginForm()
    if request.method == "GET":
        form.next.data = request.args.get("next", "")
    if form.validate_on_submit():
        if check_credentials(form.username.data, form.password.data):
            log_in(form.username.data)
            return redirect(safe_next(form.next.data))
        add_error(form.password, gettext("Wrong username or password."))
    status = 400 if form.errors else 200
    return render_template("auth/login.html", form=form), status


@bp.post("/logout")
def logout():
    log_out()
    return redirect(url_for("identifiers.home"))
