"""What the Trace page shows of a stored trace: the outcome in words, each Archive's exchange,
and every decision of the resolver in order (file 003, §8.2 and §10).

Built from the stored JSON (``Resolution.to_dict()`` plus ``request``, see
``application/resolving.py``). Its words are the reader's language within a request and English
outside one (Flask-Babel's ``gettext`` needs no request), so it is tested as plain data too.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from http import HTTPStatus
from urllib.parse import urlsplit

from flask_babel import lazy_gettext, lazy_pgettext

from .sequence import SequenceDiagram, asked_about, sequence_of
from ...resolver.diagnosis import NotFoundDiagnosis
from ..resolve.alert_page import unanswered
from ...resolver.trace import AcknowledgmentOutcome, AlertReason, AnswerMeaning, Resolution, Selection, Status, StepKind, TraceStep
from .sentences import (
    acknowledgment_sentence, answer_words, capture_sentence, milliseconds, notice_sentence, selection_sentence,
)
from ...resolver.statuses import ALERT_STATUS, FOUND_STATUS
from ..i18n import gettext, ngettext, pgettext, translate
from .alerts import HEADLINES



#: What support staff can do next, by outcome.
NEXT_STEPS = {
    None: lazy_gettext("The resolver's part worked. If the user still sees an error, it comes from the Archive's "
          "own server at that URL (messages 8 and 9)."),
    AlertReason.NOT_FOUND: lazy_gettext("No Archive asked holds this IBI. Check the identifier for typos (Parse, Convert); "
          "if an Archive that should hold it timed out or failed below, its administrator should look at it."),
    AlertReason.DELETED: lazy_gettext("An Archive says the item was removed, and when. Only that Archive's administrator can "
          "restore it."),
    AlertReason.TRANSLATION_MISSING: lazy_gettext("The item exists, but not in the language asked. Try the same URL with a "
          "plain + (any translation) or without it."),
    AlertReason.RELATION_MISSING: lazy_gettext("An Archive holds the item, but not the related item the URL asks for (its "
          "metadata, its last edition, a file): the alert names the missing step. Try the URL without that "
          "modifier or path; the Archive's administrator can add what is missing."),
    AlertReason.CONFLICTING_ORIGINALS: lazy_gettext("Two or more Archives claim to hold the original (§8.2: \"under suspicion, "
          "investigation needed\"). Their administrators must find out which one holds a copy."),
    AlertReason.NO_ORIGINAL: lazy_gettext("Archives hold copies, but none claims the original. Without \"require the "
          "original\" the first copy would be returned."),
    AlertReason.NO_ARCHIVE_ANSWERED: lazy_gettext("Every Archive failed or timed out. Look at each Archive's error below "
          "and at the portal's network access to the Archives."),
    AlertReason.NO_ARCHIVES: lazy_gettext("No Archive is included in the resolution system: register Archives "
          "(Archives page) or turn the demo Archives on."),
    AlertReason.HOP_LIMIT: lazy_gettext("The Archives kept naming other IBIs (next editions, translations) beyond the "
          "resolver's limit. Follow the chain in the rounds below."),
    AlertReason.CYCLE: lazy_gettext("The Archives point back to an IBI already asked, with the same verbs: an edition "
          "chain loops. The Archives' administrators must fix their ibi.nextedition pairs."),
    AlertReason.UNSAFE_URL: lazy_gettext("An Archive answered a URL the resolver never redirects to (not an absolute http or "
          "https URL with a host, or with credentials, spaces or control characters). That Archive's "
          "administrator must fix the item's URL."),
    AlertReason.BAD_REQUEST: lazy_gettext("The persistent URL does not follow Table 8.1: fix the character named."),
}

#: Each exchange's status in words (the Archive's side of messages 3 and 4), and its tone.
STATUS_WORDS = {
    Status.ANSWERED: (lazy_pgettext("exchange status", "answered"), "good"),
    Status.EMPTY: (lazy_pgettext("exchange status", "no item"), "muted"),
    Status.MALFORMED: (lazy_pgettext("exchange status", "garbage"), "bad"),
    Status.HTTP_ERROR: (lazy_pgettext("exchange status", "error"), "bad"),
    Status.TIMEOUT: (lazy_pgettext("exchange status", "timeout"), "bad"),
    Status.REFUSED: (lazy_pgettext("exchange status", "error"), "bad"),
    Status.TRANSPORT_ERROR: (lazy_pgettext("exchange status", "error"), "bad"),
    Status.NOT_WAITED_FOR: (lazy_pgettext("exchange status", "not waited for"), "muted"),
    Status.NOT_SENT: (lazy_pgettext("exchange status", "not sent"), "bad"),
    Status.SET_ASIDE: (lazy_pgettext("exchange status", "set aside"), "bad"),
}

STATUS_HELP = {
    Status.ANSWERED: lazy_gettext("a non-empty pair list (Table 6.2)"),
    Status.EMPTY: lazy_gettext("an empty answer: this Archive does not hold the IBI (Algorithm 2)"),
    Status.MALFORMED: lazy_gettext("not a pair list (Table 6.2)"),
    Status.HTTP_ERROR: lazy_gettext("an HTTP status other than 200"),
    Status.TIMEOUT: lazy_gettext("no answer in time"),
    Status.REFUSED: lazy_gettext("the resolver may not contact this address"),
    Status.TRANSPORT_ERROR: lazy_gettext("the connection failed"),
    Status.NOT_WAITED_FOR: lazy_gettext("a usable answer had already arrived (copies are equivalent)"),
    Status.NOT_SENT: lazy_gettext("the request could not be built"),
    Status.SET_ASIDE: lazy_gettext("a pair list the resolver did not use: about another item, ambiguous, or "
                                   "competing with the original this portal's own Archive holds"),
}


def status_words(status: Status | None) -> str:
    """An exchange's status in the reader's words (``sent`` while none is recorded)."""
    return str(STATUS_WORDS[status][0]) if status in STATUS_WORDS else pgettext("exchange status", "sent")


#: Why a pair of an answer matters to the resolver's decision (a badge beside it).
class Role(StrEnum):
    URL = "url"  # the pair holding the URL asked for (``url`` + the relation, Table 9.5)
    ONWARD = "onward"  # the IBI leading on, asked next
    DELETED = "deleted"  # ``state Deleted`` and its timestamp


ROLE_WORDS = {
    Role.URL: lazy_gettext("the URL asked for"),
    Role.ONWARD: lazy_gettext("leads on: asked next"),
    Role.DELETED: lazy_gettext("the item was deleted"),
}


#: The reason phrases of the statuses the resolver answers (ibiportal.resolver.statuses), in the
#: reader's words: the phrase on the wire is English, the sentence that names it need not be.
STATUS_PHRASES = {
    301: lazy_pgettext("HTTP status", "Moved Permanently"), 302: lazy_pgettext("HTTP status", "Found"),
    303: lazy_pgettext("HTTP status", "See Other"), 307: lazy_pgettext("HTTP status", "Temporary Redirect"),
    400: lazy_pgettext("HTTP status", "Bad Request"), 404: lazy_pgettext("HTTP status", "Not Found"),
    409: lazy_pgettext("HTTP status", "Conflict"), 410: lazy_pgettext("HTTP status", "Gone"),
    502: lazy_pgettext("HTTP status", "Bad Gateway"), 503: lazy_pgettext("HTTP status", "Service Unavailable"),
    504: lazy_pgettext("HTTP status", "Gateway Timeout"),
}


def http_status_text(code: int) -> str:
    """``302 Found``, ``404 Not Found`` (``404 Não encontrado`` in Portuguese); a status the
    resolver never answers keeps HTTP's English phrase."""
    if code in STATUS_PHRASES:
        return f"{code} {STATUS_PHRASES[code]}"
    try:
        return f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        return str(code)



