"""The conformance check's requests and what came back: the evidence its rules judge.

An Archive service's address (:class:`ServiceAddress`), the IBI invented for the check, one
:class:`Probe` per request, and the :class:`Sender` that sends them one at a time within the
check's limits (``ibiportal.resolver.conformance`` orders them; ``conformance_rules`` judges).
"""
from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Message
from ibiportal.ibi.dates import EPOCH
from ibiportal.ibi.ibip import ibip_prefix, ibip_suffix
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.protocol.messages import InclusionConfirmationRequest, Request, request_url
from ibiportal.protocol.pairlist import PairList, UnreadableAnswer, read_answer
from ibiportal.resolver.transport import ARCHIVE_TIMEOUTS, Exchange, Failure, Timeouts, Transport

CHECK_TIMEOUTS = replace(ARCHIVE_TIMEOUTS, total=ARCHIVE_TIMEOUTS.read)
"""Per exchange: the resolver's limits for an included Archive (``ARCHIVE_TIMEOUTS``), the
whole exchange cut at the read limit: an answer later than that is lost to the resolver anyway."""

CHECK_CLIENT_IP = "192.0.2.1"
"""``clientinformation.ipaddress`` of the check's ``urlRequest`` (RFC 5737: documentation)."""

EXCERPT_CHARACTERS = 2000
"""How much of an answer the evidence keeps to show."""


@dataclass(frozen=True)
class ServiceAddress:
    """An Archive service's base URL (§6.1): ``http://<address>/<service_ibi>``."""

    address: str
    service_ibi: str

    @property
    def base_url(self) -> str:
        return f"http://{self.address}/{self.service_ibi}"

    def __str__(self) -> str:
        return self.base_url


def parse_service_address(text: str) -> ServiceAddress:
    """Read ``http://<archiveaddress>/<archiveserviceibi>`` (§6.1), as an administrator types it.

    Raises :class:`ParseError` (field ``address``, 1-based position in ``text``): not
    ``http://``, no service IBI, a query or fragment, a bad host:port (RFC 3986 hostport), or a
    service IBI that is neither a repository name nor an IBIp.
    """
    scheme = "http://"
    if not text.strip():
        raise ParseError(N_("give the Archive service address, http://<archive address>/<service IBI> (§6.1)"),
                         field="address")
    if text[: len(scheme)].lower() != scheme:
        raise ParseError(N_("an Archive service address starts with http:// (§6.1)"), position=1, field="address")
    for mark in "?#":
        if mark in text:
            raise ParseError(N_("no %(mark)r in an Archive service address: give only its base URL (§6.1)", mark=mark),
                             position=text.index(mark) + 1, field="address")
    slash = text.find("/", len(scheme))
    if slash < 0 or slash == len(text) - 1:
        raise ParseError(N_("no service IBI after the address: http://<archive address>/<service IBI> (§6.1)"),
                         position=len(text) + 1, field="address")
    address, service_ibi = text[len(scheme):slash], text[slash + 1:]
    try:
        parse_ibi(service_ibi)
    except ParseError as error:
        position = None if error.position is None else error.position + slash + 1
        raise ParseError(N_("service IBI: %(problem)s", problem=error.message), position=position, field="address") from error
    try:
        request_url(address, service_ibi, InclusionConfirmationRequest())
    except ParseError as error:
        raise ParseError(N_("archive address %(address)r: not a host with an optional :port (§6.1 hostport)",
                            address=address[:60]),
                         position=len(scheme) + 1, field="address") from error
    return ServiceAddress(address, service_ibi)


def invent_unknown_ibi() -> str:
    """An IBIp no Archive holds: subsystem at a random RFC 5737 address and port, random date."""
    ip = f"192.0.2.{1 + secrets.randbelow(254)}"
    port = 1024 + secrets.randbelow(64000)
    seconds = EPOCH + 1 + secrets.randbelow(25 * 365 * 86400)
    return f"{ibip_prefix(ip, port)}/{ibip_suffix(Decimal(seconds))}"


@dataclass(frozen=True)
class Probe:
    """One request of the check and what came back: the evidence rules point to.

    ``exchange`` is ``None`` when the request was not sent (``not_sent`` says why).
    """

    name: str
    subject: str
    url: str
    exchange: Exchange | None
    duration_ms: float = 0.0
    not_sent: Message | None = None

    @property
    def answered(self) -> bool:
        """Whether an HTTP answer came back (any status)."""
        return self.exchange is not None and self.exchange.status is not None

    @property
    def status(self) -> int | None:
        return None if self.exchange is None else self.exchange.status

    @property
    def content_type(self) -> str | None:
        return None if self.exchange is None else self.exchange.content_type

    @property
    def refused(self) -> bool:
        """Whether the transport refused to contact the address (its address policy)."""
        return self.exchange is not None and self.exchange.failure is Failure.REFUSED

    @property
    def body(self) -> bytes:
        """The raw answer as received (``b""`` when nothing was read)."""
        return b"" if self.exchange is None else self.exchange.body or b""

    @property
    def problem(self) -> Message | None:
        """Why nothing usable came back: not sent, or the transport's failure (its own words
        kept as it wrote them)."""
        if self.exchange is None:
            return N_("not sent: %(why)s", why=self.not_sent)
        return self.exchange.problem

    @property
    def excerpt(self) -> str:
        """The start of the raw answer, printable: bytes outside printable ASCII as ``\\xNN``.

        CRLF is shown as a line break, a lone CR as ``\\x0d``: what an ASCII or grammar
        failure is about stays visible, and nothing in it is markup (it is shown escaped).
        """
        text = self.body[:EXCERPT_CHARACTERS].decode("latin-1").replace("\r\n", "\n")
        shown = "".join(c if c == "\n" or 0x20 <= ord(c) < 0x7F else f"\\x{ord(c):02x}" for c in text)
        return shown + ("\n[…]" if len(self.body) > EXCERPT_CHARACTERS else "")

    def answer(self) -> PairList | Message:
        """The answer as a pair list, or why it cannot be read as one (for the subject rules)."""
        problem = self.problem
        if problem is not None:
            return N_("no answer (%(problem)s)", problem=problem)
        assert self.exchange is not None
        if self.exchange.status != 200:
            return N_("HTTP status %(status)s", status=self.exchange.status)
        answer = read_answer(self.body)
        if isinstance(answer, UnreadableAnswer):
            return N_("the answer is not a pair list: %(problem)s", problem=answer.explanation)
        return answer



class Sender:
    """Sends the check's requests one by one, each within the full limits; stops after a lost exchange.

    Each request has the whole of ``timeouts``, as the resolver gives each of its own
    requests: an Archive is judged by how it answers each request, never by how many
    requests the check happens to send.
    """

    def __init__(self, target: ServiceAddress, transport: Transport, clock: Callable[[], float],
                 timeouts: Timeouts) -> None:
        self.target = target
        self.transport = transport
        self.clock = clock
        self.timeouts = timeouts
        self.stopped: Message | None = None

    def send(self, name: str, message: Request) -> Probe:
        url = request_url(self.target.address, self.target.service_ibi, message)
        if self.stopped is not None:
            return Probe(name, message.SUBJECT, url, None, not_sent=self.stopped)
        started = self.clock()
        exchange = self.transport.fetch(url, self.timeouts)
        probe = Probe(name, message.SUBJECT, url, exchange, (self.clock() - started) * 1000)
        if not probe.answered:
            self.stopped = N_("the %(request)s request got no answer (%(problem)s)", request=name, problem=probe.problem)
        return probe
