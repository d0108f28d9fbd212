"""The portal's settings: one typed, frozen :class:`Settings`, read from ``IBIPORTAL_*`` environment
variables, with working defaults.

Each setting is declared once, as a field of :class:`Settings`: its type, its default, the
environment variable that sets it and a one-line description. Reading, validating at start-up,
the Flask configuration (``DEFAULTS``, :func:`from_environment`) and the documentation's table
(:func:`settings_table`, checked against docs by a test) all come from that one declaration, so a
setting cannot be read one way and documented another.

The defaults give a *demo* identification subsystem (see ``DEMO_MINT_HOST``): identifiers minted
with it are well-formed but name a server that is not a real URLib subsystem, and the UI says so.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from functools import cached_property
from ipaddress import IPv4Network, IPv6Network, ip_network
from typing import Any, get_type_hints

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
#: More gunicorn workers than this add memory (each has its own caches and pools) but little
#: throughput: every request is short CPU work in Python, and SQLite takes one writer at a time.
MAX_DEFAULT_WORKERS = 8
#: Names a portal on this machine is reached by.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")

#: Flask's own settings the portal fixes, with no variable. Session cookie: never readable by
#: scripts, not sent on cross-site subrequests, 8 hours at most. No request body is read beyond
#: 8 MB (413): the largest legitimate one is a 1 MB CSV batch posted again for its download.
FIXED = {
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "PERMANENT_SESSION_LIFETIME": 8 * 3600,
    "MAX_CONTENT_LENGTH": 8 * 1024 * 1024,
}



def setting(default: Any, doc: str, *, env: str = "", shown: str = "", read: Callable[[str, str], Any] | None = None,
            check: Callable[[Any, str], None] | None = None, flask: bool = True) -> Any:
    """Declare one setting: its ``default``, its one-line ``doc`` (Markdown), the variable when it
    is not ``IBIPORTAL_<NAME>``, the default as the documentation writes it when the value alone
    says too little (``shown``), how its text is read when not as its type says (``read``), a
    ``check`` of the value read, and whether Flask's configuration carries it (``flask=False`` for
    what only the server reads)."""
    return field(default=default, metadata={"doc": doc, "env": env, "shown": shown, "read": read, "check": check,
                                            "flask": flask})


def _retry_after(value: int, name: str) -> None:
    if value == 0:
        raise ValueError(f"{name} must be 1 or more seconds: Retry-After: 0 asks for a retry at once")


#: The oai-identifier scheme's repositoryIdentifier (OAI-PMH guidelines, oai-identifier.xsd): a domain name.
_DOMAIN_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9-]*(\.[a-zA-Z][a-zA-Z0-9-]*)+")


def _domain_name(value: str, name: str) -> None:
    if value and not _DOMAIN_NAME.fullmatch(value):
        raise ValueError(f"{name} must be a domain name such as urlib.net (the oai-identifier scheme's "
                         f"repositoryIdentifier), not {value!r}")


def _log_format(value: str, name: str) -> None:
    if value not in LOG_FORMATS:
        raise ValueError(f"{name} must be text or json, not {value!r}")


def _networks(value: tuple[str, ...], name: str) -> None:
    networks(list(value), name.removeprefix("IBIPORTAL_"))


def _at_least_one(value: str, name: str) -> int:
    """A count that cannot be zero (processes, threads)."""
    if not value.strip().isdigit() or int(value) < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
    return int(value)


def _number(value: str) -> float:
    """The number a text writes, NaN when it writes none (every range check then refuses it)."""
    try:
        return float(value)
    except ValueError:
        return math.nan


def _hours(value: str, name: str) -> float:
    """A number of hours, 0 or more: ``24``, ``0.5``, ``0``."""
    hours = _number(value)
    if not 0 <= hours < math.inf:
        raise ValueError(f"{name} must be a number of hours, 0 or more, like 24 or 0.5, not {value!r}")
    return hours


@dataclass(frozen=True)
class Settings:
    """Every ``IBIPORTAL_*`` setting, typed; built once at start-up by :meth:`from_environment`."""

    database: str = setting(
        "", "the database: a file path (the embedded SQLite) or a URL, `sqlite:///path` or "
        "`postgresql+psycopg://user:password@host:port/db` (see [Storage and scale-out](storage.md))",
        shown="`instance/ibiportal.sqlite`")
    redis_url: str = setting(
        "", "Redis shared by several portal nodes (`redis://host:6379/0`): one rate-limit budget for all, changes "
        "that empty resolution caches reach every node at once, and identical requests share one resolution "
        "across all workers and nodes (single flight)", shown="none (one node: limits per worker, changes through a file)")
    instance: str = setting(
        "", "the node's own folder (created 0700): the default SQLite database, the generated secret key, the file "
        "through which its workers learn of changes", shown="`instance/`", flask=False)
    secret_key: str = setting(
        "", "key that signs sessions and CSRF tokens",
        shown="a random key made on first start, kept in `instance/secret_key` (mode 0600) and shared by every worker")
    session_cookie_secure: bool = setting(
        True, "session cookie only over HTTPS (`1`/`0`); browsers keep it on `http://127.0.0.1` too",
        env="IBIPORTAL_SECURE_COOKIES")
    mint_host: str = setting(DEMO_MINT_HOST, "the identification subsystem's host, for repository names (Algorithm 1)")
    mint_port: int = setting(80, "its port, for repository names (Algorithm 1)")
    mint_ip: str = setting(DEMO_MINT_IP, "its IP, for IBIp (Algorithm 5)")
    mint_ibip_port: int = setting(800, "its port, for IBIp (Algorithm 5)")
    granularity: str = setting("1", "r of the temporal distributor, seconds: 60, 1, 0.1, … 0.000001")
    resolver_base: str = setting("", "base of the persistent URLs handed out", shown="the portal's own address")
    portal_url: str = setting(
        "", "where this portal is reachable (demo and own items' pages live there)",
        shown="unset: the address each request came to, for trusted hosts only")
    trusted_hosts: tuple[str, ...] | None = setting(
        None, "comma-separated host names the portal answers for (`.inpe.br` = any under it); any other `Host` gets "
        "a 400, so a forged one can poison neither links nor cached redirects",
        shown="without `IBIPORTAL_PORTAL_URL`: `localhost`, `127.0.0.1`, `::1` and the hosts of `IBIPORTAL_BIND`; "
              "with it: any")
    archive_service_ibi: str = setting("32G4GKPW/4GR3P92", "archive service IBI of the portal's own Archive (§7.1)")
    resolver_service_ibi: str = setting(
        "J8LNKB5R7W/3FUQHC5", "the resolver service's IBI (§6.1): Archives send inclusionRequest/exclusionRequest here (§7.2)")
    admin_email: str = setting(
        "", "e-mail of the own Archive's administrator, sent to the outside resolvers it joins "
        "(`archiveadmemailaddress`, Table 7.2) and named by OAI-PMH's Identify (`adminEmail`)",
        shown="none: joining a resolver is refused until it is set; Identify names `postmaster@<host>`")
    oai_repository_id: str = setting(
        "", "the repositoryIdentifier of the own Archive's OAI-PMH identifiers, `oai:<it>:<repository name>`: a "
        "domain name such as `urlib.net`", check=_domain_name,
        shown="the host of the portal's address (`IBIPORTAL_PORTAL_URL`, else the request's trusted host)")
    demo_archives: bool = setting(
        True, "whether the well-behaved demo Archives take part in `GET /<persistent URL>` (`1`/`0`); the faulty "
        "ones (`slow`, `garbled`) never do")
    max_file_bytes: int = setting(
        100 * 1024 * 1024, "the largest file an own item may hold (`PUT /api/v1/items/<ibi>/files/<path>`, the "
        "upload page); uploads stream past the 8 MB cap on forms and JSON", shown="`104857600` (100 MB)")
    mint_requires_token: bool = setting(
        False, "minting needs an API token (`POST /api/v1/mint`) or an administrator's login (the Mint page) too "
        "(`1`/`0`); every other API write always needs a token")
    allow_private_archives: bool = setting(
        False, "let live Archives be on loopback/private/link-local addresses (`1`/`0`)")
    archive_read_timeout: float = setting(
        ARCHIVE_TIMEOUTS.read, "seconds the resolver waits for the next byte (header or body) from an included "
        "Archive before it gives up on it, `0.5` allowed; the resolution's 10 s deadline bounds every Archive anyway")
    trusted_proxies: tuple[str, ...] = setting((), "comma-separated IPs/networks whose `X-Forwarded-For` is believed",
                                               shown="none")
    trace_retention: int = setting(1000, "how many resolution traces are kept (the oldest go first)")
    trace_bytes: int = setting(
        50_000_000, "how many bytes the kept traces may take in all (the oldest go first; each stored Archive answer "
        "is cut at 16 KiB)")
    trace_repeat_seconds: int = setting(
        5, "a repeat of the same `POST /trace` (same session, same normalised URL and options) joins the trace still "
        "running, or ended less than this many seconds ago, instead of starting another (`0` = every request runs "
        "its own); the claim is a row of the database, so workers and nodes sharing it join one trace")
    resolution_cache_seconds: int = setting(30, "how long each worker serves a found redirect again (`0` = no cache)")
    negative_cache_seconds: int = setting(
        10, "how long each worker serves a stable alert again — 410 deleted, 404 not found when no Archive failed "
        "(`0` = never); any inclusion or exclusion empties it at once, a change of an item drops that item's entries")
    outage_stale_seconds: int = setting(
        STALE_SECONDS, "while the database does not answer (an outage, a restart): how long each worker still serves "
        "the redirects it has cached, as they stood (`0` = none: 503 like the rest)")
    outage_retry_after: int = setting(
        RETRY_AFTER_SECONDS, "the `Retry-After` (seconds, at least 1) of the 503 everything else answers meanwhile",
        check=_retry_after)
    ratelimit_key_checks: str = setting("10/minute", "wrong registration keys, per client IP and per Archive")
    ratelimit_resolver_service: str = setting("60/minute", "requests to the resolver service, per IP")
    ratelimit_login: str = setting("5/minute", "failed administrator logins, per IP")
    ratelimit_api: str = setting("120/minute", "`/api/v1/*` requests, per IP")
    ratelimit_trace: str = setting(
        "20/minute", "traces and citations (pages, API and `GET /<IBI>` asking for a citation type, together: each "
        "asks every Archive), per IP")
    ratelimit_references: str = setting(
        "1000/minute", "IBIs of reference lists checked (`POST /api/v1/extract?resolve=1`, the Check references page), "
        "per IP: each distinct request of a list counts once; the rest of a list beyond it is \"not checked\" (429)")
    ratelimit_text: str = setting(
        "5120/minute", "KiB of text sent to be read (extract, classify, batch conversion, the Check references and "
        "Convert batch pages, together), per IP: a request costs its size, 1 KiB at least, 1 MiB at most, charged "
        "before it is read; at least `1024`")
    parse_seconds: float = setting(
        10.0, "seconds of CPU (its thread's, so a busy machine refuses no more) one request may spend reading a text "
        "for its IBIs (5,000 IBIs take about 2.5 s); beyond, a 413 naming where it stopped")
    ratelimit_storage_uri: str = setting(
        "memory://", "where limits count (`memory://`: per worker; `redis://…` to share; `IBIPORTAL_REDIS_URL` when "
        "this is not set)", env="IBIPORTAL_RATELIMIT_STORAGE")
    ratelimit_enabled: bool = setting(True, "`0` turns rate limits off")
    pending_notices: int = setting(
        64, "notices (`notice {acknowledgment received}`) each worker awaits at once per Archive after redirecting "
        "without them; beyond, the acknowledgment is not sent (counted, logged)")
    bind: str = setting(
        "127.0.0.1:8000", "where users connect (nginx under `bin/run`, gunicorn run alone), comma-separated; their "
        "hosts are trusted")
    workers: int = setting(
        min(2 * (os.cpu_count() or 1) + 1, MAX_DEFAULT_WORKERS), "gunicorn's worker processes (see [Production](production.md))",
        shown=f"2 × cores + 1 (at most {MAX_DEFAULT_WORKERS})", read=_at_least_one, flask=False)
    threads: int = setting(
        8, "request threads per gunicorn worker; the resolver's pool of threads asking Archives is sized from it",
        read=_at_least_one)
    metrics: bool = setting(
        True, "count Prometheus metrics (`1`/`0`); `0` also makes `/metrics` a 404 for everyone (see "
        "[Metrics and logs](production.md#metrics-and-logs))")
    metrics_allow: tuple[str, ...] = setting(
        ("127.0.0.0/8", "::1"), "comma-separated client IPs/networks that may read `GET /metrics` (the client as rate "
        "limits see it: `X-Forwarded-For` believed from `IBIPORTAL_TRUSTED_PROXIES` only); every other address gets "
        "a 404", check=_networks)
    log_format: str = setting(
        "text", "`text` (the lines as always) or `json`: the app's and gunicorn's lines as one JSON object a line",
        read=lambda value, name: value.strip().lower(), check=_log_format)
    target_failures: int = setting(
        3, "failed checks in a row, each `IBIPORTAL_TARGET_RECHECK_HOURS` after the one before, that make an own "
        "item's target failing (`flask items check-targets`, see [Dead targets and usage](targets-and-usage.md))",
        read=_at_least_one)
    target_recheck_hours: float = setting(
        24.0, "hours before `flask items check-targets` asks an item's target again (`0.5` allowed; `0` = on every "
        "run)", read=_hours)
    usage: bool = setting(
        True, "count how often each item is resolved, per UTC day and modifier kind, cache hits included (`1`/`0`); "
        "no address or user agent is kept (see [Dead targets and usage](targets-and-usage.md))")
    usage_flush_seconds: float = setting(
        5.0, "seconds between a worker's flushes of its usage counts into the database (or Redis, with "
        "`IBIPORTAL_REDIS_URL`): what a worker killed outright may lose")

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings the environment (``os.environ`` by default) gives, the rest defaults; a value
        that makes no sense stops the start with a message naming the variable and the value."""
        return cls(**_read(os.environ if environ is None else environ))

    @classmethod
    def from_config(cls, config: Mapping[str, Any], instance: str = "") -> Settings:
        """The settings a Flask configuration holds (a test's ``create_app(test_config)``, or the
        environment's read into the defaults), each by its upper-case key, lists as tuples; those
        Flask does not carry (``instance``, ``workers``) given or default."""
        values = {entry.name: config[entry.name.upper()] for entry in fields(cls)
                  if entry.metadata["flask"] and entry.name.upper() in config}
        values = {name: tuple(value) if isinstance(value, list) else value for name, value in values.items()}
        return cls(**values, instance=instance)

    @cached_property
    def served_hosts(self) -> tuple[str, ...] | None:
        """The ``Host`` names the portal answers for (Flask's ``TRUSTED_HOSTS``; ``None``: any):
        ``IBIPORTAL_TRUSTED_HOSTS``, else, without ``IBIPORTAL_PORTAL_URL`` (the address is then
        taken from each request, so a forged ``Host`` must be refused), the loopback names and the
        hosts of ``IBIPORTAL_BIND``."""
        if self.trusted_hosts is None and not self.portal_url:
            return (*LOOPBACK_NAMES, *bind_hosts(self.bind))
        return self.trusted_hosts

    def flask_changes(self) -> dict[str, Any]:
        """The settings that differ from their defaults, as Flask configuration keys."""
        return flask_config({entry.name: getattr(self, entry.name) for entry in fields(self)
                             if getattr(self, entry.name) != entry.default})