def is_web_url(url: str | None) -> bool:
    """Only http(s) URLs become links on the page (a stored trace is data, not trusted markup)."""
    if not url:
        return False
    parts = urlsplit(url)
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


@dataclass(frozen=True)
class AnswerPair:
    """One pair of an answer; ``role`` says why it matters to the resolver's decision, if it does."""

    name: str
    value: str
    role: Role | None = None

    @property
    def role_words(self) -> str:
        return "" if self.role is None else str(ROLE_WORDS[self.role])


@dataclass(frozen=True)
class ExchangeRow:
    """One Archive asked in one round: message 3 and what came back (4), or the notice (6)."""

    index: int
    step: TraceStep
    status: str
    tone: str
    status_help: str
    chosen: bool
    pairs: tuple[AnswerPair, ...]
    verdict: str  # what the resolver made of it, in the page's words

    @property
    def anchor(self) -> str:
        return f"step-{self.index}"

    @property
    def open(self) -> bool:
        """Shown unfolded: the chosen answer and every failure worth reading."""
        return self.chosen or self.step.status in (Status.MALFORMED, Status.HTTP_ERROR, Status.TRANSPORT_ERROR,
                                                    Status.REFUSED, Status.NOT_SENT, Status.SET_ASIDE)


@dataclass(frozen=True)
class Offer:
    """A URL an Archive offered for what was asked (like identifiers.org's list of resolved resources)."""

    archive: str
    address: str | None
    url: str
    state: str | None
    chosen: bool
    anchor: str


