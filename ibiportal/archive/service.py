"""The Archive service (file 003, §9): Algorithm 1 MONTARRESPOSTA and Algorithm 2 MONTARLISTADEURL.

One :class:`ArchiveService` per Archive answers the three requests the resolver sends
(§9.1) with a pair list (Table 6.2):

* ``inclusionConfirmationRequest`` → ``confirmation yes`` (Algorithm 1 lines 2-4);
* ``urlRequest`` → the URL list of Algorithm 2 (line 16), filtered by FILTRARLISTADEURL
  (line 17, Example 9.3; optional in the standard, on unless ``filtering=False``);
* ``acknowledgment`` → ``notice {acknowledgment received}`` (lines 19-21), whatever else
  the acknowledgment says: the standard answers it with a constant.

Decisions where §9 is silent (project decisions, see also STANDARD.md §3):

* **Refusals.** Algorithm 1 has no branch for a missing or unknown ``servicesubject`` and
  DECODQS none for a malformed query. Such a request gets a pair list, never an exception:
  ``status.request refused status.reason {…}`` with HTTP status 400, as the resolver refuses
  Archives (``status.archive refused status.reason {…}``). It has no ``archiveaddress``, so no
  resolver can take it for a URL list. Refused are: an undecodable query string (Table 6.1),
  a repeated pair name (DECODQS could not tell which one is meant), a missing
  ``servicesubject``, an unknown ``servicesubject``, and a ``urlRequest`` without its
  mandatory pairs (Table 8.9: ``clientinformation.ipaddress``, ``parsedibiurl.ibi``), with a
  ``clientinformation.ipaddress`` that is not an IP list (Table 8.10), a
  ``parsedibiurl.ibi`` that is not an IBI, or a ``parsedibiurl.verblist`` that is not a verb
  list (Table 8.4).
* **An IBI the Archive does not hold** gets the empty answer (Algorithm 2 lines 3-4).
* **Order.** The standard prints every URL list with its names in ASCII order (Examples 6.2,
  9.2, 9.3, §10); order carries no meaning in a pair list (Table 6.2), so answers are sorted
  the same way and can be compared with the standard byte for byte.
* **Line breaks.** One pair per line, CRLF (Table 6.2's ``espaço``) between pairs and nothing
  after the last (``lista-de-pares = par *(espaço par)``; the standard prints one pair per line).
* **urlkey** (Table 7.1 ``chave``): the Unix time, ``-``, and 20 digits from :mod:`secrets`,
  fresh for every answer (§9.2: "essa chave deveria ser trocada a cada resposta").
"""
from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property, lru_cache
from dataclasses import dataclass
from datetime import datetime

from ibiportal.archive.model import ArchiveIdentity, ContentType, IbiForms, Item, ItemState, Metadata, format_timestamp
from ibiportal.archive.relation import Kind, Relation
from ibiportal.archive.store import ItemStore, RememberingStore, find_linked
from ibiportal.errors import ParseError
from ibiportal.ibi.clock import Clock, utc_now
from ibiportal.ibi.modifiers import GET_FILE_LIST, GET_LAST_EDITION, Verb
from ibiportal.protocol.messages import Acknowledgment, InclusionConfirmationRequest, Request, UrlRequest, parse_request
from ibiportal.protocol.pairlist import Pair, PairList
from ibiportal.protocol.status import ACKNOWLEDGMENT_NOTICE, CONFIRMATION

#: Pairs that say who answers and about what; FILTRARLISTADEURL keeps them (Example 9.3, §10).
_IDENTIFYING_NAMES = frozenset({"archiveaddress", "ibi", "ibi.archiveservice", "ibi.platformsoftware"})
_RELATION_PREFIXES = ("contenttype", "ibi", "state", "timestamp", "url")
_URLKEY_RANDOM_DIGITS = 20

#: DECODQS of a query string, remembered: parsing is pure and its messages are frozen, and an
#: Archive gets the same messages again and again (the resolver's cache acknowledges every
#: redirect it serves with the same message, Table 8.11). Failures are not remembered.
_parse_request = lru_cache(maxsize=1024)(parse_request)


