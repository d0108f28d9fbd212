"""The portal's own Archive joining and leaving an outside resolver (file 003 §7.2, Figure 7.1).

The Archive's side of Figure 7.1: "Incluir arquivo" (2) is an ``inclusionRequest`` with the
eight mandatory pairs of Table 7.2 (Example 7.2), sent to a resolver service URL such as
``http://urlib.net/J8LNKB5R7W/3FUQHC5``; before answering, the resolver sends "Solicitar
confirmação" (3) to ``http://<archiveaddress>/<archiveserviceibi>?servicesubject=
inclusionConfirmationRequest`` (Example 7.4), which the portal's own Archive service answers
``confirmation yes`` (4) on its own route, and the resolver's "status" (5) says
``status.archive included status.confirmation successful`` (or ``unsuccessful`` when the
callback did not reach the Archive). "Excluir arquivo" (7) is the ``exclusionRequest``
(Example 7.3), answered ``status.archive excluded`` (8). A resolver that refuses answers
``status.archive refused status.reason {…}`` (STANDARD.md §3).

What the Archive says about itself comes from the configuration: ``archiveaddress`` is the
host[:port] of ``IBIPORTAL_PORTAL_URL`` (the resolver must reach the portal there, so it must be
set), ``archiveserviceibi`` is ``IBIPORTAL_ARCHIVE_SERVICE_IBI``, ``archiveadmemailaddress`` is
``IBIPORTAL_ADMIN_EMAIL``, ``archiveip`` what the portal's host resolves to now,
``archiveplatformversion`` this portal's version and ``archiveprotocol`` ``HTTP``.

The registration key is the Archive's secret for one resolver (§7.1): it is given for each
request, goes into that request's URL only, and is never stored, logged or repeated – any text
that comes back from the transport (an error quoting the URL) has it masked.

No Flask here: the web layer builds :class:`Joining` with the ``requests`` transport of one-off
exchanges (with the resolver's address policy), the storage and the clock.
"""
from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from urllib.parse import urlsplit

from .. import __version__
from ..errors import IbiError, ParseError
from ..i18n import N_, Message, Recorded
from ..ibi.identifier import parse_ibi
from ..protocol.messages import (
    ExclusionRequest,
    InclusionConfirmationRequest,
    InclusionRequest,
    RegistrationKey,
    request_url,
)
from ..protocol.pairlist import parse_pair_list
from ..resolver.addresses import GetAddrInfo
from ..resolver.registration import utc_now
from ..resolver.transport import ARCHIVE_TIMEOUTS, Exchange, Failure, Timeouts, Transport
from ..storage.database import Storage, iso
from ..storage.resolvers import ResolverStatus, ResolverStatusStore

PLATFORM_VERSION = f"IBI-Portal-{__version__}"
"""``archiveplatformversion`` (Table 7.2: an ASCII string, e.g. ``2014:11.09.02.16.15`` for URLib)."""

JOIN_TIMEOUTS = Timeouts(connect=ARCHIVE_TIMEOUTS.connect, read=30.0, total=30.0)
"""The resolver answers an ``inclusionRequest`` only after its own confirmation request to this
Archive (Figure 7.1, messages 3 and 4), however long it gives that: the portal's own resolver
gives an Archive ``ARCHIVE_TIMEOUTS.total`` (8 s); 30 s leaves room for a slower one."""

KEY_MASK = "[hidden]"

#: Characters of an answer quoted in a reason, so that an administrator sees what came back.
EXCERPT_CHARACTERS = 120

#: ``archiveadmemailaddress`` (Table 7.2: RFC 2396's authority, ``user@host``).
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")

#: The setting each pair of Table 7.2 comes from (the key excepted: it is typed).
SETTINGS = {
    "archiveaddress": "IBIPORTAL_PORTAL_URL",
    "archiveserviceibi": "IBIPORTAL_ARCHIVE_SERVICE_IBI",
    "archiveadmemailaddress": "IBIPORTAL_ADMIN_EMAIL",
}


