"""The conformance check: does an Archive service answer the resolver as file 003 requires?

An administrator gives an Archive service address – the base URL of §6.1,
``http://<archiveaddress>/<archiveserviceibi>`` – and optionally the IBI of an item the
Archive holds. The check sends, in this order and one at a time, the requests the resolver
itself sends (§9.1: "O serviço de Arquivo é solicitado pelo resolvedor em três
circunstâncias"):

=====================  ==============================================================
request                what it is
=====================  ==============================================================
``confirmation``       ``inclusionConfirmationRequest`` (Example 7.4)
``unknown IBI``        ``urlRequest`` about an IBI invented for the check (Table 8.9)
``known IBI``          ``urlRequest`` about the administrator's IBI (only when given)
``known IBI again``    the same once more, to see the ``urlkey`` change (§9.2)
``acknowledgment``     ``acknowledgment`` of the first known answer (Table 8.11)
=====================  ==============================================================

and judges the answers by the rules of :data:`~.conformance_rules.RULES`, each citing its source. Every rule
ends ``passed``, ``failed`` or ``skipped`` (with the reason: no known IBI given, or the
request it needs could not be sent) – never silently.

Bounds, because an administrator's page waits for the result: each request has the whole of
the limits the resolver gives an included Archive (:data:`CHECK_TIMEOUTS`), so an Archive that
answers every request within the protocol's limit passes however many requests the check sends
(at most :data:`CHECK_REQUESTS`, so the check ends within :func:`check_bound`); after a request
that got no HTTP answer at all (address refused, connection failed, timeout) nothing more is
sent. :meth:`ConformanceCheck.results` gives each rule's verdict as soon as the requests it
judges are answered, for a page that shows the check's progress rule by rule.

The transport decides what may be contacted: with
:class:`~ibiportal.resolver.http_transport.HttpTransport` an address that resolves to a loopback
or private network is refused unless the deployment allows private Archives – an admin
form that sends requests anywhere is an SSRF vector like any other.

The invented IBI is an IBIp whose subsystem is at a documentation address (RFC 5737
``192.0.2.0/24``, which no real identification subsystem has) with a random port and date,
so no Archive can hold it. The requests name the user ``clientinformation.ipaddress
192.0.2.1`` (Table 8.9 makes the pair mandatory; there is no user here).

Pure Python: no Flask. Used by the admin pages and ``flask archives check``.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Message
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.protocol.messages import (
    RESOLVER_ADDRESS,
    Acknowledgment,
    InclusionConfirmationRequest,
    Request,
    UrlRequest,
)
from ibiportal.protocol.status import CONFIRMATION
from ibiportal.resolver.conformance_probes import (
    CHECK_CLIENT_IP,
    CHECK_TIMEOUTS,
    Probe,
    Sender,
    ServiceAddress,
    invent_unknown_ibi,
    parse_service_address,
)
from ibiportal.resolver.conformance_rules import (
    RuleResult,
    Verdict,
    judge_acknowledgment,
    judge_ascii,
    judge_constant_answer,
    judge_content_type,
    judge_grammar,
    judge_http_status,
    judge_known_ibi,
    judge_timing,
    judge_unknown_ibi,
    judge_urlkey,
)
from ibiportal.resolver.transport import Timeouts, Transport

CHECK_REQUESTS = 5
"""Requests the check sends at most: confirmation, unknown IBI, known IBI twice, acknowledgment."""


def check_bound(timeouts: Timeouts = CHECK_TIMEOUTS) -> float:
    """The longest a whole check can take, in seconds: every request given its full limit."""
    return CHECK_REQUESTS * timeouts.total


@dataclass(frozen=True)
class ConformanceReport:
    """Every rule's result for one Archive service, and every request sent."""

    target: ServiceAddress
    known_ibi: str | None
    unknown_ibi: str
    results: tuple[RuleResult, ...]
    probes: tuple[Probe, ...]
    duration_ms: float

    @property
    def conforms(self) -> bool:
        """No rule failed and every rule could be checked (skipped rules do not count against
        the Archive; rules not checked because its address was refused leave it unproven)."""
        return not any(result.failed or result.outcome is Verdict.NOT_CHECKED for result in self.results)

    def count(self, outcome: Verdict | str) -> int:
        return sum(result.outcome == outcome for result in self.results)

    @property
    def refused(self) -> bool:
        """Whether the transport's address policy refused the address (nothing was sent)."""
        return bool(self.probes) and self.probes[0].refused

    @property
    def unreachable(self) -> Message | None:
        """Why no request got an HTTP answer at all (address refused, no connection), else ``None``."""
        if any(probe.answered for probe in self.probes):
            return None
        return next((probe.problem for probe in self.probes if probe.exchange is not None), None)


def send_confirmation_request(
    target: ServiceAddress,
    transport: Transport,
    *,
    clock: Callable[[], float] = time.monotonic,
    timeouts: Timeouts = CHECK_TIMEOUTS,
) -> tuple[Probe, RuleResult]:
    """"Solicitar confirmação" (3) on its own (Example 7.4), for an administrator: what was
    sent, what came back, and whether it is the ``confirmation yes`` of §7.2."""
    probe = Sender(target, transport, clock, timeouts).send(
        "confirmation", InclusionConfirmationRequest()
    )
    return probe, judge_constant_answer("confirmation", probe, CONFIRMATION)


