"""From what a user typed to a citation: resolve ``:(oai_dc)``, read the record, cite it.

Shared by the Cite page, its downloads and ``GET /api/v1/cite``. The steps:

1. read the input (an IBI of either form, or a persistent URL) and build two persistent
   URLs: the item's own — what the citation prints — and the same with ``GetMetadata(oai_dc)``
   added, whose resolution answers the URL of the item's oai_dc record (file 003, Table 8.2,
   §10.2);
2. resolve the ``:(oai_dc)`` URL with the portal's resolver (its trace is stored, so every
   answer can link to it);
3. get the record at the URL the resolution found. When that URL is on this portal (the
   demo Archives and the portal's own Archive serve their records here), the record is
   written in process from the same item store the Archive pages read — an HTTP request to
   ourselves could wait forever on a single worker. Any other URL is fetched with the
   resolver's HTTP transport: its SSRF guard (``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES``), IP
   pinning, timeouts, no redirects and a size cap;
4. read the record defensively (:func:`ibiportal.citation.from_oai_dc`) and cite it.

A bad input is a :class:`~ibiportal.errors.ParseError` naming the ``ibi`` field; anything
that goes wrong after it (not found, deleted, an Archive's bad answer) is a
:class:`CiteProblem` with a sentence for the user, an HTTP status and the trace's id.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone
from urllib.parse import unquote, urlsplit

from flask import current_app, request, url_for
from werkzeug.exceptions import HTTPException

from ...archive.oai_dc import oai_dc_xml
from ...archive.service import ArchiveService
from ...citation import CitationRecord, Citations, OaiDcRecord, citations, from_oai_dc
from ...errors import IbiError, ParseError
from ...ibi.classify import read_url
from ...ibi.compose import compose
from ...ibi.identifier import ibi_form
from ...ibi.conversion import convert
from ...ibi.modifiers import GET_LAST_EDITION, Verb
from ...protocol.messages import parse_request_url
from ...ibi.url import PersistentUrl
from ...resolver.trace import AlertReason, Resolution
from ...resolver.transport import ARCHIVE_TIMEOUTS
from ..context import canonical_base, known_prefix_pairs, resolver_base
from ..statuses import ALERT_STATUS
from ..resolution import default_selection, request_client, resolve_and_store, trace_permalink
from ..host import portal_url
from ..services import get_demo_archives, get_http_transport, get_own_archive

#: The verb added to the item's URL (Table 8.4): its metadata in the oai_dc format.
OAI_DC = Verb("GetMetadata", format="oai_dc")
#: Verbs that name something other than the item itself, dropped from the cited URL.
_NOT_THE_ITEM = frozenset({"GetMetadata", "GetFileList"})
#: HTTP status of a problem after the resolution: the Archive's record could not be used.
BAD_GATEWAY = 502


class CiteProblem(Exception):
    """Why no citation could be made, for the user; ``trace_id`` names the stored trace;
    ``suggestion`` an edition that can be cited instead (:class:`Suggestion`)."""

    def __init__(self, message: str, status: int, trace_id: str | None = None,
                 suggestion: Suggestion | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.trace_id = trace_id
        self.suggestion = suggestion


@dataclass(frozen=True)
class Suggestion:
    """The last edition of an item whose own answer has no metadata, and that has some (§10.2)."""

    ibi: str
    persistent_url: str
    reason: str

    def to_dict(self) -> dict:
        return {"ibi": self.ibi, "persistent_url": self.persistent_url, "reason": self.reason}


@dataclass(frozen=True)
class CiteResult:
    """A citation and where it came from."""

    record: CitationRecord
    citations: Citations
    metadata: OaiDcRecord
    metadata_url: str
    oai_dc_url: str
    trace_id: str


@dataclass(frozen=True)
class CiteRequest:
    """The item's persistent URL (cited) and the ``:(oai_dc)`` one (resolved), from the input."""

    item_url: PersistentUrl
    metadata_url: PersistentUrl

    @classmethod
    def parse(cls, text: str | None) -> CiteRequest:
        """Read an IBI or a persistent URL, in any form the recogniser reads (``IBI: <…>.``,
        ``/ibi/``, ``-TDI``, …); errors name the ``ibi`` field and the character."""
        text = (text or "").strip()
        if not text:
            raise ParseError(
                "Enter an IBI (8JMKD3MGP8W/34PGRBS or sid.inpe.br/mtc-m18@80/2009/02.16.17.46)"
                " or a persistent URL (http://urlib.net/8JMKD3MGP8W/34PGRBS)",
                field="ibi",
            )
        try:
            given, _ = read_url(text, "ibi")
            verbs = [verb for verb in given.verbs if verb.name not in _NOT_THE_ITEM]
            original = given.required_item_status is not None
            base = canonical_base(given)
            item_url = compose(given.ibi, verbs, original=original, base=base)
            metadata_url = compose(given.ibi, [*verbs, OAI_DC], original=original, base=base)
        except ParseError as exc:
            raise ParseError(exc.message, exc.position if exc.field in (None, "ibi") else None, "ibi") from exc
        return cls(item_url, metadata_url)


