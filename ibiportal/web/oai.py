"""``GET``/``POST /oai``: the own Archive's OAI-PMH 2.0 data provider (ibiportal.application.oai).

No login (harvesters are anonymous); the API's rate limit (``RATELIMIT_API``, one budget with
``/api/v1``). A request refused by it is answered as OAI-PMH asks a busy repository to answer
(§3.1.2.2): ``503`` with ``Retry-After``, which harvesters wait for and retry, not a 429 they
would give up on. A POST is a form (``application/x-www-form-urlencoded``, §3.1.1.2): it carries
no session to ride on, so CSRF does not apply.
"""
from __future__ import annotations

import time
from urllib.parse import urlsplit

from flask import Blueprint, Response, current_app, request
from flask_limiter.errors import RateLimitExceeded

from ..application.oai import OaiDataProvider, ProviderSettings
from ..i18n import N_
from . import limits
from .context import application, resolver_base, settings
from .host import portal_url
from .i18n import translate

bp = Blueprint("oai", __name__)

#: §3.1.2.1: responses are XML, ``text/xml``, in UTF-8.
OAI_MIMETYPE = "text/xml"


@limits.declare(bp)
def _limits(rules: limits.Rules) -> None:
    rules.shared(rules.settings.ratelimit_api, N_("API requests from your address"), "api")(bp)


@bp.route("/oai", methods=["GET", "POST"])
def oai():
    """One OAI-PMH request, its arguments in the query string (GET) or the form (POST)."""
    pairs = request.form.items(multi=True) if request.method == "POST" else request.args.items(multi=True)
    document = provider().answer(list(pairs), application().clock(), translate)
    return Response(document, mimetype=OAI_MIMETYPE, headers={"Cache-Control": "no-store"})


def provider() -> OaiDataProvider:
    """The data provider at the address of this request."""
    given, base = settings(), portal_url()
    repository_id = given.oai_repository_id or urlsplit(base).hostname or "localhost"
    emails = (given.admin_email or fallback_email(repository_id),)
    provided = ProviderSettings(repository_id, f"{base}/oai", resolver_base().rstrip("/"), emails)
    return OaiDataProvider(application().oai_items(), provided)


def fallback_email(host: str) -> str:
    """Identify's adminEmail when IBIPORTAL_ADMIN_EMAIL is not set: the host's ``postmaster``
    (RFC 2142), under the reserved ``.invalid`` (RFC 2606) when the host is no domain name (a
    portal on ``localhost``), since the protocol requires an address with a dot after the ``@``."""
    return f"postmaster@{host}" if "." in host else f"postmaster@{host}.invalid"


@bp.errorhandler(RateLimitExceeded)
def busy(error: RateLimitExceeded):
    """§3.1.2.2's flow control: 503 and when to come back (as the 429 it replaces would say)."""
    current = current_app.extensions[limits.LIMITER].current_limit
    wait = max(1, int(current.reset_at - time.time())) if current is not None else 60
    return Response(f"{error.description}\n", 503, mimetype="text/plain",
                    headers={"Retry-After": str(wait), "Cache-Control": "no-store"})
