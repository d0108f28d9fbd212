"""Moving an own item to another Archive with no gap.

The successor Archive must hold the item before this one lets it go. So the own Archive first
asks it what any resolver would: a ``urlRequest`` for the item (Figure 8.1, "Solicitar URL" (3),
Table 8.9), over the guarded transport, with the resolver's address policy
(``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES``). Only when the answer is ``state Original`` with a ``url``,
its ``ibi`` pair naming this very item (Table 9.3, ``< "ibi", i >``; read as the resolver reads it,
:func:`~ibiportal.resolver.reading.set_aside`), does the own Archive stop holding it
(:meth:`ItemService.release`): from then on it answers the IBI nothing (Algorithm 2 lines 3-4),
so a resolver asking every Archive finds the successor's Original and never a ``Deleted`` state.
Any other answer refuses the release, with the reason, and nothing changes. :meth:`Releasing.check`
asks the same question alone and says what the successor answered (the Move page shows it before
it offers the release); the release asks again, whatever a check saw.

The successor is named by its service URL, ``http://<archiveaddress>/<archiveserviceibi>``
(§6.1, Example 7.4), or by its address (``host[:port]``) with its service IBI given apart: those are
the two values its registration with a resolver gives (Table 7.2), so its administrator knows them.
Archives are asked over http only (Table 7.2: ``archiveprotocol`` HTTP).

No Flask here: the web layer and the CLI build :class:`Releasing` with the app's transport.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..ibi.history import Actor
from ..archive.store import ibi_key
from ..errors import Conflict, ParseError
from ..i18n import N_, Message
from ..ibi.identifier import parse_ibi
from ..protocol.messages import UrlRequest, request_url, service_url
from ..protocol.pairlist import parse_pair_list
from ..resolver.reading import ibi_forms, set_aside
from ..resolver.transport import ARCHIVE_TIMEOUTS, Exchange, Failure, Timeouts, Transport
from .items import ItemRecord, ItemService, refuse_unchangeable

#: ``hostport`` (RFC 2396 §3.2.2), as ``archiveaddress`` is written (Table 7.2).
_HOSTPORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(:[0-9]{1,5})?")

#: Characters of an answer quoted in a reason.
EXCERPT_CHARACTERS = 120


@dataclass(frozen=True)
class Successor:
    """The Archive an item moves to: its ``archiveaddress`` and archive service IBI (Table 7.2)."""

    address: str
    service_ibi: str

    @property
    def url(self) -> str:
        """Its service URL, ``http://<address>/<service IBI>`` (§6.1), as the history keeps it."""
        return service_url(self.address, self.service_ibi)

    @classmethod
    def parse(cls, successor: str, service_ibi: str | None = None) -> Successor:
        """``successor`` as a service URL (``http://host[:port]/<service IBI>``), or as an address
        with ``service_ibi`` apart; a :class:`ParseError` naming the field (``successor`` or
        ``successor_service_ibi``) and the character at fault."""
        given = successor.strip()
        offset = len(successor) - len(successor.lstrip())
        if not given:
            raise ParseError(N_("give the successor Archive's service URL, e.g. http://archive.example.org/"
                                "8JMKD3MGPCW/3ER446E, or its address with its service IBI"), field="successor")
        scheme, colon, rest = given.partition("://")
        if colon:
            if scheme.lower() != "http":
                raise ParseError(N_("an Archive is asked over http:// (Table 7.2: archiveprotocol HTTP), "
                                    "so its service URL starts with http://"), offset + 1, "successor")
            address, slash, path = rest.partition("/")
            path_start = offset + len(scheme) + 3 + len(address) + 2
            if path.strip("/") and service_ibi:
                raise ParseError(N_("the service URL names the service IBI already: give it once"),
                                 field="successor_service_ibi")
            service_ibi = path.strip("/") or service_ibi
            address_start = offset + len(scheme) + 4
        else:
            address, path_start, address_start = given, None, offset + 1
        _check_address(address, address_start)
        if not service_ibi:
            raise ParseError(N_("give the successor Archive's service IBI too (successor_service_ibi), or its whole "
                                "service URL http://%(address)s/<service IBI>", address=address),
                             field="successor_service_ibi" if path_start is None else "successor")
        field = "successor" if path_start is not None else "successor_service_ibi"
        service_ibi = service_ibi.strip()
        for index, char in enumerate(service_ibi):
            if char in "?#%" or char.isspace():
                raise ParseError(N_("the character %(char)r cannot be in a service IBI here", char=char),
                                 (path_start or 1) + index, field)
        try:
            parse_ibi(service_ibi)
        except ParseError as error:
            position = None if error.position is None else (path_start or 1) + error.position - 1
            raise ParseError(N_("the successor's service IBI %(ibi)r is not an IBI: %(problem)s", ibi=service_ibi,
                                problem=error.message), position, field) from error
        return cls(address.lower(), service_ibi)


def _check_address(address: str, start: int) -> None:
    """``address`` is a ``host[:port]``, or a :class:`ParseError` (field ``successor``)."""
    match = _HOSTPORT.fullmatch(address)
    if not match or (match[2] and int(match[2][1:]) > 65535):
        bad = next((index for index, char in enumerate(address) if char in "@?#/ \\"), None)
        raise ParseError(N_("%(address)r is not an Archive address: a host with an optional :port (archiveaddress, "
                            "Table 7.2)", address=address), start + (bad or 0), "successor")


