"""Running a resolution for a request: which Archives, how to reach them, where the trace goes.

Shared by ``GET /<persistent URL>``, ``POST /api/v1/trace`` and the Trace page; the engine
itself (``ibiportal.resolver.engine``) knows nothing of Flask.
"""
from __future__ import annotations

import json
import logging
import re
import secrets
import time
from concurrent.futures import Future
from dataclasses import asdict, astuple, dataclass, replace
from enum import StrEnum
from datetime import datetime, timezone

from flask import current_app, request, url_for

from ..errors import ParseError
from ..ibi.url import PersistentUrl
from ..resolver.addresses import client_ip_list
from ..resolver.cache import CachedOutcome, CachedRedirect, CacheKey, cached_outcome, depends_on
from ..resolver.diagnosis import NotFoundDiagnosis, diagnose
from ..resolver.engine import ClientInfo, Resolver, ResolverSettings, joined
from ..resolver.trace import Resolution, Trace, TraceStep
from ..resolver.transport import ArchiveEndpoint, Route, local_endpoint
from ..storage.database import Storage
from ..storage.redis_flight import Published
from ..storage.registry import ArchiveStore
from ..storage.traces import TraceStore
from .context import get_storage, known_prefix_pairs
from .services import get_demo_archives, get_executor, get_own_local_archive, get_transports
from .services import get_acknowledger, get_notice_recorder, get_pending_notices, get_redis_flight
from .services import get_resolution_cache, get_single_flight
from .services import resolution_changes

log = logging.getLogger(__name__)

#: What a stored trace keeps of each Archive's answer, in characters (and as much of its pairs):
#: enough for any answer of the standard's examples many times over.
STORED_ANSWER_CHARS = 16_384


class ArchiveGroup(StrEnum):
    """The demo Archives, the live ones (registered Archives and the portal's own), or both.
    The values are what the Trace form and API take as ``archives``."""

    DEMO = "demo"
    LIVE = "live"
    ALL = "all"


@dataclass(frozen=True)
class ArchiveSet:
    """Which Archives a resolution asks: a group, and whether the faulty demo Archives
    (``DemoArchive.faulty``) join it, which only a trace asks for (they exist to show a timeout
    or garbage on the Trace page, never to a reader following a link)."""

    group: ArchiveGroup
    include_faulty: bool = False

    @classmethod
    def parse(cls, archives: object, include_faulty: object = False) -> ArchiveSet:
        """The Trace form's or API's ``archives`` and ``include_faulty`` as an Archive set, or a
        ParseError naming the field that is wrong and what it takes."""
        try:
            group = ArchiveGroup(archives)
        except ValueError:
            raise ParseError(f"archives must be one of {', '.join(ArchiveGroup)}, not {archives!r}",
                             field="archives") from None
        if not isinstance(include_faulty, bool):
            raise ParseError("include_faulty must be true or false (whether to ask the faulty demo Archives too)",
                             field="include_faulty")
        return cls(group, include_faulty)


@dataclass(frozen=True)
class StoredResolution:
    """A resolution, the id of its stored trace (the permalink), and why it found nothing
    (``diagnosis``); ``joined`` when it shares the outcome of an identical request's resolution
    instead of asking the Archives itself (a follower's own, or the outcome a leader in another
    worker published, which carries the leader's trace id: :func:`from_published`)."""

    trace_id: str
    resolution: Resolution
    joined: bool = False
    diagnosis: NotFoundDiagnosis | None = None


def archive_endpoints(archives: ArchiveSet) -> list[ArchiveEndpoint]:
    """The endpoints of the Archives of ``archives``, in the order they are asked."""
    demo = [local_endpoint(archive) for archive in get_demo_archives().values()
            if archives.include_faulty or not archive.faulty]
    if archives.group is ArchiveGroup.DEMO:
        return demo
    live = [local_endpoint(get_own_local_archive())]
    live += [
        ArchiveEndpoint(archive.address, archive.service_ibi, archive.address, Route.HTTP,
                        read_timeout=current_app.config["ARCHIVE_READ_TIMEOUT"])
        for archive in ArchiveStore(get_storage()).included_archives()
    ]
    return live if archives.group is ArchiveGroup.LIVE else demo + live