def bind_hosts(bind: str) -> list[str]:
    """The hosts of ``IBIPORTAL_BIND`` (``127.0.0.1:8000,[::1]:8000`` → ``127.0.0.1``, ``::1``)."""
    hosts = []
    for address in (part.strip() for part in bind.split(",")):
        if address.startswith("unix:") or not address:
            continue
        host = address[1:].split("]", 1)[0] if address.startswith("[") else address.rsplit(":", 1)[0]
        if host and host not in ("0.0.0.0", "::"):
            hosts.append(host)
    return hosts


def _variable(entry: Field) -> str:
    return entry.metadata["env"] or f"IBIPORTAL_{entry.name.upper()}"


_TYPES = get_type_hints(Settings)


def _read(environ: Mapping[str, str]) -> dict[str, Any]:
    """Each setting the environment gives (an empty variable is unset), read as its type."""
    values: dict[str, Any] = {}
    for entry in fields(Settings):
        name = _variable(entry)
        text = environ.get(name, "")
        if not text:
            continue
        value = (entry.metadata["read"] or _READERS[_TYPES[entry.name]])(text, name)
        if entry.metadata["check"] is not None:
            entry.metadata["check"](value, name)
        values[entry.name] = value
    return values


def _text(value: str, name: str) -> str:
    return value.strip()


