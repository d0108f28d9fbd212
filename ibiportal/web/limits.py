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
                           distinct request of a list counts once, taken
                           when the check starts (:func:`reference_budget`);
                           the rest of a list beyond the limit is "not
                           checked"
``RATELIMIT_TEXT``         KiB of text sent to be read: extract, classify,     5120/minute
                           batch conversion, Check references and Convert's
                           batch, API and pages together; a request costs
                           its size (:func:`text_cost`), so one 1 MB text
                           costs what a thousand small ones do
=========================  ==================================================  =============

Once a failure limit is reached, every request it covers is refused until the window
ends, the right key or password included: that is what stops guessing. A limit on the key
checks of one ``archiveserviceibi`` also lets a stranger delay that Archive's inclusion for
a minute by guessing wrong keys; the Archive retries (§7.2 asks it to include itself on
every start) and its key stays safe.

Not limited: ``GET /<persistent URL>`` (resolution is the portal's main job and must take
the load test's traffic), pages, and static files. A blueprint may declare requests
:meth:`Rules.unmetered`: the limiter then does not look at them at all.

Each blueprint declares its own limits (:func:`declare`, next to its views); this module holds
the limiter, the settings and the words of a refusal, and knows no blueprint.

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
from typing import Any

from flask import Blueprint, Flask, current_app, request
from flask.blueprints import BlueprintSetupState
from flask_limiter import Limiter, RequestLimit
from limits import RateLimitItem, parse_many

from .. import metrics
from ..application.references import Allowance, Budget
from ..config import Settings
from ..i18n import N_
from ..application.outage import REDIS_TIMEOUT_SECONDS
from .context import client_address, settings
from .i18n import gettext, translate

#: The most a request costs against ``RATELIMIT_TEXT`` (KiB): 1 MiB, the most text one request is
#: read for (``ibi.batch.MAX_BYTES``); a larger body (a PDF, whose text is far smaller) costs this.
TEXT_COST_MAX = 1024
#: The scope under which reference checks count their IBIs.
REFERENCES_SCOPE = "references"
#: A stalled Redis must not hold requests: past this, the limits are counted in memory (see init_app).
REDIS_OPTIONS = {"socket_timeout": REDIS_TIMEOUT_SECONDS, "socket_connect_timeout": REDIS_TIMEOUT_SECONDS}
#: The key of the app's limiter in ``app.extensions``.
LIMITER = "ibiportal.limiter"
#: The key in ``app.extensions`` of the tests that make a request unmetered (:meth:`Rules.unmetered`),
#: and in a request's WSGI environ of their answer.
UNMETERED = "ibiportal.unmetered"


class Rules:
    """What a blueprint's declaration uses: the app's limiter and settings (a limit is the value
    of its ``RATELIMIT_*`` setting), and limits with the refusal in words (what was counted, the
    limit, and when to try again)."""

    def __init__(self, limiter: Limiter, unmetered_when: list[Callable[[], bool]], settings: Settings) -> None:
        self.limiter = limiter
        self.unmetered_when = unmetered_when
        self.settings = settings

    def _message(self, what: str, limit: str) -> Callable[[], str]:
        def text() -> str:
            current = self.limiter.current_limit
            wait = max(1, int(current.reset_at - time.time())) if current is not None else 60
            return gettext("too many %(what)s: at most %(limit)s; try again in %(wait)s s",
                           what=translate(what), limit=limit, wait=wait)

        return text

    def unmetered(self, when: Callable[[], bool]) -> None:
        """Requests for which ``when()`` holds are not seen by the limiter at all: not counted, no
        ``X-RateLimit-*`` headers. Flask-Limiter's own ``request_filter`` is asked only after the
        limiter's per-request work, which cost a third of a cached resolution's view
        (benchmarks/cache.py); these requests skip its hooks (:func:`_skip_unmetered`)."""
        self.unmetered_when.append(when)

    def limit(self, limit: str, what: str, **options: Any):
        """A limit of its own on the blueprint it decorates (``limit``: a setting's value)."""
        return self.limiter.limit(limit, error_message=self._message(what, limit), **options)

    def shared(self, limit: str, what: str, scope: str, **options: Any):
        """One budget shared by every blueprint it decorates under ``scope`` (``limit``: a setting's value)."""
        return self.limiter.shared_limit(limit, scope=scope, error_message=self._message(what, limit), **options)

    def text_read(self, counts: Callable[[], bool]):
        """``RATELIMIT_TEXT``: KiB of text sent to be read, API and pages together, each request
        costing its size (:func:`text_cost`): reading a text costs by its length, so one request
        of 1 MB must weigh what a thousand small ones do (eight of them at once held the workers for
        minutes). ``counts`` says whether this request reads a text."""
        return self.shared(self.settings.ratelimit_text, N_("KiB of text to read from your address"), "text",
                           exempt_when=lambda: not counts(), cost=text_cost)

    def on_demand(self, counts: Callable[[], bool]):
        """``RATELIMIT_TRACE``: traces and citations, API and pages together; each one sends
        messages to every Archive, bypassing the cache. ``counts`` says whether this request is one."""
        return self.shared(self.settings.ratelimit_trace, N_("traces and citations from your address"), "trace",
                           exempt_when=lambda: not counts())


def declare(blueprint: Blueprint) -> Callable[[Callable[[Rules], None]], Callable[[Rules], None]]:
    """``@declare(bp)`` on a function of :class:`Rules` that puts the blueprint's limits on it,
    when the blueprint is registered on an app whose limiter is enabled (:func:`init_app` runs first)."""

    def wrap(attach: Callable[[Rules], None]) -> Callable[[Rules], None]:
        def on_register(state: BlueprintSetupState) -> None:
            limiter = state.app.extensions[LIMITER]
            if limiter.enabled:
                attach(Rules(limiter, state.app.extensions[UNMETERED], settings(state.app)))

        blueprint.record_once(on_register)
        return attach

    return wrap


def reference_budget() -> Budget:
    """The per-IBI budget of this client's reference check (``RATELIMIT_REFERENCES``): a call
    takes up to ``count`` IBIs at once, as many as each limit has left, and says why not the rest.

    It counts in the limiter's own storage (Redis shared by every node when configured, this
    worker's memory when it is down), so a list split over several requests shares one budget.
    A check asks once for all its IBIs: a few round trips to Redis per check (what is left, then
    the hit), not one per IBI. Another check of this address taking what was left between the two
    gets this one nothing rather than more than the limit.
    """
    limiter: Limiter = current_app.extensions["ibiportal.limiter"]
    if not limiter.enabled:
        return lambda count: Allowance(count)
    setting = settings().ratelimit_references
    items: list[RateLimitItem] = parse_many(setting)
    client = client_address()

    def take(count: int) -> Allowance:
        strategy = limiter.limiter  # the in-memory fallback while the storage is down
        left = [strategy.get_window_stats(item, REFERENCES_SCOPE, client).remaining for item in items]
        granted = min(count, *left)
        if granted and not all(strategy.hit(item, REFERENCES_SCOPE, client, cost=granted) for item in items):
            granted = 0  # another check of this address took them meanwhile
        if granted == count:
            return Allowance(count)
        metrics.rate_limited(REFERENCES_SCOPE)
        limiting = [item for item, remaining in zip(items, left) if remaining < count] or items
        reset = max(strategy.get_window_stats(item, REFERENCES_SCOPE, client).reset_time for item in limiting)
        wait = max(1, int(reset - time.time()))
        return Allowance(granted, N_("at most %(limit)s IBIs are checked for your address; check again in %(wait)s s",
                                     limit=setting, wait=wait))

    return take


def text_cost() -> int:
    """What this request costs against ``RATELIMIT_TEXT``: the KiB it sends, rounded up (its
    body, by ``Content-Length``, and its query string), at least 1 and at most
    :data:`TEXT_COST_MAX`. Known before anything is read; a body of unknown length (chunked)
    costs the most."""
    if request.content_length is None and request.headers.get("Transfer-Encoding", "").lower() == "chunked":
        return TEXT_COST_MAX
    size = (request.content_length or 0) + len(request.query_string)
    return min(TEXT_COST_MAX, max(1, -(-size // 1024)))


def check_settings(given: Settings) -> None:
    """A limit that does not parse stops the start-up, naming its variable; so does a
    ``RATELIMIT_TEXT`` under :data:`TEXT_COST_MAX`, which would never let the largest text be read."""
    limits = {"RATELIMIT_KEY_CHECKS": given.ratelimit_key_checks,
              "RATELIMIT_RESOLVER_SERVICE": given.ratelimit_resolver_service, "RATELIMIT_LOGIN": given.ratelimit_login,
              "RATELIMIT_API": given.ratelimit_api, "RATELIMIT_TRACE": given.ratelimit_trace,
              "RATELIMIT_REFERENCES": given.ratelimit_references, "RATELIMIT_TEXT": given.ratelimit_text}
    for name, value in limits.items():
        try:
            items = parse_many(value)
            if not items:
                raise ValueError(value)
        except ValueError as error:
            raise ValueError(
                f"IBIPORTAL_{name} must be a rate limit such as '10/minute' or '5 per second', not {value!r}"
            ) from error
        if name == "RATELIMIT_TEXT" and min(item.amount for item in items) < TEXT_COST_MAX:
            raise ValueError(f"IBIPORTAL_RATELIMIT_TEXT counts KiB of text and one request may send "
                             f"{TEXT_COST_MAX}: each of its limits must be at least {TEXT_COST_MAX}, not {value!r}")


def init_app(app: Flask) -> Limiter:
    """Create this app's limiter; the blueprints registered after it declare their limits.
    Flask-Limiter reads ``RATELIMIT_ENABLED`` from ``app.config`` itself, over what it is given:
    ``create_app`` leaves the setting's value there."""
    given = settings(app)
    check_settings(given)
    storage_uri = given.ratelimit_storage_uri
    if storage_uri == "memory://" and given.redis_url:
        storage_uri = given.redis_url  # one budget across every worker and node
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
        enabled=given.ratelimit_enabled,
        on_breach=_count_refusal,
    )
    limiter.init_app(app)
    app.extensions[LIMITER] = limiter
    app.extensions[UNMETERED] = _skip_unmetered(app, limiter)
    return limiter


def _count_refusal(breached: RequestLimit) -> None:
    """Every refusal counted (``ibiportal_rate_limit_refusals_total``), labelled by the part of
    the portal refusing (its blueprint: a handful of values, whoever asks)."""
    metrics.rate_limited(request.blueprint or "portal")


def _skip_unmetered(app: Flask, limiter: Limiter) -> list[Callable[[], bool]]:
    """Wrap the limiter's three request hooks (check before the view, headers after it, its
    context's reset at teardown) so that they do nothing for a request the returned list's tests
    call unmetered (:meth:`Rules.unmetered`). The hooks are told apart by belonging to
    ``limiter``, not by Flask-Limiter's private names; a version that registers others stops
    the start-up here rather than metering what it should not."""
    whens: list[Callable[[], bool]] = []

    def unmetered() -> bool:
        """Asked once per request, by the first hook that runs; the answer is kept in its environ."""
        environ = request.environ
        answer = environ.get(UNMETERED)
        if answer is None:
            answer = environ[UNMETERED] = any(when() for when in whens)
        return answer

    def belongs(hook: Callable) -> bool:
        return getattr(hook, "__self__", None) is limiter or getattr(hook, "args", ())[:1] == (limiter,)

    def before(hook: Callable[[], None]) -> Callable[[], None]:
        return lambda: None if unmetered() else hook()

    def after(hook: Callable[[Any], Any]) -> Callable[[Any], Any]:
        return lambda response: response if unmetered() else hook(response)

    def teardown(hook: Callable[[BaseException | None], None]) -> Callable[[BaseException | None], None]:
        return lambda error=None: None if unmetered() else hook(error)

    wrapped = 0
    for hooks, wrap in ((app.before_request_funcs, before), (app.after_request_funcs, after),
                        (app.teardown_request_funcs, teardown)):
        functions = hooks.get(None, [])
        for index, hook in enumerate(functions):
            if belongs(hook):
                functions[index] = wrap(hook)
                wrapped += 1
    if wrapped != (3 if limiter.enabled else 0):  # a limiter switched off registers none
        raise RuntimeError(f"Flask-Limiter registered {wrapped} request hooks, not the 3 this module wraps: "
                           "check ibiportal/web/limits.py against the version in requirements.txt")
    return whens
