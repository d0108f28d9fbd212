"""A resolution drawn as Figure 8.1 (file 003, §8.2): lifelines and numbered messages 1-10.

Figure 8.1 has four lifelines (usuário, navegador, resolvedor, arquivo:Arquivo) and ten
messages:

==  ==========================================  =====================  ==========================
 #  Figure 8.1 (Portuguese)                     in English             between
==  ==========================================  =====================  ==========================
 1  Resolver IBI                                Resolve IBI            user → browser
 2  Resolver IBI                                Resolve IBI            browser → resolver
 3  Solicitar URL                               Request URL            resolver → each Archive
 4  lista de URL                                URL list               each Archive → resolver
 5  Agradecer                                   Acknowledge            resolver → chosen Archive
 6  aviso                                       Notice                 chosen Archive → resolver
 7  URL/alerta                                  URL/alert              resolver → browser
 8  Trazer item de informação                   Fetch information item browser → chosen Archive
 9  item de informação                          Information item       chosen Archive → browser
10  (the browser shows it, §8.2)                Show                   browser → user
==  ==========================================  =====================  ==========================

3 and 4 sit in the figure's ``loop [p/ cada arq.]`` fragment, repeated while the selected
answer only names an IBI leading toward the URL (§10.2): one :class:`Hop` per round.

The resolver records 2-7 (:mod:`ibiportal.resolver.trace`); 1 and 8-10 happen between the
user, the browser and the Archive, so they are drawn as *expected*, never as observed.

To stay readable with many Archives, one round's 3 is a single broadcast message (the
figure's loop over every Archive), and the empty answers of a round are gathered into one
4; every non-empty answer, malformed answer or HTTP error is a 4 of its own, in arrival
order. A timeout, a transport error or an Archive the resolver stopped waiting for sent no
4: they are events without a number. The resolver's analysis of the answers (the step the
trace numbers 4) is a note on the resolver's lifeline.

Pure data, no Flask: :func:`sequence_of` takes a :class:`~ibiportal.resolver.trace.Resolution`
and reads only the facts of its steps (never the engine's sentences), so it lives here, next to
the page that draws it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from urllib.parse import urlsplit

from ...resolver.trace import BROWSER, RESOLVER, AcknowledgmentOutcome, Resolution, Selection, Status, StepKind, TraceStep
from flask_babel import lazy_gettext

from ..i18n import gettext, ngettext, translate
from .alerts import HEADLINES
from .sentences import milliseconds, notice_sentence, selection_sentence

#: The lifeline left of the browser's (Figure 8.1); the browser's and the resolver's are the trace's own.
USER = "user"

#: Figure 8.1's message names by number: in English, and the figure's own in Portuguese.
MESSAGE_NAMES = {
    1: lazy_gettext("Resolve IBI"),
    2: lazy_gettext("Resolve IBI"),
    3: lazy_gettext("Request URL"),
    4: lazy_gettext("URL list"),
    5: lazy_gettext("Acknowledge"),
    6: lazy_gettext("Notice"),
    7: lazy_gettext("URL/alert"),
    8: lazy_gettext("Fetch information item"),
    9: lazy_gettext("Information item"),
    10: lazy_gettext("Show"),
}


def _name(number: int) -> str:
    return str(MESSAGE_NAMES[number])

class Tone(StrEnum):
    """How a message is drawn: what happened to it."""

    SENT = "sent"  # a message as expected
    ANSWER = "answer"  # a non-empty answer that was not chosen
    CHOSEN = "chosen"  # the answer the resolver selected, the URL returned, the acknowledgment
    EMPTY = "empty"  # the Archive does not hold the IBI
    FAILED = "failed"  # malformed, set aside, HTTP error, timeout, transport error, not sent
    SKIPPED = "skipped"  # not waited for: a usable answer had arrived
    ALERT = "alert"  # the resolution ends without a URL
    EXPECTED = "expected"  # not seen by the resolver (1, 8, 9, 10)


@dataclass(frozen=True)
class Lifeline:
    """A participant: the user, the browser, the resolver, or one Archive (by name, with its address)."""

    key: str
    title: str
    address: str | None = None

    @property
    def is_archive(self) -> bool:
        return self.key not in (USER, BROWSER, RESOLVER)


@dataclass(frozen=True)
class Arrow:
    """One row of the diagram: an arrow of Figure 8.1 (a protocol message, or an event between them).

    ``number`` is Figure 8.1's message number, ``None`` for an event that is no message (a
    timeout, an Archive not waited for, the resolver's analysis). ``senders`` and
    ``receivers`` are lifeline keys: several receivers for a round's broadcast 3, several
    senders for its gathered empty answers. ``steps`` are the indexes in the trace of the
    steps the row stands for; ``summary`` says what happened, in words.
    """

    number: int | None
    name: str
    senders: tuple[str, ...]
    receivers: tuple[str, ...]
    tone: Tone
    summary: str
    hop: int = 0
    steps: tuple[int, ...] = ()

    @property
    def is_note(self) -> bool:
        """The resolver's analysis: drawn on its own lifeline, no arrow."""
        return self.senders == self.receivers == (RESOLVER,)


