"""From what a user typed to a citation: resolve ``:(oai_dc)``, read the record, cite it.

The use case of the Cite page, its downloads, ``GET /api/v1/cite`` and a ``GET /<IBI>`` that
asks for a citation type. The steps:

1. the input, read once by the caller (:meth:`CiteRequest.parse`): the item's own persistent
   URL — what the citation prints — and the same with ``GetMetadata(oai_dc)`` added, whose
   resolution answers the URL of the item's oai_dc record (file 003, Table 8.2, §10.2);
2. resolve the ``:(oai_dc)`` URL with the portal's resolver (:class:`~.resolving.Resolving`: its
   trace is stored, so every answer can link to it);
3. get the record at the URL the resolution found: when that URL is on this portal (the demo
   Archives and the portal's own Archive serve their records here), the record is written in
   process by the Archive that serves it, from the same item store its pages read (an HTTP
   request to ourselves could wait forever on a single worker). The demo Archives playing the
   standard's (``mtc-m16c.sid.inpe.br``, …) answer their real hosts' URLs, which are not
   reachable offline: their records are written in process too. Any other URL is fetched, one
   exchange, with the portal's ``requests`` transport, which keeps the resolver's guarantees:
   its SSRF guard (``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES``), IP pinning, timeouts, no redirects
   and a size cap;
4. read the record defensively (:func:`ibiportal.citation.from_oai_dc`) and cite it.

A bad input is a :class:`~ibiportal.errors.ParseError` naming the ``ibi`` field; anything that
goes wrong after it (not found, deleted, an Archive's bad answer) is a :class:`CiteProblem`
with a sentence for the user, an HTTP status and the trace's id.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from ..archive.demo import item_with_metadata_at, metadata_place
from ..archive.model import Item
from ..archive.oai_dc import oai_dc_xml
from ..archive.own import metadata_ibi
from ..archive.service import ArchiveService
from ..citation import CitationRecord, Citations, OaiDcRecord, citations, from_oai_dc
from ..errors import IbiError, ParseError
from ..i18n import N_
from ..ibi.classify import read_url
from ..ibi.compose import compose
from ..ibi.conversion import convert
from ..ibi.identifier import ibi_form
from ..ibi.modifiers import GET_LAST_EDITION, Verb
from ..ibi.url import PersistentUrl
from ..resolver.engine import ClientInfo
from ..resolver.statuses import ALERT_STATUS
from ..resolver.trace import AlertReason, Resolution
from ..resolver.http_transport import HttpTransport
from ..resolver.transport import ARCHIVE_TIMEOUTS
from .resolving import Asked, Resolving, Site, StoredResolution

if TYPE_CHECKING:
    from . import Holdings

#: The verb added to the item's URL (Table 8.4): its metadata in the oai_dc format.
OAI_DC = Verb("GetMetadata", format="oai_dc")
#: Verbs that name something other than the item itself, dropped from the cited URL.
_NOT_THE_ITEM = frozenset({"GetMetadata", "GetFileList"})

#: HTTP status of a problem after the resolution: the Archive's record could not be used.
BAD_GATEWAY = 502


@dataclass(frozen=True)
class CiteRequest:
    """The item's persistent URL (cited) and the ``:(oai_dc)`` one (resolved), from the input."""

    item_url: PersistentUrl
    metadata_url: PersistentUrl

    @classmethod
    def parse(cls, text: str | None, resolver_base: str) -> CiteRequest:
        """Read an IBI or a persistent URL, in any form the recogniser reads (``IBI: <…>.``,
        ``/ibi/``, ``-TDI``, …); errors name the ``ibi`` field and the character. The URLs are
        on the resolver the input names, else on ``resolver_base``."""
        text = (text or "").strip()
        if not text:
            raise ParseError(
                N_("Enter an IBI (8JMKD3MGP8W/34PGRBS or sid.inpe.br/mtc-m18@80/2009/02.16.17.46)"
                   " or a persistent URL (http://urlib.net/8JMKD3MGP8W/34PGRBS)"),
                field="ibi",
            )
        try:
            given, _ = read_url(text, "ibi")
            verbs = [verb for verb in given.verbs if verb.name not in _NOT_THE_ITEM]
            original = given.required_item_status is not None
            base = given.resolver if given.resolver not in (None, "/") else resolver_base
            item_url = compose(given.ibi, verbs, original=original, base=base)
            metadata_url = compose(given.ibi, [*verbs, OAI_DC], original=original, base=base)
        except ParseError as exc:
            raise ParseError(exc.message, exc.position if exc.field in (None, "ibi") else None, "ibi") from exc
        return cls(item_url, metadata_url)


@dataclass(frozen=True)
class Suggestion:
    """The last edition of an item whose own answer has no metadata, and that has some (§10.2)."""

    ibi: str
    persistent_url: str
    reason: str

    def to_dict(self) -> dict:
        return {"ibi": self.ibi, "persistent_url": self.persistent_url, "reason": self.reason}