def stored_trace(body: dict) -> dict:
    """A trace's JSON as stored: each Archive's answer and its pairs cut at
    :data:`STORED_ANSWER_CHARS`, with a note saying so, so that one trace stays small whatever
    the Archives send (the transport reads up to 256 KiB of each, and there may be many)."""
    for step in body["trace"]["steps"]:
        raw = step.get("raw_answer")
        if raw is not None and len(raw) > STORED_ANSWER_CHARS:
            step["raw_answer"] = raw[:STORED_ANSWER_CHARS]
            step["notes"] = [*step["notes"], f"the stored answer is cut at {STORED_ANSWER_CHARS:,} of its {len(raw):,} characters"]
        pairs = step.get("pairs")
        total = sum(len(name) + len(value) for name, value in pairs or ())
        if total > STORED_ANSWER_CHARS:
            kept, room = [], STORED_ANSWER_CHARS
            for name, value in pairs:
                if room <= len(name):
                    break
                kept.append([name, value[:room - len(name)]])
                room -= len(name) + len(value)
            step["pairs"] = kept
            step["notes"] = [*step["notes"], f"the stored pairs are cut at {STORED_ANSWER_CHARS:,} of their {total:,} characters"]
    return body


def default_selection() -> ArchiveSet:
    """What ``GET /<persistent URL>`` asks: every Archive, or only live ones when the demo is off."""
    return ArchiveSet(ArchiveGroup.ALL if current_app.config["DEMO_ARCHIVES"] else ArchiveGroup.LIVE)


def request_client() -> ClientInfo:
    """Table 8.6 from the request: the client then its proxies (trusted ones only), and Accept-Language."""
    ips = client_ip_list(
        request.remote_addr,
        request.headers.get("X-Forwarded-For"),
        current_app.config["TRUSTED_PROXIES"],
    )
    return ClientInfo(ips, request.headers.get("Accept-Language"))


def requested_client(client_ip: object = None, accept_language: object = None) -> ClientInfo:
    """The client to resolve as: the request's own, or the ``client_ip`` / ``accept_language`` given.

    ``client_ip`` is one IP address or the list of Table 8.10 (the user's, then its proxies',
    separated by spaces or commas); a part that is no IP is an error naming it and its
    1-based position. ``accept_language`` replaces the request's header when not ``None``.
    """
    client = request_client()
    if client_ip:
        text = str(client_ip)
        ips: list[str] = []
        for match in re.finditer(r"[^\s,]+", text):
            parsed = client_ip_list(match[0], None, ())
            if not parsed:
                raise ParseError(f"client_ip {match[0]!r} is not an IP address", match.start() + 1, "client_ip")
            ips.extend(parsed)
        client = ClientInfo(tuple(ips), client.language_preference)
    if accept_language is not None:
        if not isinstance(accept_language, str):
            raise ParseError("accept_language must be text such as 'pt-BR,en;q=0.5'", field="accept_language")
        client = ClientInfo(client.ip_addresses, accept_language)
    return client


def with_original(url: str, require_original: object) -> str:
    """``require_original`` adds ``ibiurl.requireditemstatus=Original`` (Table 8.3) unless present."""
    if not require_original or "ibiurl.requireditemstatus=" in url:
        return url
    return url + ("&" if "?" in url else "?") + "ibiurl.requireditemstatus=Original"


def resolve_and_store(persistent_url: str, archives: ArchiveSet, client: ClientInfo,
                      parsed: PersistentUrl | None = None) -> StoredResolution:
    """Resolve (never from a cache) and keep the trace for its permalink; ``parsed`` is
    ``persistent_url`` when the caller has parsed it already.

    The stored trace is the resolution's JSON plus ``request``: how it was asked for (the
    Archives chosen, whether the faulty demo ones were included, the client's IP list and
    Accept-Language, the time), so that the Trace page can show it and run it again with the
    same options; and for a not-found, ``diagnosis``: why, with the registry as it was then
    (a permalink read later must still explain that resolution, not today's registry).
    """
    resolver = Resolver(
        archive_endpoints(archives),
        get_transports(),
        settings=ResolverSettings(resolver_base=request.url_root),
        executor=get_executor(),
        notices=get_pending_notices(),
    )
    resolution = resolver.resolve(persistent_url, client, parsed=parsed)
    stored = _store(persistent_url, archives, client, resolution)
    if resolution.pending_notice is not None:
        _record_when_it_comes(stored.trace_id, resolution.pending_notice)
    return stored


