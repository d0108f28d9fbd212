"""Rate limits: brute force on registration keys and logins, floods of the public API.

One :class:`flask_limiter.Limiter` per app (so every app instance, e.g. each test's, counts
from zero), with blueprint limits configured from ``RATELIMIT_*`` settings
(``IBIPORTAL_RATELIMIT_*``, see ``ibiportal.config``). Every limit counts per client IP, the
first element of ``clientinformation.ipaddress`` (Table 8.10): ``X-Forwarded-For`` is
believed only from ``TRUSTED_PROXIES``, as for resolution.

=========================  ==================================================  =============
limit                      what is counted                                     default
=========================  ==================================================  =============
``RATELIMIT_KEY_CHECKS``   resolver service answers 403 (wrong registration    10/minute
                           key, §7.2), per client IP AND, separately, per
                           ``archiveserviceibi`` (a key guessed from many IPs)
``RATELIMIT_RESOLVER_      every request to the resolver service, per IP       60/minute
SERVICE``                  (a key check costs an scrypt)
``RATELIMIT_LOGIN``        failed administrator logins (POST without the       5/minute
                           redirect of a success), per IP
``RATELIMIT_API``          every request to ``/api/v1/*``, all endpoints       120/minute
                           together, per IP
``RATELIMIT_TRACE``        traces and citations, API and pages together        20/minute
                           (``ON_DEMAND_RESOLUTIONS``, and ``GET /<IBI>``
                           with a citation type in ``Accept``): each one
                           sends messages to every Archive, bypassing the
                           cache
``RATELIMIT_REFERENCES``   IBIs of reference lists checked                     1000/minute
                           (``POST /api/v1/extract?resolve=1``): each
                           distinct request of a list counts once, as it is
                           taken (:func:`reference_budget`); the rest of a
                           list beyond the limit is "not checked"
=========================  ==================================================  =============

Once a failure limit is reached, every request it covers is refused until the window
ends, the right key or password included: that is what stops guessing. A limit on the key
checks of one ``archiveserviceibi`` also lets a stranger delay that Archive's inclusion for
a minute by guessing wrong keys; the Archive retries (§7.2 asks it to include itself on
every start) and its key stays safe.

Not limited: ``GET /<persistent URL>`` (resolution is the portal's main job and must take
the load test's traffic), pages, and static files.

A refusal is a 429 with ``Retry-After`` (seconds) and ``X-RateLimit-*`` headers; its body is
the JSON error of the API, the HTML error page, or – at the resolver service, which speaks
pair lists to Archives – a ``status.archive refused`` pair list (see its views).

Counts live in ``RATELIMIT_STORAGE_URI``: ``memory://`` keeps them in each worker process
(with 2 gunicorn workers a client may get up to twice a limit); ``redis://…`` shares them, and
``IBIPORTAL_REDIS_URL`` is used when no other storage is named, so several nodes share one
budget. If that storage fails, requests are still served, their limits counted in each
worker's memory (as with ``memory://``) until it answers again, with one warning: availability
first, without opening the portal to a flood while Redis is down.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from flask import Flask, Response, current_app, request
from flask_limiter import Limiter
from limits import RateLimitItem, parse_many

from ..errors import ParseError
from ..protocol.query import parse_query
from ..resolver.registration import normalize_service_ibi
from ..storage.signal import REDIS_TIMEOUT_SECONDS
from .api.views import bp as api_bp
from .context import client_address
from .auth.views import bp as auth_bp
from .cite.views import bp as cite_bp
from .registration.views import bp as registration_bp
from .resolve.negotiation import mentions_citation
from .resolve.views import bp as resolve_bp
from .trace.views import bp as trace_bp

#: The settings holding a limit, checked at start-up.
LIMIT_SETTINGS = (
    "RATELIMIT_KEY_CHECKS",
    "RATELIMIT_RESOLVER_SERVICE",
    "RATELIMIT_LOGIN",
    "RATELIMIT_API",
    "RATELIMIT_TRACE",
    "RATELIMIT_REFERENCES",
)
#: The scope under which reference checks count their IBIs.
REFERENCES_SCOPE = "references"
#: A stalled Redis must not hold requests: past this, the limits are counted in memory (see init_app).
REDIS_OPTIONS = {"socket_timeout": REDIS_TIMEOUT_SECONDS, "socket_connect_timeout": REDIS_TIMEOUT_SECONDS}
#: Endpoints that resolve on demand, never from the cache: each sends messages to every Archive.
ON_DEMAND_RESOLUTIONS = {"api.run_trace", "trace.run_trace", "api.cite_api", "cite.cite_page", "cite.download"}
RESOLVE_ENDPOINT = "resolve.resolve"
LOGIN_ENDPOINT = "auth.login"


def archive_of_request() -> str:
    """The normalized ``archiveserviceibi`` of a resolver-service request; empty (not counted) if none."""
    try:
        values = [pair.value for pair in parse_query(request.query_string) if pair.name == "archiveserviceibi"]
        return "archive:" + normalize_service_ibi(values[0]) if values else ""
    except ParseError:
        return ""


def _refused_key_check(response: Response) -> bool:
    return response.status_code == 403


def _failed_login(response: Response) -> bool:
    return response.status_code != 302


def _asks_for_citation() -> bool:
    """``GET /<IBI>`` with a citation type in ``Accept``: a citation, made like the Cite page's."""
    return request.endpoint == RESOLVE_ENDPOINT and mentions_citation(request.headers.get("Accept", ""))