@dataclass(frozen=True)
class Hop:
    """One round of the loop fragment: which IBI with which verbs, its rows, the answer chosen."""

    number: int
    ibi: str | None
    verbs: str | None
    first: int
    last: int
    chosen: int | None = None  # index in the trace of the chosen answer's step


@dataclass(frozen=True)
class SequenceDiagram:
    lifelines: tuple[Lifeline, ...]
    messages: tuple[Arrow, ...]
    hops: tuple[Hop, ...]


_FAILED_ANSWER = {Status.MALFORMED: lazy_gettext("malformed answer, not a pair list"),
                  Status.HTTP_ERROR: lazy_gettext("HTTP error %(status)s"),
                  Status.SET_ASIDE: lazy_gettext("answer set aside")}
_NO_ANSWER = {
    Status.TIMEOUT: lazy_gettext("timeout"),
    Status.REFUSED: lazy_gettext("refused"),
    Status.TRANSPORT_ERROR: lazy_gettext("transport error"),
    Status.NOT_WAITED_FOR: lazy_gettext("not waited for"),
    Status.NOT_SENT: lazy_gettext("not sent"),
}


def asked_about(requests: list[TraceStep]) -> tuple[str | None, str]:
    """What a round's ``urlRequest`` steps asked (Table 8.9): the IBI and the verb list as
    written in the message (``""`` for none), from the steps' own facts."""
    first = next((step for step in requests if step.ibi), None)
    return (None, "") if first is None else (first.ibi, " ".join(first.verbs))


def sequence_of(resolution: Resolution) -> SequenceDiagram:
    """The diagram of ``resolution``: every recorded step placed as a message of Figure 8.1."""
    return _Builder(resolution).build()