def cite(text: str | None) -> CiteResult:
    """The citation of the item ``text`` names (see the module docstring for the steps)."""
    wanted = CiteRequest.parse(text)
    stored = resolve_and_store(wanted.metadata_url.canonical_symbols(request.url_root), default_selection(), request_client())
    resolution = stored.resolution
    if not resolution.found:
        alert = resolution.alert
        raise CiteProblem(
            f"No oai_dc metadata for {wanted.item_url.ibi}: {alert.message}", ALERT_STATUS[alert.reason], stored.trace_id,
            _fall_forward(wanted, resolution),
        )
    try:
        metadata = from_oai_dc(oai_dc_record(resolution.url))
    except ParseError as exc:
        raise CiteProblem(f"The record at {resolution.url} cannot be read: {exc}", BAD_GATEWAY, stored.trace_id) from exc
    except CiteProblem as problem:
        raise CiteProblem(problem.message, problem.status, stored.trace_id) from None
    forms = _ibi_forms(str(wanted.item_url.ibi), metadata.all("identifier"))
    record = metadata.citation_record(wanted.item_url.canonical_symbols(), *forms)
    return CiteResult(record, citations(record, today()), metadata, wanted.metadata_url.canonical_symbols(), resolution.url, stored.trace_id)


def today() -> date:
    """The access date the styles print (NBR 6023's "Acesso em"): today, in UTC."""
    return datetime.now(timezone.utc).date()


def _fall_forward(wanted: CiteRequest, resolution: Resolution) -> Suggestion | None:
    """When an Archive holds the item but its answer has no metadata, the last edition's metadata,
    as ``<ibi>!:(oai_dc)`` asks for it (file 003, §10.2; an answer about ``…:(oai_dc)`` is filtered
    to that relation, so it does not show ``ibi.nextedition``): if that resolves through a later
    edition, the last edition — the IBI its final hop asked about — is offered instead. Only then
    is a second resolution made (it is part of the same citation request)."""
    if resolution.alert.reason is not AlertReason.NOT_FOUND or GET_LAST_EDITION in (v.name for v in wanted.item_url.verbs):
        return None
    if not any(name == "ibi" for step in resolution.trace.numbered(3) for name, _ in step.pairs or ()):
        return None  # no Archive holds the item: it has no edition either
    verbs = [*wanted.item_url.verbs, Verb(GET_LAST_EDITION), OAI_DC]
    forward = compose(wanted.item_url.ibi, verbs, original=wanted.item_url.required_item_status is not None)
    stored = resolve_and_store(forward.canonical_symbols(request.url_root), default_selection(), request_client())
    asked = [step.request_url for step in stored.resolution.trace.numbered(3) if step.request_url]
    if not stored.resolution.found or not asked:
        return None
    try:
        last = parse_request_url(asked[-1]).message.ibi
    except ParseError:
        return None
    if last.casefold() == str(wanted.item_url.ibi).casefold():
        return None
    forms = _forms_converted(last)
    ibi = forms.get("ibip") or last
    url = compose(ibi, base=resolver_base()).canonical_symbols()
    reason = (f"{wanted.item_url.ibi} has no oai_dc metadata of its own, but it has a later edition: "
              f"its last edition, {ibi}, has. Cite that edition instead?")
    return Suggestion(ibi, url, reason)


def trace_links(trace_id: str) -> dict[str, str]:
    """The trace's permalinks: ``api`` (JSON) and ``page`` (the Trace page)."""
    return {"api": trace_permalink(trace_id), "page": url_for("trace.trace_view", trace_id=trace_id)}


def _ibi_forms(typed: str, identifiers: tuple[str, ...]) -> tuple[str, str | None]:
    """The IBI to cite (its IBIp form when known) and its repository-name form (when known).

    The record's ``dc:identifier`` values are the persistent URLs of the item's forms (the
    portal's own records list both); they are used when the typed IBI is one of them — with a
    modifier such as ``!`` the record may be another item's. Else the conversion table.
    """
    listed = _forms_listed(identifiers)
    if typed.casefold() not in (ibi.casefold() for ibi in listed.values()):
        listed = _forms_converted(typed)
    forms = {**listed, ibi_form(typed): typed}
    return forms.get("ibip") or typed, forms.get("rep")