@dataclass(frozen=True)
class Round:
    """One hop: the IBI asked about, with which verbs, and every Archive's exchange."""

    number: int
    ibi: str | None
    verbs: str | None
    exchanges: tuple[ExchangeRow, ...]
    counts: dict[str, int]


@dataclass(frozen=True)
class Decision:
    """One decision of the resolver, in words, with the Figure 8.1 message it is about.

    ``kind``: ``message`` (about message ``number``), ``analysis`` (the resolver's reading of
    the answers), ``event`` (no message came: timeout, error, not waited for) or ``note``.
    """

    number: int | None
    hop: int
    text: str
    tone: str = ""
    anchor: str | None = None
    kind: str = "message"


@dataclass(frozen=True)
class Fact:
    label: str
    value: str
    code: bool = True
    moment: bool = False  # an ISO 8601 time, shown as the reader's language writes it


@dataclass
class TraceReport:
    """Everything the Trace page shows of one stored trace."""

    trace_id: str
    resolution: Resolution
    asked: dict
    sequence: SequenceDiagram
    rounds: list[Round] = field(default_factory=list)
    acknowledgment: list[ExchangeRow] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    offers: list[Offer] = field(default_factory=list)
    status: int = FOUND_STATUS
    diagnosis: NotFoundDiagnosis | None = None

    @property
    def status_text(self) -> str:
        """What ``GET /<persistent URL>`` answers, e.g. ``302 Found``."""
        return http_status_text(self.status)

    @property
    def found(self) -> bool:
        return self.resolution.found

    @property
    def headline(self) -> str:
        """The outcome in a few words; a not-found whose Archives did not all answer in time
        names those that did not (one of them may hold the item), as the alert page does."""
        alert = self.resolution.alert
        if (late := unanswered(self.resolution, self.diagnosis)) is not None:
            return late.headline
        return str(lazy_gettext("Redirected") if alert is None else HEADLINES[alert.reason])

    @property
    def tone(self) -> str:
        alert = self.resolution.alert
        if alert is None:
            return "good"
        return "warn" if alert.reason in (AlertReason.CONFLICTING_ORIGINALS, AlertReason.DELETED) else "bad"

    @property
    def next_step(self) -> str:
        alert = self.resolution.alert
        return str(NEXT_STEPS[None if alert is None else alert.reason])

    @property
    def url_is_link(self) -> bool:
        return is_web_url(self.resolution.url)

    @property
    def skipped(self) -> int:
        """How many exchanges were not waited for (they may have offered the URL too)."""
        return sum(1 for r in self.rounds for x in r.exchanges if x.step.status is Status.NOT_WAITED_FOR)

    @property
    def require_original(self) -> bool:
        return "ibiurl.requireditemstatus=" in self.resolution.persistent_url

    def options(self) -> dict[str, str]:
        """The form fields that run this trace again (the Trace form's contract)."""
        options = {
            "url": self.resolution.persistent_url,
            "archives": self.asked.get("archives") or "",
            "accept_language": self.asked.get("accept_language") or "",
            "client_ip": self.asked.get("client_ip") or "",
        }
        if self.asked.get("include_faulty"):
            options["include_faulty"] = "y"
        return options


