"""Archive registration at the resolver (file 003, §7): who may be included, and the status answer.

§7.1: an Archive is registered out of band with its archive-service IBI and a registration key
(Table 7.1) of its administrator's choice. §7.2, Figure 7.1: switching on, the Archive sends
"Incluir arquivo" (2), an ``inclusionRequest`` with the eight pairs of Table 7.2 (Example 7.2);
the resolver sends "Solicitar confirmação" (3), an ``inclusionConfirmationRequest`` to
``http://<archiveaddress>/<archiveserviceibi>`` (Example 7.4), expects "confirmação" (4)
``confirmation yes``, and answers "status" (5): ``status.archive included
status.confirmation successful`` – or ``unsuccessful`` when no confirmation came, the Archive
being included all the same (§7.2: "Nem sempre o acesso é possível, como, por exemplo, em
alguns casos de IP dinâmico"). Switching off, it sends "Excluir arquivo" (7), an
``exclusionRequest`` (Example 7.3), answered by "status" (8) ``status.archive excluded``. The
address may change from one inclusion to the next (§7.2); the latest one is kept.

Refusals (STANDARD.md §3, Decision) are pair lists too, ``status.archive refused
status.reason {…}``, with a 4xx status:

======  ===================================================================================
status  when
======  ===================================================================================
400     the query cannot be read, a pair of Table 7.2 is missing or malformed (the reason
        names it; ``archiveprotocol`` other than ``HTTP`` is such a malformed pair), or the
        ``servicesubject`` is not one the resolver service answers
404     no Archive is registered with this ``archiveserviceibi`` (in the form it registered)
403     the registration key does not match (compared in constant time, on its hash)
422     inclusion only: the resolver may not contact ``archiveaddress`` (it resolves to a
        loopback, private, link-local, multicast, reserved or unspecified address, unless the
        deployment allows private Archives, or it does not resolve at all): such an Archive
        could never be asked anything. 422, not 403: the Archive proved who it is, the
        request is well-formed, only its content cannot be acted upon.
======  ===================================================================================

Nothing is half-stored: every check and the confirmation exchange come first, then ONE
registry call writes the outcome. A refused request changes nothing but the Archive's
history, and only when the Archive is registered (wrong key, address not allowed), so an
administrator can see failed attempts; unknown Archives and unreadable requests leave no
trace in the database. Keys are never stored (:class:`KeyHash`), logged or echoed.

This module is pure: no Flask. The :class:`ArchiveRegistry` is implemented by
``ibiportal.storage.registry.ArchiveStore``; the transport is any
:class:`~ibiportal.resolver.transport.Transport`.

The registry has one module per layer (the design's "The registry"): ``protocol.registry``
its values, ``resolver.registry_service`` §7.2's service, ``storage.registry`` what is kept,
``application.registry`` the administrator's use case, which wires the other three.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from urllib.parse import urlsplit

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Message
from ibiportal.log_limits import LimitedLog
from ibiportal.ibi.clock import Clock, utc_now
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.protocol.messages import (
    ExclusionRequest,
    InclusionConfirmationRequest,
    InclusionRequest,
    request_of_pairs,
    request_url,
)
from ibiportal.protocol.pairlist import PairList, UnreadableAnswer, read_answer
from ibiportal.protocol.query import QueryPair, parse_query
from ibiportal.protocol.status import EXCLUDED, REASON_UNKNOWN_ARCHIVE, included, refused
from ibiportal.protocol.registry import ArchiveDetails, Confirmation, RegisteredArchive
from ibiportal.resolver.addresses import AddressRefused, GetAddrInfo, check_host
from ibiportal.resolver.transport import ARCHIVE_TIMEOUTS, Exchange, Timeouts, Transport

logger = logging.getLogger(__name__)
#: A refusal per request: one line a minute per status, with how many more (a client may send thousands).
_REFUSALS = LimitedLog(logger)

OK = 200
MALFORMED = 400
WRONG_KEY = 403
UNKNOWN_ARCHIVE = 404
ADDRESS_NOT_ALLOWED = 422

SUBJECTS = (InclusionRequest.SUBJECT, ExclusionRequest.SUBJECT)
"""The ``servicesubject`` values the resolver service answers (§7.2)."""


def normalize_service_ibi(text: str) -> str:
    """An archive-service IBI in its normalized spelling (Table 7.2: ``repositório`` or IBIp).

    Raises :class:`ParseError` for ``field="archiveserviceibi"``, position in ``text``.
    """
    try:
        return str(parse_ibi(text))
    except ParseError as error:
        raise ParseError(N_("archiveserviceibi: %(problem)s", problem=error.message), error.position, "archiveserviceibi") from error


class ArchiveRegistry(Protocol):
    """Where registered Archives live (implemented by ``ibiportal.storage.registry.ArchiveStore``).

    Each ``record_*`` call is one transaction: the Archive's row and its history change
    together or not at all.
    """

    def find_archive(self, service_ibi: str) -> RegisteredArchive | None:
        """The Archive registered with this normalized service IBI, or ``None``."""
        ...

    def record_inclusion(
        self, service_ibi: str, details: ArchiveDetails, confirmation: Confirmation, at: datetime
    ) -> None:
        """Mark the Archive included at ``details.address`` and add the event."""
        ...

    def record_exclusion(self, service_ibi: str, at: datetime) -> None:
        """Mark the Archive excluded and add the event."""
        ...

    def record_refusal(self, service_ibi: str, reason: str, at: datetime) -> None:
        """Add a refused attempt to the Archive's history; nothing else changes."""
        ...


