"""The resolution process of Figure 8.1 (file 003, §8.2), reproducing §10.1 and §10.2.

(2) the persistent URL arrives with the data of Table 8.6 (:class:`ClientInfo`); (3) a
``urlRequest`` (Table 8.9) goes to every Archive in parallel; (4) each answers a pair list;
the resolver selects one answer; if it lacks the wanted URL but names an IBI that leads
toward it (``ibi.nextedition``, or the IBI of part of the relation) every Archive is asked
again about that IBI (§10.2); (5) an ``acknowledgment`` (Table 8.11) goes to the Archive
that gave the URL, which answers (6) ``notice {acknowledgment received}``; (7) the URL or
an alert goes back to the browser. Every step is recorded in a :class:`Trace`.

Decisions (STANDARD.md §4 and this module):

* "First" answer means first to ARRIVE. The resolver stops waiting at the first usable
  answer: a non-empty, well-formed pair list that has the wanted URL, says ``Deleted``, or
  names an IBI leading toward the URL. A non-empty answer offering none of these is kept as
  a fallback, and decides the alert only if nothing better arrives.
* With ``ibiurl.requireditemstatus=Original`` every Archive is waited for (or its deadline):
  one answer claiming ``state<relation> Original`` wins; two or more → the "under
  suspicion" alert; none → the first answer leading onward is followed, else an alert.
* A translation without a language (``+``) is chosen among the ``url….translation(xx)`` and
  ``ibi….translation(xx)`` pairs by the user's Accept-Language q-values.
* The loop is bounded by a hop limit and by cycle detection over (IBI, verb list).
* Only an http/https URL an Archive answered is returned; query pairs of the persistent
  URL that are not the resolver's (Table 8.3) are passed on to the item by appending them.
* The language preference and the required item status are never sent to Archives.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from ibiportal.errors import ParseError
from ibiportal.ibi.modifiers import GET_TRANSLATION, Verb
from ibiportal.ibi.url import PersistentUrl
from ibiportal.protocol.messages import Acknowledgment, UrlRequest, request_url, service_url
from ibiportal.protocol.pairlist import PairList, read_answer
from ibiportal.protocol.status import carries_notice
from ibiportal.resolver import wording
from ibiportal.resolver.addresses import redirect_problem
from ibiportal.resolver.reading import Reading, ibi_forms, read, relation_of
from ibiportal.resolver.trace import (
    AcknowledgmentMessage,
    AcknowledgmentOutcome,
    Alert,
    AlertReason,
    ParseProblem,
    Resolution,
    Selection,
    Status,
    StepKind,
    Trace,
    TraceStep,
)
from ibiportal.resolver.transport import ArchiveEndpoint, Exchange, Failure, Timeouts, Transport

RESOLVER = "resolver"
BROWSER = "browser"
#: Seconds before the resolution deadline at which each exchange is ended (the transport's
#: total), so that the trace records how it ended rather than "no answer before the deadline".
EXCHANGE_MARGIN = 0.1


@dataclass(frozen=True)
class ClientInfo:
    """Table 8.6 data about the user: the IP list (Table 8.10) and the Accept-Language header."""

    ip_addresses: tuple[str, ...]
    language_preference: str | None = None


@dataclass(frozen=True)
class ResolverSettings:
    """Bounds of one resolution: hops of the §10.2 loop, overall seconds, and the resolver's base URL."""

    hop_limit: int = 8
    deadline: float = 10.0
    resolver_base: str = "http://urlib.net/"


@dataclass(frozen=True)
class _Reply:
    """One Archive's exchange in one hop, as it came back (timing from the worker thread)."""

    endpoint: ArchiveEndpoint
    url: str
    exchange: Exchange
    elapsed_ms: float
    finished: float


def explicit_port(received: str, default_base: str) -> str:
    """``url.persistent`` (Table 8.11): the persistent URL as received, its host with an explicit port.

    ``http://urlib.net/8JMKD3MGP8W/35MMLL8`` → ``http://urlib.net:80/8JMKD3MGP8W/35MMLL8``
    (§10.1, §10.2). A URL received without scheme and host is put on ``default_base``.
    """
    text = received.strip()
    if not re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text):
        text = default_base.rstrip("/") + "/" + text.lstrip("/")
    scheme, rest = text.split("://", 1)
    authority, slash, path = rest.partition("/")
    if not re.search(r":\d+$", authority):
        authority += ":443" if scheme.lower() == "https" else ":80"
    return f"{scheme}://{authority}{slash}{path}"