def build_report(trace_id: str, body: dict) -> TraceReport:
    """The page's view of a stored trace ``body``."""
    resolution = Resolution.from_dict(body)
    sequence = sequence_of(resolution)
    diagnosis = body.get("diagnosis")
    report = TraceReport(trace_id, resolution, dict(body.get("request") or {}), sequence,
                         diagnosis=None if diagnosis is None else NotFoundDiagnosis.from_dict(diagnosis))
    chosen = {hop.number: hop.chosen for hop in sequence.hops}
    steps = resolution.trace.steps
    for hop in sequence.hops:
        indexes = [i for i, step in enumerate(steps) if step.kind is StepKind.URL_REQUEST and step.hop == hop.number]
        exchanges = tuple(_exchange(i, steps[i], i == chosen.get(hop.number)) for i in indexes)
        counts: dict[str, int] = {}
        for exchange in exchanges:
            counts[exchange.status] = counts.get(exchange.status, 0) + 1
        report.rounds.append(Round(hop.number, hop.ibi, hop.verbs, exchanges, counts))
    report.acknowledgment = [_exchange(i, step, True) for i, step in enumerate(steps)
                             if step.kind in (StepKind.ACKNOWLEDGMENT, StepKind.NOTICE)]
    report.offers = [offer for r in report.rounds for x in r.exchanges if (offer := _offer(x)) is not None]
    report.decisions = decisions_of(resolution)
    report.status = outcome_status(resolution)
    report.facts = _facts(report)
    return report


def outcome_status(resolution: Resolution) -> int:
    """The HTTP status ``GET /<persistent URL>`` answers for this outcome."""
    return FOUND_STATUS if resolution.alert is None else ALERT_STATUS[resolution.alert.reason]


def _exchange(index: int, step: TraceStep, chosen: bool) -> ExchangeRow:
    words, tone = status_words(step.status), STATUS_WORDS[step.status][1] if step.status in STATUS_WORDS else ""
    if step.status is Status.HTTP_ERROR and step.http_status:
        words = gettext("error (HTTP %(status)s)", status=step.http_status)
    return ExchangeRow(index, step, words, tone, str(STATUS_HELP.get(step.status, "")), chosen,
                       _pairs(step), _verdict(step))


def _verdict(step: TraceStep) -> str:
    if step.kind is StepKind.ACKNOWLEDGMENT:
        return acknowledgment_sentence(step)
    if step.kind is StepKind.NOTICE:
        return notice_sentence(step)
    words = answer_words(step)
    return words[0].upper() + words[1:] + "."


def _offer(exchange: ExchangeRow) -> Offer | None:
    """The URL an answer offers for what was asked (its pair marked "the URL asked for"), with the item's state."""
    wanted = next((pair for pair in exchange.pairs if pair.role is Role.URL), None)
    if wanted is None:
        return None
    state = dict((pair.name, pair.value) for pair in exchange.pairs).get("state" + wanted.name[len("url"):])
    step = exchange.step
    return Offer(step.receiver, step.archive, wanted.value, state, exchange.chosen, exchange.anchor)


def _pairs(step: TraceStep) -> tuple[AnswerPair, ...]:
    """The answer's pairs; the one holding the URL, the IBI leading on, or ``state Deleted`` marked."""
    roles: dict[str, Role] = {}
    if step.meaning is AnswerMeaning.URL and step.deciding_pair:
        roles[step.deciding_pair] = Role.URL
    elif step.meaning is AnswerMeaning.ONWARD and step.deciding_pair:
        roles[step.deciding_pair] = Role.ONWARD
    elif step.meaning is AnswerMeaning.DELETED:
        roles = {"state": Role.DELETED, "timestamp": Role.DELETED}
    return tuple(AnswerPair(name, value, roles.get(name)) for name, value in step.pairs or ())


