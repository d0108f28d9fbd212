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
* An answer whose ``ibi`` pair names another item than the IBI asked, or that gives one pair
  name two values, is set aside (:func:`.reading.set_aside`). Where the portal's own Archive
  (``ArchiveEndpoint.own``) holds the item as Original, it is waited for and its answer wins;
  other claims of the original are set aside (:mod:`.selecting`). Set-aside answers are
  recorded with ``status`` ``set-aside`` and why.
* A translation without a language (``+``) is chosen among the ``url….translation(xx)`` and
  ``ibi….translation(xx)`` pairs by the user's Accept-Language q-values.
* The loop is bounded by a hop limit and by cycle detection over (IBI, verb list).
* Only an http/https URL an Archive answered is returned; query pairs of the persistent
  URL that are not the resolver's (Table 8.3) are passed on to the item by appending them.
* The language preference and the required item status are never sent to Archives.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Localized
from ibiportal.ibi.explain import EXPLANATION_LANGUAGES, explain_verbs
from ibiportal.ibi.modifiers import GET_FILE_LIST, GET_LAST_EDITION, GET_TRANSLATION, Verb
from ibiportal.ibi.sameness import PrefixPairs
from ibiportal.ibi.url import ORIGINAL, PersistentUrl, parse_persistent_url
from ibiportal.protocol.messages import UrlRequest, service_url
from ibiportal.resolver import acknowledging, wording
from ibiportal.resolver.acknowledging import PendingNotices
from ibiportal.resolver.addresses import redirect_problem
from ibiportal.resolver.asking import FanOut, Reply, Sender, milliseconds
from ibiportal.resolver.reading import Reading, ibi_forms, missing_step, read_reply, relation_of
from ibiportal.resolver.selecting import Arrival, Choice, competing_claims, select, stops_waiting
from ibiportal.resolver.trace import (
    BROWSER,
    RESOLVER,
    AcknowledgmentMessage,
    Alert,
    AlertReason,
    Resolution,
    Selection,
    SetAside,
    Status,
    StepKind,
    Trace,
    TraceStep,
)
from ibiportal.resolver.transport import ArchiveEndpoint, Transport


@dataclass(frozen=True)
class Asked:
    """The persistent URL of message (2), read once by whoever received it: ``text`` as received
    (what the trace shows and the acknowledgment (5) names) and ``parsed``, its value. The resolver
    takes nothing else: a text that does not read is refused by its receiver, with the character at
    fault, before any message is sent."""

    text: str
    parsed: PersistentUrl

    @classmethod
    def parse(cls, text: str) -> Asked:
        """``text`` read as a persistent URL (:raises ParseError: where it does not read)."""
        return cls(text, parse_persistent_url(text))

    def requiring_original(self) -> Asked:
        """This URL with ``ibiurl.requireditemstatus=Original`` (Table 8.3), unless it has it."""
        if self.parsed.required_item_status is not None:
            return self
        text = self.text + ("&" if "?" in self.text else "?") + "ibiurl.requireditemstatus=Original"
        return Asked(text, replace(self.parsed, required_item_status=ORIGINAL))


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


def _captured_text(value: object) -> str:
    """A Table 8.8 value as the capture step's pairs hold it: lists as words, none as empty."""
    if value is None:
        return ""
    return " ".join(value) if isinstance(value, list) else str(value)


def joined(resolution: Resolution, trace_url: str | None, waited_ms: float) -> Resolution:
    """The outcome of a request that joined ``resolution``, the one under way for the same
    request (ibiportal.resolver.single_flight), whose trace is at ``trace_url`` (``None``: a
    reference check's resolution, which kept no trace): no message of
    its own was sent, so its trace says whose resolution it shares and links it. A redirect
    keeps that resolution's acknowledgment, to be sent again for this request as a cache hit's is.
    """
    share = _said(TraceStep(4, StepKind.SELECTION, RESOLVER, RESOLVER, "", joined_trace=trace_url,
                            selection=Selection.JOINED))
    outcome = resolution.trace.numbered(7)
    return replace(resolution, trace=Trace((share, *outcome)), hops=0, elapsed_ms=waited_ms)


