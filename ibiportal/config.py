"""Configuration from ``IBIPORTAL_*`` environment variables, with working defaults.

The defaults give a *demo* identification subsystem (see ``DEMO_SUBSYSTEM``): identifiers
minted with it are well-formed but name a server that is not a real URLib subsystem, and the
UI says so.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from ipaddress import IPv4Network, IPv6Network, ip_network

from ibiportal.resolver.transport import ARCHIVE_TIMEOUTS
from ibiportal.storage.outage import RETRY_AFTER_SECONDS, STALE_SECONDS

DEMO_MINT_HOST = "demo.ibiportal.invalid"
DEMO_MINT_IP = "192.0.2.1"  # TEST-NET-1 (RFC 5737): documentation-only address
#: IBIPORTAL_LOG_FORMAT: gunicorn's and the app's lines as today, or one JSON object per line.
LOG_FORMATS = ("text", "json")
#: The access log's line in the text format (``gunicorn.conf.py``), which the portal's logger
#: writes itself, field by field (``ibiportal/web/access_log.py``): client, time, method, path
#: without its query, status, size, milliseconds, X-IBI-Cache, user agent, X-Forwarded-For.
ACCESS_LOG_FORMAT = ('%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms cache=%({x-ibi-cache}o)s "%(a)s" '
                     'for=%({x-forwarded-for}i)s')


def from_environment(environ: Mapping[str, str] | None = None) -> dict:
    """Read the portal's settings from the environment (``os.environ`` by default)."""
    env = os.environ if environ is None else environ
    settings: dict = {}
    names = {
        "IBIPORTAL_DATABASE": "DATABASE",
        "IBIPORTAL_SECRET_KEY": "SECRET_KEY",
        "IBIPORTAL_MINT_HOST": "MINT_HOST",
        "IBIPORTAL_MINT_PORT": "MINT_PORT",
        "IBIPORTAL_MINT_IP": "MINT_IP",
        "IBIPORTAL_MINT_IBIP_PORT": "MINT_IBIP_PORT",
        "IBIPORTAL_GRANULARITY": "GRANULARITY",
        "IBIPORTAL_RESOLVER_BASE": "RESOLVER_BASE",
        "IBIPORTAL_PORTAL_URL": "PORTAL_URL",
        "IBIPORTAL_ARCHIVE_SERVICE_IBI": "ARCHIVE_SERVICE_IBI",
        "IBIPORTAL_RESOLVER_SERVICE_IBI": "RESOLVER_SERVICE_IBI",
        "IBIPORTAL_ADMIN_EMAIL": "ADMIN_EMAIL",
        "IBIPORTAL_OAI_REPOSITORY_ID": "OAI_REPOSITORY_ID",
        "IBIPORTAL_TRUSTED_PROXIES": "TRUSTED_PROXIES",
        "IBIPORTAL_TRUSTED_HOSTS": "TRUSTED_HOSTS",
        "IBIPORTAL_BIND": "BIND",
        "IBIPORTAL_DEMO_ARCHIVES": "DEMO_ARCHIVES",
        "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "ALLOW_PRIVATE_ARCHIVES",
        "IBIPORTAL_MINT_REQUIRES_TOKEN": "MINT_REQUIRES_TOKEN",
        "IBIPORTAL_TRACE_RETENTION": "TRACE_RETENTION",
        "IBIPORTAL_TRACE_BYTES": "TRACE_BYTES",
        "IBIPORTAL_TRACE_REPEAT_SECONDS": "TRACE_REPEAT_SECONDS",
        "IBIPORTAL_MAX_FILE_BYTES": "MAX_FILE_BYTES",
        "IBIPORTAL_REDIS_URL": "REDIS_URL",
        "IBIPORTAL_SECURE_COOKIES": "SESSION_COOKIE_SECURE",
        "IBIPORTAL_RESOLUTION_CACHE_SECONDS": "RESOLUTION_CACHE_SECONDS",
        "IBIPORTAL_NEGATIVE_CACHE_SECONDS": "NEGATIVE_CACHE_SECONDS",
        "IBIPORTAL_THREADS": "THREADS",
        "IBIPORTAL_PENDING_NOTICES": "PENDING_NOTICES",
        "IBIPORTAL_RATELIMIT_ENABLED": "RATELIMIT_ENABLED",
        "IBIPORTAL_RATELIMIT_STORAGE": "RATELIMIT_STORAGE_URI",
        "IBIPORTAL_RATELIMIT_KEY_CHECKS": "RATELIMIT_KEY_CHECKS",
        "IBIPORTAL_RATELIMIT_RESOLVER_SERVICE": "RATELIMIT_RESOLVER_SERVICE",
        "IBIPORTAL_RATELIMIT_LOGIN": "RATELIMIT_LOGIN",
        "IBIPORTAL_RATELIMIT_API": "RATELIMIT_API",
        "IBIPORTAL_RATELIMIT_TRACE": "RATELIMIT_TRACE",
        "IBIPORTAL_RATELIMIT_REFERENCES": "RATELIMIT_REFERENCES",
        "IBIPORTAL_RATELIMIT_TEXT": "RATELIMIT_TEXT",
        "IBIPORTAL_PARSE_SECONDS": "PARSE_SECONDS",
        "IBIPORTAL_ARCHIVE_READ_TIMEOUT": "ARCHIVE_READ_TIMEOUT",
        "IBIPORTAL_OUTAGE_STALE_SECONDS": "OUTAGE_STALE_SECONDS",
        "IBIPORTAL_OUTAGE_RETRY_AFTER": "OUTAGE_RETRY_AFTER",
        "IBIPORTAL_METRICS": "METRICS",
        "IBIPORTAL_METRICS_ALLOW": "METRICS_ALLOW",
        "IBIPORTAL_LOG_FORMAT": "LOG_FORMAT",
    }
    for env_name, key in names.items():
        if env.get(env_name):
            settings[key] = env[env_name]
    for key in ("MINT_PORT", "MINT_IBIP_PORT", "TRACE_RETENTION", "TRACE_BYTES", "TRACE_REPEAT_SECONDS", "RESOLUTION_CACHE_SECONDS",
                "NEGATIVE_CACHE_SECONDS", "THREADS", "MAX_FILE_BYTES", "PENDING_NOTICES", "OUTAGE_STALE_SECONDS",
                "OUTAGE_RETRY_AFTER"):
        if key in settings:
            settings[key] = _integer(settings[key], key)
    if settings.get("OUTAGE_RETRY_AFTER") == 0:
        raise ValueError("IBIPORTAL_OUTAGE_RETRY_AFTER must be 1 or more seconds: Retry-After: 0 asks for a retry at once")
    if "OAI_REPOSITORY_ID" in settings and not _DOMAIN_NAME.fullmatch(settings["OAI_REPOSITORY_ID"]):
        raise ValueError("IBIPORTAL_OAI_REPOSITORY_ID must be a domain name such as urlib.net (the oai-identifier "
                         f"scheme's repositoryIdentifier), not {settings['OAI_REPOSITORY_ID']!r}")
    for key in ("ARCHIVE_READ_TIMEOUT", "PARSE_SECONDS"):
        if key in settings:
            settings[key] = _seconds(settings[key], key)
    for key in ("TRUSTED_PROXIES", "TRUSTED_HOSTS", "METRICS_ALLOW"):
        if key in settings:
            settings[key] = [p.strip() for p in settings[key].split(",") if p.strip()]
    if "METRICS_ALLOW" in settings:
        networks(settings["METRICS_ALLOW"], "METRICS_ALLOW")
    if "LOG_FORMAT" in settings:
        settings["LOG_FORMAT"] = settings["LOG_FORMAT"].strip().lower()
        if settings["LOG_FORMAT"] not in LOG_FORMATS:
            raise ValueError(f"IBIPORTAL_LOG_FORMAT must be text or json, not {env['IBIPORTAL_LOG_FORMAT']!r}")
    for key in ("DEMO_ARCHIVES", "ALLOW_PRIVATE_ARCHIVES", "SESSION_COOKIE_SECURE", "RATELIMIT_ENABLED",
                "MINT_REQUIRES_TOKEN", "METRICS"):
        if key in settings:
            settings[key] = _flag(settings[key], key)
    return settings