def new_urlkey(now: datetime) -> str:
    """A fresh ``urlkey`` (Table 7.1 ``chave``): Unix seconds, ``-``, 20 random digits.

    Shaped like the standard's ``1426387214-9164566186556927``; the random part (about 66
    bits from :mod:`secrets`) is what makes it unguessable.
    """
    return f"{int(now.timestamp())}-{secrets.randbelow(10**_URLKEY_RANDOM_DIGITS):0{_URLKEY_RANDOM_DIGITS}d}"


@dataclass(frozen=True)
class ArchiveAnswer:
    """An answer as sent over HTTP: the pair list, its ``text/plain`` body and the status."""

    pairs: PairList
    status: int = 200

    @cached_property
    def text(self) -> str:
        """The body: one pair per line, CRLF between pairs, none after the last (Table 6.2);
        ``""`` for the empty answer (made once: the acknowledgment's notice is
        :data:`ACKNOWLEDGED`, answered again and again)."""
        return self.pairs.serialize("\r\n")

    @property
    def refused(self) -> bool:
        """Whether the request was refused (see the module docstring)."""
        return self.status != 200


#: The answer to every acknowledgment (Algorithm 1, line 20).
ACKNOWLEDGED = ArchiveAnswer(ACKNOWLEDGMENT_NOTICE)


def refusal(reason: str) -> ArchiveAnswer:
    """``status.request refused status.reason {…}`` with HTTP status 400 (a project decision).

    Characters beyond ISO-8859-1, which no ``%hh`` of §6.2 can carry, become ``?``.
    """
    text = reason.encode("latin-1", "replace").decode("latin-1")
    return ArchiveAnswer(PairList((Pair("status.request", "refused"), Pair.from_text("status.reason", text))), 400)


def filter_url_list(answer: PairList, verbs: Sequence[Verb]) -> PairList:
    """FILTRARLISTADEURL (Algorithm 1 line 17, Example 9.3): keep the pairs the resolver can use.

    Kept: the identifying pairs (``archiveaddress``, ``ibi``, ``ibi.archiveservice``,
    ``ibi.platformsoftware``); ``ibi.nextedition`` when the verb list has ``GetLastEdition``
    (the resolver follows it, §10.2); the ``contenttype``/``ibi``/``state``/``timestamp``/
    ``url`` pairs whose relation is the one the verbs ask for (a bare ``GetTranslation``
    keeps every ``.translation(xx)``); ``urlkey`` when a ``url`` pair is kept (the first
    answer of §10.2 has neither), else the ``ibi`` pairs of the relation's first parts, which
    lead toward the rest (``ibi.translation(pt)`` for ``+(pt)!`` when the translation has a next
    edition). A Deleted answer (Algorithm 2 lines 11-15) is kept whole:
    the resolver must see the deletion.
    """
    if answer.get("state") == ItemState.DELETED:
        return answer
    wanted = Relation.from_verbs(verbs)
    follows_editions = any(verb.name == GET_LAST_EDITION for verb in verbs)
    kept = [pair for pair in answer.pairs if _serves(pair.name, wanted, follows_editions)]
    if not any(pair.name.partition(".")[0] == "url" for pair in kept):
        kept = [pair for pair in answer.pairs
                if (pair in kept and pair.name != "urlkey") or _leads_toward(pair.name, wanted)]
    return PairList(tuple(kept))


@lru_cache(maxsize=4096)
def kept_by_filter(relation: Relation, wanted: Relation) -> bool:
    """Whether FILTRARLISTADEURL may keep a pair qualified by ``relation`` when ``wanted`` is
    asked (:func:`_serves`, :func:`_leads_toward`): the empty relation (its ``ibi`` pair names the
    item), a relation that answers ``wanted``, or one that answers a first part of it."""
    if not relation.elements or relation.answers(wanted):
        return True
    return wanted.follows_table_9_5() and any(relation.answers(Relation(wanted.elements[:length]))
                                              for length in range(1, len(wanted.elements)))