def _explained(verbs: Sequence[Verb], ibi: str) -> Localized:
    """What ``verbs`` return from ``ibi``, in each language the explanations are written in."""
    return Localized({lang: explain_verbs(verbs, lang, ibi) for lang in EXPLANATION_LANGUAGES})


def _translations(verbs: Sequence[Verb]) -> int:
    return sum(verb.name == GET_TRANSLATION for verb in verbs)


def _said(step: TraceStep, *, alert: Alert | None = None, url: str | None = None) -> TraceStep:
    """``step`` with its sentence for people, rendered from its facts (:mod:`.wording`)."""
    return step.worded(wording.decision(step, alert=alert, url=url))


class Resolver:
    """Resolves persistent URLs against the given Archives (Figure 8.1).

    ``archives`` are the included Archives; ``transports`` maps each endpoint's
    ``transport`` name to a :class:`~ibiportal.resolver.transport.Transport`. ``executor``
    runs the parallel ``urlRequest`` messages (a shared pool; one is created if not given);
    ``clock`` is a monotonic clock in seconds. ``prefix_pairs`` gives the known prefix pairs, read
    only when an answer names its item in the other form than the one asked (:mod:`.reading`).
    With ``notices``, the URL is returned once the
    acknowledgment (5) is sent, without waiting for the notice (6), which ``notices`` follows
    (:class:`~ibiportal.resolver.acknowledging.PendingNotices`); without, the notice is waited for.
    """

    def __init__(
        self,
        archives: Sequence[ArchiveEndpoint],
        transports: Mapping[str, Transport],
        *,
        settings: ResolverSettings = ResolverSettings(),
        executor: Executor | None = None,
        clock: Callable[[], float] = time.monotonic,
        notices: PendingNotices | None = None,
        prefix_pairs: PrefixPairs = tuple,
    ) -> None:
        self.archives = tuple(archives)
        self.prefix_pairs = prefix_pairs
        self.transports = dict(transports)
        self.settings = settings
        self._own_executor = executor is None
        self.executor = executor or ThreadPoolExecutor(max_workers=32, thread_name_prefix="ibi-resolver")
        self.clock = clock
        self.notices = notices

    def close(self) -> None:
        """Shut the pool down if the resolver created it."""
        if self._own_executor:
            self.executor.shutdown(wait=False, cancel_futures=True)

    # -- Figure 8.1 -------------------------------------------------------------------

    def resolve(self, asked: Asked, client: ClientInfo) -> Resolution:
        """Resolve ``asked`` (message (2)) for ``client``; never raises for Archive trouble."""
        return _Run(self, asked, client).execute()