def decisions_of(resolution: Resolution) -> list[Decision]:
    """Every decision of the resolution in order, in words (capture, each round, acknowledgment, outcome)."""
    steps = resolution.trace.steps
    decisions: list[Decision] = []
    seen_hops: set[int] = set()
    for index, step in enumerate(steps):
        anchor = f"step-{index}"
        if step.kind is StepKind.CAPTURE:
            tone = "bad" if step.parse_error else ""
            decisions.append(Decision(2, 0, capture_sentence(step), tone, "summary"))
        elif step.kind is StepKind.URL_REQUEST:
            if step.hop not in seen_hops:
                seen_hops.add(step.hop)
                decisions.extend(_round_decisions(steps, step.hop))
        elif step.kind is StepKind.SELECTION:
            tone = "bad" if step.selection is Selection.ALERT else "good"
            decisions.append(Decision(None, step.hop, selection_sentence(step), tone, f"hop-{step.hop}", "analysis"))
        elif step.kind is StepKind.ACKNOWLEDGMENT:
            sent = step.acknowledgment is not AcknowledgmentOutcome.NOT_SENT
            decisions.append(Decision(5, step.hop, acknowledgment_sentence(step), "" if sent else "bad", anchor))
        elif step.kind is StepKind.NOTICE:
            good = step.acknowledgment in (AcknowledgmentOutcome.NOTICE, AcknowledgmentOutcome.PENDING)
            decisions.append(Decision(6, step.hop, notice_sentence(step), "" if good else "warn", anchor))
        elif step.kind is StepKind.OUTCOME:
            tone = "good" if resolution.found else "bad"
            text = (gettext("Redirect the browser to %(url)s.", url=resolution.url) if resolution.found
                    else gettext("Alert instead of a URL: %(alert)s", alert=_sentence(translate(resolution.alert.message))))
            decisions.append(Decision(7, step.hop, text, tone, "summary"))
    return decisions


def _round_decisions(steps: tuple[TraceStep, ...], hop: int) -> list[Decision]:
    """One round: what was asked, each non-empty answer or failure, the empty ones together, the notes."""
    requests = [(i, s) for i, s in enumerate(steps) if s.kind is StepKind.URL_REQUEST and s.hop == hop]
    sent = [s for _, s in requests if s.status is not Status.NOT_SENT]
    ibi, verbs = asked_about(sent)
    if not ibi:
        asked = ngettext("Round %(round)s: asked %(num)s Archive in parallel (urlRequest, Table 8.9).",
                         "Round %(round)s: asked %(num)s Archives in parallel (urlRequest, Table 8.9).",
                         len(sent), round=hop)
    elif not verbs:
        asked = ngettext("Round %(round)s: asked %(num)s Archive about %(ibi)s in parallel (urlRequest, Table 8.9).",
                         "Round %(round)s: asked %(num)s Archives about %(ibi)s in parallel (urlRequest, Table 8.9).",
                         len(sent), round=hop, ibi=ibi)
    else:
        asked = ngettext("Round %(round)s: asked %(num)s Archive about %(ibi)s with the verbs %(verbs)s in parallel "
                         "(urlRequest, Table 8.9).",
                         "Round %(round)s: asked %(num)s Archives about %(ibi)s with the verbs %(verbs)s in parallel "
                         "(urlRequest, Table 8.9).", len(sent), round=hop, ibi=ibi, verbs=verbs)
    out = [Decision(3, hop, asked, "", f"hop-{hop}")]
    empty = [s.receiver for _, s in requests if s.status is Status.EMPTY]
    skipped = [s.receiver for _, s in requests if s.status is Status.NOT_WAITED_FOR]
    for index, step in requests:
        if step.status in (Status.EMPTY, Status.NOT_WAITED_FOR):
            continue
        tone = "" if step.status is Status.ANSWERED else "bad"
        number = 4 if step.status in (Status.ANSWERED, Status.MALFORMED, Status.HTTP_ERROR, Status.SET_ASIDE) else None
        words = answer_words(step)
        if step.elapsed_ms is None:
            text = (gettext("%(archive)s: %(what)s.", archive=step.receiver, what=words) if step.status is Status.ANSWERED
                    else gettext("%(archive)s: %(what)s; not used.", archive=step.receiver, what=words))
        elif step.status is Status.ANSWERED:
            text = gettext("%(archive)s after %(time)s: %(what)s.", archive=step.receiver,
                           time=milliseconds(step.elapsed_ms), what=words)
        else:
            text = gettext("%(archive)s after %(time)s: %(what)s; not used.", archive=step.receiver,
                           time=milliseconds(step.elapsed_ms), what=words)
        out.append(Decision(number, hop, text, tone, f"step-{index}", "message" if number else "event"))
        for note in step.notes:
            out.append(Decision(None, hop, f"{step.receiver}: {_sentence(translate(note))}", "", f"step-{index}", "note"))
    if empty:
        out.append(Decision(4, hop, gettext("Empty answers, so the IBI is not held there: %(archives)s.",
                                            archives=", ".join(empty)), "muted", f"hop-{hop}"))
    if skipped:
        out.append(Decision(None, hop, gettext("Not waited for, a usable answer having arrived: %(archives)s.",
                                               archives=", ".join(skipped)), "muted", f"hop-{hop}", "event"))
    return out


