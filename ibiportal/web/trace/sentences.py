"""The Trace page's sentences, written from the facts a trace records for each step.

The page says what happened for support staff, in its own words: it never shows or reads the
engine's ``decision`` sentences (those are for logs and the JSON), so the engine may reword
them freely. Each function takes a :class:`~ibiportal.resolver.trace.TraceStep`.
"""
from __future__ import annotations

from ...protocol.status import ACKNOWLEDGMENT_NOTICE
from ...resolver.trace import AcknowledgmentOutcome, AnswerMeaning, Selection, Status, TraceStep


def milliseconds(value: float | None) -> str:
    """``0.6 ms``, ``2000 ms``; empty for an unknown time."""
    return "" if value is None else f"{value:g} ms"


def capture_sentence(step: TraceStep) -> str:
    """Message (2): the persistent URL received and what was captured from it (Table 8.6)."""
    problem = step.parse_error
    if problem is not None:
        where = "" if problem.position is None else f" (at character {problem.position})"
        return f"Received {step.request_url}, which is not a persistent URL: {problem.message}{where}."
    captured = ", ".join(f"{name} {value or '(none)'}" for name, value in step.pairs or ())
    return f"Received {step.request_url}; captured for Table 8.6: {captured}."


def answer_words(step: TraceStep) -> str:
    """What one Archive's exchange (3)/(4) came to, as the end of a sentence naming the Archive."""
    status = step.status
    if status is Status.ANSWERED:
        if step.meaning is AnswerMeaning.URL:
            return f"the answer has {step.deciding_pair}, the URL asked for"
        if step.meaning is AnswerMeaning.DELETED:
            return "the answer says the item was deleted (state Deleted)"
        if step.meaning is AnswerMeaning.ONWARD:
            return f"the answer has no url{step.relation}, but {step.deciding_pair} {step.onward_ibi} leads toward it"
        return f"the answer has no url{step.relation} and nothing leading toward it"
    if status is Status.EMPTY:
        return "an empty answer: the IBI is not held there"
    if status is Status.MALFORMED:
        problem = step.parse_error
        where = "" if problem is None or problem.position is None else f" at character {problem.position}"
        return f"the answer is not a pair list (Table 6.2){where}: {problem.message if problem else 'unreadable'}"
    if status is Status.HTTP_ERROR:
        return f"HTTP status {step.http_status} instead of an answer"
    if status is Status.NOT_SENT:
        return f"the request could not be sent: {step.error}"
    if status is Status.NOT_WAITED_FOR:
        return "not waited for: a usable answer had arrived"
    if status is Status.TIMEOUT and step.arrival is None:
        return "no answer before the resolution's deadline"
    return f"no answer ({status}): {step.error}"


def selection_sentence(step: TraceStep) -> str:
    """Step (4): which answer the resolver chose and why, or that it could choose none."""
    if step.selection is Selection.FIRST_USABLE:
        return f"Chose the answer of {step.chosen}, the first usable one to arrive ({milliseconds(step.elapsed_ms)})."
    if step.selection is Selection.ONLY_ORIGINAL:
        return f"Chose the answer of {step.chosen}: the only one claiming the original."
    if step.selection is Selection.FOLLOW:
        return (f"The answer of {step.chosen} leads on through {step.deciding_pair} {step.onward_ibi}: "
                f"every Archive is asked about it in round {step.hop + 1}.")
    if step.selection is Selection.JOINED:
        shared = step.joined_trace or "another request's"
        return f"Joined the resolution of the same request already under way ({shared}); no Archive was asked again."
    return f"No answer could be chosen: the resolution ends with the alert {step.alert}."


def acknowledgment_sentence(step: TraceStep) -> str:
    """Message (5)."""
    if step.acknowledgment is AcknowledgmentOutcome.NOT_SENT:
        return f"The acknowledgment could not be sent: {step.error}."
    return f"Sent the acknowledgment (Table 8.11) to {step.receiver}, the Archive that gave the URL."


def notice_sentence(step: TraceStep) -> str:
    """Message (6): the Archive's notice, or what came instead."""
    if step.acknowledgment is AcknowledgmentOutcome.NOTICE:
        return f"{step.sender} answered {ACKNOWLEDGMENT_NOTICE.serialize(' ')}."
    if step.acknowledgment is AcknowledgmentOutcome.NO_ANSWER:
        return f"{step.sender} sent no notice ({step.status}: {step.error}); the URL is returned anyway."
    if step.acknowledgment is AcknowledgmentOutcome.PENDING:
        return f"Acknowledgment pending: the URL was returned without waiting for the notice of {step.sender}."
    return f"{step.sender} answered something other than the notice; the URL is returned anyway."