class ReleaseRefused(Conflict):
    """The successor did not answer the item as its Original: nothing changed.
    ``reason`` says why, as a message (shown in the reader's language)."""

    field = "successor"

    def __init__(self, reason: Message) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class SuccessorCheck:
    """What the successor answered a ``urlRequest`` for the item ``ibip``: its ``state`` and ``url``
    pairs, when it answered a pair list, and ``refusal``, why the answer does not let the item go
    (``None``: it holds the item as its Original, and ``url`` is where)."""

    ibip: str
    successor: Successor
    state: str | None = None
    url: str | None = None
    refusal: Message | None = None

    @property
    def acceptable(self) -> bool:
        return self.refusal is None


class Releasing:
    """Release own items to successor Archives: ask the successor, then stop holding the item.

    ``transport`` is the portal's guarded transport (``HttpTransport``, with the address policy of
    ``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES``); ``own_service_ibi`` this Archive's service IBI, which is
    never a successor (it would answer its own item and the item would be nowhere).
    """

    def __init__(self, items: ItemService, transport: Transport, own_service_ibi: str,
                 timeouts: Timeouts = ARCHIVE_TIMEOUTS) -> None:
        self.items = items
        self.transport = transport
        self.own_service_ibi = own_service_ibi
        self.timeouts = timeouts

    def check(self, ibi: str, successor: Successor, *, client_ips: Sequence[str]) -> SuccessorCheck:
        """Ask ``successor`` for the own item ``ibi`` as a resolver would, and say what it answered;
        nothing changes. ``client_ips`` go in the ``urlRequest`` (``clientinformation.ipaddress``,
        Table 8.10): who asked. Raises :class:`ItemNotFound`, :class:`ItemDeleted` (or
        :class:`ItemReleased`) before anything is sent."""
        minted = self.items.find(ibi).minted
        refuse_unchangeable(minted)
        if ibi_key(successor.service_ibi) == ibi_key(self.own_service_ibi):
            return SuccessorCheck(minted.ibip, successor, refusal=N_(
                "%(successor)s is this Archive: an item is released to another Archive", successor=successor.url))
        message = UrlRequest(client_ips=tuple(client_ips), ibi=minted.ibip)
        exchange = self.transport.fetch(request_url(successor.address, successor.service_ibi, message), self.timeouts)
        return read_answer(exchange, successor, minted.rep, minted.ibip)

    def release(self, ibi: str, successor: Successor, *, actor: Actor, client_ips: Sequence[str]) -> ItemRecord:
        """Release the own item ``ibi`` to ``successor`` once it answers the item as its Original.

        The successor is asked now (:meth:`check`), whatever an earlier check saw: it may have let
        the item go since. Raises what :meth:`check` raises, and :class:`ReleaseRefused` when the
        answer does not show it holds the item; nothing changes then.
        """
        checked = self.check(ibi, successor, client_ips=client_ips)
        if checked.refusal is not None:
            raise ReleaseRefused(checked.refusal)
        return self.items.release(checked.ibip, successor.url, checked.url or "", actor=actor)


def read_answer(exchange: Exchange, successor: Successor, rep: str, ibip: str) -> SuccessorCheck:
    """The successor's answer for the item: its ``url`` when it shows it holds the item as its
    Original, else the refusal saying what it answered instead."""
    def refused(reason: Message, state: str | None = None, url: str | None = None) -> SuccessorCheck:
        return SuccessorCheck(ibip, successor, state, url, N_(
            "%(ibi)s stays in this Archive: the Archive at %(successor)s %(reason)s",
            ibi=ibip, successor=successor.url, reason=reason))

    if exchange.failure is not None or exchange.body is None:
        if exchange.failure is Failure.REFUSED:
            return refused(N_("cannot be asked (%(problem)s); an Archive on a loopback or private address is asked "
                              "only with IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1", problem=exchange.problem))
        return refused(N_("did not answer: %(problem)s", problem=exchange.problem or N_("no answer")))
    if exchange.status != 200:
        return refused(N_("answered HTTP %(status)s, not the URL list of Algorithm 2", status=exchange.status))
    try:
        pairs = parse_pair_list(exchange.body)
    except ParseError as error:
        excerpt = " ".join(exchange.body.decode("latin-1").split())[:EXCERPT_CHARACTERS]
        return refused(N_("answered what is not a pair list (§6.2: %(problem)s): %(excerpt)s",
                          problem=error.message, excerpt=excerpt))
    if not len(pairs):
        return refused(N_("answered nothing: it does not hold the item (Algorithm 2 lines 3-4); hold it there first"))
    state, url = pairs.text("state"), pairs.text("url")
    verdict = set_aside(pairs, ibip)
    if verdict is not None:
        return refused(N_("answered what cannot be taken: %(why)s", why=verdict.message), state, url)
    named = pairs.get("ibi")
    own = {ibi_key(rep), ibi_key(ibip)}
    if named is None or not any(_key(form) in own for form in ibi_forms(named)):
        return refused(N_("answered without an ibi pair naming %(ibi)s (Table 9.3): it does not say it holds the "
                          "item", ibi=ibip), state, url)
    if state != "Original":
        return refused(N_("answers the item with state %(state)s, not Original: it must hold the item as its "
                          "original before this Archive lets it go", state=state or N_("(none)")), state, url)
    parts = urlsplit(url or "")
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return refused(N_("answers the item as its Original but without an http:// or https:// url (Table 9.3): "
                          "%(url)s", url=url or N_("(none)")), state, url)
    return SuccessorCheck(ibip, successor, state, url)


def _key(form: str) -> str | None:
    try:
        return ibi_key(form)
    except ParseError:
        return None
