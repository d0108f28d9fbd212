"""The engine's sentences: each step's ``decision``, rendered from the step's structured facts.

The engine records what happened as fields of :class:`~ibiportal.resolver.trace.TraceStep`
(the Archive chosen, the pair that decided, the relation sought, the acknowledgment's outcome,
the alert, every Archive's status in a round) and asks this module for the sentence a person
reads in logs and in the trace's JSON. Nothing reads these sentences back: the Trace page and
its diagram say things in their own words from the same facts, so rewording a sentence here
changes no page (``tests/web/trace/test_trace_rewording.py`` rewords them all to show it).
"""
from __future__ import annotations

from ibiportal.protocol.status import ACKNOWLEDGMENT_NOTICE
from ibiportal.resolver.trace import (
    AcknowledgmentOutcome,
    Alert,
    AnswerMeaning,
    Selection,
    Status,
    StepKind,
    TraceStep,
)

#: How the selection sentence names the other Archives of a round, by their status.
_OTHERS = {
    Status.ANSWERED: "answered",
    Status.EMPTY: "answered empty",
    Status.MALFORMED: "answered a malformed pair list",
    Status.HTTP_ERROR: "answered an HTTP error",
    Status.TIMEOUT: "timed out",
    Status.REFUSED: "refused the connection",
    Status.TRANSPORT_ERROR: "failed (transport error)",
    Status.NOT_WAITED_FOR: "not waited for",
    Status.NOT_SENT: "not sent",
    Status.SET_ASIDE: "answered, set aside",
}


def decision(step: TraceStep, *, alert: Alert | None = None, url: str | None = None) -> str:
    """The sentence for ``step``; ``alert`` is the alert a (4) or (7) ended with, ``url`` the URL (7) returns."""
    if step.kind is StepKind.CAPTURE:
        return _capture(step)
    if step.kind is StepKind.URL_REQUEST:
        return _answer(step)
    if step.kind is StepKind.SELECTION:
        return _selection(step, alert)
    if step.kind is StepKind.ACKNOWLEDGMENT:
        if step.acknowledgment is AcknowledgmentOutcome.NOT_SENT:
            return f"acknowledgment not sent: {step.error}"
        return "acknowledgment (Table 8.11) to the Archive that gave the URL"
    if step.kind is StepKind.NOTICE:
        return _notice(step)
    return f"redirect to {url}" if alert is None else f"alert ({alert.reason}): {alert.message}"


def _capture(step: TraceStep) -> str:
    return "captured (Table 8.6): " + ", ".join(f"{name} {{{value}}}" for name, value in step.pairs or ())


def _answer(step: TraceStep) -> str:
    status = step.status
    if status is Status.NOT_SENT:
        return "not sent: invalid endpoint"
    if status is Status.NOT_WAITED_FOR:
        return "not waited for: a usable answer had arrived"
    if status is Status.TIMEOUT and step.arrival is None:
        return "no answer before the resolution deadline"
    if status in (Status.TIMEOUT, Status.REFUSED, Status.TRANSPORT_ERROR):
        return f"no answer ({status}): {step.error}"
    if status is Status.HTTP_ERROR:
        return f"HTTP status {step.http_status}: answer not used"
    if status is Status.MALFORMED:
        problem = step.parse_error
        where = "" if problem is None or problem.position is None else f" (at character {problem.position})"
        return f"malformed answer, not a pair list (Table 6.2): {problem.message if problem else ''}{where}"
    if status is Status.EMPTY:
        return "empty answer: this Archive does not hold the IBI"
    if status is Status.SET_ASIDE:
        return f"answer set aside ({step.set_aside}): {step.error}"
    if step.meaning is AnswerMeaning.DELETED:
        return "answer says the item is Deleted"
    if step.meaning is AnswerMeaning.URL:
        return f"answer has {step.deciding_pair}"
    if step.meaning is AnswerMeaning.ONWARD:
        return f"answer has no url{step.relation} but leads on: {step.deciding_pair} {step.onward_ibi}"
    return f"answer has no url{step.relation} and nothing leading toward it"


def _selection(step: TraceStep, alert: Alert | None) -> str:
    if step.selection is Selection.JOINED:
        whose = f" ({step.joined_trace})" if step.joined_trace else ""  # a reference check's may keep no trace
        return (f"joined the resolution of the same request already under way{whose}: "
                "its outcome is shared, no Archive asked again")
    if step.selection is Selection.FOLLOW:
        return f"{step.deciding_pair} {step.onward_ibi}: asking all Archives again (hop {step.hop + 1})"
    if step.selection is Selection.ALERT:
        return alert.message if alert is not None else f"alert ({step.alert})"
    others = "; ".join(f"{name} {_OTHERS[status]}" for name, status in step.outcomes if name != step.chosen)
    how = {Selection.ONLY_ORIGINAL: "the only answer claiming the original",
           Selection.OWN_ORIGINAL: "this portal's own Archive holds the original"}.get(step.selection,
                                                                                    "first non-empty answer")
    return f"{how}, from {step.chosen} after {step.elapsed_ms:g} ms" + (f"; {others}" if others else "")


def _notice(step: TraceStep) -> str:
    if step.acknowledgment is AcknowledgmentOutcome.NOTICE:
        return ACKNOWLEDGMENT_NOTICE.serialize(" ")
    if step.acknowledgment is AcknowledgmentOutcome.NO_ANSWER:
        return f"no notice ({step.status}): {step.error}; the URL is returned anyway"
    if step.acknowledgment is AcknowledgmentOutcome.PENDING:
        return "acknowledgment pending: the URL is returned without waiting for the notice"
    return "unexpected answer to the acknowledgment; the URL is returned anyway"