def check_archive(
    target: ServiceAddress | str,
    transport: Transport,
    *,
    clock: Callable[[], float] = time.monotonic,
    known_ibi: str | None = None,
    unknown_ibi: str | None = None,
    timeouts: Timeouts = CHECK_TIMEOUTS,
    resolver_address: str = RESOLVER_ADDRESS,
) -> ConformanceReport:
    """Run the whole check (module docstring) against ``target``: :class:`ConformanceCheck` at once."""
    check = ConformanceCheck(target, clock=clock, known_ibi=known_ibi, unknown_ibi=unknown_ibi,
                             timeouts=timeouts, resolver_address=resolver_address)
    for _ in check.results(transport):
        pass
    return check.report()


class ConformanceCheck:
    """One check of one Archive service, rule by rule.

    ``target`` is a :class:`ServiceAddress` or its text (:func:`parse_service_address`);
    ``known_ibi`` an IBI the Archive holds (checked with the IBI grammar: a
    :class:`ParseError` for field ``known_ibi``); ``unknown_ibi`` replaces the invented one
    (tests); ``clock`` measures durations (monotonic seconds); ``resolver_address`` goes
    into the acknowledgment's ``url.persistent`` (Table 8.11). The constructor raises only
    :class:`ParseError`, before anything is sent; :meth:`results` sends the requests through
    a transport.
    """

    def __init__(
        self,
        target: ServiceAddress | str,
        *,
        clock: Callable[[], float] = time.monotonic,
        known_ibi: str | None = None,
        unknown_ibi: str | None = None,
        timeouts: Timeouts = CHECK_TIMEOUTS,
        resolver_address: str = RESOLVER_ADDRESS,
    ) -> None:
        self.target = parse_service_address(target) if isinstance(target, str) else target
        if known_ibi is not None:
            known_ibi = known_ibi.strip()
            try:
                parse_ibi(known_ibi)
            except ParseError as error:
                raise ParseError(N_("known IBI: %(problem)s", problem=error.message), error.position, "known_ibi") from error
        self.known_ibi = known_ibi or None
        self.unknown_ibi = unknown_ibi or invent_unknown_ibi()
        self.timeouts = timeouts
        self.resolver_address = resolver_address
        self._clock = clock
        self._sender: Sender | None = None
        self._probes: list[Probe] = []
        self._results: list[RuleResult] = []
        self._duration_ms = 0.0

    def results(self, transport: Transport) -> Iterator[RuleResult]:
        """Send the requests one at a time through ``transport``, and give each rule's result
        (in :data:`RULES` order) as soon as the requests it judges have been answered."""
        self._sender = Sender(self.target, transport, self._clock, self.timeouts)
        started = self._clock()
        client = (CHECK_CLIENT_IP,)
        confirmation = self._send(N_("confirmation"), InclusionConfirmationRequest())
        yield self._decided(judge_constant_answer("confirmation", confirmation, CONFIRMATION))
        unknown = self._send(N_("unknown IBI"), UrlRequest(client, self.unknown_ibi))
        yield self._decided(judge_unknown_ibi(unknown, self.unknown_ibi))
        known: tuple[Probe, ...] = ()
        acknowledgment: Probe | None = None
        if self.known_ibi:
            known = (self._send(N_("known IBI"), UrlRequest(client, self.known_ibi)),
                     self._send(N_("known IBI again"), UrlRequest(client, self.known_ibi)))
        yield self._decided(judge_known_ibi(known, self.known_ibi))
        if known:
            acknowledgment = self._acknowledge(known[0])
        yield self._decided(judge_acknowledgment(acknowledgment, self.known_ibi))
        probes = tuple(self._probes)
        for result in (judge_http_status(probes), judge_content_type(probes), judge_ascii(probes),
                       judge_grammar(probes), judge_urlkey(known), judge_timing(probes, self.timeouts)):
            yield self._decided(result)
        self._duration_ms = (self._clock() - started) * 1000

    def report(self) -> ConformanceReport:
        """Every rule's result, once :meth:`results` has run to its end."""
        return ConformanceReport(self.target, self.known_ibi, self.unknown_ibi, tuple(self._results),
                                 tuple(self._probes), self._duration_ms)

    def _send(self, name: str, message: Request) -> Probe:
        assert self._sender is not None  # made by results()
        probe = self._sender.send(name, message)
        self._probes.append(probe)
        return probe

    def _decided(self, result: RuleResult) -> RuleResult:
        """A rule failed only because nothing could be sent to a refused address is "not checked"."""
        first = self._probes[0]
        if first.refused and result.failed:
            reason = N_("Not checked: refused to contact %(address)s (%(problem)s).", address=self.target.address,
                        problem=first.problem)
            result = replace(result, outcome=Verdict.NOT_CHECKED, detail=reason)
        self._results.append(result)
        return result

    def _acknowledge(self, known: Probe) -> Probe | None:
        """"Agradecer" (5) built from the known answer as the resolver builds it (Table 8.11);
        ``None`` when that answer offers nothing to acknowledge (the rule says why)."""
        answer = known.answer()
        if isinstance(answer, str) or not answer or answer.get("state") == "Deleted":
            return None
        url_persistent = f"http://{self.resolver_address}:80/{self.known_ibi}"
        try:
            message = Acknowledgment.from_answer(answer, client_ips=(CHECK_CLIENT_IP,), url_persistent=url_persistent)
        except ParseError:
            return None
        return self._send(N_("acknowledgment"), message)