class Action(StrEnum):
    """What the Archive asks a resolver: to include it (``inclusionRequest``) or exclude it."""

    JOIN = "join"
    LEAVE = "leave"


class JoinOutcome(StrEnum):
    """What came of a request, read from the resolver's "status" (§7.2) or its absence."""

    INCLUDED = "included"  # status.archive included status.confirmation successful
    UNCONFIRMED = "unconfirmed"  # status.archive included status.confirmation unsuccessful
    EXCLUDED = "excluded"  # status.archive excluded
    REFUSED = "refused"  # status.archive refused status.reason {…}
    FAILED = "failed"  # no status at all: unreachable, timed out, not a pair list, …


class NotReady(IbiError):
    """The configuration does not say what Table 7.2 needs (the message names the variable)."""


@dataclass(frozen=True)
class RegistrationDetails:
    """What the own Archive tells a resolver about itself: Table 7.2 less the subject and key.

    ``notes`` are warnings for the administrator (e.g. a portal served over https, which the
    resolver still calls back over http: Table 7.2 allows only ``archiveprotocol`` HTTP).
    """

    address: str
    service_ibi: str
    ip: str
    platform_version: str
    admin_email: str
    notes: tuple[str, ...] = ()

    @property
    def confirmation_url(self) -> str:
        """Where the resolver sends "Solicitar confirmação" (3), as in Example 7.4."""
        return request_url(self.address, self.service_ibi, InclusionConfirmationRequest())


@dataclass(frozen=True)
class ResolverService:
    """A resolver service's base URL, ``http://<address>/<resolver service IBI>`` (§6.1), e.g.
    ``http://urlib.net/J8LNKB5R7W/3FUQHC5``; https is accepted too (a portal resolver behind TLS)."""

    url: str

    @classmethod
    def parse(cls, text: str) -> ResolverService:
        """The URL checked and normalized (scheme and host in lower case, no trailing ``/``), or a
        :class:`ParseError` (field ``resolver_url``) saying what is wrong and at which character."""
        def fail(message: Message, position: int | None = None) -> ParseError:
            return ParseError(message, position, field="resolver_url")

        given = text.strip()
        offset = len(text) - len(text.lstrip())
        if not given:
            raise fail(N_("give the resolver service URL, e.g. http://urlib.net/J8LNKB5R7W/3FUQHC5"))
        scheme, colon, _ = given.partition("://")
        if not colon or scheme.lower() not in ("http", "https"):
            raise fail(N_("a resolver service URL starts with http:// or https:// (§6.1)"), offset + 1)
        for char in "?#":
            if char in given:
                message = (N_("a resolver service URL has no query: the portal adds the pairs of Table 7.2 itself")
                           if char == "?" else
                           N_("a resolver service URL has no fragment: the portal adds the pairs of Table 7.2 itself"))
                raise fail(message, offset + given.index(char) + 1)
        bad = next((index for index, char in enumerate(given) if not 0x21 <= ord(char) <= 0x7E), None)
        if bad is not None:
            raise fail(N_("the character %(char)r cannot be in a URL", char=given[bad]), offset + bad + 1)
        try:
            parts = urlsplit(given)
            parts.port  # noqa: B018 - raises ValueError for a port that is not a number up to 65535
        except ValueError as error:
            raise fail(N_("the address does not parse: %(error)s", error=Recorded(error)), offset + len(scheme) + 4) from error
        host_start = offset + len(scheme) + 4
        if "@" in parts.netloc:
            raise fail(N_("a resolver service URL carries no user name or password"), host_start)
        if not parts.hostname:
            raise fail(N_("no address after the scheme (§6.1: http://<address>/<resolver service IBI>)"), host_start)
        path_start = host_start + len(parts.netloc)
        ibi = parts.path.strip("/")
        if not ibi:
            raise fail(N_("no resolver service IBI after the address, as in http://urlib.net/J8LNKB5R7W/3FUQHC5"),
                       path_start)
        try:
            parse_ibi(ibi)
        except ParseError as error:
            position = None if error.position is None else path_start + error.position
            raise fail(N_("the resolver service IBI %(ibi)r is not an IBI: %(problem)s", ibi=ibi, problem=error.message),
                       position) from error
        return cls(f"{parts.scheme.lower()}://{parts.netloc.lower()}/{ibi}")


