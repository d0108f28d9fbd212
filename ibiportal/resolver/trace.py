"""The record of one resolution: the outcome (7) and every message of Figure 8.1 that led to it.

A :class:`Resolution` is what the engine returns: the URL to redirect to, or an
:class:`Alert` saying why there is none, and a :class:`Trace` of numbered steps

* (2) the persistent URL received and the data captured from it (Table 8.6),
* (3) one step per Archive asked, per hop: the exact ``urlRequest`` URL (Table 8.9),
  HTTP status, time taken, arrival order, the raw answer (4), the parsed pairs or the parse
  error with its position, and what the resolver made of it; Archives not waited for too,
* (4) per hop, the selection among the answers, in words,
* (5) the ``acknowledgment`` URL (Table 8.11) and (6) the Archive's ``notice``,
* (7) the outcome, in words.

Everything is plain data: :meth:`Resolution.to_dict` gives JSON-ready dictionaries and
:meth:`Resolution.from_dict` rebuilds an equal value. A sentence that is a translatable message
(the alert's, an error, a note, a parse error: :class:`ibiportal.i18n.Message`) is kept with its
template and values too (``message_i18n``, ``error_i18n``, ``notes_i18n``), so that a stored
trace is shown later in its reader's language.
"""
from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ibiportal.i18n import from_record, to_record
from ibiportal.ibi.url import PersistentUrl
from ibiportal.resolver.transport import ArchiveEndpoint

#: The lifelines of the steps that are not an Archive's (Figure 8.1): who sends and who receives.
RESOLVER = "resolver"
BROWSER = "browser"


class AlertReason(StrEnum):
    """Why a resolution ends with an alert (7) instead of a URL."""

    NOT_FOUND = "not-found"
    DELETED = "deleted"
    TRANSLATION_MISSING = "translation-does-not-exist"
    RELATION_MISSING = "relation-does-not-exist"  # the item is held, not its metadata, last edition or file
    CONFLICTING_ORIGINALS = "conflicting-originals"
    NO_ORIGINAL = "no-original"
    NO_ARCHIVE_ANSWERED = "no-archive-answered"
    NO_ARCHIVES = "no-archives"
    HOP_LIMIT = "hop-limit"
    CYCLE = "cycle"
    UNSAFE_URL = "unsafe-url"
    BAD_REQUEST = "bad-request"


class StepKind(StrEnum):
    """What a step records, by Figure 8.1's message numbers."""

    CAPTURE = "capture"  # (2) the persistent URL and Table 8.6
    URL_REQUEST = "urlRequest"  # (3) to one Archive, with what came back
    SELECTION = "selection"  # (4) the resolver's analysis of the URL lists of one hop
    ACKNOWLEDGMENT = "acknowledgment"  # (5)
    NOTICE = "notice"  # (6)
    OUTCOME = "outcome"  # (7)


class Status(StrEnum):
    """How an exchange with an Archive ended."""

    ANSWERED = "answered"
    EMPTY = "empty"
    MALFORMED = "malformed"
    HTTP_ERROR = "http-error"
    TIMEOUT = "timeout"
    REFUSED = "refused"
    TRANSPORT_ERROR = "transport-error"
    NOT_WAITED_FOR = "not-waited-for"
    NOT_SENT = "not-sent"
    SET_ASIDE = "set-aside"  # a pair list, read and not used: the step's ``set_aside`` says why


class SetAside(StrEnum):
    """Why a well-formed answer (4) was set aside instead of being used (docs/standard-decisions.md)."""

    OTHER_ITEM = "other-item"  # its ``ibi`` pair names another item than the IBI asked
    REPEATED_NAME = "repeated-name"  # a pair name given twice with two values (Algorithm 2 gives each once)
    COMPETING_ORIGINAL = "competing-original"  # claims the original the portal's own Archive holds


