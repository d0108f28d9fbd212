"""The own Archive as an OAI-PMH 2.0 data provider (``GET``/``POST /oai``), harvested as URLib's
Archives have been since 2003 (BDTD/IBICT, OAIster, LA Referencia, OpenAIRE).

One request in, one response document out: the protocol is read and written by
``ibiportal.archive.oai_pmh``, the items come from ``ibiportal.storage.oai_items``, and each
record's metadata is the own Archive's ``:(oai_dc)`` record (``archive.own.described_item``
written by ``archive.oai_dc.oai_dc_xml``, the one builder of both).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from ..archive import oai_pmh
from ..archive.model import format_timestamp
from ..archive.oai_dc import oai_dc_xml
from ..archive.oai_pmh import (ErrorCode, Header, ListQuery, OaiError, Record, Repository, Request, Resumption, Verb,
                               SETS, check_metadata_prefix, local_identifier, oai_identifier, read_request)
from ..archive.own import described_item
from ..i18n import N_, Message
from ..storage.oai_items import ListedItem, OaiItems, Selection

#: Identify's repositoryName.
REPOSITORY_NAME = "IBI Portal"
#: The set of each kind of item, by its slug (as ``minted_item.item_type`` keeps it).
_SET_OF_SLUG = {kind.slug: spec for spec, kind in SETS.items()}


@dataclass(frozen=True)
class ProviderSettings:
    """Where and as what the data provider answers: ``repository_id`` (the oai-identifier's
    repositoryIdentifier, IBIPORTAL_OAI_REPOSITORY_ID), ``base_url`` (the ``/oai`` URL),
    ``resolver_url`` (base of the persistent URLs written in the records, as ``:(oai_dc)``
    writes them) and ``admin_emails``."""

    repository_id: str
    base_url: str
    resolver_url: str
    admin_emails: tuple[str, ...]


class OaiDataProvider:
    """Answers one OAI-PMH request over the own Archive's items."""

    def __init__(self, items: OaiItems, settings: ProviderSettings) -> None:
        self.items = items
        self.settings = settings

    def answer(self, pairs: Iterable[tuple[str, str]], now: datetime,
               translate: Callable[[Message], str] = str) -> bytes:
        """The response document to the request of ``pairs`` (a query string's or a form's),
        dated ``now``; an error's message is written by ``translate`` (the reader's language)."""
        response_date = format_timestamp(now)
        request: Request | None = None
        try:
            request = read_request(pairs)
            answer = self._verb(request, response_date)
        except OaiError as error:
            return oai_pmh.document(self.settings.base_url, response_date, request, error, translate(error.message))
        return oai_pmh.document(self.settings.base_url, response_date, request, answer)

    def _verb(self, request: Request, response_date: str) -> oai_pmh.Answer:
        verb, arguments = request.verb, request.arguments
        if verb is Verb.IDENTIFY:
            earliest = self.items.earliest()
            return oai_pmh.identify(Repository(REPOSITORY_NAME, self.settings.base_url, self.settings.admin_emails,
                                               earliest[:19] + "Z" if earliest else response_date))
        if verb is Verb.LIST_SETS:
            if "resumptionToken" in arguments:
                raise OaiError(ErrorCode.BAD_RESUMPTION_TOKEN, N_("ListSets gives no resumptionToken: all its sets come at once"))
            return oai_pmh.list_sets()
        if verb is Verb.LIST_METADATA_FORMATS:
            if "identifier" in arguments and self._find(arguments["identifier"]).item.deleted:
                raise OaiError(ErrorCode.NO_METADATA_FORMATS, N_(
                    "%(identifier)s was deleted: no metadata of it are disseminated", identifier=arguments["identifier"]))
            return oai_pmh.list_metadata_formats()
        if verb is Verb.GET_RECORD:
            check_metadata_prefix(arguments["metadataPrefix"])
            return oai_pmh.get_record(self._record(self._find(arguments["identifier"])))
        return self._list(ListQuery.of(request))

    def _find(self, identifier: str) -> ListedItem:
        rep = local_identifier(self.settings.repository_id, identifier)
        found = self.items.find(rep)
        if found is None:
            raise OaiError(ErrorCode.ID_DOES_NOT_EXIST, N_("%(identifier)s is no item of this repository", identifier=identifier))
        return found

    def _list(self, query: ListQuery) -> oai_pmh.Answer:
        """One page of ListIdentifiers or ListRecords: :data:`oai_pmh.PAGE_SIZE` items after the
        query's mark, one more read to know whether the list goes on."""
        if query.set_spec is not None and query.set_spec not in SETS:
            raise OaiError(ErrorCode.NO_RECORDS_MATCH, N_("this repository has no set %(set)s", set=query.set_spec))
        selection = Selection(query.since, query.until, SETS[query.set_spec].slug if query.set_spec else None)
        page_size = oai_pmh.PAGE_SIZE
        listed = self.items.page(selection, query.after, page_size + 1)
        if not listed:
            raise OaiError(ErrorCode.NO_RECORDS_MATCH, N_("no item matches the request"))
        page, more = listed[:page_size], len(listed) > page_size
        resumption = None
        if more or query.after is not None:
            last = page[-1]
            token = query.next((last.change_key, last.row_id), len(page)).encode() if more else ""
            resumption = Resumption(token, max(self.items.count(selection), query.cursor + len(page)), query.cursor)
        if query.verb is Verb.LIST_IDENTIFIERS:
            return oai_pmh.list_identifiers([self._header(entry) for entry in page], resumption)
        return oai_pmh.list_records([self._record(entry) for entry in page], resumption)

    def _header(self, entry: ListedItem) -> Header:
        minted = entry.item
        kind = minted.bibliographic.item_type
        sets = (_SET_OF_SLUG[kind],) if kind in _SET_OF_SLUG else ()
        return Header(oai_identifier(self.settings.repository_id, minted.rep), entry.datestamp, sets, minted.deleted)

    def _record(self, entry: ListedItem) -> Record:
        if entry.item.deleted:
            return Record(self._header(entry))
        return Record(self._header(entry), oai_dc_xml(described_item(entry.item), self.settings.resolver_url))