def _captured_text(value: object) -> str:
    """A Table 8.8 value as the capture step's pairs hold it: lists as words, none as empty."""
    if value is None:
        return ""
    return " ".join(value) if isinstance(value, list) else str(value)


def joined(resolution: Resolution, trace_url: str, waited_ms: float) -> Resolution:
    """The outcome of a request that joined ``resolution``, the one under way for the same
    request (ibiportal.resolver.single_flight), whose trace is at ``trace_url``: no message of
    its own was sent, so its trace says whose resolution it shares and links it. A redirect
    keeps that resolution's acknowledgment, to be sent again for this request as a cache hit's is.
    """
    share = _said(TraceStep(4, StepKind.SELECTION, RESOLVER, RESOLVER, "", notes=(trace_url,),
                            selection=Selection.JOINED))
    outcome = resolution.trace.numbered(7)
    return replace(resolution, trace=Trace((share, *outcome)), hops=0, elapsed_ms=waited_ms)


def _said(step: TraceStep, *, alert: Alert | None = None, url: str | None = None) -> TraceStep:
    """``step`` with its sentence for people, rendered from its facts (:mod:`.wording`)."""
    return replace(step, decision=wording.decision(step, alert=alert, url=url))


class Resolver:
    """Resolves persistent URLs against the given Archives (Figure 8.1).

    ``archives`` are the included Archives; ``transports`` maps each endpoint's
    ``transport`` name to a :class:`~ibiportal.resolver.transport.Transport`. ``executor``
    runs the parallel ``urlRequest`` messages (a shared pool; one is created if not given);
    ``clock`` is a monotonic clock in seconds.
    """

    def __init__(
        self,
        archives: Sequence[ArchiveEndpoint],
        transports: Mapping[str, Transport],
        *,
        settings: ResolverSettings = ResolverSettings(),
        executor: Executor | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.archives = tuple(archives)
        self.transports = dict(transports)
        self.settings = settings
        self._own_executor = executor is None
        self.executor = executor or ThreadPoolExecutor(max_workers=32, thread_name_prefix="ibi-resolver")
        self.clock = clock

    def close(self) -> None:
        """Shut the pool down if the resolver created it."""
        if self._own_executor:
            self.executor.shutdown(wait=False, cancel_futures=True)

    # -- Figure 8.1 -------------------------------------------------------------------

    def resolve(self, persistent_url: str, client: ClientInfo, *, parsed: PersistentUrl | None = None) -> Resolution:
        """Resolve ``persistent_url`` (message (2)) for ``client``; never raises for Archive trouble.

        ``parsed`` is ``persistent_url`` already parsed by the caller (the resolve route parses
        it to tell a bad persistent URL from an unknown page), so that it is not parsed twice.
        """
        run = _Run(self, persistent_url, client)
        return run.execute(parsed)


class _Run:
    """One resolution: its state, its steps and its deadline."""

    def __init__(self, resolver: Resolver, persistent_url: str, client: ClientInfo) -> None:
        self.resolver = resolver
        self.settings = resolver.settings
        self.clock = resolver.clock
        self.received = persistent_url
        self.client = client
        self.steps: list[TraceStep] = []
        self.start = self.clock()
        self.deadline = self.start + self.settings.deadline
        self.hops = 0

    def ms(self, seconds: float) -> float:
        return round(seconds * 1000, 1)

    def finish(self, *, alert: Alert | None = None, url: str | None = None, archive: str | None = None,
               acknowledgment: AcknowledgmentMessage | None = None) -> Resolution:
        self.steps.append(_said(TraceStep(7, StepKind.OUTCOME, RESOLVER, BROWSER, "", hop=self.hops,
                                          alert=None if alert is None else alert.reason), alert=alert, url=url))
        return Resolution(
            persistent_url=self.received, trace=Trace(tuple(self.steps)), url=url, alert=alert,
            archive=archive, hops=self.hops, elapsed_ms=self.ms(self.clock() - self.start),
            acknowledgment_url=None if acknowledgment is None else acknowledgment.url,
            acknowledged=None if acknowledgment is None else acknowledgment.endpoint,
        )

    def execute(self, parsed: PersistentUrl | None) -> Resolution:
        try:
            parsed = parsed or PersistentUrl.parse(self.received)
        except ParseError as error:
            self.steps.append(_said(TraceStep(2, StepKind.CAPTURE, BROWSER, RESOLVER, "", request_url=self.received,
                                              parse_error=ParseProblem(error.message, error.position))))
            return self.finish(alert=Alert(AlertReason.BAD_REQUEST, f"not a persistent URL: {error}"))
        captured = (
            ("clientinformation.ipaddress", " ".join(self.client.ip_addresses)),
            ("languagepreference", self.client.language_preference or ""),
            *((name, _captured_text(value)) for name, value in parsed.to_table_8_8().items()),
        )
        self.steps.append(_said(TraceStep(2, StepKind.CAPTURE, BROWSER, RESOLVER, "", request_url=self.received,
                                          pairs=captured)))
        if not self.client.ip_addresses:
            return self.finish(alert=Alert(AlertReason.BAD_REQUEST, "the user's IP address is unknown (Table 8.9 needs it)"))
        if not self.resolver.archives:
            return self.finish(alert=Alert(AlertReason.NO_ARCHIVES, "no Archive is included in the resolution system"))
        return self.loop(parsed)

    def loop(self, parsed: PersistentUrl) -> Resolution:
        """The loop fragment of Figure 8.1, bounded by the hop limit and cycle detection."""
        ibi, verbs = str(parsed.ibi), tuple(parsed.verbs)
        original = parsed.required_item_status is not None
        seen: set[tuple[str, tuple[str, ...]]] = set()
        while True:
            key = (ibi.casefold(), tuple(str(verb) for verb in verbs))
            if key in seen:
                return self.finish(alert=Alert(AlertReason.CYCLE, f"the Archives lead back to {ibi} with the same verbs: a cycle, stopped"))
            seen.add(key)
            if self.hops >= self.settings.hop_limit:
                return self.finish(alert=Alert(
                    AlertReason.HOP_LIMIT,
                    f"still no URL after {self.hops} rounds of urlRequest (hop limit {self.settings.hop_limit}); next would be {ibi}",
                ))
            self.hops += 1
            chosen = self.ask_all(ibi, verbs, parsed.filepath, original)
            if isinstance(chosen, Alert):
                return self.finish(alert=chosen)
            reply, reading = chosen
            for form in ibi_forms(reading.pairs.get("ibi") or ""):
                seen.add((form.casefold(), key[1]))
            if reading.deleted:
                timestamp = reading.pairs.get("timestamp")
                return self.finish(alert=Alert(AlertReason.DELETED, f"{ibi} was deleted (at {timestamp}), according to {reply.endpoint.name}", timestamp))
            if reading.url is not None:
                return self.conclude(parsed, reply, reading)
            if reading.onward is None:
                return self.finish(alert=self.not_found(ibi, reply, reading))
            ibi, verbs, pair = reading.onward
            self.steps.append(_said(TraceStep(4, StepKind.SELECTION, RESOLVER, RESOLVER, "", hop=self.hops,
                                              selection=Selection.FOLLOW, chosen=reply.endpoint.name,
                                              deciding_pair=pair, onward_ibi=ibi, relation=reading.relation)))

    # -- (3) and (4) -----------------------------------------------------------------

    def ask_all(self, ibi: str, verbs: tuple[Verb, ...], filepath: str | None, original: bool) -> tuple[_Reply, Reading] | Alert:
        """Send (3) to every Archive in parallel and select an answer (4) by arrival order."""
        message = UrlRequest(self.client.ip_addresses, ibi, filepath, tuple(str(verb) for verb in verbs))
        query = message.to_query(sort=True)  # the same for every Archive: encoded once, not once per Archive
        futures: dict[Future[_Reply], ArchiveEndpoint] = {}
        for endpoint in self.resolver.archives:
            try:
                url = f"{service_url(endpoint.address, endpoint.service_ibi)}?{query}"
            except ParseError as error:
                self.steps.append(_said(TraceStep(3, StepKind.URL_REQUEST, RESOLVER, endpoint.name, "", hop=self.hops,
                                                  archive=endpoint.address, status=Status.NOT_SENT, error=str(error),
                                                  relation=relation_of(verbs))))
                continue
            futures[self.resolver.executor.submit(self.exchange, endpoint, url)] = endpoint
        pending = set(futures)
        arrivals: list[tuple[_Reply, Reading | None]] = []
        selected: tuple[_Reply, Reading] | None = None
        while pending and selected is None:
            remaining = self.deadline - self.clock()
            if remaining <= 0:
                break
            done, pending = wait(pending, timeout=remaining, return_when=FIRST_COMPLETED)
            for reply in sorted((future.result() for future in done), key=lambda item: item.finished):
                reading = self.record(reply, len(arrivals) + 1, verbs)
                arrivals.append((reply, reading))
                if selected is None and not original and reading is not None and reading.useful:
                    selected = (reply, reading)
        for future in pending:
            endpoint = futures[future]
            self.steps.append(_said(TraceStep(3, StepKind.URL_REQUEST, RESOLVER, endpoint.name, "", hop=self.hops,
                                              archive=endpoint.address, relation=relation_of(verbs),
                                              status=Status.NOT_WAITED_FOR if selected else Status.TIMEOUT)))
        return self.select(arrivals, selected, original, [futures[f] for f in pending])

    def exchange(self, endpoint: ArchiveEndpoint, url: str) -> _Reply:
        """Worker thread: one request through the endpoint's transport, timed."""
        started = self.clock()
        transport = self.resolver.transports.get(endpoint.transport)
        total = self.deadline - started - EXCHANGE_MARGIN
        if transport is None:
            exchange = Exchange(failure=Failure.UNKNOWN_ARCHIVE, error=f"no transport named {endpoint.transport!r}")
        elif total <= 0:
            exchange = Exchange(failure=Failure.TIMEOUT, error="the resolution deadline had passed before sending")
        else:
            exchange = transport.fetch(url, Timeouts(endpoint.connect_timeout, endpoint.read_timeout, total))
        finished = self.clock()
        return _Reply(endpoint, url, exchange, self.ms(finished - started), finished)

    def record(self, reply: _Reply, arrival: int, verbs: tuple[Verb, ...]) -> Reading | None:
        """Add the (3)+(4) step of one reply; return what its answer means, if it has one."""
        exchange = reply.exchange
        raw = None if exchange.body is None else exchange.body.decode("latin-1")
        base = dict(hop=self.hops, archive=reply.endpoint.address, request_url=reply.url, http_status=exchange.status,
                    content_type=exchange.content_type, elapsed_ms=reply.elapsed_ms, arrival=arrival,
                    raw_answer=raw, notes=exchange.notes)
        step = TraceStep(3, StepKind.URL_REQUEST, RESOLVER, reply.endpoint.name, "", relation=relation_of(verbs), **base)
        reading = None
        if exchange.failure is not None:
            status = {Failure.TIMEOUT: Status.TIMEOUT, Failure.REFUSED: Status.REFUSED}.get(exchange.failure, Status.TRANSPORT_ERROR)
            step = replace(step, status=status, error=exchange.error)
        elif exchange.status != 200:
            step = replace(step, status=Status.HTTP_ERROR)
        else:
            parsed = read_answer(exchange.body or b"")
            if not isinstance(parsed, PairList):
                step = replace(step, status=Status.MALFORMED, parse_error=ParseProblem(parsed.message, parsed.position))
            elif not parsed:
                step = replace(step, status=Status.EMPTY, pairs=())
            else:
                reading = read(parsed, verbs, self.client.language_preference)
                step = replace(step, status=Status.ANSWERED, pairs=tuple(parsed), notes=exchange.notes + reading.notes,
                               relation=reading.relation, meaning=reading.meaning,
                               deciding_pair=reading.deciding_pair,
                               onward_ibi=None if reading.onward is None else reading.onward[0])
        self.steps.append(_said(step))
        return reading

    def select(self, arrivals: list[tuple[_Reply, Reading | None]], selected: tuple[_Reply, Reading] | None,
               original: bool, unanswered: list[ArchiveEndpoint]) -> tuple[_Reply, Reading] | Alert:
        """Step (4): choose one answer, say why in the trace, or give the alert."""
        answered = [(reply, reading) for reply, reading in arrivals if reading is not None]
        if original:
            with_url = [(reply, reading) for reply, reading in answered if reading.url is not None]
            claims = [(reply, reading) for reply, reading in with_url if reading.original]
            if len(claims) >= 2:
                names = ", ".join(reply.endpoint.name for reply, _ in claims)
                alert = Alert(AlertReason.CONFLICTING_ORIGINALS,
                              f"two or more Archives under suspicion, investigation needed: {names} all claim the original")
                return self.note_alert(alert)
            if len(claims) == 1:
                self.note_choice(Selection.ONLY_ORIGINAL, claims[0][0])
                return claims[0]
            onward = [(reply, reading) for reply, reading in answered if reading.onward is not None]
            if onward:
                selected = onward[0]
            elif with_url:
                names = ", ".join(reply.endpoint.name for reply, _ in with_url)
                return self.note_alert(Alert(AlertReason.NO_ORIGINAL,
                                             f"the original was required but no Archive claims it ({names} hold copies)"))
        if selected is None:
            useful = [item for item in answered if item[1].useful]
            selected = useful[0] if useful else (answered[0] if answered else None)
        if selected is None:
            return self.note_alert(Alert(
                AlertReason.NO_ARCHIVE_ANSWERED if not any(self.empty(reply) for reply, _ in arrivals) else AlertReason.NOT_FOUND,
                self.nobody(arrivals, unanswered)))
        self.note_choice(Selection.FIRST_USABLE, selected[0])
        return selected

    def empty(self, reply: _Reply) -> bool:
        return reply.exchange.failure is None and reply.exchange.status == 200 and not (reply.exchange.body or b"").strip()

    def summary(self, reply: _Reply) -> str:
        exchange = reply.exchange
        if exchange.failure is not None:
            return f"failed ({exchange.failure}: {exchange.error})"
        if exchange.status != 200:
            return f"answered HTTP {exchange.status}"
        if not isinstance(read_answer(exchange.body or b""), PairList):
            return f"answered a malformed pair list ({read_answer(exchange.body or b'')})"
        return "answered empty" if self.empty(reply) else f"answered after {reply.elapsed_ms:g} ms"

    def nobody(self, arrivals: list[tuple[_Reply, Reading | None]], unanswered: list[ArchiveEndpoint]) -> str:
        """Why no answer could be selected: how many Archives answered empty, and what failed."""
        empty = sum(1 for reply, _ in arrivals if self.empty(reply))
        failures = [f"{reply.endpoint.name} {self.summary(reply)}" for reply, _ in arrivals if not self.empty(reply)]
        failures += [f"{endpoint.name} gave no answer before the deadline" for endpoint in unanswered]
        trouble = f"; {'; '.join(failures)}" if failures else ""
        if empty:
            return f"not found: the {empty} Archive(s) that answered do not hold this IBI{trouble}"
        return f"no Archive answered usably{trouble}"

    def round_outcomes(self) -> tuple[tuple[str, Status], ...]:
        """Every Archive of this round with how its exchange ended, in the order recorded."""
        return tuple((step.receiver, step.status) for step in self.steps
                     if step.kind is StepKind.URL_REQUEST and step.hop == self.hops and step.status is not None)

    def note_choice(self, selection: Selection, reply: _Reply) -> None:
        """Step (4) chose ``reply``'s answer; its time is the step's."""
        self.steps.append(_said(TraceStep(4, StepKind.SELECTION, RESOLVER, RESOLVER, "", hop=self.hops,
                                          selection=selection, chosen=reply.endpoint.name,
                                          elapsed_ms=reply.elapsed_ms, outcomes=self.round_outcomes())))

    def note_alert(self, alert: Alert) -> Alert:
        """Step (4) chose nothing: the round ends the resolution with ``alert``."""
        self.steps.append(_said(TraceStep(4, StepKind.SELECTION, RESOLVER, RESOLVER, "", hop=self.hops,
                                          selection=Selection.ALERT, alert=alert.reason,
                                          outcomes=self.round_outcomes()), alert=alert))
        return alert

    def not_found(self, ibi: str, reply: _Reply, reading: Reading) -> Alert:
        translations = [verb for verb in reading.verbs if verb.name == GET_TRANSLATION]
        if translations and not any(".translation" in name for name in reading.pairs.names()):
            which = ", ".join(str(verb) for verb in translations)
            return Alert(AlertReason.TRANSLATION_MISSING, f"translation does not exist: {reply.endpoint.name} offers no {which} of {ibi}")
        return Alert(AlertReason.NOT_FOUND, f"not found: the answer from {reply.endpoint.name} about {ibi} has no url{reading.relation} and no IBI leading toward it")

    # -- (5), (6) and (7) ------------------------------------------------------------

    def conclude(self, parsed: PersistentUrl, reply: _Reply, reading: Reading) -> Resolution:
        """Check the URL, acknowledge it (5)/(6), and return it (7)."""
        url = reading.url or ""
        problem = redirect_problem(url)
        if problem is not None:
            return self.finish(alert=Alert(AlertReason.UNSAFE_URL,
                               f"{reply.endpoint.name} answered url{reading.relation} {url[:120]!r}, which is not a URL to send you to ({problem}): not redirecting"))
        parts = urlsplit(url)
        acknowledgment = self.acknowledge(reply, reading)
        if parsed.query:
            url += ("&" if parts.query else "?") + parsed.passed_on_query()
        return self.finish(url=url, archive=reply.endpoint.name, acknowledgment=acknowledgment)

    def acknowledge(self, reply: _Reply, reading: Reading) -> AcknowledgmentMessage | None:
        """Send (5) to the Archive that gave the URL and record its notice (6); the message sent."""
        endpoint = reply.endpoint
        persistent = explicit_port(self.received, self.settings.resolver_base)
        try:
            message = Acknowledgment.from_answer(reading.pairs, client_ips=self.client.ip_addresses,
                                                 url_persistent=persistent, relation=reading.relation)
            url = request_url(endpoint.address, endpoint.service_ibi, message, sort=True)
        except ParseError as error:
            self.steps.append(_said(TraceStep(5, StepKind.ACKNOWLEDGMENT, RESOLVER, endpoint.name, "", hop=self.hops,
                                              archive=endpoint.address, status=Status.NOT_SENT, error=str(error),
                                              relation=reading.relation, acknowledgment=AcknowledgmentOutcome.NOT_SENT)))
            return None
        self.steps.append(_said(TraceStep(5, StepKind.ACKNOWLEDGMENT, RESOLVER, endpoint.name, "", hop=self.hops,
                                          archive=endpoint.address, request_url=url, relation=reading.relation)))
        answer = self.resolver.executor.submit(self.exchange, endpoint, url).result()
        exchange = answer.exchange
        raw = None if exchange.body is None else exchange.body.decode("latin-1")
        parsed = None if exchange.body is None or exchange.failure else read_answer(exchange.body)
        pairs = tuple(parsed) if isinstance(parsed, PairList) else None
        if exchange.failure is not None:
            outcome = AcknowledgmentOutcome.NO_ANSWER
        elif isinstance(parsed, PairList) and carries_notice(parsed):
            outcome = AcknowledgmentOutcome.NOTICE
        else:
            outcome = AcknowledgmentOutcome.UNEXPECTED
        self.steps.append(_said(TraceStep(
            6, StepKind.NOTICE, endpoint.name, RESOLVER, "", hop=self.hops, archive=endpoint.address,
            acknowledgment=outcome,
            status=Status.ANSWERED if exchange.failure is None else Status.TIMEOUT if exchange.failure is Failure.TIMEOUT else Status.TRANSPORT_ERROR,
            http_status=exchange.status, content_type=exchange.content_type, elapsed_ms=answer.elapsed_ms,
            raw_answer=raw, pairs=pairs,
            parse_error=ParseProblem(parsed.message, parsed.position) if parsed is not None and pairs is None else None,
            error=exchange.error, notes=exchange.notes,
        )))
        return AcknowledgmentMessage(endpoint, url)
