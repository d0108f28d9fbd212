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

and judges the answers by the rules of :data:`RULES`, each citing its source. Every rule
ends ``passed``, ``failed`` or ``skipped`` (with the reason: no known IBI given, or the
request it needs could not be sent) – never silently.

Bounds, because an administrator's page waits for the result: each exchange has the limits
the resolver gives an included Archive (:data:`CHECK_TIMEOUTS`), the whole check a budget
(:data:`CHECK_BUDGET_SECONDS`), and after a request that got no HTTP answer at all (address
refused, connection failed, timeout) nothing more is sent.

The transport decides what may be contacted: with
:class:`~ibiportal.resolver.transport.HttpTransport` an address that resolves to a loopback
or private network is refused unless the deployment allows private Archives – an admin
form that sends requests anywhere is an SSRF vector like any other.

The invented IBI is an IBIp whose subsystem is at a documentation address (RFC 5737
``192.0.2.0/24``, which no real identification subsystem has) with a random port and date,
so no Archive can hold it. The requests name the user ``clientinformation.ipaddress
192.0.2.1`` (Table 8.9 makes the pair mandatory; there is no user here).

Pure Python: no Flask. Used by the admin pages and ``flask archives check``.
"""
from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum

from ibiportal.errors import ParseError
from ibiportal.ibi.dates import EPOCH
from ibiportal.ibi.ibip import ibip_prefix, ibip_suffix
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.protocol.messages import (
    CONTENT_TYPES,
    ITEM_STATES,
    RESOLVER_ADDRESS,
    Acknowledgment,
    InclusionConfirmationRequest,
    Request,
    UrlRequest,
    check_key,
    request_url,
)
from ibiportal.protocol.pairlist import PairList, UnreadableAnswer, read_answer
from ibiportal.protocol.status import ACKNOWLEDGMENT_NOTICE, CONFIRMATION
from ibiportal.resolver.transport import ARCHIVE_TIMEOUTS, Exchange, Failure, Timeouts, Transport

CHECK_TIMEOUTS = replace(ARCHIVE_TIMEOUTS, total=ARCHIVE_TIMEOUTS.read)
"""Per exchange: the resolver's limits for an included Archive (``ARCHIVE_TIMEOUTS``), the
whole exchange cut at the read limit: an answer later than that is lost to the resolver anyway."""

CHECK_BUDGET_SECONDS = 15.0
"""The whole check; requests that would start later are not sent (their rules are skipped)."""

CHECK_CLIENT_IP = "192.0.2.1"
"""``clientinformation.ipaddress`` of the check's ``urlRequest`` (RFC 5737: documentation)."""

EXCERPT_CHARACTERS = 2000
"""How much of an answer the evidence keeps to show."""

_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})")
_IBI_FORMS = re.compile(r"rep [^ ]+( ibip [^ ]+)?|ibip [^ ]+")