def _not_on_demand_resolution() -> bool:
    """Only a request that resolves counts: the Cite page without an IBI is just the form."""
    if _asks_for_citation():
        return False
    if request.endpoint not in ON_DEMAND_RESOLUTIONS:
        return True
    return request.method == "GET" and not request.args.get("ibi")


def _limit(name: str) -> Callable[[], str]:
    return lambda: current_app.config[name]


def reference_budget() -> Callable[[], str | None]:
    """The per-IBI budget of this client's reference check (``RATELIMIT_REFERENCES``): each call
    takes one IBI and answers ``None``, or, once the limit is reached, the refusal in words.

    It counts in the limiter's own storage (Redis shared by every node when configured, this
    worker's memory when it is down), so a list split over several requests shares one budget.
    """
    limiter: Limiter = current_app.extensions["ibiportal.limiter"]
    if not limiter.enabled:
        return lambda: None
    setting = current_app.config["RATELIMIT_REFERENCES"]
    items: list[RateLimitItem] = parse_many(setting)
    client = client_address()

    def take() -> str | None:
        strategy = limiter.limiter  # the in-memory fallback while the storage is down
        for item in items:
            if not strategy.hit(item, REFERENCES_SCOPE, client):
                reset = strategy.get_window_stats(item, REFERENCES_SCOPE, client).reset_time
                wait = max(1, int(reset - time.time()))
                return f"at most {setting} IBIs are checked for your address; check again in {wait} s"
        return None

    return take


def check_settings(app: Flask) -> None:
    """A limit that does not parse stops the start-up, naming its variable."""
    for name in LIMIT_SETTINGS:
        value = app.config[name]
        try:
            if not parse_many(value):
                raise ValueError(value)
        except ValueError as error:
            raise ValueError(
                f"IBIPORTAL_{name} must be a rate limit such as '10/minute' or '5 per second', not {value!r}"
            ) from error


def init_app(app: Flask) -> Limiter:
    """Create this app's limiter and attach the limits of the module docstring."""
    check_settings(app)
    storage_uri = app.config["RATELIMIT_STORAGE_URI"]
    if storage_uri == "memory://" and app.config["REDIS_URL"]:
        storage_uri = app.config["REDIS_URL"]  # one budget across every worker and node
    limiter = Limiter(
        client_address,
        storage_uri=storage_uri,
        storage_options=REDIS_OPTIONS if storage_uri.startswith("redis") else {},
        headers_enabled=True,
        # Storage (Redis) down: the same limits counted in this worker's memory, one WARNING,
        # storage tried again with backoff; without this, every request logged a traceback and
        # no limit held (an outage is the moment a flood does most harm).
        in_memory_fallback_enabled=True,
        swallow_errors=True,
        enabled=app.config["RATELIMIT_ENABLED"],
    )
    limiter.init_app(app)
    # Not limited, and not even looked at: the limiter's per-request work was a quarter of a
    # cached resolution's (benchmarks/cache.py).
    limiter.request_filter(lambda: request.endpoint == RESOLVE_ENDPOINT and not _asks_for_citation())
    app.extensions["ibiportal.limiter"] = limiter
    if not limiter.enabled:
        return limiter

    def message(what: str, setting: str) -> Callable[[], str]:
        """The refusal in words: what was counted, the limit, and when to try again."""

        def text() -> str:
            current = limiter.current_limit
            wait = max(1, int(current.reset_at - time.time())) if current is not None else 60
            return f"too many {what}: at most {current_app.config[setting]}; try again in {wait} s"

        return text

    limiter.limit(
        _limit("RATELIMIT_RESOLVER_SERVICE"), scope="resolver-service",
        error_message=message("requests from your address", "RATELIMIT_RESOLVER_SERVICE"),
    )(registration_bp)
    limiter.limit(
        _limit("RATELIMIT_KEY_CHECKS"), scope="key-checks-by-client", deduct_when=_refused_key_check,
        error_message=message("wrong registration keys from your address", "RATELIMIT_KEY_CHECKS"),
    )(registration_bp)
    limiter.limit(
        _limit("RATELIMIT_KEY_CHECKS"), scope="key-checks-by-archive", key_func=archive_of_request,
        deduct_when=_refused_key_check,
        error_message=message("wrong registration keys for this archiveserviceibi", "RATELIMIT_KEY_CHECKS"),
    )(registration_bp)
    limiter.limit(
        _limit("RATELIMIT_LOGIN"), scope="login", methods=["POST"], deduct_when=_failed_login,
        exempt_when=lambda: request.endpoint != LOGIN_ENDPOINT,
        error_message=message("failed logins from your address", "RATELIMIT_LOGIN"),
    )(auth_bp)
    limiter.shared_limit(
        _limit("RATELIMIT_API"), scope="api",
        error_message=message("API requests from your address", "RATELIMIT_API"),
    )(api_bp)
    on_demand = limiter.shared_limit(
        _limit("RATELIMIT_TRACE"), scope="trace",
        exempt_when=_not_on_demand_resolution,
        error_message=message("traces and citations from your address", "RATELIMIT_TRACE"),
    )
    for blueprint in (api_bp, trace_bp, cite_bp, resolve_bp):
        on_demand(blueprint)
    return limiter