@dataclass(frozen=True)
class ServiceAnswer:
    """The resolver service's answer: a pair list (§6.2) and its HTTP status."""

    answer: PairList
    status: int

    @property
    def body(self) -> str:
        """The pair list on one line, as §7.2 prints the status messages."""
        return self.answer.serialize(" ")


class RegistrationService:
    """Answers ``inclusionRequest`` and ``exclusionRequest`` (§7.2, Table 7.2); see the module docstring.

    ``allow_private`` is the deployment's ``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES``: whether
    ``archiveaddress`` may resolve to a loopback, private or otherwise non-public address.
    ``clock`` gives the events' times (the application's one clock); ``getaddrinfo`` replaces DNS (tests).
    """

    def __init__(
        self,
        registry: ArchiveRegistry,
        transport: Transport,
        *,
        allow_private: bool = False,
        clock: Clock = utc_now,
        getaddrinfo: GetAddrInfo | None = None,
        timeouts: Timeouts = ARCHIVE_TIMEOUTS,  # the Archive waits for its status (5) meanwhile
    ) -> None:
        self.registry = registry
        self.transport = transport
        self.allow_private = allow_private
        self.clock = clock
        self._getaddrinfo = getaddrinfo
        self.timeouts = timeouts

    def answer(self, query: str | bytes | tuple[QueryPair, ...]) -> ServiceAnswer:
        """The answer to a request's query string (without ``?``), whatever it holds, or to its
        pairs when the caller has split it already (the web layer's rate limiter reads them first)."""
        try:
            pairs = query if isinstance(query, tuple) else parse_query(query)
            subjects = [pair.value for pair in pairs if pair.name == "servicesubject"]
            if subjects and subjects[0] not in SUBJECTS:
                return self._refuse(
                    f"servicesubject {subjects[0][:60]!r} is not answered by the resolver service; "
                    f"send {' or '.join(SUBJECTS)} (file 003, section 7.2)",
                    MALFORMED,
                )
            message = request_of_pairs(pairs)
        except ParseError as error:
            return self._refuse(str(error), MALFORMED)
        if isinstance(message, InclusionRequest):
            return self.include(message)
        assert isinstance(message, ExclusionRequest)  # SUBJECTS has only these two
        return self.exclude(message)

    def include(self, request: InclusionRequest) -> ServiceAnswer:
        """"Incluir arquivo" (2) → "Solicitar confirmação" (3) → "status" (5) (Figure 7.1)."""
        service_ibi = self._authenticate(request)
        if isinstance(service_ibi, ServiceAnswer):
            return service_ibi
        problem = self._address_problem(request.archive_address)
        if problem is not None:
            return self._refuse(problem, ADDRESS_NOT_ALLOWED, service_ibi, record=True)
        confirmation = self.confirm(request.archive_address, request.archive_service_ibi)
        self.registry.record_inclusion(service_ibi, ArchiveDetails.of(request), confirmation, self.clock())
        logger.info(
            "archive %s included at %s, confirmation %s (%s)",
            service_ibi, request.archive_address, confirmation.word, confirmation.detail,
        )
        return ServiceAnswer(included(confirmation.successful), OK)

    def exclude(self, request: ExclusionRequest) -> ServiceAnswer:
        """"Excluir arquivo" (7) → "status" (8) (Figure 7.1); the registration is kept (§7.2)."""
        service_ibi = self._authenticate(request)
        if isinstance(service_ibi, ServiceAnswer):
            return service_ibi
        self.registry.record_exclusion(service_ibi, self.clock())
        logger.info("archive %s excluded", service_ibi)
        return ServiceAnswer(EXCLUDED, OK)

    def confirm(self, address: str, service_ibi: str) -> Confirmation:
        """Send ``inclusionConfirmationRequest`` (Example 7.4) and read the answer (4)."""
        url = request_url(address, service_ibi, InclusionConfirmationRequest())
        return _read_confirmation(self.transport.fetch(url, self.timeouts))

    def _authenticate(self, request: InclusionRequest | ExclusionRequest) -> str | ServiceAnswer:
        """The registered Archive's normalized service IBI, or the refusal (400, 404, 403)."""
        try:
            service_ibi = normalize_service_ibi(request.archive_service_ibi)
        except ParseError as error:
            return self._refuse(str(error), MALFORMED)
        archive = self.registry.find_archive(service_ibi)
        if archive is None:
            return self._refuse(REASON_UNKNOWN_ARCHIVE, UNKNOWN_ARCHIVE, service_ibi)
        if not archive.key_hash.matches(request.registration_key):
            return self._refuse(N_("wrong registration key"), WRONG_KEY, service_ibi, record=True)
        return service_ibi

    def _address_problem(self, address: str) -> Message | None:
        """Why the resolver may not contact ``archiveaddress`` (hostport, §6.1), or ``None``."""
        parts = urlsplit(f"http://{address}/")
        kwargs = {} if self._getaddrinfo is None else {"getaddrinfo": self._getaddrinfo}
        try:
            check_host(parts.hostname or address, parts.port or 80, allow_private=self.allow_private, **kwargs)
        except AddressRefused as refusal:
            return N_("address not allowed: %(reason)s", reason=refusal.reason)
        return None

    def _refuse(self, reason: str, status: int, service_ibi: str | None = None, *, record: bool = False) -> ServiceAnswer:
        """A refusal, logged; ``record`` adds it to the registered Archive's history."""
        if record and service_ibi is not None:
            self.registry.record_refusal(service_ibi, reason, self.clock())
        _REFUSALS.warning(f"refused {status}", "archive registration request refused (%d) for %s: %s", status,
                          service_ibi or "?", reason)
        return ServiceAnswer(refused(reason), status)


def _read_confirmation(exchange: Exchange) -> Confirmation:
    """"confirmação" (4) must be the pair list ``confirmation yes`` (§7.2, Algorithm 1 line 3)."""
    if exchange.failure is not None:
        return Confirmation(False, exchange.problem)
    if exchange.status != 200:
        return Confirmation(False, N_("HTTP status %(status)s", status=exchange.status))
    answer = read_answer(exchange.body or b"")
    if isinstance(answer, UnreadableAnswer):
        return Confirmation(False, N_("the answer is not a pair list: %(problem)s", problem=answer.explanation))
    if answer.get("confirmation") != "yes":
        return Confirmation(False, N_("the answer is not 'confirmation yes'"))
    return Confirmation(True, Message("confirmation yes"))