class _Run:
    """One resolution: its state, its steps and its deadline. It orchestrates Figure 8.1 and
    records every step; asking (:mod:`.asking`), reading answers (:mod:`.reading`), selecting
    (:mod:`.selecting`) and acknowledging (:mod:`.acknowledging`) are their own modules."""

    def __init__(self, resolver: Resolver, asked: Asked, client: ClientInfo) -> None:
        self.resolver = resolver
        self.settings = resolver.settings
        self.clock = resolver.clock
        self.received = asked.text
        self.parsed = asked.parsed
        self.client = client
        self.steps: list[TraceStep] = []
        self.start = self.clock()
        self.sender = Sender(resolver.transports, self.clock, self.start + self.settings.deadline)
        self.hops = 0

    def finish(self, *, alert: Alert | None = None, url: str | None = None, archive: str | None = None,
               acknowledgment: AcknowledgmentMessage | None = None,
               pending_notice: Future[TraceStep] | None = None) -> Resolution:
        self.steps.append(_said(TraceStep(7, StepKind.OUTCOME, RESOLVER, BROWSER, "", hop=self.hops,
                                          alert=None if alert is None else alert.reason), alert=alert, url=url))
        return Resolution(
            persistent_url=self.received, trace=Trace(tuple(self.steps)), url=url, alert=alert,
            archive=archive, hops=self.hops, elapsed_ms=milliseconds(self.clock() - self.start),
            acknowledgment_url=None if acknowledgment is None else acknowledgment.url,
            acknowledged=None if acknowledgment is None else acknowledgment.endpoint,
            pending_notice=pending_notice, request=self.parsed,
        )

    def execute(self) -> Resolution:
        parsed = self.parsed
        captured = (
            ("clientinformation.ipaddress", " ".join(self.client.ip_addresses)),
            ("languagepreference", self.client.language_preference or ""),
            *((name, _captured_text(value)) for name, value in parsed.to_table_8_8().items()),
        )
        self.steps.append(_said(TraceStep(2, StepKind.CAPTURE, BROWSER, RESOLVER, "", request_url=self.received,
                                          pairs=captured, ibi=str(parsed.ibi), verbs=tuple(str(verb) for verb in parsed.verbs),
                                          client_ips=self.client.ip_addresses)))
        if not self.client.ip_addresses:
            return self.finish(alert=Alert(AlertReason.BAD_REQUEST,
                                           N_("the user's IP address is unknown (Table 8.9 needs it)")))
        if not self.resolver.archives:
            return self.finish(alert=Alert(AlertReason.NO_ARCHIVES, N_("no Archive is included in the resolution system")))
        return self.loop(parsed)

    def loop(self, parsed: PersistentUrl) -> Resolution:
        """The loop fragment of Figure 8.1, bounded by the hop limit and cycle detection."""
        ibi, verbs = str(parsed.ibi), tuple(parsed.verbs)
        original = parsed.required_item_status is not None
        seen: set[tuple[str, tuple[str, ...]]] = set()
        while True:
            key = (ibi.casefold(), tuple(str(verb) for verb in verbs))
            if key in seen:
                return self.finish(alert=Alert(AlertReason.CYCLE, N_(
                    "the Archives lead back to %(ibi)s with the same verbs: a cycle, stopped", ibi=ibi)))
            seen.add(key)
            if self.hops >= self.settings.hop_limit:
                return self.finish(alert=Alert(
                    AlertReason.HOP_LIMIT,
                    N_("still no URL after %(rounds)s rounds of urlRequest (hop limit %(limit)s); next would be %(ibi)s",
                       rounds=self.hops, limit=self.settings.hop_limit, ibi=ibi),
                ))
            self.hops += 1
            chosen = self.ask_all(ibi, verbs, parsed.filepath, original)
            if isinstance(chosen, Alert):
                return self.finish(alert=chosen)
            reply, reading = chosen.reply, chosen.reading
            for form in ibi_forms(reading.pairs.get("ibi") or ""):
                seen.add((form.casefold(), key[1]))
            if reading.deleted:
                timestamp = reading.pairs.get("timestamp")
                return self.finish(alert=Alert(AlertReason.DELETED, N_(
                    "%(ibi)s was deleted (at %(timestamp)s), according to %(archive)s", ibi=ibi, timestamp=timestamp,
                    archive=reply.endpoint.name), timestamp))
            if reading.url is not None:
                return self.conclude(parsed, reply, reading)
            if reading.onward is None:
                return self.finish(alert=self.not_found(ibi, reply, reading, verbs))
            ibi, verbs, pair = reading.onward
            self.steps.append(_said(TraceStep(4, StepKind.SELECTION, RESOLVER, RESOLVER, "", hop=self.hops,
                                              selection=Selection.FOLLOW, chosen=reply.endpoint.name,
                                              deciding_pair=pair, onward_ibi=ibi, relation=reading.relation)))

    # -- (3) and (4) -----------------------------------------------------------------

    def ask_all(self, ibi: str, verbs: tuple[Verb, ...], filepath: str | None, original: bool) -> Choice | Alert:
        """Send (3) to every Archive in parallel and select an answer (4) by arrival order."""
        message = UrlRequest(self.client.ip_addresses, ibi, filepath, tuple(str(verb) for verb in verbs))
        query = message.to_query(sort=True)  # the same for every Archive: encoded once, not once per Archive
        asked = {"ibi": ibi, "verbs": message.verbs, "client_ips": message.client_ips, "relation": relation_of(verbs)}
        fan_out = FanOut(self.resolver.executor, self.sender)
        for endpoint in self.resolver.archives:
            try:
                url = f"{service_url(endpoint.address, endpoint.service_ibi)}?{query}"
            except ParseError as error:
                self.steps.append(_said(TraceStep(3, StepKind.URL_REQUEST, RESOLVER, endpoint.name, "", hop=self.hops,
                                                  archive=endpoint.address, status=Status.NOT_SENT, error=str(error),
                                                  **asked)))
                continue
            fan_out.ask(endpoint, url)
        arrivals: list[Arrival] = []
        recorded: list[int] = []  # each arrival's step in self.steps
        stopped = False
        for batch in fan_out.batches():
            for reply in batch:
                step, reading = read_reply(reply, len(arrivals) + 1, verbs, self.hops, self.client.language_preference,
                                           prefix_pairs=self.resolver.prefix_pairs, ibi=ibi, verbs=message.verbs,
                                           client_ips=message.client_ips)
                recorded.append(len(self.steps))
                self.steps.append(_said(step))
                arrivals.append((reply, reading))
                stopped = stopped or stops_waiting(reading, original)
            if stopped and not any(endpoint.own for endpoint in fan_out.unanswered):
                break
        unanswered = fan_out.unanswered
        for endpoint in unanswered:
            self.steps.append(_said(TraceStep(3, StepKind.URL_REQUEST, RESOLVER, endpoint.name, "", hop=self.hops,
                                              archive=endpoint.address, **asked,
                                              status=Status.NOT_WAITED_FOR if stopped else Status.TIMEOUT)))
        competing = {id(reply) for reply in competing_claims(arrivals)}
        for index, (reply, _) in zip(recorded, arrivals):
            if id(reply) in competing:
                self.steps[index] = _said(replace(
                    self.steps[index], status=Status.SET_ASIDE, set_aside=SetAside.COMPETING_ORIGINAL, meaning=None,
                    deciding_pair=None, onward_ibi=None, error=N_(
                        "it claims the original (state Original), which this portal's own Archive holds: the answer "
                        "is set aside")))
        choice = select([(reply, None if id(reply) in competing else reading) for reply, reading in arrivals],
                        original, unanswered)
        if isinstance(choice, Alert):
            self.steps.append(_said(TraceStep(4, StepKind.SELECTION, RESOLVER, RESOLVER, "", hop=self.hops,
                                              selection=Selection.ALERT, alert=choice.reason,
                                              outcomes=self.round_outcomes()), alert=choice))
        else:
            self.steps.append(_said(TraceStep(4, StepKind.SELECTION, RESOLVER, RESOLVER, "", hop=self.hops,
                                              selection=choice.selection, chosen=choice.reply.endpoint.name,
                                              elapsed_ms=choice.reply.elapsed_ms, outcomes=self.round_outcomes())))
        return choice

    def round_outcomes(self) -> tuple[tuple[str, Status], ...]:
        """Every Archive of this round with how its exchange ended, in the order recorded."""
        return tuple((step.receiver, step.status) for step in self.steps
                     if step.kind is StepKind.URL_REQUEST and step.hop == self.hops and step.status is not None)

    def not_found(self, ibi: str, reply: Reply, reading: Reading, asked: tuple[Verb, ...]) -> Alert:
        """The chosen answer holds ``ibi`` but leads to no URL for the verbs ``asked``: say which
        step of the relation (Table 9.5) its Archive does not know, in words and by the pairs it
        lacks."""
        archive = reply.endpoint.name
        missing = missing_step(reading)
        if missing is None and _translations(asked) > _translations(reading.verbs):
            # A translation into no language the reader accepts falls back to the original
            # (Example 8.3), and this answer has no URL for that either: it is the translation
            # that is missing, not a file.
            return Alert(AlertReason.RELATION_MISSING, N_(
                "no URL: %(archive)s holds %(ibi)s and knows %(known)s, but gives no URL for it (its answer has no "
                "url%(relation)s): neither the translation asked for nor the original to fall back on",
                archive=archive, ibi=ibi, known=_explained(reading.verbs, ibi), relation=reading.relation))
        if missing is None:
            return Alert(AlertReason.RELATION_MISSING, N_(
                "no URL: %(archive)s holds %(ibi)s and knows %(known)s, but gives no URL for it (its answer has no "
                "url%(relation)s): a file it does not hold, or a file list it does not offer", archive=archive,
                ibi=ibi, known=_explained(reading.verbs, ibi), relation=reading.relation))
        known, verb = missing
        if not known and reading.pairs.get("url") is None:
            # A filtered answer (FILTRARLISTADEURL, Example 9.3) has only the pairs of the whole
            # relation: it lacks that relation, and says nothing of its first step alone. Named
            # by a translation in it if any (editions and metadata of a held item are answered
            # by its Archive, Table 9.5; a translation into one language may not exist), up to
            # that translation; else by its last step.
            steps = [step for step in reading.verbs if step.name != GET_FILE_LIST]
            verb = next((step for step in steps if step.name == GET_TRANSLATION), steps[-1])
            asked = steps[:steps.index(verb) + 1]
        else:
            asked = [*known, verb]
        values = {"archive": archive, "ibi": ibi, "wanted": _explained(asked, ibi), "relation": relation_of(asked)}
        if verb.name == GET_TRANSLATION:
            return Alert(AlertReason.TRANSLATION_MISSING, N_(
                "translation does not exist: %(archive)s holds %(ibi)s, but no %(wanted)s (its answer has no "
                "url%(relation)s and no ibi%(relation)s)", **values))
        if verb.name == GET_LAST_EDITION:
            return Alert(AlertReason.RELATION_MISSING, N_(
                "last edition unknown: %(archive)s holds %(ibi)s, but does not know the %(wanted)s (its answer has "
                "no url%(relation)s and no ibi%(relation)s, and no ibi.nextedition)", **values))
        return Alert(AlertReason.RELATION_MISSING, N_(
            "metadata do not exist: %(archive)s holds %(ibi)s, but no %(wanted)s (its answer has no url%(relation)s "
            "and no ibi%(relation)s)", **values))

    # -- (5), (6) and (7) ------------------------------------------------------------

    def conclude(self, parsed: PersistentUrl, reply: Reply, reading: Reading) -> Resolution:
        """Check the URL, acknowledge it (5)/(6), and return it (7)."""
        url = reading.url or ""
        problem = redirect_problem(url)
        if problem is not None:
            return self.finish(alert=Alert(AlertReason.UNSAFE_URL, N_(
                "%(archive)s answered url%(relation)s %(url)s, which is not a URL to send you to (%(problem)s): "
                "not redirecting", archive=reply.endpoint.name, relation=reading.relation, url=repr(url[:120]),
                problem=problem)))
        parts = urlsplit(url)
        acknowledgment, pending_notice = self.acknowledge(reply, reading)
        if parsed.query:
            url += ("&" if parts.query else "?") + parsed.passed_on_query()
        return self.finish(url=url, archive=reply.endpoint.name, acknowledgment=acknowledgment,
                           pending_notice=pending_notice)

    def acknowledge(self, reply: Reply, reading: Reading) -> tuple[AcknowledgmentMessage | None, Future[TraceStep] | None]:
        """Send (5) to the Archive that gave the URL; the message sent, and the notice (6) when
        it is not waited for (recorded as pending: acknowledging.PendingNotices), else ``None``
        and the notice is recorded."""
        endpoint = reply.endpoint
        try:
            url = acknowledging.acknowledgment_url(endpoint, reading, self.client.ip_addresses,
                                                   self.received, self.settings.resolver_base)
        except ParseError as error:
            self.steps.append(_said(acknowledging.unsent(endpoint, reading, self.hops, str(error))))
            return None, None
        notices = self.resolver.notices
        if notices is not None and not notices.waits_for(endpoint):
            refused = notices.admit(endpoint)
            if refused is not None:
                self.steps.append(_said(acknowledging.unsent(endpoint, reading, self.hops, refused)))
                return None, None
            self.steps.append(_said(acknowledging.sent(endpoint, reading, self.hops, url)))
            exchange = self.sender.start(self.resolver.executor, [(endpoint, url)])[0]
            self.steps.append(_said(acknowledging.pending(endpoint, self.hops)))
            return AcknowledgmentMessage(endpoint, url), notices.follow(exchange, self.hops)
        self.steps.append(_said(acknowledging.sent(endpoint, reading, self.hops, url)))
        answer = self.sender.start(self.resolver.executor, [(endpoint, url)])[0].result()
        self.steps.append(_said(acknowledging.notice(answer, self.hops)))
        return AcknowledgmentMessage(endpoint, url), None