class _Builder:
    def __init__(self, resolution: Resolution) -> None:
        self.resolution = resolution
        self.steps = resolution.trace.steps
        self.messages: list[Arrow] = []
        self.hops: list[Hop] = []
        self.archives: dict[str, str | None] = {}
        self.hop_open = False
        self.gathered: dict[Status, int] = {}
        for step in self.steps:
            if step.kind in (StepKind.URL_REQUEST, StepKind.ACKNOWLEDGMENT):
                self.archives.setdefault(step.receiver, step.archive)
            elif step.kind is StepKind.NOTICE:
                self.archives.setdefault(step.sender, step.archive)
        if resolution.archive is not None:
            self.archives.setdefault(resolution.archive, None)

    def add(self, message: Arrow) -> None:
        self.messages.append(message)

    def build(self) -> SequenceDiagram:
        found = self.resolution.found
        self.add(Arrow(1, _name(1), (USER,), (BROWSER,), Tone.EXPECTED,
                         gettext("the user opens the persistent URL (typed, or a link clicked)")))
        done_hops: set[int] = set()
        for index, step in enumerate(self.steps):
            if step.kind is StepKind.CAPTURE:
                self.capture(index, step)
            elif step.kind is StepKind.URL_REQUEST:
                if step.hop not in done_hops:
                    done_hops.add(step.hop)
                    self.start_hop(step.hop)
                self.answer(index, step)
            elif step.kind is StepKind.SELECTION:
                self.note(index, step)
            elif step.kind is StepKind.ACKNOWLEDGMENT:
                self.close_hop()
                sent = step.status is not Status.NOT_SENT
                self.add(Arrow(5, _name(5), (RESOLVER,), (step.receiver,), Tone.CHOSEN if sent else Tone.FAILED,
                                 gettext("acknowledgment (Table 8.11) to the Archive that gave the URL") if sent
                                 else _join(gettext("not sent"), translate(step.error) or ""), step.hop, (index,)))
            elif step.kind is StepKind.NOTICE:
                tone = {AcknowledgmentOutcome.NOTICE: Tone.CHOSEN, AcknowledgmentOutcome.PENDING: Tone.SENT}.get(
                    step.acknowledgment, Tone.FAILED)
                self.add(Arrow(6, _name(6), (step.sender,), (RESOLVER,), tone,
                                 _join(notice_sentence(step), milliseconds(step.elapsed_ms)), step.hop, (index,)))
            elif step.kind is StepKind.OUTCOME:
                self.outcome(index, step)
        if found:
            holder = self.resolution.archive or "Archive"
            host = urlsplit(self.resolution.url or "").netloc
            self.add(Arrow(8, _name(8), (BROWSER,), (holder,), Tone.EXPECTED,
                             gettext("the browser follows the redirect to %(host)s", host=host)))
            self.add(Arrow(9, _name(9), (holder,), (BROWSER,), Tone.EXPECTED, gettext("the item comes back")))
            self.add(Arrow(10, _name(10), (BROWSER,), (USER,), Tone.EXPECTED, gettext("the browser shows the item")))
        else:
            self.add(Arrow(10, _name(10), (BROWSER,), (USER,), Tone.EXPECTED, gettext("the browser shows the alert")))
        lifelines = [Lifeline(USER, gettext("User")), Lifeline(BROWSER, gettext("Browser")),
                     Lifeline(RESOLVER, gettext("Resolver"))]
        # Archives in name order: the same columns in every trace, whatever the arrival order.
        lifelines += [Lifeline(name, name, self.archives[name]) for name in sorted(self.archives, key=str.casefold)]
        return SequenceDiagram(tuple(lifelines), tuple(self.messages), tuple(self.hops))

    def capture(self, index: int, step: TraceStep) -> None:
        if step.parse_error is not None:
            summary = gettext("%(url)s — does not parse: %(problem)s", url=step.request_url,
                              problem=translate(step.parse_error.message))
            tone = Tone.FAILED
        else:
            summary, tone = step.request_url or "", Tone.SENT
        self.add(Arrow(2, _name(2), (BROWSER,), (RESOLVER,), tone, summary, 0, (index,)))

    # -- the loop fragment: 3, 4 and the analysis, per hop -------------------------------

    def start_hop(self, hop: int) -> None:
        self.close_hop()
        indexes = [i for i, step in enumerate(self.steps) if step.kind is StepKind.URL_REQUEST and step.hop == hop]
        requests = [self.steps[i] for i in indexes]
        sent = [step for step in requests if step.status is not Status.NOT_SENT]
        ibi, verbs = asked_about(sent)
        self.hops.append(Hop(hop, ibi, verbs, len(self.messages), len(self.messages)))
        self.hop_open = True
        self.gathered = {}
        if sent:
            about = (gettext("about %(ibi)s (%(verbs)s)", ibi=ibi, verbs=verbs) if verbs
                     else gettext("about %(ibi)s", ibi=ibi)) if ibi else ""
            asked = ngettext("urlRequest to %(num)s Archive", "urlRequest to %(num)s Archives", len(sent))
            self.add(Arrow(3, _name(3), (RESOLVER,), tuple(step.receiver for step in sent), Tone.SENT,
                             _join(asked, about), hop,
                             tuple(i for i in indexes if self.steps[i].status is not Status.NOT_SENT)))

    def close_hop(self) -> None:
        """End the open round: its rows are ``messages[first:last]``."""
        if self.hop_open:
            self.hops[-1] = replace(self.hops[-1], last=len(self.messages))
            self.hop_open = False

    def answer(self, index: int, step: TraceStep) -> None:
        status = step.status
        if status in (Status.EMPTY, Status.NOT_WAITED_FOR):
            self.gather(index, step)
        elif status is Status.ANSWERED:
            pairs = len(step.pairs or ())
            summary = _join(ngettext("%(num)s pair", "%(num)s pairs", pairs), milliseconds(step.elapsed_ms),
                            _rank(step.arrival))
            self.add(Arrow(4, _name(4), (step.receiver,), (RESOLVER,), Tone.ANSWER, summary, step.hop, (index,)))
        elif status in _FAILED_ANSWER:
            what = str(_FAILED_ANSWER[status]) % {"status": step.http_status or ""}
            summary = _join(what.strip(), milliseconds(step.elapsed_ms), _rank(step.arrival))
            self.add(Arrow(4, _name(4), (step.receiver,), (RESOLVER,), Tone.FAILED, summary, step.hop, (index,)))
        elif status is Status.NOT_SENT:
            self.add(Arrow(3, _name(3), (RESOLVER,), (step.receiver,), Tone.FAILED,
                             _join(gettext("not sent"), translate(step.error) or ""), step.hop, (index,)))
        else:
            what = str(_NO_ANSWER.get(status, "")) or gettext("no answer")
            self.add(Arrow(None, gettext("No answer"), (step.receiver,), (RESOLVER,), Tone.FAILED,
                             _join(what, milliseconds(step.elapsed_ms), translate(step.error) or ""), step.hop, (index,)))

    def gather(self, index: int, step: TraceStep) -> None:
        """Empty answers (4) and Archives not waited for: one row each per hop, at the first one's place."""
        status = step.status
        assert status is not None
        if status in self.gathered:
            position = self.gathered[status]
            message = self.messages[position]
            senders = message.senders + (step.receiver,)
            steps = message.steps + (index,)
        else:
            position = len(self.messages)
            self.gathered[status] = position
            self.add(Arrow(None, "", (), (), Tone.EMPTY, ""))
            senders, steps = (step.receiver,), (index,)
        if status is Status.EMPTY:
            message = Arrow(4, _name(4), senders, (RESOLVER,), Tone.EMPTY,
                              ngettext("empty from %(num)s Archive: not held there",
                                       "empty from %(num)s Archives: not held there", len(senders)), step.hop, steps)
        else:
            message = Arrow(None, gettext("Not waited for"), senders, (RESOLVER,), Tone.SKIPPED,
                              ngettext("%(num)s Archive not waited for: a usable answer had arrived",
                                       "%(num)s Archives not waited for: a usable answer had arrived", len(senders)),
                              step.hop, steps)
        self.messages[position] = message

    def note(self, index: int, step: TraceStep) -> None:
        hop = self.hops[-1] if self.hops else None
        tone = Tone.ALERT if step.selection is Selection.ALERT else Tone.CHOSEN
        if hop is not None and hop.number == step.hop and hop.chosen is None and step.chosen is not None:
            chosen = next(i for i, s in enumerate(self.steps)
                          if s.kind is StepKind.URL_REQUEST and s.hop == step.hop and s.receiver == step.chosen)
            self.hops[-1] = replace(hop, chosen=chosen)
            self.messages = [replace(m, tone=Tone.CHOSEN) if m.steps == (chosen,) else m for m in self.messages]
        self.add(Arrow(None, gettext("Analysis"), (RESOLVER,), (RESOLVER,), tone, selection_sentence(step), step.hop, (index,)))

    def outcome(self, index: int, step: TraceStep) -> None:
        self.close_hop()
        resolution = self.resolution
        if resolution.found:
            self.add(Arrow(7, _name(7), (RESOLVER,), (BROWSER,), Tone.CHOSEN,
                             gettext("redirect to %(url)s", url=resolution.url), step.hop, (index,)))
        else:
            alert = resolution.alert
            assert alert is not None
            self.add(Arrow(7, _name(7), (RESOLVER,), (BROWSER,), Tone.ALERT,
                             gettext("alert (%(reason)s): %(message)s", reason=HEADLINES[alert.reason],
                                     message=translate(alert.message)), step.hop, (index,)))


def _rank(arrival: int | None) -> str:
    if arrival is None:
        return ""
    return gettext("arrived #%(rank)s", rank=arrival)


def _join(*parts: str) -> str:
    return " · ".join(part for part in parts if part)
