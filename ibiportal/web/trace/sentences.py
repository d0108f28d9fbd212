"""The Trace page's sentences, written from the facts a trace records for each step.

The page says what happened for support staff, in its own words and in the reader's language
(``gettext`` at request time; English outside a request): it never shows or reads the engine's
``decision`` sentences (those are for logs and the JSON), so the engine may reword them freely.
Each function takes a :class:`~ibiportal.resolver.trace.TraceStep`. What the trace quotes from
an Archive or a transport (a parse error, an error text) is slotted in as it was recorded,
translated when it was recorded as a message (:func:`ibiportal.web.i18n.translate`).
"""
from __future__ import annotations

from babel.numbers import get_decimal_symbol
from flask import has_request_context
from flask_babel import get_locale

from ...protocol.status import ACKNOWLEDGMENT_NOTICE
from ...resolver.trace import AcknowledgmentOutcome, AlertReason, AnswerMeaning, Selection, Status, TraceStep
from ..i18n import gettext, translate
from .alerts import alert_words


def decimal(value: float) -> str:
    """``0.6`` or ``0,6``: a time as recorded (no rounding, no grouping), with the reader's decimal sign."""
    text = f"{value:g}"
    locale = get_locale() if has_request_context() else None
    return text if locale is None else text.replace(".", get_decimal_symbol(locale))


def milliseconds(value: float | None) -> str:
    """``0.6 ms``, ``2000 ms`` (``0,6 ms`` in Portuguese); empty for an unknown time."""
    return "" if value is None else gettext("%(value)s ms", value=decimal(value))


def capture_sentence(step: TraceStep) -> str:
    """Message (2): the persistent URL received and what was captured from it (Table 8.6)."""
    problem = step.parse_error
    if problem is not None:
        if problem.position is None:
            return gettext("Received %(url)s, which is not a persistent URL: %(problem)s.",
                           url=step.request_url, problem=translate(problem.message))
        return gettext("Received %(url)s, which is not a persistent URL: %(problem)s (at character %(position)s).",
                       url=step.request_url, problem=translate(problem.message), position=problem.position)
    none = gettext("(none)")
    captured = ", ".join(f"{name} {value or none}" for name, value in step.pairs or ())
    return gettext("Received %(url)s; captured for Table 8.6: %(captured)s.", url=step.request_url, captured=captured)


def answer_words(step: TraceStep) -> str:
    """What one Archive's exchange (3)/(4) came to, as the end of a sentence naming the Archive."""
    status = step.status
    if status is Status.ANSWERED:
        if step.meaning is AnswerMeaning.URL:
            return gettext("the answer has %(pair)s, the URL asked for", pair=step.deciding_pair)
        if step.meaning is AnswerMeaning.DELETED:
            return gettext("the answer says the item was deleted (state Deleted)")
        if step.meaning is AnswerMeaning.ONWARD:
            return gettext("the answer has no url%(relation)s, but %(pair)s %(ibi)s leads toward it",
                           relation=step.relation, pair=step.deciding_pair, ibi=step.onward_ibi)
        return gettext("the answer has no url%(relation)s and nothing leading toward it", relation=step.relation)
    if status is Status.EMPTY:
        return gettext("an empty answer: the IBI is not held there")
    if status is Status.SET_ASIDE:
        return gettext("set aside: %(why)s", why=translate(step.error))
    if status is Status.MALFORMED:
        problem = step.parse_error
        what = translate(problem.message) if problem else gettext("unreadable")
        if problem is None or problem.position is None:
            return gettext("the answer is not a pair list (Table 6.2): %(problem)s", problem=what)
        return gettext("the answer is not a pair list (Table 6.2) at character %(position)s: %(problem)s",
                       position=problem.position, problem=what)
    if status is Status.HTTP_ERROR:
        return gettext("HTTP status %(status)s instead of an answer", status=step.http_status)
    if status is Status.NOT_SENT:
        return gettext("the request could not be sent: %(error)s", error=translate(step.error))
    if status is Status.NOT_WAITED_FOR:
        return gettext("not waited for: a usable answer had arrived")
    if status is Status.TIMEOUT and step.arrival is None:
        return gettext("no answer before the resolution's deadline")
    return gettext("no answer (%(status)s): %(error)s", status=status, error=translate(step.error))


def selection_sentence(step: TraceStep) -> str:
    """Step (4): which answer the resolver chose and why, or that it could choose none."""
    if step.selection is Selection.FIRST_USABLE:
        return gettext("Chose the answer of %(archive)s, the first usable one to arrive (%(time)s).",
                       archive=step.chosen, time=milliseconds(step.elapsed_ms))
    if step.selection is Selection.ONLY_ORIGINAL:
        return gettext("Chose the answer of %(archive)s: the only one claiming the original.", archive=step.chosen)
    if step.selection is Selection.OWN_ORIGINAL:
        return gettext("Chose the answer of %(archive)s: this portal's own Archive holds the original.",
                       archive=step.chosen)
    if step.selection is Selection.FOLLOW:
        return gettext("The answer of %(archive)s leads on through %(pair)s %(ibi)s: every Archive is asked about "
                       "it in round %(round)s.", archive=step.chosen, pair=step.deciding_pair, ibi=step.onward_ibi,
                       round=step.hop + 1)
    if step.selection is Selection.JOINED:
        if step.joined_trace:
            return gettext("Joined the resolution of the same request already under way (%(trace)s); no Archive "
                           "was asked again.", trace=step.joined_trace)
        return gettext("Joined the resolution of the same request already under way; no Archive was asked again.")
    alert = alert_words(AlertReason(step.alert)) if step.alert in set(AlertReason) else step.alert
    return gettext("No answer could be chosen: the resolution ends with the alert %(alert)s.", alert=alert)


def acknowledgment_sentence(step: TraceStep) -> str:
    """Message (5)."""
    if step.acknowledgment is AcknowledgmentOutcome.NOT_SENT:
        return gettext("The acknowledgment could not be sent: %(error)s.", error=translate(step.error))
    return gettext("Sent the acknowledgment (Table 8.11) to %(archive)s, the Archive that gave the URL.",
                   archive=step.receiver)


def notice_sentence(step: TraceStep) -> str:
    """Message (6): the Archive's notice, or what came instead."""
    if step.acknowledgment is AcknowledgmentOutcome.NOTICE:
        return gettext("%(archive)s answered %(notice)s.", archive=step.sender,
                       notice=ACKNOWLEDGMENT_NOTICE.serialize(" "))
    if step.acknowledgment is AcknowledgmentOutcome.NO_ANSWER:
        return gettext("%(archive)s sent no notice (%(status)s: %(error)s); the URL is returned anyway.",
                       archive=step.sender, status=step.status, error=translate(step.error))
    if step.acknowledgment is AcknowledgmentOutcome.PENDING:
        return gettext("Acknowledgment pending: the URL was returned without waiting for the notice of %(archive)s.",
                       archive=step.sender)
    return gettext("%(archive)s answered something other than the notice; the URL is returned anyway.",
                   archive=step.sender)