class AnswerMeaning(StrEnum):
    """What a non-empty answer (4) offers for the relation sought (§8.2)."""

    URL = "url"  # the wanted URL: url<relation>
    DELETED = "deleted"  # state Deleted
    ONWARD = "onward"  # no URL, but an IBI leading toward it (ibi.nextedition, ibi<part of the relation>)
    NOTHING = "nothing"  # none of these


class Selection(StrEnum):
    """How step (4) of a round chose, or why it chose nothing."""

    FIRST_USABLE = "first-usable"  # the first answer to arrive that is usable (or the first non-empty one)
    ONLY_ORIGINAL = "only-original"  # with requireditemstatus=Original: the one answer claiming it
    FOLLOW = "follow"  # the chosen answer leads on: every Archive is asked again about onward_ibi
    ALERT = "alert"  # no answer could be chosen: the step's ``alert`` says why
    JOINED = "joined"  # an identical request's resolution under way was shared, nothing asked
    OWN_ORIGINAL = "own-original"  # the portal's own Archive holds the item as Original: its answer wins


class AcknowledgmentOutcome(StrEnum):
    """What came of the acknowledgment (5): the notice (6) or why there is none."""

    NOT_SENT = "not-sent"
    NOTICE = "notice"  # notice {acknowledgment received}
    UNEXPECTED = "unexpected"  # an answer that is not the notice
    NO_ANSWER = "no-answer"  # the exchange failed
    PENDING = "pending"  # the URL went out before the notice came (STANDARD.md §7); recorded when it comes


@dataclass(frozen=True)
class ParseProblem:
    """Why an answer is not a pair list (Table 6.2), with its 1-based character position."""

    message: str
    position: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message, "position": self.position}
        if (record := to_record(self.message)) is not None:
            data["message_i18n"] = record
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ParseProblem:
        return cls(from_record(data["message"], data.get("message_i18n")), data.get("position"))