def _forms_listed(identifiers: tuple[str, ...]) -> dict[str, str]:
    """``{"rep": …, "ibip": …}`` of the persistent URLs among ``identifiers``."""
    forms = {}
    for identifier in identifiers:
        try:
            ibi = str(PersistentUrl.parse(identifier).ibi)
        except ParseError:
            continue
        forms[ibi_form(ibi)] = ibi
    return forms


def _forms_converted(typed: str) -> dict[str, str]:
    """``{"rep": …, "ibip": …}`` of ``typed`` from the conversion table, the unknown ones left out."""
    try:
        conversion = convert(typed, known_prefix_pairs())
    except IbiError:
        return {}
    return {form: ibi for form, ibi in (("rep", conversion.rep), ("ibip", conversion.ibip)) if ibi}


def oai_dc_record(url: str) -> bytes | str:
    """The oai_dc record at ``url``: written in process when on this portal, else fetched."""
    path = _portal_path(url)
    if path is not None:
        return _local_record(url, path)
    demo = _demo_record(url)
    if demo is not None:
        return demo
    exchange = get_http_transport().fetch(url, ARCHIVE_TIMEOUTS)
    if exchange.failure is not None:
        raise CiteProblem(f"The record at {url} could not be fetched: {exchange.error}", BAD_GATEWAY)
    if exchange.status != 200:
        raise CiteProblem(f"The record at {url} could not be fetched: HTTP status {exchange.status}", BAD_GATEWAY)
    return exchange.body or b""


def _demo_record(url: str) -> str | None:
    """The record of a demo Archive item whose oai_dc URL is ``url``: the standard's Archives
    (``mtc-m16c.sid.inpe.br``, …) answer their real hosts' URLs, as §10 prints them, which are not
    reachable offline; a demo Archive is in process, so its record is written from its store."""
    if not current_app.config["DEMO_ARCHIVES"]:
        return None
    for archive in get_demo_archives().values():
        for item in archive.service.store.items():
            if item.metadata is not None and item.metadata.oai_dc_url == url and item.dc is not None:
                return oai_dc_xml(item, resolver_base().rstrip("/"))
    return None


def _portal_path(url: str) -> str | None:
    """The path of ``url`` inside this portal (PORTAL_URL or the request's own root), else None."""
    target = urlsplit(url)
    for root in (portal_url(), request.url_root):
        base = urlsplit(root)
        prefix = base.path.rstrip("/")
        same_server = (target.scheme, target.netloc.lower()) == (base.scheme, base.netloc.lower())
        if same_server and target.path.startswith(prefix + "/"):
            return unquote(target.path[len(prefix):])
    return None


def _route(path: str) -> tuple[str, dict] | None:
    """The endpoint and arguments this portal routes a GET of ``path`` to, if any."""
    try:
        return current_app.url_map.bind("localhost").match(path, method="GET")
    except HTTPException:  # no route, another method, or a redirect (e.g. a missing slash)
        return None


def _local_record(url: str, path: str) -> str:
    """The oai_dc record that ``url``, a page of this portal, serves — from its Archive's store.

    Only the two routes that serve oai_dc records are read: an own item's
    ``/archive/items/<ibi>/oai_dc.xml`` and a demo item's ``…/col/<ibi>/metadata.xml``
    (``ibiportal.web.archive.views``).
    """
    route = _route(path)
    endpoint, arguments = route if route else ("", {})
    service: ArchiveService | None = None
    if endpoint == "archive.own_item_metadata":
        service, ibi = get_own_archive(), arguments["ibi"]
    elif endpoint == "archive.demo_item_resource" and arguments["rest"].endswith("/metadata.xml"):
        archive = get_demo_archives().get(arguments["name"])
        service = archive.service if archive else None
        ibi = arguments["rest"].removesuffix("/metadata.xml")
    if service is None:
        raise CiteProblem(f"The Archive answered {url}, a page of this portal that is not an oai_dc record", BAD_GATEWAY)
    try:
        item = service.store.find(ibi)
    except ParseError:
        item = None
    if item is None or item.dc is None:
        raise CiteProblem(f"The Archive answered {url}, but it holds no oai_dc record there", BAD_GATEWAY)
    return oai_dc_xml(item, resolver_base().rstrip("/"))
