"""Selecting one answer of a round (4) by the rules of §8.2 and the decisions of the engine's
module docstring: the first usable answer to arrive; with ``ibiurl.requireditemstatus=Original``
(Table 8.3) the one answer claiming the original, an alert when two or more claim it or none
does; a non-empty answer as a fallback; otherwise an alert saying what each Archive did.

Where the portal's own Archive answers that it holds the item as the original (``state
Original``), no other Archive's claim of the original can be true: those answers are set aside
(:func:`competing_claims`), and the own Archive's answer is chosen when it is usable
(docs/standard-decisions.md). The engine waits for the own Archive's answer, which comes from this
process, before it stops waiting at a usable one.

Pure functions of the replies and their readings: the engine records the choice in the trace.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ibiportal.i18n import N_, NP_, Message, decimal
from ibiportal.protocol.pairlist import PairList, UnreadableAnswer, read_answer
from ibiportal.resolver.asking import Reply
from ibiportal.resolver.reading import Reading
from ibiportal.resolver.trace import Alert, AlertReason, Selection
from ibiportal.resolver.transport import FAILURE_WORDS, ArchiveEndpoint

#: A reply in the order it arrived, with its reading when its answer was a non-empty pair list.
Arrival = tuple[Reply, Reading | None]


@dataclass(frozen=True)
class Choice:
    """The answer selected, and by which rule."""

    selection: Selection
    reply: Reply
    reading: Reading


def own_original(arrivals: Sequence[Arrival]) -> tuple[Reply, Reading] | None:
    """The portal's own Archive's answer, when it holds the item asked about as the original."""
    return next(((reply, reading) for reply, reading in arrivals
                 if reply.endpoint.own and reading is not None and reading.holds_original), None)


def competing_claims(arrivals: Sequence[Arrival]) -> list[Reply]:
    """The other Archives' answers that claim the original the own Archive holds (none when it
    holds none): set aside, never chosen."""
    if own_original(arrivals) is None:
        return []
    return [reply for reply, reading in arrivals
            if not reply.endpoint.own and reading is not None and reading.holds_original]


def stops_waiting(reading: Reading | None, original: bool) -> bool:
    """Whether this answer ends the round at once: a usable one, unless the original is required
    (then every Archive is waited for, to see how many claim it)."""
    return not original and reading is not None and reading.useful


def select(arrivals: Sequence[Arrival], original: bool, unanswered: Sequence[ArchiveEndpoint]) -> Choice | Alert:
    """Step (4): the answer the round resolves with, or the alert that ends the resolution.
    ``arrivals`` are read without the answers set aside (:func:`competing_claims`)."""
    answered = [(reply, reading) for reply, reading in arrivals if reading is not None]
    own = own_original(answered)
    if own is not None and own[1].useful:
        return Choice(Selection.OWN_ORIGINAL, *own)
    if original:
        with_url = [(reply, reading) for reply, reading in answered if reading.url is not None]
        claims = [(reply, reading) for reply, reading in with_url if reading.original]
        if len(claims) >= 2:
            names = ", ".join(reply.endpoint.name for reply, _ in claims)
            return Alert(AlertReason.CONFLICTING_ORIGINALS, N_(
                "two or more Archives under suspicion, investigation needed: %(names)s all claim the original",
                names=names))
        if len(claims) == 1:
            return Choice(Selection.ONLY_ORIGINAL, *claims[0])
        onward = [(reply, reading) for reply, reading in answered if reading.onward is not None]
        if onward:
            return Choice(Selection.FIRST_USABLE, *onward[0])
        if with_url:
            names = ", ".join(reply.endpoint.name for reply, _ in with_url)
            return Alert(AlertReason.NO_ORIGINAL, N_(
                "the original was required but no Archive claims it (%(names)s hold copies)", names=names))
    useful = [item for item in answered if item[1].useful]
    selected = useful[0] if useful else (answered[0] if answered else None)
    if selected is None:
        reason = AlertReason.NOT_FOUND if any(is_empty(reply) for reply, _ in arrivals) else AlertReason.NO_ARCHIVE_ANSWERED
        return Alert(reason, nobody(arrivals, unanswered))
    return Choice(Selection.FIRST_USABLE, *selected)


def is_empty(reply: Reply) -> bool:
    """An empty answer: the Archive does not hold the IBI (§8.2)."""
    exchange = reply.exchange
    return exchange.failure is None and exchange.status == 200 and not (exchange.body or b"").strip()


def summary(reply: Reply) -> Message:
    """How one Archive's exchange went, for the alert that names it when no answer could be chosen."""
    exchange = reply.exchange
    name = reply.endpoint.name
    if exchange.failure is not None:
        return N_("%(archive)s failed (%(failure)s: %(error)s)", archive=name, failure=FAILURE_WORDS[exchange.failure],
                  error=exchange.error)
    if exchange.status != 200:
        return N_("%(archive)s answered HTTP %(status)s", archive=name, status=exchange.status)
    answer = read_answer(exchange.body or b"")
    if not isinstance(answer, PairList):
        return N_("%(archive)s answered a malformed pair list (%(problem)s)", archive=name, problem=_unreadable(answer))
    if is_empty(reply):
        return N_("%(archive)s answered empty", archive=name)
    # a non-empty pair list that left nothing to choose: the resolver set it aside (reading.set_aside)
    return N_("%(archive)s answered after %(ms)s ms, but its answer was set aside", archive=name,
              ms=decimal(reply.elapsed_ms))


def _unreadable(answer: UnreadableAnswer) -> str:
    """Why an answer is not a pair list, and where (as ``str(answer)`` says it)."""
    if answer.position is None:
        return answer.message
    return N_("%(message)s (at character %(position)s)", message=answer.message, position=answer.position)


def nobody(arrivals: Sequence[Arrival], unanswered: Sequence[ArchiveEndpoint]) -> Message:
    """Why no answer could be selected: how many Archives answered empty, and what failed."""
    empty = sum(1 for reply, _ in arrivals if is_empty(reply))
    failures = [summary(reply) for reply, _ in arrivals if not is_empty(reply)]
    failures += [N_("%(archive)s gave no answer before the deadline", archive=endpoint.name) for endpoint in unanswered]
    if empty and failures:
        return NP_("not found: the Archive that answered does not hold this IBI; %(failures)s",
                   "not found: the %(count)s Archives that answered do not hold this IBI; %(failures)s",
                   empty, failures=tuple(failures))
    if empty:
        return NP_("not found: the Archive that answered does not hold this IBI",
                   "not found: the %(count)s Archives that answered do not hold this IBI", empty)
    if failures:
        return N_("no Archive answered usably; %(failures)s", failures=tuple(failures))
    return N_("no Archive answered usably")