@dataclass(frozen=True)
class ResolverAnswer:
    """What one inclusion or exclusion request brought back (a fact: sentences are the caller's).

    ``status`` is the resolver's pair list on one line, as §7.2 prints it, when it answered one;
    ``reason`` says in words why the request was refused or failed (the key masked, never
    quoted); ``http_status`` is ``None`` when nothing came back.
    """

    resolver_url: str
    action: Action
    outcome: JoinOutcome
    status: str | None
    reason: Message | None
    http_status: int | None
    identity: RegistrationDetails
    at: datetime

    @property
    def succeeded(self) -> bool:
        """Included with the confirmation received, or excluded: what the administrator asked for."""
        return self.outcome in (JoinOutcome.INCLUDED, JoinOutcome.EXCLUDED)


def archive_identity(portal_url: str, service_ibi: str, admin_email: str,
                     getaddrinfo: GetAddrInfo = socket.getaddrinfo) -> RegistrationDetails:
    """The own Archive's Table 7.2 values from the configuration, or :class:`NotReady` naming the
    setting that is missing or wrong. ``archiveip`` is looked up now (an address may change
    between inclusions, §7.2), the first IPv4 address first."""
    if not portal_url:
        raise NotReady(N_("IBIPORTAL_PORTAL_URL is not set: a resolver must be told where this Archive answers "
                          "(archiveaddress, Table 7.2); set it to the portal's public address, e.g. "
                          "http://archive.example.org"))
    parts = urlsplit(portal_url)
    try:
        port = parts.port
    except ValueError as error:
        raise NotReady(N_("IBIPORTAL_PORTAL_URL %(url)r has a bad port: %(error)s", url=portal_url,
                          error=Recorded(error))) from error
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        raise NotReady(N_("IBIPORTAL_PORTAL_URL %(url)r is not an http:// or https:// address of a host", url=portal_url))
    if parts.path.strip("/") or parts.query:
        raise NotReady(N_("IBIPORTAL_PORTAL_URL %(url)r has a path: the resolver calls back "
                          "http://<archiveaddress>/<archive service IBI> (Example 7.4), so the portal must be "
                          "served at the root of its address", url=portal_url))
    if not admin_email:
        raise NotReady(N_("IBIPORTAL_ADMIN_EMAIL is not set: Table 7.2 requires the e-mail of the Archive's "
                          "administrator (archiveadmemailaddress)"))
    if not _EMAIL.fullmatch(admin_email):
        raise NotReady(N_("IBIPORTAL_ADMIN_EMAIL %(email)r is not an e-mail address (archiveadmemailaddress, "
                          "Table 7.2)", email=admin_email))
    host = parts.hostname
    literal = f"[{host}]" if ":" in host else host
    address = literal if port is None else f"{literal}:{port}"
    notes = ()
    if parts.scheme.lower() == "https":
        notes = (N_("this portal is served over https, but a resolver calls an Archive back over http "
                    "(Table 7.2: archiveprotocol HTTP, Example 7.4): %(url)s must answer too, not only redirect",
                    url=f"http://{address}/{service_ibi}"),)
    return RegistrationDetails(address, service_ibi, _host_ip(host, getaddrinfo), PLATFORM_VERSION, admin_email, notes)


