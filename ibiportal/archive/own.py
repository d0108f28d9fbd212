"""The portal's own Archive: every identifier the portal mints is one of its items.

Items are read from the portal's storage (``minted_item`` and ``item_link``) and presented
to :class:`~ibiportal.archive.service.ArchiveService` as :class:`~ibiportal.archive.model.Item`
values, so the own Archive answers the protocol exactly as the demo Archives do: state
Original, the target URL the user gave (else the portal's page for the item), oai_dc
metadata generated from the given fields for both ``:`` and ``:(oai_dc)`` (Table 8.2),
links to other IBIs as ``ibi.nextedition`` and ``ibi.translation(xx)``, and the files uploaded
to the item, served as URLib serves them below the item's directory
``/col/<repository name>/doc/`` (``parsedibiurl.filepath``, Example 9.11) and listed on the
item's file-list page (``GetFileList``, Example 9.12).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timezone
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from ..errors import ParseError
from ..citation.oai_dc import written_fields
from ..citation.types import ItemType
from ..ibi.clock import Clock, utc_now
from ..ibi.conversion import convert
from ..ibi.ibip import ibip_suffix
from ..ibi.identifier import parse_ibi
from ..ibi.prefixes import KNOWN_PREFIX_PAIRS
from ..ibi.repository import decode_rep_prefix, rep_prefix, rep_suffix
from ..ibi.minted import NEXT_EDITION, TRANSLATION, ItemLink, MintedItem
from .model import ArchiveIdentity, DublinCore, IbiForms, Item, ItemState, Metadata, url_path_encode
from ..ibi.modifiers import BIBINPE, OAI_DC
from .relation import Element, Kind, Relation
from .service import ArchiveService
from .store import ibi_key

if TYPE_CHECKING:
    from ..storage.copies import CopyRecord
    from ..storage.identifiers import ItemReads

def own_relations(item: Item) -> tuple[Relation, ...]:
    """The relations the own Archive answers for ``item`` (Algorithm 2's GLOBAL ``relações``):
    every composition of Table 9.5, ``([u [t]] | [t [u]]) [m [t]]``, so that each of Table 8.2's
    14 modifier forms resolves when its items exist.

    ``t`` is the bare ``.translation`` or one of the languages of the item and its translations
    (§9.2: an Archive leaves out the languages it holds nothing in); ``m`` is ``.metadata``,
    ``.metadata(oai_dc)`` or URLib's ``.metadata(BibINPE)`` (STANDARD.md §8). Metadata have no language here, so only their bare translation (the
    metadata themselves, Example 9.2's ``.metadata.translation``) follows them. A copy answers
    the item only: its editions and metadata are the original Archive's to tell.
    """
    if item.state is ItemState.COPY:  # the item as another Archive holds it: not its editions, nor metadata
        return _ITEM_ONLY
    if item.metadata is None:  # the archive service IBI
        return _SERVICE_RELATIONS
    languages = {language for language, _ in item.translations} | ({item.language} if item.language else set())
    return _relations_in(tuple(sorted(languages)))


_ITEM_ONLY = (Relation(),)
_SERVICE_RELATIONS = (Relation(), Relation.parse(".lastedition"))


@lru_cache(maxsize=256)
def _relations_in(languages: tuple[str, ...]) -> tuple[Relation, ...]:
    """:func:`own_relations` of an item with metadata whose translations are in ``languages``:
    made once for each set of languages (most items have none or one), the same tuple each
    time, so that what the filter keeps of it is remembered too (``ArchiveService``)."""
    lastedition = (Element(Kind.LASTEDITION),)
    translations = [(Element(Kind.TRANSLATION),), *((Element(Kind.TRANSLATION, language),) for language in languages)]
    firsts = [(), lastedition, *(lastedition + t for t in translations), *translations,
              *(t + lastedition for t in translations)]
    metadata = [(Element(Kind.METADATA, metadata_format),) for metadata_format in (None, OAI_DC, BIBINPE)]
    seconds = [(), *metadata, *(m + (Element(Kind.TRANSLATION),) for m in metadata)]
    return tuple(Relation(first + second) for first in firsts for second in seconds)


def other_spellings(key: str) -> tuple[str, ...]:
    """The other spellings of a repository name's port (STANDARD.md §8): ``…/mtc-m18@80/2009/…``,
    ``…/mtc-m18/2009/…`` and ``…/mtc-m18.80/2009/…`` name one item (file 004: ``@`` before August
    2010, ``.`` since, port 80 omitted by Algorithm 1); none for an IBIp."""
    identifier = parse_ibi(key)
    if identifier.form != "rep":
        return ()
    host, port = decode_rep_prefix(identifier.prefix)
    word, _, subdomain = host.partition(".")
    prefixes = dict.fromkeys((rep_prefix(host, port), f"{subdomain}/{word}@{port}", f"{subdomain}/{word}.{port}"))
    return tuple(str(parse_ibi(f"{prefix}/{identifier.suffix}")) for prefix in prefixes
                 if prefix != identifier.prefix)


class MintedItems(Protocol):
    """What the own Archive needs of storage (``ibiportal.storage.identifiers.IdentifierStore`` has it)."""

    def find_minted(self, rep: str | None = None, ibip: str | None = None) -> MintedItem | None: ...

    def minted_items(self) -> list[MintedItem]: ...

    def item_links(self, ibi: str) -> list[ItemLink]: ...

    def item_reads(self, ibip: str) -> ItemReads: ...

    def prefix_pairs(self) -> list[tuple[str, str]]: ...

    def together(self) -> AbstractContextManager[None]:
        """The reads made inside the block share one connection."""
        ...

    def copy_candidates(self, ibi: str, other_suffix: str) -> list[CopyRecord]: ...


class OwnItemStore:
    """An :class:`~ibiportal.archive.store.ItemStore` over the portal's minted items, the
    copies it holds of other Archives' items, and its own archive service IBI (§7.1), which
    answers as an item leading to the portal's home page."""

    def __init__(self, storage: MintedItems, portal_url: str, service_ibi: IbiForms | None = None) -> None:
        self.storage = storage
        self.portal_url = portal_url.rstrip("/")
        self.service_ibi = service_ibi

    def find(self, ibi: str) -> Item | None:
        """The item ``ibi`` names; its row and its links read on one connection."""
        key = ibi_key(ibi)
        with self.storage.together():
            return self._find(key)

    def _find(self, key: str) -> Item | None:
        minted = self.storage.find_minted(rep=key, ibip=key)
        for spelling in () if minted is not None else other_spellings(key):
            minted = self.storage.find_minted(rep=spelling)
            if minted is not None:
                break
        if minted is not None:  # a released item is held by its successor: Algorithm 2 lines 3-4 answer nothing
            return None if minted.released else self.item(minted)
        if self.service_ibi is not None and key in (ibi_key(form) for form in self.service_ibi.forms()):
            return self.service_item(self.service_ibi)
        return self.copy(key)

    def copy(self, key: str) -> Item | None:
        """The copy held of ``key``, found in either form: one query for the copies under it or
        under its date in the other form (the suffix converts exactly), and only when there are
        such, the prefix table says which is the same IBI (every IBI the Archive does not hold
        passes here, so a miss costs one query)."""
        identifier = parse_ibi(key)
        try:
            other_suffix = rep_suffix(identifier.date) if identifier.form == "ibip" else ibip_suffix(identifier.date)
        except ParseError:  # dated before 1995-08-01: no IBIp form (STANDARD.md §7), its own suffix only
            other_suffix = rep_suffix(identifier.date)
        candidates = self.storage.copy_candidates(key, other_suffix)
        if not candidates:
            return None
        forms = known_forms(key, [*KNOWN_PREFIX_PAIRS, *self.storage.prefix_pairs()])
        keys = {ibi_key(form) for form in forms.forms()}
        copy = next((candidate for candidate in candidates if candidate.ibi in keys), None)
        if copy is None:
            return None
        return Item(ibi=forms, state=ItemState.COPY, timestamp=copy.timestamp, target_url=copy.target_url)

    def service_item(self, forms: IbiForms) -> Item:
        """The archive service IBI as an item (its date is its suffix's): the Archive itself,
        whose URL is the portal's home page."""
        moment = datetime.fromtimestamp(int(parse_ibi(forms.forms()[0]).date), tz=timezone.utc)
        return Item(ibi=forms, state=ItemState.ORIGINAL, timestamp=moment, target_url=self.portal_url + "/")

    def items(self) -> Iterator[Item]:
        return (self.item(minted) for minted in self.storage.minted_items() if not minted.released)

    def item(self, minted: MintedItem) -> Item:
        """The Archive's view of a minted item."""
        timestamp = minted.timestamp
        if minted.deleted:  # the tombstone: Algorithm 2 lines 11-15 answer ibi, state and timestamp only
            return Item(ibi=IbiForms(rep=minted.rep, ibip=minted.ibip), state=ItemState.DELETED, timestamp=timestamp)
        reads = self.storage.item_reads(minted.ibip)
        links = reads.links
        next_edition = next((link.target for link in links if link.relation == NEXT_EDITION), None)
        metadata_url = item_metadata_url(self.portal_url, minted.ibip)
        return Item(
            ibi=IbiForms(rep=minted.rep, ibip=minted.ibip),
            state=ItemState.ORIGINAL,
            timestamp=timestamp,
            target_url=minted.target_url or item_page_url(self.portal_url, minted.ibip),
            directory_url=item_directory_url(self.portal_url, minted.rep),
            files=tuple(reads.file_paths),
            file_list_url=item_file_list_url(self.portal_url, minted.ibip),
            language=minted.language,
            nextedition=_forms(next_edition) if next_edition else None,
            translations=self._translations(minted, links, reads.links_to),
            metadata=Metadata(url=metadata_url, state=ItemState.ORIGINAL, timestamp=timestamp, oai_dc_url=metadata_url,
                              bibinpe_url=item_bibinpe_url(self.portal_url, minted.ibip)),
            dc=_dublin_core(minted),
        )


    def _translations(self, minted: MintedItem, links: list[ItemLink],
                      links_to: list[tuple[str, ItemLink]]) -> tuple[tuple[str, IbiForms], ...]:
        """The item's ``.translation(xx)`` by language: its own translations (``links``); the item
        itself in its own language (Example 9.2 names its English original ``.translation(en)``);
        and for a translation (``links_to`` it), its original in the original's language (§8.1:
        "por extensão de linguagem", ``+(en)`` reaches the English original) and the original's
        other translations."""
        found: dict[str, IbiForms] = {}
        for link in links:
            if link.relation == TRANSLATION:
                found.setdefault(link.language, _forms(link.target))
        if minted.language:
            found.setdefault(minted.language, IbiForms(rep=minted.rep, ibip=minted.ibip))
        for source, link in links_to:
            original = self.storage.find_minted(ibip=source) if link.relation == TRANSLATION else None
            if original is None or original.deleted:
                continue
            if original.language:
                found.setdefault(original.language, IbiForms(rep=original.rep, ibip=original.ibip))
            for sibling in self.storage.item_links(source):
                if sibling.relation == TRANSLATION:
                    found.setdefault(sibling.language, _forms(sibling.target))
        return tuple(sorted(found.items()))


def described_item(minted: MintedItem) -> Item:
    """An own item as its oai_dc record reads it (:func:`~.oai_dc.oai_dc_xml`: its IBI, language
    and descriptive metadata), without the reads of links and files :meth:`OwnItemStore.item`
    makes: the OAI-PMH data provider writes a page of records at once, each the very record
    ``:(oai_dc)`` serves."""
    return Item(ibi=IbiForms(rep=minted.rep, ibip=minted.ibip), state=ItemState.ORIGINAL, timestamp=minted.timestamp,
                language=minted.language, dc=_dublin_core(minted))


def _dublin_core(minted: MintedItem) -> DublinCore:
    """The oai_dc fields of a minted item: what was given, the bibliographic details written
    where :meth:`~ibiportal.citation.OaiDcRecord.citation_record` reads them back."""
    details = minted.bibliographic
    written = written_fields(
        ItemType.from_slug(details.item_type) if details.item_type else None,
        publisher=details.publisher,
        place=details.place,
        extent=details.extent,
        degree=details.degree,
        report_number=details.report_number,
        repository=minted.rep,
    )
    return DublinCore(
        title=minted.title or f"Item {minted.ibip}",
        creators=minted.creators,
        date=minted.item_date,
        publisher=written.publisher,
        type=written.type,
        format=written.format,
        notes=written.notes,
        identifiers=written.identifiers,
    )


def item_page_url(portal_url: str, ibip: str) -> str:
    """The portal's landing page of an item minted without a target URL."""
    return f"{portal_url.rstrip('/')}/archive/items/{ibip}"


def item_directory_url(portal_url: str, rep: str) -> str:
    """The directory an own item's files are served below, as URLib serves an item's files:
    ``/col/<repository name>/doc/`` (Example 9.11)."""
    return f"{portal_url.rstrip('/')}/col/{url_path_encode(rep)}/doc/"


def item_file_url(portal_url: str, rep: str, path: str) -> str:
    """Where the portal serves the file at ``path`` of an own item."""
    return item_directory_url(portal_url, rep) + url_path_encode(path)


def item_file_list_url(portal_url: str, ibip: str) -> str:
    """The page listing an own item's files (``GetFileList``, Example 9.12)."""
    return f"{item_page_url(portal_url, ibip)}/files"


def item_metadata_url(portal_url: str, ibip: str) -> str:
    """Where the portal serves an item's oai_dc record (``:`` and ``:(oai_dc)``)."""
    return f"{portal_url.rstrip('/')}/archive/items/{ibip}/oai_dc.xml"


def item_bibinpe_url(portal_url: str, ibip: str) -> str:
    """Where the portal serves an item's "how to cite" page in INPE's form (``:(BibINPE)``)."""
    return f"{item_page_url(portal_url, ibip)}/bibinpe"


#: The path of :func:`item_metadata_url` below the portal's base URL, the IBI in either form.
_METADATA_PATH = re.compile(r"/archive/items/([^/].*?)/oai_dc\.xml")


def metadata_ibi(path: str) -> str | None:
    """The IBI whose oai_dc record the portal serves at ``path`` (below its base URL), if it is
    such a path: so that a citation reads an own item's record in process, not over HTTP."""
    match = _METADATA_PATH.fullmatch(path)
    return match[1] if match else None


#: The own Archive's name in traces and on the Archive health page.
OWN_ARCHIVE_NAME = "portal"


@dataclass(frozen=True)
class OwnArchive:
    """The portal's own Archive as a local Archive of the resolver: answered in process, like the
    demo Archives, but a real one (its items are the identifiers the portal minted) that always
    behaves, and one of the live Archives a resolution asks."""

    service: ArchiveService
    name: str = OWN_ARCHIVE_NAME


def own_archive_service(
    storage: MintedItems,
    *,
    address: str,
    service_ibi: str,
    portal_url: str,
    urlkey: Callable[[], str] | None = None,
    clock: Clock = utc_now,
) -> ArchiveService:
    """The own Archive's service (Algorithm 1 of §9) at ``http://<address>/<service_ibi>``; its
    ``urlkey`` dated by ``clock`` (the application's one)."""
    identity = ArchiveIdentity(address=address, service_ibi=_forms(service_ibi))
    store = OwnItemStore(storage, portal_url, identity.service_ibi)
    return ArchiveService(identity, store, relations=own_relations, clock=clock, urlkey=urlkey)


def known_forms(ibi: str, pairs: Iterable[Sequence[str]]) -> IbiForms:
    """An IBI in both forms where ``pairs`` (the prefix table, STANDARD.md §1.4) say what the
    other prefix is, else in the form given: a copy is asked about in either form."""
    conversion = convert(ibi, pairs)
    return IbiForms(rep=conversion.rep, ibip=conversion.ibip)


def _forms(ibi: str) -> IbiForms:
    """An IBI as Table 9.4 forms, under the form it is written in."""
    identifier = parse_ibi(ibi)
    return IbiForms(rep=str(identifier)) if identifier.form == "rep" else IbiForms(ibip=str(identifier))
