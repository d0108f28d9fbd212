"""``GET /<resolver service IBI>?servicesubject=…``: the resolver service of file 003 §6.1.

It answers "Incluir arquivo" (2) and "Excluir arquivo" (7) of Figure 7.1 (Table 7.2,
Examples 7.2 and 7.3) with a ``text/plain`` ASCII pair list (§6.2) – the status (5)/(8) of
§7.2, or a refusal (STANDARD.md §3) with its 4xx status – computed by
:class:`~ibiportal.resolver.registry_service.RegistrationService`. Any other ``servicesubject``
at this address is refused with 400. Too many requests, or too many wrong keys, are refused
with 429 and ``Retry-After`` (``ibiportal.web.limits``), also as a pair list.

The rule is the fixed path ``/<IBIPORTAL_RESOLVER_SERVICE_IBI>`` (default
``J8LNKB5R7W/3FUQHC5``), added when the blueprint is registered: a rule without variables
always wins over the resolver's catch-all ``/<path:…>`` rule, whatever the order.
"""
from __future__ import annotations

from flask import Blueprint, Response, g, request
from flask.blueprints import BlueprintSetupState
from flask_limiter import RateLimitExceeded

from ...errors import ParseError
from ...protocol.query import parse_query
from ...protocol.status import refused
from ...resolver.registry_service import normalize_service_ibi
from .. import limits
from ..context import application, settings

bp = Blueprint("registration", __name__)

PAIR_LIST_CONTENT_TYPE = "text/plain; charset=us-ascii"


def archive_of_request() -> str:
    """The normalized ``archiveserviceibi`` of a request; empty (not counted) if none. The pairs
    split here are kept for the service's answer, so a request's query is split once."""
    try:
        g.resolver_service_pairs = parse_query(request.query_string)
        values = [pair.value for pair in g.resolver_service_pairs if pair.name == "archiveserviceibi"]
        return "archive:" + normalize_service_ibi(values[0]) if values else ""
    except ParseError:
        return ""


@limits.declare(bp)
def _limits(rules: limits.Rules) -> None:
    """``RATELIMIT_RESOLVER_SERVICE`` on every request (a key check costs an scrypt), and
    ``RATELIMIT_KEY_CHECKS`` on the 403s of wrong keys, per client IP and, separately, per
    ``archiveserviceibi`` (a key guessed from many IPs)."""
    wrong_key = lambda response: response.status_code == 403  # noqa: E731
    rules.limit(rules.settings.ratelimit_resolver_service, "requests from your address", scope="resolver-service")(bp)
    rules.limit(rules.settings.ratelimit_key_checks, "wrong registration keys from your address",
                scope="key-checks-by-client", deduct_when=wrong_key)(bp)
    rules.limit(rules.settings.ratelimit_key_checks, "wrong registration keys for this archiveserviceibi",
                scope="key-checks-by-archive", key_func=archive_of_request, deduct_when=wrong_key)(bp)


@bp.record_once
def _add_service_rule(state: BlueprintSetupState) -> None:
    """The service's rule, at the configured IBI (normalized; a bad IBI stops the start-up)."""
    service_ibi = normalize_service_ibi(settings(state.app).resolver_service_ibi)
    state.add_url_rule(f"/{service_ibi}", "answer", answer, methods=["GET"])


def answer() -> Response:
    """The pair list answering this request's query string (§7.2)."""
    service = application().registration_service()
    outcome = service.answer(g.get("resolver_service_pairs") or request.query_string)
    return Response(
        outcome.body,
        outcome.status,
        content_type=PAIR_LIST_CONTENT_TYPE,
        headers={"Cache-Control": "no-store"},
    )


@bp.errorhandler(RateLimitExceeded)
def too_many(error: RateLimitExceeded) -> Response:
    """429 as the service speaks to Archives: ``status.archive refused status.reason {too many …}``.

    ``Retry-After`` is added by the limiter after this answer is built.
    """
    return Response(
        refused(error.description).serialize(" "),
        429,
        content_type=PAIR_LIST_CONTENT_TYPE,
        headers={"Cache-Control": "no-store"},
    )