class CiteProblem(IbiError):
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
class CiteResult:
    """A citation and where it came from."""

    record: CitationRecord
    citations: Citations
    metadata: OaiDcRecord
    metadata_url: str
    oai_dc_url: str
    trace_id: str


class Citing:
    """The Cite use case (module docstring). Its collaborators, each named: ``clock``, the time
    in UTC (a citation's access date); ``resolving``, the resolve use case (the ``:(oai_dc)``
    resolution and its trace); ``holdings``, the Archives this process answers for at an address
    of the portal (their records written in process); ``demo_archives``, whether the demo
    Archives take part (IBIPORTAL_DEMO_ARCHIVES); ``http``, the ``requests`` transport a record
    elsewhere is fetched with; ``prefix_pairs``, the prefix table the IBI's other form is
    converted with."""

    def __init__(self, *, clock: Callable[[], datetime], resolving: Resolving, holdings: Callable[[str], Holdings],
                 demo_archives: bool, http: HttpTransport, prefix_pairs: Callable[[], list[tuple[str, ...]]]) -> None:
        self.clock = clock
        self.resolving = resolving
        self.holdings = holdings
        self.demo_archives = demo_archives
        self.http = http
        self.prefix_pairs = prefix_pairs

    def cite(self, wanted: CiteRequest, client: ClientInfo, site: Site) -> CiteResult:
        """The citation of the item ``wanted`` names."""
        stored = self._resolve(wanted.metadata_url, client, site)
        resolution = stored.resolution
        if not resolution.found:
            alert = resolution.alert
            raise CiteProblem(
                N_("No oai_dc metadata for %(ibi)s: %(reason)s", ibi=str(wanted.item_url.ibi), reason=alert.message),
                ALERT_STATUS[alert.reason],
                stored.trace_id, self._fall_forward(wanted, resolution, client, site),
            )
        try:
            metadata = from_oai_dc(self.oai_dc_record(resolution.url, site))
        except ParseError as exc:
            raise CiteProblem(N_("The record at %(url)s cannot be read: %(reason)s", url=resolution.url, reason=exc.message),
                              BAD_GATEWAY, stored.trace_id) from exc
        except CiteProblem as problem:
            raise CiteProblem(problem.message, problem.status, stored.trace_id) from None
        forms = self._ibi_forms(str(wanted.item_url.ibi), metadata.all("identifier"))
        record = metadata.citation_record(wanted.item_url.canonical_symbols(), *forms)
        today = self.clock().date()  # the access date the styles print (NBR 6023's "Acesso em")
        return CiteResult(record, citations(record, today), metadata, wanted.metadata_url.canonical_symbols(),
                          resolution.url, stored.trace_id)

    def cite_or_last_edition(self, wanted: CiteRequest, client: ClientInfo,
                             site: Site) -> tuple[CiteResult, CiteProblem | None]:
        """The citation of ``wanted`` or, when it has no metadata of its own but its last edition
        has (:meth:`_fall_forward`, file 003 §10.2), the last edition's, with the problem that says
        why: a reader who follows Cite from an earlier edition (Convert offers Cite for any IBI)
        gets something to cite, told which edition it is. The API and content negotiation call
        :meth:`cite` and keep the 404 and its suggestion, for a program to decide."""
        try:
            return self.cite(wanted, client, site), None
        except CiteProblem as problem:
            if problem.suggestion is None:
                raise
            try:
                return self.cite(CiteRequest.parse(problem.suggestion.ibi, site.resolver_base), client, site), problem
            except CiteProblem:
                raise problem from None

    def _resolve(self, url: PersistentUrl, client: ClientInfo, site: Site) -> StoredResolution:
        """Resolve ``url`` as the trace shows it, on this request's own root."""
        resolving = self.resolving
        return resolving.trace(Asked(url.canonical_symbols(site.root), url), resolving.default_archives, client, site)

    def _fall_forward(self, wanted: CiteRequest, resolution: Resolution, client: ClientInfo,
                      site: Site) -> Suggestion | None:
        """When an Archive holds the item but its answer has no metadata, the last edition's
        metadata, as ``<ibi>!:(oai_dc)`` asks for it (file 003, §10.2; an answer about ``…:(oai_dc)``
        is filtered to that relation, so it does not show ``ibi.nextedition``): if that resolves
        through a later edition, the last edition — the IBI its final round asked about — is
        offered instead. Only then is a second resolution made (part of the same request)."""
        item_url = wanted.item_url
        if (resolution.alert.reason not in (AlertReason.NOT_FOUND, AlertReason.RELATION_MISSING)
                or GET_LAST_EDITION in (v.name for v in item_url.verbs)):
            return None
        if not any(name == "ibi" for step in resolution.trace.numbered(3) for name, _ in step.pairs or ()):
            return None  # no Archive holds the item: it has no edition either
        verbs = [*item_url.verbs, Verb(GET_LAST_EDITION), OAI_DC]
        forward = compose(item_url.ibi, verbs, original=item_url.required_item_status is not None)
        stored = self._resolve(forward, client, site)
        asked = [step.ibi for step in stored.resolution.trace.numbered(3) if step.ibi]
        if not stored.resolution.found or not asked:
            return None
        last = asked[-1]
        if last.casefold() == str(item_url.ibi).casefold():
            return None
        forms = self._forms_converted(last)
        ibi = forms.get("ibip") or last
        url = compose(ibi, base=site.resolver_base).canonical_symbols()
        reason = N_("%(ibi)s has no oai_dc metadata of its own, but it has a later edition: "
                    "its last edition, %(last)s, has. Cite that edition instead?", ibi=str(item_url.ibi), last=ibi)
        return Suggestion(ibi, url, reason)

    # -- the record ------------------------------------------------------------------------------

    def oai_dc_record(self, url: str, site: Site) -> bytes | str:
        """The oai_dc record at ``url``: written in process when an Archive of this process serves
        it, else fetched; a :class:`CiteProblem` when there is none."""
        path = _portal_path(url, site)
        holdings = self.holdings(site.portal_url)
        if path is not None:
            return self._written(self._local_item(url, path, site), site)
        if self.demo_archives:
            item = item_with_metadata_at(holdings.demo.values(), url)
            if item is not None:
                return self._written(item, site)
        exchange = self.http.fetch(url, ARCHIVE_TIMEOUTS)
        if exchange.failure is not None:
            raise CiteProblem(N_("The record at %(url)s could not be fetched: %(reason)s", url=url, reason=exchange.error),
                              BAD_GATEWAY)
        if exchange.status != 200:
            raise CiteProblem(N_("The record at %(url)s could not be fetched: HTTP status %(status)s",
                                 url=url, status=exchange.status), BAD_GATEWAY)
        return exchange.body or b""

    @staticmethod
    def _written(item: Item, site: Site) -> str:
        return oai_dc_xml(item, site.resolver_base.rstrip("/"))

    def _local_item(self, url: str, path: str, site: Site) -> Item:
        """The item whose oai_dc record ``url``, a page of this portal at ``path``, is: an own
        item's (:func:`ibiportal.archive.own.metadata_ibi`) or a demo item's
        (:func:`ibiportal.archive.demo.metadata_place`), from its Archive's store."""
        holdings = self.holdings(site.portal_url)
        service: ArchiveService | None = None
        ibi = metadata_ibi(path)
        if ibi is not None:
            service = holdings.own
        elif (place := metadata_place(path)) is not None:
            archive = holdings.demo.get(place[0])
            service, ibi = (archive.service if archive else None), place[1]
        if service is None or ibi is None:
            raise CiteProblem(N_("The Archive answered %(url)s, a page of this portal that is not an oai_dc record", url=url),
                              BAD_GATEWAY)
        try:
            item = service.store.find(ibi)
        except ParseError:
            item = None
        if item is None or item.dc is None:
            raise CiteProblem(N_("The Archive answered %(url)s, but it holds no oai_dc record there", url=url), BAD_GATEWAY)
        return item

    # -- the IBI cited -------------------------------------------------------------------------

    def _ibi_forms(self, typed: str, identifiers: tuple[str, ...]) -> tuple[str, str | None]:
        """The IBI to cite (its IBIp form when known) and its repository-name form (when known).

        The record's ``dc:identifier`` values are the persistent URLs of the item's forms (the
        portal's own records list both); they are used when the typed IBI is one of them — with
        a modifier such as ``!`` the record may be another item's. Else the conversion table.
        """
        listed = _forms_listed(identifiers)
        if typed.casefold() not in (ibi.casefold() for ibi in listed.values()):
            listed = self._forms_converted(typed)
        forms = {**listed, ibi_form(typed): typed}
        return forms.get("ibip") or typed, forms.get("rep")

    def _forms_converted(self, typed: str) -> dict[str, str]:
        """``{"rep": …, "ibip": …}`` of ``typed`` from the conversion table, the unknown ones left out."""
        try:
            conversion = convert(typed, self.prefix_pairs())
        except IbiError:
            return {}
        return {form: ibi for form, ibi in (("rep", conversion.rep), ("ibip", conversion.ibip)) if ibi}


def _portal_path(url: str, site: Site) -> str | None:
    """The path of ``url`` inside this portal (its own address or the request's root), else None."""
    target = urlsplit(url)
    for root in (site.portal_url, site.root):
        base = urlsplit(root)
        prefix = base.path.rstrip("/")
        same_server = (target.scheme, target.netloc.lower()) == (base.scheme, base.netloc.lower())
        if same_server and target.path.startswith(prefix + "/"):
            return unquote(target.path[len(prefix):])
    return None


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
