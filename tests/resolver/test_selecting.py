"""Selecting one answer of a round (4), as pure rules over replies read in arrival order."""
from __future__ import annotations

from ibiportal.protocol.pairlist import PairList
from ibiportal.resolver.asking import Reply
from ibiportal.resolver.reading import read_reply
from ibiportal.resolver.selecting import Choice, select, stops_waiting
from ibiportal.resolver.trace import Alert, AlertReason, Selection
from ibiportal.resolver.transport import ArchiveEndpoint, Exchange, Failure

IBI = "8JMKD3MGP8W/35MMLL8"


def arrival(name: str, body: str | None, *, failure: Failure | None = None, order: int = 1):
    """One Archive's reply with ``body`` as its answer, read as the engine reads it."""
    exchange = Exchange(status=None if failure else 200, body=None if body is None else body.encode("latin-1"),
                        failure=failure, error="refused" if failure else None)
    reply = Reply(ArchiveEndpoint(f"{name}.example:80", "SERVICE/IBI", name), f"http://{name}.example/", exchange,
                  12.5, float(order))
    _, reading = read_reply(reply, order, (), 1, None)
    return reply, reading


def answer(*pairs: tuple[str, str]) -> str:
    return PairList.from_pairs(pairs).serialize()


def test_the_first_usable_answer_wins_over_an_earlier_one_without_the_url():
    arrivals = [arrival("a", answer(("ibi", IBI)), order=1),
                arrival("b", answer(("ibi", IBI), ("url", "http://b.example/item")), order=2)]
    choice = select(arrivals, False, [])
    assert isinstance(choice, Choice)
    assert (choice.selection, choice.reply.endpoint.name, choice.reading.url) == (
        Selection.FIRST_USABLE, "b", "http://b.example/item")
    assert not stops_waiting(arrivals[0][1], False) and stops_waiting(arrivals[1][1], False)
    assert not stops_waiting(arrivals[1][1], True)  # with the original required, every Archive is waited for


def test_only_the_archive_claiming_the_original_is_chosen():
    arrivals = [arrival("copy", answer(("ibi", IBI), ("url", "http://copy.example/"), ("state", "Copy")), order=1),
                arrival("origin", answer(("ibi", IBI), ("url", "http://origin.example/"), ("state", "Original")), order=2)]
    choice = select(arrivals, True, [])
    assert isinstance(choice, Choice)
    assert (choice.selection, choice.reply.endpoint.name) == (Selection.ONLY_ORIGINAL, "origin")


def test_two_claims_of_the_original_and_copies_only_are_alerts_naming_the_archives():
    claim = answer(("ibi", IBI), ("url", "http://x.example/"), ("state", "Original"))
    conflict = select([arrival("a", claim), arrival("b", claim, order=2)], True, [])
    assert isinstance(conflict, Alert) and conflict.reason is AlertReason.CONFLICTING_ORIGINALS
    assert "a, b all claim the original" in conflict.message
    copies = select([arrival("a", answer(("ibi", IBI), ("url", "http://a.example/"), ("state", "Copy")))], True, [])
    assert isinstance(copies, Alert) and copies.reason is AlertReason.NO_ORIGINAL and "(a hold copies)" in copies.message


def test_nothing_to_choose_says_what_each_archive_did():
    empty = select([arrival("a", ""), arrival("b", None, failure=Failure.REFUSED, order=2)],
                   False, [ArchiveEndpoint("c.example:80", "SERVICE/IBI", "c")])
    assert isinstance(empty, Alert) and empty.reason is AlertReason.NOT_FOUND
    assert empty.message.startswith("not found: the Archive that answered does not hold this IBI")
    assert "b failed (" in empty.message and "c gave no answer before the deadline" in empty.message
    silent = select([], False, [ArchiveEndpoint("c.example:80", "SERVICE/IBI", "c")])
    assert isinstance(silent, Alert) and silent.reason is AlertReason.NO_ARCHIVE_ANSWERED
