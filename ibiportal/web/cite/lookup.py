"""From what a user typed to a citation: resolve ``:(oai_dc)``, read the record, cite it.

Shared by the Cite page, its downloads and ``GET /api/v1/cite``. The steps:

1. read the input (:mod:`.wanted`): the item's own persistent URL — what the citation prints —
   and the same with ``GetMetadata(oai_dc)`` added, whose resolution answers the URL of the
   item's oai_dc record (file 003, Table 8.2, §10.2);
2. resolve the ``:(oai_dc)`` URL with the portal's resolver (its trace is stored, so every
   answer can link to it), here;
3. get the record at the URL the resolution found (:mod:`.records`: in process from the Archive
   that serves it when it is on this portal, else over the portal's guarded ``requests`` transport);
4. read the record defensively (:func:`ibiportal.citation.from_oai_dc`) and cite it, here.

A bad input is a :class:`~ibiportal.errors.ParseError` naming the ``ibi`` field; anything
that goes wrong after it (not found, deleted, an Archive's bad answer) is a
:class:`~.problems.CiteProblem` with a sentence for the user, an HTTP status and the trace's id.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone

from flask import request, url_for

from ...citation import CitationRecord, Citations, OaiDcRecord, citations, from_oai_dc
from ...errors import IbiError, ParseError
from ...ibi.compose import compose
from ...ibi.conversion import convert
from ...ibi.identifier import ibi_form
from ...ibi.modifiers import GET_LAST_EDITION, Verb
from ...ibi.url import PersistentUrl
from ...protocol.messages import parse_request_url
from ...resolver.trace import AlertReason, Resolution
from ...application.resolving import Asked, StoredResolution
from ..context import application, known_prefix_pairs, request_client, request_site, resolver_base
from ..statuses import ALERT_STATUS
from .problems import BAD_GATEWAY, CiteProblem, Suggestion
from .records import oai_dc_record
from .wanted import OAI_DC, CiteRequest


@dataclass(frozen=True)
class CiteResult:
    """A citation and where it came from."""

    record: CitationRecord
    citations: Citations
    metadata: OaiDcRecord
    metadata_url: str
    oai_dc_url: str
    trace_id: str


def cite(text: str | None) -> CiteResult:
    """The citation of the item ``text`` names (see the module docstring for the steps)."""
    wanted = CiteRequest.parse(text)
    stored = _resolve(wanted.metadata_url.canonical_symbols(request.url_root))
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
    if resolution.alert.reason not in (AlertReason.NOT_FOUND, AlertReason.RELATION_MISSING) or GET_LAST_EDITION in (v.name for v in wanted.item_url.verbs):
        return None
    if not any(name == "ibi" for step in resolution.trace.numbered(3) for name, _ in step.pairs or ()):
        return None  # no Archive holds the item: it has no edition either
    verbs = [*wanted.item_url.verbs, Verb(GET_LAST_EDITION), OAI_DC]
    forward = compose(wanted.item_url.ibi, verbs, original=wanted.item_url.required_item_status is not None)
    stored = _resolve(forward.canonical_symbols(request.url_root))
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


def _resolve(url: str) -> StoredResolution:
    resolving = application().resolving
    return resolving.trace(Asked(url, PersistentUrl.parse(url)), resolving.default_archives, request_client(), request_site())


def trace_links(trace_id: str) -> dict[str, str]:
    """The trace's permalinks: ``api`` (JSON) and ``page`` (the Trace page)."""
    return {"api": request_site().trace_permalink(trace_id), "page": url_for("trace.trace_view", trace_id=trace_id)}


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