def networks(values: list[str], key: str) -> tuple[IPv4Network | IPv6Network, ...]:
    """IP addresses and CIDR networks (``10.0.0.0/8``, ``::1``) as networks; a bad one is named."""
    parsed = []
    for value in values:
        try:
            parsed.append(ip_network(value, strict=False))
        except ValueError:
            raise ValueError(f"IBIPORTAL_{key} must list IP addresses or networks (such as 127.0.0.1 or "
                             f"10.0.0.0/8), separated by commas; {value!r} is neither") from None
    return tuple(parsed)


#: The oai-identifier scheme's repositoryIdentifier (OAI-PMH guidelines, oai-identifier.xsd): a domain name.
_DOMAIN_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9-]*(\.[a-zA-Z][a-zA-Z0-9-]*)+")


def _integer(value: str, key: str) -> int:
    if not value.strip().isdigit():
        raise ValueError(f"IBIPORTAL_{key} must be a whole number, not {value!r}")
    return int(value)


def _seconds(value: str, key: str) -> float:
    """A number of seconds greater than 0: ``5``, ``0.5``."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise ValueError(f"IBIPORTAL_{key} must be a number of seconds greater than 0, like 5 or 0.5, not {value!r}")
    return seconds


def _flag(value: str, key: str) -> bool:
    """``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` (any case)."""
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"IBIPORTAL_{key} must be 1 or 0 (on or off), not {value!r}")


DEFAULTS: dict = {
    # SECRET_KEY: from IBIPORTAL_SECRET_KEY, else a random key kept in the instance folder
    # (see ibiportal.secret_key), shared by every worker and kept across restarts.
    # Session cookie: never readable by scripts, not sent on cross-site subrequests, only over
    # HTTPS (IBIPORTAL_SECURE_COOKIES=0 for a portal served over plain http), 8 hours at most.
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "SESSION_COOKIE_SECURE": True,
    "PERMANENT_SESSION_LIFETIME": 8 * 3600,
    # No request body is read beyond 8 MB (413): the largest legitimate one is a 1 MB CSV batch
    # posted again for its download; JSON bodies of the API are far smaller.
    "MAX_CONTENT_LENGTH": 8 * 1024 * 1024,
    # The largest file an item of the own Archive may hold (bytes; uploads stream past
    # MAX_CONTENT_LENGTH, which is for forms and JSON): 100 MB.
    "MAX_FILE_BYTES": 100 * 1024 * 1024,
    "MINT_HOST": DEMO_MINT_HOST,
    "MINT_PORT": 80,
    "MINT_IP": DEMO_MINT_IP,
    "MINT_IBIP_PORT": 800,
    "GRANULARITY": "1",
    # Base of the persistent URLs the portal hands out; empty = the portal's own address.
    "RESOLVER_BASE": "",
    # Where this portal is reachable: the demo Archives' item pages and metadata live here.
    # Empty: the address each request came to, for the hosts of TRUSTED_HOSTS only (ibiportal.web.host).
    "PORTAL_URL": "",
    # gunicorn's addresses (gunicorn.conf.py reads IBIPORTAL_BIND too): their hosts are trusted.
    "BIND": "127.0.0.1:8000",
    # The archive service IBI of the portal's own Archive (§7.1), a demo subsystem identifier.
    "ARCHIVE_SERVICE_IBI": "32G4GKPW/4GR3P92",
    # The e-mail of the own Archive's administrator, sent to the resolvers it joins
    # (archiveadmemailaddress, Table 7.2). Empty: joining a resolver is refused until it is set.
    "ADMIN_EMAIL": "",
    # The repositoryIdentifier of the own Archive's OAI-PMH identifiers (oai:<it>:<repository
    # name>). Empty: the host of the portal's address (PORTAL_URL, else the request's trusted host).
    "OAI_REPOSITORY_ID": "",
    # The resolver service IBI (§6.1): Archives send inclusionRequest/exclusionRequest here (§7.2).
    "RESOLVER_SERVICE_IBI": "J8LNKB5R7W/3FUQHC5",
    # Reverse proxies whose X-Forwarded-For is believed (IPs or CIDR networks, Table 8.6).
    "TRUSTED_PROXIES": [],
    # Whether the demo Archives take part in resolving GET /<persistent URL>.
    "DEMO_ARCHIVES": True,
    # Whether minting (API and page) needs an API token / an administrator's login too; every
    # other API write always needs a token (ibiportal.web.api.tokens). Off: anyone may mint.
    "MINT_REQUIRES_TOKEN": False,
    # Whether live Archives may be on loopback/private/link-local addresses (tests, intranets).
    "ALLOW_PRIVATE_ARCHIVES": False,
    # Seconds the resolver waits for the next byte from an included Archive before it gives up
    # on it (the trace says "read timeout"); the resolution's own deadline bounds it too.
    "ARCHIVE_READ_TIMEOUT": ARCHIVE_TIMEOUTS.read,
    # How many resolution traces are kept, and how many bytes they may take in all (the oldest
    # go first beyond either; each stored answer is cut at 16 KiB: ibiportal/storage/traces.py).
    "TRACE_RETENTION": 1000,
    "TRACE_BYTES": 50_000_000,
    # Seconds after a trace from the Trace page ended during which the same request (same
    # session, same normalised URL and options) gets that trace again instead of a new one; one
    # still running is always joined. 0 = every request runs its own (ibiportal/application/resolving.py).
    "TRACE_REPEAT_SECONDS": 5,
    # Redis shared by every node (redis://host:6379/0): one rate-limit budget across nodes and
    # workers, and changes that empty resolution caches announced to every node. Empty: none.
    "REDIS_URL": "",
    # Seconds a redirect of GET /<persistent URL> is served from each worker's cache
    # (ibiportal/resolver/cache.py); 0 = every request resolves. Including or excluding an
    # Archive empties the caches at once.
    "RESOLUTION_CACHE_SECONDS": 30,
    # Seconds a stable alert (410 deleted, 404 not found with every Archive answering) is served
    # again from the same cache; 0 = never. Short: a "not found" may be about to be minted or
    # included, and such changes empty the caches at once anyway.
    "NEGATIVE_CACHE_SECONDS": 10,
    # While the database does not answer (an outage, a restart; ibiportal/storage/outage.py):
    # seconds cached redirects are still served as they stood, 0 = none (then 503 like the rest),
    # and the Retry-After of every 503 (seconds, at least 1).
    "OUTAGE_STALE_SECONDS": STALE_SECONDS,
    "OUTAGE_RETRY_AFTER": RETRY_AFTER_SECONDS,
    # Request threads per gunicorn worker (gunicorn.conf.py); the resolver's pool of threads
    # asking Archives is sized from it (ibiportal/application/__init__.py).
    "THREADS": 8,
    # Notices (6) each worker awaits at once per Archive after redirecting without them
    # (ibiportal/resolver/acknowledging.py: PendingNotices); beyond, an acknowledgment to that
    # Archive is not sent, counted and logged (an Archive this far behind is not answering).
    "PENDING_NOTICES": 64,
    # Rate limits (ibiportal.web.limits), in Flask-Limiter's notation ("10/minute",
    # "100 per hour", "5/minute;50/day"), counted per client IP (X-Forwarded-For only from
    # TRUSTED_PROXIES). GET /<persistent URL> and static files are not limited.
    "RATELIMIT_ENABLED": True,
    # Where the counts live. memory:// counts in each worker process separately (2 gunicorn
    # workers = up to twice the limit); IBIPORTAL_REDIS_URL, when set and this is not, shares them.
    "RATELIMIT_STORAGE_URI": "memory://",
    # Failed registration-key checks at the resolver service (brute force), per client IP and,
    # separately, per archive service IBI; once reached, every key check waits (429).
    "RATELIMIT_KEY_CHECKS": "10/minute",
    # Every request to the resolver service, per client IP (each key check costs an scrypt).
    "RATELIMIT_RESOLVER_SERVICE": "60/minute",
    # Failed administrator logins, per client IP.
    "RATELIMIT_LOGIN": "5/minute",
    # The public JSON API /api/v1/*, all endpoints together, per client IP.
    "RATELIMIT_API": "120/minute",
    # POST /api/v1/trace on top of RATELIMIT_API: each one sends messages to every Archive.
    "RATELIMIT_TRACE": "20/minute",
    # IBIs checked by POST /api/v1/extract?resolve=1 (the Check references page), per client IP:
    # each distinct request of a list counts once; beyond it, the rest of the list is "not checked".
    "RATELIMIT_REFERENCES": "1000/minute",
    # Prometheus metrics (ibiportal/metrics.py): counted unless IBIPORTAL_METRICS=0, and served at
    # /metrics to the client addresses of METRICS_ALLOW only (IPs or networks; X-Forwarded-For
    # believed from TRUSTED_PROXIES, as everywhere); every other address gets a 404.
    "METRICS": True,
    "METRICS_ALLOW": ["127.0.0.0/8", "::1"],
    # Log lines (ibiportal/web/log_format.py): "text" as they always were, or "json", one object a line.
    "LOG_FORMAT": "text",
    # KiB of text sent to be read (extract, classify, batch conversion, Check references and
    # Convert's batch, API and pages together), per client IP: a request costs its size, 1 KiB
    # at least and 1 MiB at most (ibiportal.web.limits: TEXT_COST_MAX), so one reading 1 MB
    # costs what a thousand small ones do. At least 1024, so that the largest one is ever read.
    "RATELIMIT_TEXT": "5120/minute",
    # Seconds of CPU one request may spend reading a text for its IBIs (ibiportal.ibi.extract.Bounds,
    # the CPU time of its thread: a busy machine does not refuse more): beyond, a 413 naming
    # where it stopped. 5,000 IBIs take about 2.5 s.
    "PARSE_SECONDS": 10.0,
}