def _list(value: str, name: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _integer(value: str, name: str) -> int:
    if not value.strip().isdigit():
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    return int(value)


def _seconds(value: str, name: str) -> float:
    """A number of seconds greater than 0: ``5``, ``0.5``."""
    seconds = _number(value)
    if not 0 < seconds < math.inf:
        raise ValueError(f"{name} must be a number of seconds greater than 0, like 5 or 0.5, not {value!r}")
    return seconds


def _flag(value: str, name: str) -> bool:
    """``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` (any case)."""
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 1 or 0 (on or off), not {value!r}")


_READERS: dict[Any, Callable[[str, str], Any]] = {
    str: _text, int: _integer, float: _seconds, bool: _flag,
    tuple[str, ...]: _list, tuple[str, ...] | None: _list,
}


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


def flask_config(values: Mapping[str, Any]) -> dict[str, Any]:
    """Settings (by field name) as Flask configuration keys (upper case); lists where Flask and the
    views expect lists."""
    return {name.upper(): list(value) if isinstance(value, tuple) else value for name, value in values.items()
            if _FLASK[name]}


_FLASK = {entry.name: entry.metadata["flask"] for entry in fields(Settings)}

#: Every default, as Flask configuration, with Flask's fixed settings.
DEFAULTS: dict = {**FIXED, **flask_config({entry.name: entry.default for entry in fields(Settings)
                                          if entry.default is not MISSING and entry.default is not None
                                          and entry.name not in ("database", "secret_key", "instance")})}


def from_environment(environ: Mapping[str, str] | None = None) -> dict:
    """The settings the environment gives, as Flask configuration keys (the rest stay defaults)."""
    return Settings.from_environment(environ).flask_changes()


def settings_table() -> str:
    """The documentation's table of settings (Markdown, its links relative to ``docs/``), written
    from the declarations: ``docs/configuration.md`` shows it (a test keeps the two equal; write it
    again with ``bin/settings-table``)."""
    rows = ["| variable | meaning | default |", "|---|---|---|"]
    for entry in fields(Settings):
        default = entry.metadata["shown"] or _shown(entry.default)
        rows.append(f"| `{_variable(entry)}` | {entry.metadata['doc']} | {default} |")
    return "\n".join(rows) + "\n"


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "`1`" if value else "`0`"
    if isinstance(value, tuple):
        return f"`{','.join(value)}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    return f"`{value}`"