def _record_when_it_comes(trace_id: str, notice: Future[TraceStep]) -> None:
    """Once the notice (6) the redirect went out without comes, it replaces the stored trace's
    "acknowledgment pending" step (from the notice recorder's thread)."""
    setting, recorder = current_app.config["DATABASE"], get_notice_recorder()
    notice.add_done_callback(lambda done: recorder.submit(_record_notice, setting, trace_id, done.result()))


def _record_notice(setting: str, trace_id: str, notice: TraceStep) -> None:
    """Write the notice into the stored trace, cut as every stored answer is; a failure is logged
    (a pool thread would otherwise drop it silently)."""
    step = stored_trace({"trace": {"steps": [notice.to_dict()]}})["trace"]["steps"][0]
    try:
        storage = Storage(setting)
        try:
            TraceStore(storage).record_notice(trace_id, step)
        finally:
            storage.close()
    except Exception:  # noqa: BLE001 - any failure: logged with its traceback, the trace keeps "pending"
        log.exception("the notice for trace %s could not be recorded", trace_id)


def _store(persistent_url: str, archives: ArchiveSet, client: ClientInfo, resolution: Resolution,
           known_diagnosis: NotFoundDiagnosis | None = None) -> StoredResolution:
    """Keep the trace; a joined resolution asked no Archive itself, so it keeps the diagnosis of
    the resolution it joined (``known_diagnosis``)."""
    trace_id = secrets.token_urlsafe(12)
    outcome = "found" if resolution.found else resolution.alert.reason.value
    asked = {
        "archives": archives.group,
        "include_faulty": archives.include_faulty,
        "client_ip": " ".join(client.ip_addresses),
        "accept_language": client.language_preference,
        "traced_at": datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
    }
    diagnosis = known_diagnosis or diagnosis_of(resolution)
    body = {**resolution.to_dict(), "request": asked}
    if diagnosis is not None:
        body["diagnosis"] = diagnosis.to_dict()
    config = current_app.config
    TraceStore(get_storage()).save_trace(
        trace_id, persistent_url, outcome, stored_trace(body), config["TRACE_RETENTION"], config["TRACE_BYTES"],
    )
    return StoredResolution(trace_id, resolution, diagnosis=diagnosis)


def diagnosis_of(resolution: Resolution) -> NotFoundDiagnosis | None:
    """Why a resolution found nothing, against the registry as it is now (``None`` if it found)."""
    if resolution.found:
        return None
    return diagnose(resolution, ArchiveStore(get_storage()).archives(), known_prefix_pairs())


# -- GET /<persistent URL> only: the cache of outcomes and single flight -------------------------
# resolve_and_store above never reads or fills them: the trace API and the Trace page call it, and
# a trace must show the messages of that very resolution.


def cached(persistent_url: str) -> tuple[CachedOutcome, str] | None:
    """The outcome cached for this request and ``"hit"``, or the previous one and ``"stale"``
    while an identical request is resolving it again; a redirect's acknowledgment (5) is sent
    again to the Archive whose URL it is. ``None`` on a miss or with the cache off
    (ibiportal.resolver.cache)."""
    cache = get_resolution_cache()
    if cache is None:
        return None
    key, changes = _cache_key(persistent_url), resolution_changes()
    outcome, state = cache.get(key, changes), "hit"
    if outcome is None and get_single_flight().running(key):
        outcome, state = cache.get_stale(key, changes), "stale"
    if outcome is None:
        return None
    if isinstance(outcome, CachedRedirect) and outcome.acknowledgment is not None:
        get_acknowledger().send(outcome.acknowledgment)
    return outcome, state


def resolve_and_cache(persistent_url: str, parsed: PersistentUrl, client: ClientInfo) -> StoredResolution:
    """After a miss: :func:`resolve_and_store` with the default Archives, its redirect or stable
    alert kept for the next identical requests with its trace permalink. Identical requests that
    arrive while it runs wait for it and share its outcome (ibiportal.resolver.single_flight; with
    Redis, across workers and nodes too: ibiportal.storage.redis_flight); each of them stores a
    trace that says so and links the one it joined."""
    key = _cache_key(persistent_url)
    started = time.monotonic()
    shared = get_single_flight().run(key, lambda: _resolve_and_keep(key, persistent_url, parsed, client))
    leader = shared.result
    if not (shared.joined or leader.joined):
        return leader
    resolution = joined(leader.resolution, trace_permalink(leader.trace_id), round((time.monotonic() - started) * 1000, 1))
    if resolution.acknowledgment is not None:
        get_acknowledger().send(resolution.acknowledgment)
    stored = _store(persistent_url, default_selection(), client, resolution, known_diagnosis=leader.diagnosis)
    return StoredResolution(stored.trace_id, resolution, joined=True, diagnosis=leader.diagnosis)


