"""The one check of API tokens: ``@token_required`` on every API view that writes.

Every write of the JSON API beyond minting needs ``Authorization: Bearer <token>``, a token made
by ``flask --app app api-token create NAME`` (``ibiportal.storage.tokens`` keeps only its hash).
Minting needs one too when ``IBIPORTAL_MINT_REQUIRES_TOKEN`` is on: ``@token_required_if(lambda
given: given.mint_requires_token)``. Without a token, or with an unknown or revoked one, the
answer is 401 with the API's JSON error and a ``WWW-Authenticate: Bearer`` header (RFC 6750),
before the view runs: nothing changes.

The API never rides on the administrator's session cookie: it is exempt from CSRF protection,
so a cookie would let any site write through a logged-in browser. Pages that write use the
session (``ibiportal.web.auth.session.admin_required``) and call the same use cases.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from flask import g, request

from ...config import Settings
from ..context import application, settings
from ..errors import error_response

#: Where a user learns to make a token: said in every refusal.
HOW_TO_GET_ONE = "an administrator creates one with: flask --app app api-token create NAME"


def bearer_token() -> str | None:
    """The token of ``Authorization: Bearer <token>`` (scheme in any case), ``None`` without one."""
    scheme, _, token = request.headers.get("Authorization", "").strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def refusal() -> tuple | None:
    """The 401 answer when the request carries no valid token, ``None`` when it does (then
    ``g.api_token_name`` names the token, for logs)."""
    token = bearer_token()
    if token is None:
        message = f"This API request changes the portal: send Authorization: Bearer <token> ({HOW_TO_GET_ONE})."
    else:
        name = application().tokens.holder(token)
        if name is not None:
            g.api_token_name = name
            return None
        message = f"The API token is not valid: it is unknown or was revoked ({HOW_TO_GET_ONE})."
    body, status = error_response(message, 401, field="Authorization")
    return body, status, {"WWW-Authenticate": 'Bearer realm="IBI Portal API"'}


def token_required(view: Callable) -> Callable:
    """Run ``view`` only for a request with a valid API token; else 401 (module docstring)."""

    @wraps(view)
    def guarded(*args, **kwargs):
        return refusal() or view(*args, **kwargs)

    return guarded


def token_required_if(wanted: Callable[[Settings], bool]) -> Callable[[Callable], Callable]:
    """:func:`token_required` when the app's settings want it (``mint_requires_token``). When it
    is off, a valid token sent anyway still names who made the change (the item's history)."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def guarded(*args, **kwargs):
            if wanted(settings()):
                return refusal() or view(*args, **kwargs)
            if bearer_token() is not None:
                refusal()  # sets g.api_token_name for a valid token; an unknown one mints as anyone
            return view(*args, **kwargs)

        return guarded

    return decorate