@lru_cache(maxsize=1024)
def followed(relations: tuple[Relation, ...], wanted: Relation) -> tuple[Relation, ...]:
    """Those of ``relations`` FILTRARLISTADEURL may keep pairs of when ``wanted`` is asked
    (:func:`kept_by_filter`), in their order: worked out once for each set of relations (an
    Archive's, or the own Archive's for a set of languages) and each relation asked."""
    return tuple(relation for relation in relations if kept_by_filter(relation, wanted))


@lru_cache(maxsize=256)
def _verbs(texts: tuple[str, ...]) -> tuple[Verb, ...]:
    """A request's verb list, parsed (remembered: a few verb lists come again and again)."""
    return tuple(Verb.parse(verb) for verb in texts)


@lru_cache(maxsize=4096)
def _serves(name: str, wanted: Relation, follows_editions: bool) -> bool:
    """Whether FILTRARLISTADEURL keeps the pair called ``name`` (``urlkey`` decided after)."""
    if name in _IDENTIFYING_NAMES or name == "urlkey":
        return True
    if name == "ibi.nextedition":
        return follows_editions
    prefix, dot, qualifier = name.partition(".")
    if prefix not in _RELATION_PREFIXES:
        return False
    return Relation.parse(dot + qualifier).answers(wanted)


@lru_cache(maxsize=4096)
def _leads_toward(name: str, wanted: Relation) -> bool:
    """Whether ``name`` is the ``ibi`` pair of a first part of ``wanted``: without the URL
    wanted, the resolver asks about that IBI for the rest (§10.2), e.g. ``ibi.translation(pt)``
    for ``.translation(pt).lastedition`` when the translation has a next edition."""
    prefix, dot, qualifier = name.partition(".")
    if prefix != "ibi" or name in _IDENTIFYING_NAMES or name == "ibi.nextedition" or not wanted.follows_table_9_5():
        return False
    relation = Relation.parse(dot + qualifier)
    return any(relation.answers(Relation(wanted.elements[:length])) for length in range(1, len(wanted.elements)))


@dataclass(frozen=True)
class _Related:
    """The item of information in relation with IBI i (Table 9.3, "em relação com IBI i").

    Either a data item held here (``item``), its metadata (``metadata``, in ``format``), or
    only an IBI known from a link whose item is held elsewhere (``ibi`` alone).
    """

    ibi: IbiForms | None
    item: Item | None = None
    metadata: Metadata | None = None
    format: str | None = None


#: Algorithm 2's GLOBAL ``relações``: one set for every item, or the set for each item (an
#: Archive whose languages are those of its items, as the portal's own: §9.2 lets each Archive
#: choose its subset, and a translation relation no item has only costs work).
Relations = Iterable[Relation] | Callable[[Item], Iterable[Relation]]