@dataclass(frozen=True)
class TraceStep:
    """One step of Figure 8.1.

    ``number`` is the figure's message number: (2) capture, (3) one ``urlRequest`` with the
    answer that came back, (4) the resolver's selection among the answers of a hop, (5) the
    acknowledgment, (6) its notice, (7) the outcome. ``hop`` counts the rounds of ``urlRequest``
    (1 for the first, 2 after following ``ibi.nextedition``, ...). ``elapsed_ms`` is the
    time from sending to the answer (or to giving up); ``arrival`` the rank of the answer
    among those of its hop (``None`` when none came).

    ``decision`` is a sentence for people, rendered by :mod:`ibiportal.resolver.wording` from
    the structured facts below; nothing but people reads it. The facts:

    * ``ibi``, ``verbs``, ``client_ips``: on (2), the IBI and verb list parsed from the persistent
      URL and the user's IP list (Tables 8.6, 8.8 and 8.10); on (3), what the ``urlRequest`` asks
      (Table 8.9), also on a (3) that was never sent: so that no reader parses ``request_url``
      or the persistent URL again;
    * ``relation``: the relation sought (Table 9.5), on (3) and (5);
    * ``meaning``, ``deciding_pair``, ``onward_ibi``: on an answered (3), what the answer offers
      and the pair that says so (``url<relation>``, ``state``, ``ibi.nextedition``…);
    * ``selection``, ``chosen``, ``alert``, ``outcomes``: on (4), how it chose, the Archive whose
      answer it chose, the alert it ended with, and every Archive's status in the round;
    * ``acknowledgment``: on (5) and (6), what came of the acknowledgment;
    * ``alert`` on (7) too: the alert sent instead of a URL;
    * ``joined_trace``: on a (4) that joined the resolution of an identical request, the
      permalink of that resolution's trace;
    * ``set_aside``, ``answered_ibi``: on a (3) whose answer was set aside (``status``
      ``set-aside``), why, and the IBI its ``ibi`` pair named when that was the reason; ``error``
      then says it in words (a message, translated where the trace is shown).
    """

    number: int
    kind: StepKind
    sender: str
    receiver: str
    decision: str
    hop: int = 0
    archive: str | None = None
    request_url: str | None = None
    status: Status | None = None
    http_status: int | None = None
    content_type: str | None = None
    elapsed_ms: float | None = None
    arrival: int | None = None
    raw_answer: str | None = None
    pairs: tuple[tuple[str, str], ...] | None = None
    parse_error: ParseProblem | None = None
    error: str | None = None
    notes: tuple[str, ...] = ()
    relation: str | None = None
    meaning: AnswerMeaning | None = None
    deciding_pair: str | None = None
    onward_ibi: str | None = None
    selection: Selection | None = None
    chosen: str | None = None
    alert: AlertReason | None = None
    outcomes: tuple[tuple[str, Status], ...] = ()
    acknowledgment: AcknowledgmentOutcome | None = None
    ibi: str | None = None
    verbs: tuple[str, ...] = ()
    client_ips: tuple[str, ...] = ()
    joined_trace: str | None = None
    set_aside: SetAside | None = None
    answered_ibi: str | None = None

    def worded(self, decision: str) -> TraceStep:
        """This step with its sentence for people (:mod:`.wording`): a copy of its attributes
        with ``decision`` set. Every step of every resolution is worded once made, and
        ``dataclasses.replace`` passed each of the step's 35 fields through ``__init__`` again."""
        step = object.__new__(TraceStep)
        step.__dict__.update(self.__dict__, decision=decision)
        return step

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: enums as their values, pairs as ``[name, raw value]`` lists. Its fields
        copied from its attributes (in their order), not ``asdict``: its deep copy of every pair
        was most of the cost of storing a trace."""
        data = self.__dict__.copy()
        data["parse_error"] = None if self.parse_error is None else self.parse_error.to_dict()
        for name in _ENUM_FIELDS:
            value = getattr(self, name)
            data[name] = None if value is None else value.value
        data["pairs"] = None if self.pairs is None else [list(pair) for pair in self.pairs]
        data["notes"] = list(self.notes)
        data["outcomes"] = [[name, status.value] for name, status in self.outcomes]
        data["verbs"] = list(self.verbs)
        data["client_ips"] = list(self.client_ips)
        if (error := to_record(self.error)) is not None:
            data["error_i18n"] = error
        notes = [to_record(note) for note in self.notes]
        if any(notes):
            data["notes_i18n"] = notes
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TraceStep:
        """The inverse of :meth:`to_dict`."""
        values = dict(data)
        for name, kind in _ENUM_FIELDS.items():
            values[name] = None if values.get(name) is None else kind(values[name])
        values["outcomes"] = tuple((name, Status(status)) for name, status in values.get("outcomes", ()))
        pairs = values.get("pairs")
        values["pairs"] = None if pairs is None else tuple((name, value) for name, value in pairs)
        problem = values.get("parse_error")
        values["parse_error"] = None if problem is None else ParseProblem.from_dict(problem)
        values["error"] = from_record(values.get("error"), values.pop("error_i18n", None))
        notes = values.get("notes", ())
        records = [*values.pop("notes_i18n", ()), *[None] * len(notes)]  # notes added in storage have none
        values["notes"] = tuple(from_record(note, record) for note, record in zip(notes, records))
        values["verbs"] = tuple(values.get("verbs", ()))
        values["client_ips"] = tuple(values.get("client_ips", ()))
        return cls(**values)


#: The fields of :class:`TraceStep` that hold an enum, stored as its value.
_ENUM_FIELDS = {"kind": StepKind, "status": Status, "meaning": AnswerMeaning, "selection": Selection,
                "alert": AlertReason, "acknowledgment": AcknowledgmentOutcome, "set_aside": SetAside}


@dataclass(frozen=True)
class Trace:
    """The ordered steps of one resolution."""

    steps: tuple[TraceStep, ...] = ()

    def numbered(self, number: int) -> tuple[TraceStep, ...]:
        """The steps carrying Figure 8.1 message ``number``, in order."""
        return tuple(step for step in self.steps if step.number == number)

    def to_dict(self) -> dict[str, Any]:
        return {"steps": [step.to_dict() for step in self.steps]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        return cls(tuple(TraceStep.from_dict(step) for step in data["steps"]))


@dataclass(frozen=True)
class Alert:
    """Outcome (7) without a URL: the reason, a sentence for the user, the Deleted timestamp if any."""

    reason: AlertReason
    message: str
    timestamp: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {"reason": self.reason.value, "message": self.message, "timestamp": self.timestamp}
        if (record := to_record(self.message)) is not None:
            data["message_i18n"] = record
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Alert:
        return cls(AlertReason(data["reason"]), from_record(data["message"], data.get("message_i18n")),
                   data.get("timestamp"))


@dataclass(frozen=True)
class AcknowledgmentMessage:
    """The acknowledgment (5) a resolution sent: the request URL and the Archive it went to."""

    endpoint: ArchiveEndpoint
    url: str


@dataclass(frozen=True)
class Resolution:
    """The result of resolving one persistent URL: exactly one of ``url`` and ``alert``.

    ``url`` is an http or https URL an Archive answered, to redirect the browser to (8);
    ``archive`` the name of the Archive that gave it; ``acknowledgment_url`` the message (5)
    sent to that Archive, and ``acknowledged`` that Archive's endpoint. The endpoint is what a
    cache needs to send the same message again; it is this process's configuration, not part of
    the record, so :meth:`to_dict` leaves it out and a rebuilt resolution has none.
    ``pending_notice`` is the notice (6) still on its way when the URL was returned, as the step
    that replaces the trace's ``pending`` one once it comes (the engine's ``PendingNotices``);
    also not part of the record. ``request``
    is the persistent URL received, parsed (``None`` for a resolution rebuilt from its record):
    what later steps read instead of parsing ``persistent_url`` again.
    """

    persistent_url: str
    trace: Trace
    url: str | None = None
    alert: Alert | None = None
    archive: str | None = None
    acknowledgment_url: str | None = None
    hops: int = 0
    elapsed_ms: float = 0.0
    acknowledged: ArchiveEndpoint | None = field(default=None, compare=False, repr=False)
    pending_notice: Future[TraceStep] | None = field(default=None, compare=False, repr=False)
    request: PersistentUrl | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if (self.url is None) == (self.alert is None):
            raise ValueError("a Resolution has either a URL or an alert")

    @property
    def found(self) -> bool:
        return self.url is not None

    @property
    def acknowledgment(self) -> AcknowledgmentMessage | None:
        """The acknowledgment (5) this resolution sent, with its Archive; ``None`` when it sent
        none, or when the resolution was rebuilt from its record."""
        if self.acknowledgment_url is None or self.acknowledged is None:
            return None
        return AcknowledgmentMessage(self.acknowledged, self.acknowledgment_url)

    def to_dict(self) -> dict[str, Any]:
        return {
            "persistent_url": self.persistent_url,
            "url": self.url,
            "alert": None if self.alert is None else self.alert.to_dict(),
            "archive": self.archive,
            "acknowledgment_url": self.acknowledgment_url,
            "hops": self.hops,
            "elapsed_ms": self.elapsed_ms,
            "trace": self.trace.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Resolution:
        alert = data.get("alert")
        return cls(
            persistent_url=data["persistent_url"],
            trace=Trace.from_dict(data["trace"]),
            url=data.get("url"),
            alert=None if alert is None else Alert.from_dict(alert),
            archive=data.get("archive"),
            acknowledgment_url=data.get("acknowledgment_url"),
            hops=data.get("hops", 0),
            elapsed_ms=data.get("elapsed_ms", 0.0),
        )