def _resolve_and_keep(key: CacheKey, persistent_url: str, parsed: PersistentUrl, client: ClientInfo) -> StoredResolution:
    """This worker's resolution of ``key``, or, with Redis, the outcome of the identical one another
    worker or node is running (``joined``); kept in this worker's cache either way, so that every
    worker the burst reached answers the next identical requests itself."""
    cache, flight = get_resolution_cache(), get_redis_flight()
    archives = default_selection()
    if cache is None and flight is None:
        return resolve_and_store(persistent_url, archives, client, parsed)
    changes = resolution_changes()  # read first: an Archive included or the item changed meanwhile wins
    if flight is None:
        stored = resolve_and_store(persistent_url, archives, client, parsed)
    else:
        # the cache's key as of these changes: an Archive included meanwhile starts a new flight
        shared = flight.run(json.dumps([*astuple(key), changes.generation, changes.last]),
                            lambda: resolve_and_store(persistent_url, archives, client, parsed), published)
        stored = from_published(shared.outcome) if isinstance(shared, Published) else shared
    if cache is not None:
        outcome = cached_outcome(stored.resolution, trace_permalink(stored.trace_id), stored.diagnosis)
        if outcome is not None:
            cache.put(key, changes, outcome, depends_on(stored.resolution, str(parsed.ibi)))
    return stored


def published(stored: StoredResolution) -> dict:
    """What a follower in another worker or node needs of a leader's resolution, as JSON: the
    outcome, the id of the trace it links, the diagnosis, and the Archive its redirect
    acknowledges again (the endpoint, which a rebuilt resolution otherwise lacks). Of the trace only
    the (3) steps, without the Archives' answers and the request URLs, and the (7) steps travel: the
    cache and the diagnosis read the former's statuses, :func:`joined` the latter; and the (4) steps,
    which name the IBIs the loop followed (the cache drops the outcome when one changes). The
    whole trace is in the shared database, behind the permalink."""
    resolution = stored.resolution
    light = Trace(tuple(replace(step, raw_answer=None, pairs=None, request_url=None)
                        for step in resolution.trace.steps if step.number in (3, 4, 7)))
    endpoint = resolution.acknowledged
    return {
        "trace_id": stored.trace_id,
        "resolution": replace(resolution, trace=light).to_dict(),
        "acknowledged": None if endpoint is None else asdict(endpoint),
        "diagnosis": None if stored.diagnosis is None else stored.diagnosis.to_dict(),
    }


def from_published(outcome: dict) -> StoredResolution:
    """The inverse of :func:`published`, as the leader's ``joined`` resolution."""
    resolution = Resolution.from_dict(outcome["resolution"])
    endpoint = outcome["acknowledged"]
    if endpoint is not None:
        archive = ArchiveEndpoint(**{**endpoint, "transport": Route(endpoint["transport"])})
        resolution = replace(resolution, acknowledged=archive)
    diagnosis = outcome["diagnosis"]
    return StoredResolution(outcome["trace_id"], resolution, joined=True,
                            diagnosis=None if diagnosis is None else NotFoundDiagnosis.from_dict(diagnosis))


def trace_permalink(trace_id: str) -> str:
    """The permalink of a stored trace; a hit's is that of its entry (the key has scheme and host)."""
    return url_for("api.get_trace", trace_id=trace_id, _external=True)


def _cache_key(persistent_url: str) -> CacheKey:
    """The request's key: what :func:`request_client` and :func:`default_selection` are made of
    (read from the WSGI environment: a hit is a few dozen microseconds of work in all)."""
    environ, config = request.environ, current_app.config
    return CacheKey(
        persistent_url, environ.get("REMOTE_ADDR"), environ.get("HTTP_X_FORWARDED_FOR"),
        tuple(config["TRUSTED_PROXIES"]), environ.get("HTTP_ACCEPT_LANGUAGE"), default_selection().group,
    )