class ArchiveService:
    """One Archive's service: Algorithm 1 over an :class:`ItemStore` (file 003, §9).

    ``relations`` is Algorithm 2's GLOBAL ``relações``: the relations (Table 9.5) this
    Archive answers for, or a function giving them for an item; they must contain the empty
    relation (§9.2). ``clock`` gives aware UTC
    datetimes; ``urlkey`` makes the ``urlkey`` of each answer (default :func:`new_urlkey` at
    ``clock()``).
    """

    def __init__(
        self,
        identity: ArchiveIdentity,
        store: ItemStore,
        *,
        relations: Relations = (Relation(),),
        clock: Clock = utc_now,
        urlkey: Callable[[], str] | None = None,
        filtering: bool = True,
    ) -> None:
        self.identity = identity
        self.store = store
        self.relations: Relations = relations if callable(relations) else tuple(relations)
        if not callable(self.relations) and Relation() not in self.relations:
            raise ValueError("an Archive's relations must contain the empty relation (file 003, §9.2)")
        self.clock = clock
        self._urlkey = urlkey or (lambda: new_urlkey(self.clock()))
        self.filtering = filtering

    def answer(self, request: str | bytes | Request) -> str:
        """The ``text/plain`` body answering ``request`` (see :meth:`respond`)."""
        return self.respond(request).text

    def respond(self, request: str | bytes | Request) -> ArchiveAnswer:
        """Algorithm 1 (MONTARRESPOSTA) for a request's query string or its parsed message.

        Never raises for anything the request says: a request Algorithm 1 cannot answer is
        refused (module docstring).
        """
        if isinstance(request, (str, bytes)):
            try:
                request = _parse_request(request)  # DECODQS (Example 9.1), lines 1, 6-15
            except ParseError as error:
                return refusal(f"malformed request: {error}")
        if isinstance(request, InclusionConfirmationRequest):  # lines 2-4
            return ArchiveAnswer(CONFIRMATION)
        if isinstance(request, UrlRequest):  # lines 5-18
            try:
                verbs = _verbs(request.verbs)
                wanted = Relation.from_verbs(verbs) if self.filtering else None
                answer = self.build_url_list(request.ibi, request.filepath or "", verbs, kept_for=wanted)  # line 16
            except ParseError as error:
                return refusal(f"malformed urlRequest: {error}")
            if self.filtering:
                answer = filter_url_list(answer, verbs)  # line 17
            return ArchiveAnswer(answer)
        if isinstance(request, Acknowledgment):  # lines 19-21
            return ACKNOWLEDGED
        return refusal(
            f"servicesubject {request.SUBJECT} is addressed to the resolver; an Archive service "
            "answers inclusionConfirmationRequest, urlRequest and acknowledgment (file 003, §9.1)"
        )

    def build_url_list(self, ibi: str, filepath: str = "", verbs: Sequence[Verb] = (),
                       kept_for: Relation | None = None) -> PairList:
        """Algorithm 2 (MONTARLISTADEURL) for ``ibi``, names in ASCII order (Example 9.2).

        ``filepath`` and ``verbs`` are the GLOBALs ``parsedibiurl.filepath`` and
        ``parsedibiurl.verblist`` (``""`` and ``()`` when absent, Algorithm 1 lines 10, 15).
        With ``kept_for``, the relation the verbs ask for, the relations none of whose pairs
        FILTRARLISTADEURL would keep (:func:`kept_by_filter`) are not followed: the filtered
        answer is the same, and the own Archive's item answers about a hundred relations, built
        and then dropped for every resolution (``benchmarks/uncached.py``).
        Raises :class:`ParseError` when ``ibi`` is not an IBI.
        """
        answer: list[Pair] = []  # line 1
        store = RememberingStore(self.store)  # the relations ask for the same linked items again and again
        item = store.find(ibi)  # line 2, CRIARPARSTATE
        if item is None:  # lines 3-4
            return PairList()
        identity = self.identity
        answer.append(Pair("archiveaddress", identity.address))  # line 6
        answer.append(Pair("ibi.archiveservice", str(identity.service_ibi)))  # lines 7-8
        platform = identity.platform_software
        answer.append(Pair("ibi.platformsoftware", "" if platform is None else str(platform)))  # lines 9-10
        if item.state is ItemState.DELETED:  # lines 11-15
            answer.append(Pair("ibi", str(item.ibi)))
            answer.append(Pair("state", str(item.state)))
            answer.append(Pair("timestamp", format_timestamp(item.timestamp)))
            return _in_name_order(answer)
        if item.nextedition is not None:  # lines 17-18, CRIARPARNEXTEDITION
            answer.append(Pair("ibi.nextedition", str(item.nextedition)))
        answer.append(Pair("urlkey", self._urlkey()))  # lines 19-20
        relations = self.relations(item) if callable(self.relations) else self.relations
        for relation in relations if kept_for is None else followed(tuple(relations), kept_for):  # line 21
            related = self._related(store, relation, item)
            if related is None:
                continue
            if related.ibi is not None:  # lines 22-23, CRIARPARIBI
                answer.append(Pair(f"ibi{relation}", str(related.ibi)))
            url = self._url(related, filepath, verbs)  # line 24, CRIARPARURL
            if url is not None:  # lines 25-32
                contenttype, state, timestamp = _properties(related)
                answer.append(Pair(f"url{relation}", url))
                answer.append(Pair(f"contenttype{relation}", str(contenttype)))
                answer.append(Pair(f"state{relation}", str(state)))
                answer.append(Pair(f"timestamp{relation}", format_timestamp(timestamp)))
        return _in_name_order(answer)  # line 33

    @staticmethod
    def _related(store: ItemStore, relation: Relation, item: Item) -> _Related | None:
        """The item of information in ``relation`` with ``item``, ``None`` when unknown here."""
        related = _Related(item.ibi, item=item)
        for element in relation.elements:
            step = ArchiveService._step(store, related, element.kind, element.parameter)
            if step is None:
                return None
            related = step
        return related

    @staticmethod
    def _step(store: ItemStore, current: _Related, kind: Kind, parameter: str | None) -> _Related | None:
        """One elementary relation of Table 9.5 applied to ``current``.

        * ``.lastedition``: the item itself when it has no next edition (§9.2, "a última
          edição deverá ser simplesmente a edição atual"); otherwise unknown here — the
          resolver follows ``ibi.nextedition`` (§10.2).
        * ``.translation(xx)``: the item the Archive names as that translation; a bare
          ``.translation`` is the item itself when its language is unspecified (§9.2), and
          metadata (which have no language here) are their own bare translation
          (Example 9.2: ``.metadata.translation``).
        * ``.metadata[(oai_dc)]``, ``.metadata(BibINPE)``: the item's metadata, if served in that format.
        """
        if current.metadata is not None:
            return current if kind is Kind.TRANSLATION and parameter is None else None
        item = current.item
        if item is None or item.state is ItemState.DELETED:
            return None
        if kind is Kind.LASTEDITION:
            return current if item.nextedition is None else None
        if kind is Kind.TRANSLATION:
            if parameter is None:
                return current if item.language is None else None
            forms = item.translation(parameter)
            return None if forms is None else _Related(forms, item=find_linked(store, forms))
        metadata = item.metadata
        if metadata is None or metadata.url_in(parameter) is None:
            return None
        return _Related(metadata.ibi, metadata=metadata, format=parameter)

    def _url(self, related: _Related, filepath: str, verbs: Sequence[Verb]) -> str | None:
        """CRIARPARURL's value, ``None`` when unknown (Examples 9.9-9.12).

        As §9.2 defines it: with no verb list, ``parsedibiurl.filepath`` picks a file of the
        item (which must be one of its files); with a verb list, the verb list prevails —
        ``GetFileList`` gives the file-list page, any other verbs the item's own URL.
        Metadata have no files here, so they have no file or file-list URL.
        """
        wants_file_list = any(verb.name == GET_FILE_LIST for verb in verbs)
        wants_file = bool(filepath) and not verbs
        if related.metadata is not None:
            if wants_file_list or wants_file:
                return None
            return related.metadata.url_in(related.format)
        item = related.item
        if item is None or item.state is ItemState.DELETED:
            return None
        if wants_file_list:
            return item.file_list_url
        if wants_file:
            return item.file_url(filepath)
        return item.url


def _properties(related: _Related) -> tuple[ContentType, ItemState, datetime]:
    """``contenttype``, ``state`` and ``timestamp`` of a related item (Table 9.3)."""
    if related.metadata is not None:
        return ContentType.METADATA, related.metadata.state, related.metadata.timestamp
    assert related.item is not None  # _url gave a URL, so the item is held here
    return related.item.contenttype, related.item.state, related.item.timestamp


def _in_name_order(pairs: list[Pair]) -> PairList:
    """The pairs sorted by name, as the standard prints URL lists (module docstring)."""
    return PairList(tuple(sorted(pairs, key=lambda pair: pair.name)))