def _sentence(text: str) -> str:
    """``text`` as a sentence: a capital (unless it starts with a name such as ``ibi.nextedition``) and a stop."""
    text = text.strip()
    if not text:
        return text
    if text.split(" ", 1)[0].isalpha():
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _facts(report: TraceReport) -> list[Fact]:
    resolution, asked = report.resolution, report.asked
    facts = [Fact(lazy_gettext("Persistent URL"), resolution.persistent_url)]
    captured = next(iter(resolution.trace.numbered(2)), None)
    if captured is not None and captured.ibi:
        facts.append(Fact(lazy_gettext("IBI"), captured.ibi))
        if captured.verbs:
            facts.append(Fact(lazy_gettext("Verbs"), " ".join(captured.verbs)))
    if resolution.archive:
        address = next((line.address for line in report.sequence.lifelines if line.key == resolution.archive), None)
        facts.append(Fact(lazy_gettext("URL from Archive"), resolution.archive + (f" ({address})" if address else "")))
    archives = [line for line in report.sequence.lifelines if line.is_archive]
    facts.append(Fact(lazy_gettext("Archives asked"), f"{len(archives)}" + (f", {selection_words(asked['archives'])}"
                                                              if asked.get("archives") else ""), False))
    if asked.get("archives") in ("demo", "all"):
        facts.append(Fact(lazy_gettext("Faulty demo Archives"), str(lazy_gettext("included") if asked.get("include_faulty") else lazy_gettext("left out")), False))
    facts.append(Fact(lazy_gettext("Rounds (hops)"), str(resolution.hops), False))
    facts.append(Fact(lazy_gettext("Time"), milliseconds(resolution.elapsed_ms), False))
    client_ip = asked.get("client_ip") or _first_client(resolution)
    if client_ip:
        facts.append(Fact(lazy_gettext("Client IP (Table 8.10)"), client_ip))
    if "accept_language" in asked:
        facts.append(Fact(lazy_gettext("Accept-Language"), asked["accept_language"] or str(lazy_gettext("(none)"))))
    facts.append(Fact(lazy_gettext("Original required"), str(lazy_gettext("yes") if report.require_original else lazy_gettext("no")), False))
    if asked.get("traced_at"):
        facts.append(Fact(lazy_gettext("Traced at"), asked["traced_at"], False, moment=True))
    return facts


def selection_words(selection: str) -> str:
    """Which Archives a trace asked (``demo``, ``live``, ``all``), in words."""
    words = {"demo": lazy_gettext("the demo Archives"), "live": lazy_gettext("the live Archives"),
             "all": lazy_gettext("demo and live")}
    return str(words.get(selection, selection))


def _first_client(resolution: Resolution) -> str | None:
    for step in resolution.trace.steps:
        if step.kind is StepKind.URL_REQUEST and step.client_ips:
            return " ".join(step.client_ips)
    return None