def _host_ip(host: str, getaddrinfo: GetAddrInfo) -> str:
    """The IP of the portal's host (``archiveip``): the host itself when it is an IP."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        found = getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError as error:
        raise NotReady(N_("the host %(host)s of IBIPORTAL_PORTAL_URL does not resolve (%(error)s): "
                          "archiveip (Table 7.2) is its IP", host=host, error=Recorded(error))) from error
    addresses = sorted({info[4][0] for info in found}, key=lambda ip: (":" in ip, ip))
    if not addresses:
        raise NotReady(N_("the host %(host)s of IBIPORTAL_PORTAL_URL has no address: archiveip (Table 7.2) is its IP",
                          host=host))
    return addresses[0].split("%")[0]  # an IPv6 zone index is no part of IPv6address (RFC 3986)


class Joining:
    """Join and leave outside resolvers as the portal's own Archive; keep the last status of each.

    ``transport`` carries the requests (the portal's ``HttpTransport``, with the address policy
    of ``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES``: a resolver on loopback or a private network is
    refused like any other such address); ``storage`` gives the storage of the current unit of
    work; ``getaddrinfo`` finds ``archiveip``.
    """

    def __init__(
        self,
        *,
        portal_url: str,
        service_ibi: str,
        admin_email: str,
        transport: Transport,
        storage: Callable[[], Storage],
        clock: Callable[[], datetime] = utc_now,
        getaddrinfo: GetAddrInfo = socket.getaddrinfo,
        timeouts: Timeouts = JOIN_TIMEOUTS,
    ) -> None:
        self.portal_url = portal_url
        self.service_ibi = service_ibi
        self.admin_email = admin_email
        self.transport = transport
        self.storage = storage
        self.clock = clock
        self.getaddrinfo = getaddrinfo
        self.timeouts = timeouts

    def identity(self) -> RegistrationDetails:
        """What the Archive would send now (:func:`archive_identity`); :class:`NotReady` if it cannot."""
        return archive_identity(self.portal_url, self.service_ibi, self.admin_email, self.getaddrinfo)

    def join(self, resolver_url: str, key: str) -> ResolverAnswer:
        """Send ``inclusionRequest`` (Example 7.2) to ``resolver_url`` with ``key``; keep and return its status.

        Raises :class:`ParseError` (field ``resolver_url`` or ``registration_key``, a key never
        quoted) or :class:`NotReady` before anything is sent; a resolver that refuses, fails or
        cannot be reached is an answer, not an exception.
        """
        return self._send(Action.JOIN, resolver_url, key)

    def leave(self, resolver_url: str, key: str) -> ResolverAnswer:
        """Send ``exclusionRequest`` (Example 7.3); as :meth:`join`."""
        return self._send(Action.LEAVE, resolver_url, key)

    def resolvers(self) -> list[ResolverStatus]:
        """The last exchange with every resolver asked, by service URL."""
        return ResolverStatusStore(self.storage()).resolvers()

    def _send(self, action: Action, resolver_url: str, key: str) -> ResolverAnswer:
        resolver = ResolverService.parse(resolver_url)
        try:  # the message names the key as people do; the field is the form's
            registration_key = RegistrationKey(key, field=N_("the registration key"))
        except ParseError as error:
            raise ParseError(error.message, error.position, "registration_key") from error
        identity = self.identity()
        message_class = InclusionRequest if action is Action.JOIN else ExclusionRequest
        try:
            message = message_class(
                archive_address=identity.address,
                archive_service_ibi=identity.service_ibi,
                archive_ip=identity.ip,
                archive_platform_version=identity.platform_version,
                archive_adm_email_address=identity.admin_email,
                registration_key=registration_key,
            )
        except ParseError as error:  # a setting Table 7.2 cannot carry (the key was checked above)
            setting = SETTINGS.get(error.field or "", N_("the configuration"))
            raise NotReady(Message("%(setting)s: %(problem)s", {"setting": setting, "problem": error.message})) from error
        exchange = self.transport.fetch(f"{resolver.url}?{message.to_query()}", self.timeouts)
        outcome, status, reason = read_status(action, exchange, registration_key)
        answer = ResolverAnswer(resolver.url, action, outcome, status, reason, exchange.status, identity, self.clock())
        ResolverStatusStore(self.storage()).record(ResolverStatus(
            answer.resolver_url, action.value, outcome.value, status, reason, identity.address, iso(answer.at)))
        return answer


_EXPECTED = {
    Action.JOIN: "status.archive included with status.confirmation successful or unsuccessful",
    Action.LEAVE: "status.archive excluded",
}


def read_status(action: Action, exchange: Exchange, key: RegistrationKey) -> tuple[JoinOutcome, str | None, Message | None]:
    """``(outcome, status line, reason)`` of a resolver's answer to ``action`` (§7.2 messages 5 and 8).

    Every text taken from the exchange has ``key`` masked: an error of the HTTP client may quote
    the request URL, and a careless resolver may echo its query. What the resolver or the
    transport said is kept in their words (:class:`Recorded`), the portal's own in a message.
    """
    def masked(text: str) -> Recorded:
        return Recorded(text.replace(key.reveal(), KEY_MASK))

    if exchange.failure is not None and exchange.failure is not Failure.TOO_LARGE or exchange.body is None:
        return JoinOutcome.FAILED, None, _no_answer(exchange, masked)
    where = Message("HTTP %(status)s", {"status": exchange.status}) if exchange.status is not None else N_("the answer")
    text = exchange.body.decode("latin-1")
    excerpt = masked(" ".join(text.split())[:EXCERPT_CHARACTERS]) or N_("(empty)")
    if exchange.failure is Failure.TOO_LARGE:
        return JoinOutcome.FAILED, None, N_("%(where)s: %(error)s; it begins: %(excerpt)s", where=where,
                                        error=masked(exchange.error) if exchange.error else N_("too large"), excerpt=excerpt)
    try:
        pairs = parse_pair_list(exchange.body)
    except ParseError as error:
        return JoinOutcome.FAILED, None, N_("%(where)s is not a pair list (§6.2: %(problem)s); it begins: %(excerpt)s",
                                        where=where, problem=error.message, excerpt=excerpt)
    archive = pairs.text("status.archive")
    status = str(masked(pairs.serialize(" "))) if archive is not None else None
    if archive == "refused":
        said = pairs.text("status.reason")
        return JoinOutcome.REFUSED, status, Message("%(said)s (%(where)s)", {
            "said": masked(said) if said else N_("no reason given"), "where": where})
    if action is Action.JOIN and archive == "included":
        confirmation = pairs.text("status.confirmation")
        if confirmation in ("successful", "unsuccessful"):
            return (JoinOutcome.INCLUDED if confirmation == "successful" else JoinOutcome.UNCONFIRMED), status, None
    if action is Action.LEAVE and archive == "excluded":
        return JoinOutcome.EXCLUDED, status, None
    return JoinOutcome.FAILED, status, N_("%(where)s is not the status of §7.2 (expected %(expected)s): %(excerpt)s",
                                      where=where, expected=_EXPECTED[action], excerpt=excerpt)


#: The operating system's words inside a chain of HTTP client errors: ``[Errno 111] Connection refused``.
_OS_ERROR = re.compile(r"\[Errno -?\d+\] ([^'\"()]+)")


def _no_answer(exchange: Exchange, masked: Callable[[str], Recorded]) -> Message:
    """Why nothing usable came back, in words (the transport's failure and its detail)."""
    error = exchange.error or ""
    detail = error if isinstance(error, Message) else masked(error) if error else N_("no detail")
    if exchange.failure is Failure.REFUSED:
        if "not allowed" in error:
            return N_("not sent, the portal %(detail)s; a resolver on a loopback or private address is contacted only "
                      "with IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1", detail=detail)
        return N_("not sent, the portal %(detail)s", detail=detail)
    if exchange.failure is Failure.TIMEOUT:
        return N_("no answer in time: %(detail)s", detail=detail)
    if exchange.failure is Failure.REDIRECT:
        return N_("the resolver answered HTTP %(status)s, a %(detail)s; give the URL it redirects to",
                  status=exchange.status, detail=detail)
    if exchange.failure is Failure.CONNECTION:
        cause = _OS_ERROR.findall(error)
        return N_("could not reach the resolver: %(cause)s", cause=masked(cause[-1]) if cause else detail)
    return N_("no answer: %(detail)s", detail=detail)