class Verdict(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    # The resolver's address policy refused to contact the Archive: nothing was sent, so a rule
    # judged on its answers neither passed nor failed; "failed" would blame the Archive.
    NOT_CHECKED = "not-checked"


@dataclass(frozen=True)
class Rule:
    """One requirement of the standard: an id, what it asks, and where it says so."""

    rule_id: str
    title: str
    source: str


RULES: tuple[Rule, ...] = (
    Rule("confirmation", "Answers inclusionConfirmationRequest with 'confirmation yes'",
         "file 003 §7.2 (Example 7.4, message 4), §9.1, §9.2 Algorithm 1 lines 2-4"),
    Rule("unknown-ibi", "Answers urlRequest about an IBI it does not hold with the empty answer",
         "file 003 §9.2 Algorithm 2 lines 1-4 (CRIARPARSTATE gives \"\")"),
    Rule("known-ibi", "Answers urlRequest about an IBI it holds with a URL list",
         "file 003 §9.2 Algorithm 2, Table 9.3, Table 9.4; Example 9.2"),
    Rule("acknowledgment", "Answers acknowledgment with 'notice {acknowledgment received}'",
         "file 003 §8.2 (Table 8.11, Example 8.9), §9.1, §9.2 Algorithm 1 lines 19-21"),
    Rule("http-status", "Every answer has HTTP status 200",
         "file 003 §6 (requests and answers are HTTP messages); the resolver uses no other answer"),
    Rule("content-type", "Every answer is Content-Type text/plain",
         "file 003 §6.2 (\"gerada com o Content-Type assumindo o valor text/plain\")"),
    Rule("ascii", "Every answer is ASCII only (other characters written %hh)",
         "file 003 §6.2, Table 6.2 rule caractere"),
    Rule("grammar", "Every answer is a pair list",
         "file 003 §6.2, Table 6.2 (lista-de-pares)"),
    Rule("urlkey", "Each URL list has a fresh urlkey shaped as Table 7.1 (recommended)",
         "file 003 §9.2 Algorithm 2 line 19, Table 9.3 (urlkey: regra chave da Tabela 7.1); "
         "\"essa chave deveria ser trocada a cada resposta\""),
    Rule("timing", "Every answer arrives within the resolver's timeouts",
         f"file 003 §8.2 (the resolver asks every Archive and selects among the answers); "
         f"this resolver waits {CHECK_TIMEOUTS.connect:g} s to connect and {CHECK_TIMEOUTS.read:g} s "
         f"for an answer"),
)
_RULES = {rule.rule_id: rule for rule in RULES}


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
        raise ParseError("give the Archive service address, http://<archive address>/<service IBI> (§6.1)",
                         field="address")
    if text[: len(scheme)].lower() != scheme:
        raise ParseError("an Archive service address starts with http:// (§6.1)", position=1, field="address")
    for mark in "?#":
        if mark in text:
            raise ParseError(f"no {mark!r} in an Archive service address: give only its base URL (§6.1)",
                             position=text.index(mark) + 1, field="address")
    slash = text.find("/", len(scheme))
    if slash < 0 or slash == len(text) - 1:
        raise ParseError("no service IBI after the address: http://<archive address>/<service IBI> (§6.1)",
                         position=len(text) + 1, field="address")
    address, service_ibi = text[len(scheme):slash], text[slash + 1:]
    try:
        parse_ibi(service_ibi)
    except ParseError as error:
        position = None if error.position is None else error.position + slash + 1
        raise ParseError(f"service IBI: {error.message}", position=position, field="address") from error
    try:
        request_url(address, service_ibi, InclusionConfirmationRequest())
    except ParseError as error:
        raise ParseError(f"archive address {address[:60]!r}: not a host with an optional :port (§6.1 hostport)",
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
    not_sent: str | None = None

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
    def problem(self) -> str | None:
        """Why nothing usable came back: not sent, or the transport's failure."""
        if self.exchange is None:
            return f"not sent: {self.not_sent}"
        failure, error = self.exchange.failure, self.exchange.error or ""
        if failure is None:
            return None
        return error if error.startswith(str(failure)) else f"{failure}: {error}"

    @property
    def excerpt(self) -> str:
        """The start of the raw answer, printable: bytes outside printable ASCII as ``\\xNN``.

        CRLF is shown as a line break, a lone CR as ``\\x0d``: what an ASCII or grammar
        failure is about stays visible, and nothing in it is markup (it is shown escaped).
        """
        text = self.body[:EXCERPT_CHARACTERS].decode("latin-1").replace("\r\n", "\n")
        shown = "".join(c if c == "\n" or 0x20 <= ord(c) < 0x7F else f"\\x{ord(c):02x}" for c in text)
        return shown + ("\n[…]" if len(self.body) > EXCERPT_CHARACTERS else "")

    def answer(self) -> PairList | str:
        """The answer as a pair list, or why it cannot be read as one (for the subject rules)."""
        problem = self.problem
        if problem is not None:
            return f"no answer ({problem})"
        assert self.exchange is not None
        if self.exchange.status != 200:
            return f"HTTP status {self.exchange.status}"
        answer = read_answer(self.body)
        if isinstance(answer, UnreadableAnswer):
            return f"the answer is not a pair list: {answer}"
        return answer


@dataclass(frozen=True)
class RuleResult:
    """A rule's verdict, why, and the requests it was judged on."""

    rule_id: str
    title: str
    source: str
    outcome: Verdict
    detail: str
    evidence: tuple[Probe, ...] = ()

    @property
    def passed(self) -> bool:
        return self.outcome is Verdict.PASSED

    @property
    def failed(self) -> bool:
        return self.outcome is Verdict.FAILED

    @property
    def duration_ms(self) -> float:
        return sum(probe.duration_ms for probe in self.evidence)


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
    def unreachable(self) -> str | None:
        """Why no request got an HTTP answer at all (address refused, no connection), else ``None``."""
        if any(probe.answered for probe in self.probes):
            return None
        return next((probe.problem for probe in self.probes if probe.exchange is not None), None)


class _Sender:
    """Sends the check's requests one by one, within the budget; stops after a lost exchange."""

    def __init__(self, target: ServiceAddress, transport: Transport, clock: Callable[[], float],
                 timeouts: Timeouts, budget: float) -> None:
        self.target = target
        self.transport = transport
        self.clock = clock
        self.timeouts = timeouts
        self.deadline = clock() + budget
        self.budget = budget
        self.stopped: str | None = None

    def send(self, name: str, message: Request) -> Probe:
        url = request_url(self.target.address, self.target.service_ibi, message)
        remaining = self.deadline - self.clock()
        if self.stopped is None and remaining <= 0:
            self.stopped = f"the check's {self.budget:g} s were spent"
        if self.stopped is not None:
            return Probe(name, message.SUBJECT, url, None, not_sent=self.stopped)
        limits = Timeouts(min(self.timeouts.connect, remaining), min(self.timeouts.read, remaining),
                          min(self.timeouts.total, remaining))
        started = self.clock()
        exchange = self.transport.fetch(url, limits)
        probe = Probe(name, message.SUBJECT, url, exchange, (self.clock() - started) * 1000)
        if not probe.answered:
            self.stopped = f"the {name} request got no answer ({probe.problem})"
        return probe


def send_confirmation_request(
    target: ServiceAddress,
    transport: Transport,
    *,
    clock: Callable[[], float] = time.monotonic,
    timeouts: Timeouts = CHECK_TIMEOUTS,
) -> tuple[Probe, RuleResult]:
    """"Solicitar confirmação" (3) on its own (Example 7.4), for an administrator: what was
    sent, what came back, and whether it is the ``confirmation yes`` of §7.2."""
    probe = _Sender(target, transport, clock, timeouts, timeouts.total).send(
        "confirmation", InclusionConfirmationRequest()
    )
    return probe, _constant_answer("confirmation", probe, CONFIRMATION)


def check_archive(
    target: ServiceAddress | str,
    transport: Transport,
    *,
    clock: Callable[[], float] = time.monotonic,
    known_ibi: str | None = None,
    unknown_ibi: str | None = None,
    timeouts: Timeouts = CHECK_TIMEOUTS,
    budget: float = CHECK_BUDGET_SECONDS,
    resolver_address: str = RESOLVER_ADDRESS,
) -> ConformanceReport:
    """Run the check (module docstring) against ``target``.

    ``target`` is a :class:`ServiceAddress` or its text (:func:`parse_service_address`);
    ``known_ibi`` an IBI the Archive holds (checked with the IBI grammar: a
    :class:`ParseError` for field ``known_ibi``); ``unknown_ibi`` replaces the invented one
    (tests); ``clock`` measures durations (monotonic seconds); ``resolver_address`` goes
    into the acknowledgment's ``url.persistent`` (Table 8.11). Raises only
    :class:`ParseError`, before anything is sent.
    """
    if isinstance(target, str):
        target = parse_service_address(target)
    if known_ibi is not None:
        known_ibi = known_ibi.strip()
        try:
            parse_ibi(known_ibi)
        except ParseError as error:
            raise ParseError(f"known IBI: {error.message}", error.position, "known_ibi") from error
    unknown_ibi = unknown_ibi or invent_unknown_ibi()
    started = clock()
    sender = _Sender(target, transport, clock, timeouts, budget)
    client = (CHECK_CLIENT_IP,)

    confirmation = sender.send("confirmation", InclusionConfirmationRequest())
    unknown = sender.send("unknown IBI", UrlRequest(client, unknown_ibi))
    known: tuple[Probe, ...] = ()
    acknowledgment: Probe | None = None
    if known_ibi:
        known = (sender.send("known IBI", UrlRequest(client, known_ibi)),
                 sender.send("known IBI again", UrlRequest(client, known_ibi)))
        acknowledgment = _acknowledge(sender, known[0], f"http://{resolver_address}:80/{known_ibi}")
    probes = (confirmation, unknown, *known, *((acknowledgment,) if acknowledgment else ()))

    results = (
        _constant_answer("confirmation", confirmation, CONFIRMATION),
        _unknown_ibi(unknown, unknown_ibi),
        _known_ibi(known, known_ibi),
        _acknowledgment(acknowledgment, known_ibi),
        _http_status(probes),
        _content_type(probes),
        _ascii(probes),
        _grammar(probes),
        _urlkey(known),
        _timing(probes, timeouts),
    )
    if probes[0].refused:
        reason = f"Not checked: refused to contact {target.address} ({probes[0].problem})."
        results = tuple(replace(result, outcome=Verdict.NOT_CHECKED, detail=reason) if result.failed else result
                        for result in results)
    return ConformanceReport(target, known_ibi or None, unknown_ibi, results, probes, (clock() - started) * 1000)


def _acknowledge(sender: _Sender, known: Probe, url_persistent: str) -> Probe | None:
    """"Agradecer" (5) built from the known answer as the resolver builds it (Table 8.11);
    ``None`` when that answer offers nothing to acknowledge (the rule says why)."""
    answer = known.answer()
    if isinstance(answer, str) or not answer or answer.get("state") == "Deleted":
        return None
    try:
        message = Acknowledgment.from_answer(answer, client_ips=(CHECK_CLIENT_IP,), url_persistent=url_persistent)
    except ParseError:
        return None
    return sender.send("acknowledgment", message)


def _result(rule_id: str, outcome: Verdict, detail: str, evidence: Iterable[Probe] = ()) -> RuleResult:
    rule = _RULES[rule_id]
    return RuleResult(rule.rule_id, rule.title, rule.source, outcome, detail, tuple(evidence))


def _constant_answer(rule_id: str, probe: Probe, expected: PairList) -> RuleResult:
    """Algorithm 1 answers these subjects with a constant pair list, and nothing else."""
    if probe.exchange is None:
        return _result(rule_id, Verdict.SKIPPED, f"Not sent: {probe.not_sent}.", [probe])
    answer = probe.answer()
    wanted = expected.serialize(" ")
    if isinstance(answer, str):
        return _result(rule_id, Verdict.FAILED, f"Expected '{wanted}'; {answer}.", [probe])
    if answer != expected:
        got = answer.serialize(" ") or "the empty answer"
        return _result(rule_id, Verdict.FAILED, f"Expected '{wanted}', got '{got[:200]}'.", [probe])
    return _result(rule_id, Verdict.PASSED, f"'{wanted}'.", [probe])


def _unknown_ibi(probe: Probe, ibi: str) -> RuleResult:
    if probe.exchange is None:
        return _result("unknown-ibi", Verdict.SKIPPED, f"Not sent: {probe.not_sent}.", [probe])
    answer = probe.answer()
    if isinstance(answer, str):
        return _result("unknown-ibi", Verdict.FAILED, f"Asked about {ibi} (invented); {answer}.", [probe])
    if answer:
        names = ", ".join(answer.names()[:8])
        return _result("unknown-ibi", Verdict.FAILED,
                       f"Asked about {ibi}, an IBI invented for this check, the Archive answered "
                       f"{len(answer)} pair(s) ({names}) instead of the empty answer.", [probe])
    return _result("unknown-ibi", Verdict.PASSED, f"Empty answer about {ibi}, an IBI invented for this check.", [probe])


def _known_ibi(probes: Sequence[Probe], ibi: str | None) -> RuleResult:
    if not probes:
        return _result("known-ibi", Verdict.SKIPPED, "No known IBI given: give the IBI of an item this Archive holds.")
    probe = probes[0]
    if probe.exchange is None:
        return _result("known-ibi", Verdict.SKIPPED, f"Not sent: {probe.not_sent}.", [probe])
    answer = probe.answer()
    if isinstance(answer, str):
        return _result("known-ibi", Verdict.FAILED, f"Asked about {ibi}; {answer}.", [probe])
    if not answer:
        return _result("known-ibi", Verdict.FAILED,
                       f"The answer about {ibi} is empty: the Archive says it does not hold it.", [probe])
    problems = url_list_problems(answer)
    if problems:
        return _result("known-ibi", Verdict.FAILED, "; ".join(problems) + ".", [probe])
    if answer.get("state") == "Deleted":
        return _result("known-ibi", Verdict.PASSED,
                       f"A URL list saying {ibi} was Deleted (Algorithm 2 lines 11-15): no URL to follow.", [probe])
    return _result("known-ibi", Verdict.PASSED,
                   f"url {answer.text('url')} ({answer.get('contenttype')}, {answer.get('state')}, "
                   f"{answer.get('timestamp')}).", [probe])


def url_list_problems(answer: PairList) -> list[str]:
    """What a non-empty answer to ``urlRequest`` lacks or gets wrong (Algorithm 2, Table 9.3).

    Always ``archiveaddress``, ``ibi.archiveservice`` and ``ibi.platformsoftware``
    (lines 6-10); for a Deleted item ``ibi``, ``state`` and ``timestamp`` (lines 11-15); else
    ``urlkey`` (line 19) and, for the empty relation every Archive supports, ``url``,
    ``contenttype``, ``state`` and ``timestamp`` (lines 21-32).
    """
    problems: list[str] = []

    def need(name: str, valid: Callable[[str], bool] = bool, what: str = "") -> None:
        value = answer.get(name)
        if value is None:
            problems.append(f"no {name} pair")
        elif not valid(value):
            problems.append(f"{name} {value[:80]!r} is not {what}")

    need("archiveaddress")
    need("ibi.archiveservice", _IBI_FORMS.fullmatch, "'rep …', 'ibip …' or 'rep … ibip …' (Table 9.4)")
    need("ibi.platformsoftware", lambda v: v == "" or bool(_IBI_FORMS.fullmatch(v)), "IBI forms or {} (Table 9.3)")
    if answer.get("state") == "Deleted":
        need("ibi", _IBI_FORMS.fullmatch, "IBI forms (Table 9.4)")
        need("timestamp", _TIMESTAMP.fullmatch, "an ISO 8601 date and time")
        return problems
    need("urlkey", _is_key, "a key of Table 7.1")
    need("url", lambda v: v.lower().startswith(("http://", "https://")), "an http URL")
    need("contenttype", lambda v: v in CONTENT_TYPES, " or ".join(CONTENT_TYPES))
    need("state", lambda v: v in ITEM_STATES, " or ".join(ITEM_STATES + ("Deleted",)))
    need("timestamp", _TIMESTAMP.fullmatch, "an ISO 8601 date and time")
    return problems


def _is_key(text: str) -> bool:
    try:
        check_key(text, "urlkey")
    except ParseError:
        return False
    return True


def _acknowledgment(probe: Probe | None, known_ibi: str | None) -> RuleResult:
    if probe is None:
        why = ("No known IBI given: an acknowledgment repeats the url and urlkey of an answer "
               "(Table 8.11)." if not known_ibi else
               "Not sent: the answer about the known IBI has no URL to acknowledge (see known-ibi).")
        return _result("acknowledgment", Verdict.SKIPPED, why)
    return _constant_answer("acknowledgment", probe, ACKNOWLEDGMENT_NOTICE)


def _answered(probes: Iterable[Probe]) -> list[Probe]:
    return [probe for probe in probes if probe.answered]


def _per_answer(rule_id: str, probes: Sequence[Probe], problem: Callable[[Probe], str | None], ok: str) -> RuleResult:
    """A rule every HTTP answer must meet: failed with each offender named, else passed."""
    answered = _answered(probes)
    if not answered:
        return _result(rule_id, Verdict.SKIPPED, "No request got an HTTP answer.", probes)
    failures = [(probe, problem(probe)) for probe in answered]
    failures = [(probe, text) for probe, text in failures if text]
    if failures:
        detail = "; ".join(f"{probe.name}: {text}" for probe, text in failures)
        return _result(rule_id, Verdict.FAILED, detail + ".", [probe for probe, _ in failures])
    return _result(rule_id, Verdict.PASSED, f"{len(answered)} answer(s) {ok}.", answered)


def _http_status(probes: Sequence[Probe]) -> RuleResult:
    return _per_answer("http-status", probes,
                       lambda p: None if p.status == 200 else f"HTTP status {p.status}", "with HTTP status 200")


def _content_type(probes: Sequence[Probe]) -> RuleResult:
    def problem(probe: Probe) -> str | None:
        media = (probe.content_type or "").split(";")[0].strip().lower()
        return None if media == "text/plain" else f"Content-Type {probe.content_type or '(none)'}"

    return _per_answer("content-type", probes, problem, "with Content-Type text/plain")


def _ascii(probes: Sequence[Probe]) -> RuleResult:
    def problem(probe: Probe) -> str | None:
        body = probe.body
        index = next((i for i, byte in enumerate(body) if byte > 0x7F), None)
        if index is None:
            return None
        return f"byte 0x{body[index]:02X} at character {index + 1} (write it %{body[index]:02x})"

    return _per_answer("ascii", probes, problem, "in ASCII only")


def _grammar(probes: Sequence[Probe]) -> RuleResult:
    def problem(probe: Probe) -> str | None:
        answer = read_answer(probe.body)
        return str(answer) if isinstance(answer, UnreadableAnswer) else None

    return _per_answer("grammar", probes, problem, "read as pair lists")


def _urlkey(probes: Sequence[Probe]) -> RuleResult:
    if not probes:
        return _result("urlkey", Verdict.SKIPPED, "No known IBI given: only a URL list carries a urlkey.")
    unsent = next((probe for probe in probes if probe.exchange is None), None)
    if unsent is not None:
        return _result("urlkey", Verdict.SKIPPED, f"Not sent: {unsent.not_sent}.", probes)
    answers = [probe.answer() for probe in probes]
    unreadable = [f"{probe.name}: {answer}" for probe, answer in zip(probes, answers) if isinstance(answer, str)]
    if unreadable:
        return _result("urlkey", Verdict.FAILED, "; ".join(unreadable) + ".", probes)
    if any(answer.get("state") == "Deleted" or not answer for answer in answers):
        return _result("urlkey", Verdict.SKIPPED, "No URL list to look at (the known IBI is Deleted or not held).", probes)
    keys = [answer.get("urlkey") for answer in answers]
    if None in keys:
        missing = ", ".join(probe.name for probe, key in zip(probes, keys) if key is None)
        return _result("urlkey", Verdict.FAILED, f"No urlkey in the answer: {missing}.", probes)
    for probe, key in zip(probes, keys):
        try:
            check_key(key, "urlkey")
        except ParseError as error:
            return _result("urlkey", Verdict.FAILED, f"{probe.name}: urlkey {key[:60]!r}: {error}.", probes)
    if keys[0] == keys[1]:
        return _result("urlkey", Verdict.FAILED,
                       f"The same urlkey {keys[0]} in two answers: it should change with each answer.", probes)
    return _result("urlkey", Verdict.PASSED, f"Two answers, two keys: {keys[0]} then {keys[1]}.", probes)


def _timing(probes: Sequence[Probe], timeouts: Timeouts) -> RuleResult:
    reached = [probe for probe in probes
               if probe.answered or (probe.exchange is not None and probe.exchange.failure is Failure.TIMEOUT)]
    if not reached:
        return _result("timing", Verdict.SKIPPED, "No request reached the Archive.", probes)
    times = ", ".join(f"{probe.name} {format_ms(probe.duration_ms)}" for probe in reached)
    late = [probe for probe in reached if probe.exchange is not None and probe.exchange.failure is Failure.TIMEOUT]
    if late:
        names = ", ".join(probe.name for probe in late)
        return _result("timing", Verdict.FAILED,
                       f"No answer in time to: {names} (limits: {timeouts.connect:g} s to connect, "
                       f"{timeouts.read:g} s to answer). Times: {times}.", reached)
    slowest = max(probe.duration_ms for probe in reached)
    return _result("timing", Verdict.PASSED, f"Slowest answer {format_ms(slowest)}. Times: {times}.", reached)


def format_ms(milliseconds: float) -> str:
    """``0.4 ms``, ``12 ms``: a tenth of a millisecond only where it says something."""
    return f"{milliseconds:.1f} ms" if milliseconds < 10 else f"{milliseconds:.0f} ms"
