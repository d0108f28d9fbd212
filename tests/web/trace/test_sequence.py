"""Figure 8.1 as a diagram: the standard's worked examples (§10.1, §10.2) and the demo scenarios,
numbered like the figure (1-10), with a lifeline per Archive and a round per hop."""
from __future__ import annotations

from collections import Counter


from ibiportal.resolver.engine import Asked
from ibiportal.resolver.trace import Alert, AlertReason, ParseProblem, Resolution, Status, StepKind, Trace, TraceStep
from ibiportal.web.trace.sequence import BROWSER, MESSAGE_NAMES, RESOLVER, USER, Tone, sequence_of
from tests.standard_examples import SECTION_10_1_URL, SECTION_10_2_URL

DEMO_ARCHIVES = {"mtc-m16c", "mtc-m16d", "origin", "mirror", "rival-a", "rival-b", "tombstone", "edition-a",
                 "edition-b", "edition-c", "slow", "garbled", "library"}


def numbered(sequence, number):
    return [message for message in sequence.messages if message.number == number]


def numbers_of(sequence):
    """The message numbers in the order the diagram draws them (events without a number left out)."""
    return [message.number for message in sequence.messages if message.number is not None]


def hop_messages(sequence, hop):
    return sequence.messages[hop.first:hop.last]


def test_figure_8_1_names_every_message_from_1_to_10():
    assert sorted(MESSAGE_NAMES) == list(range(1, 11))
    assert MESSAGE_NAMES[3] == "Request URL" and MESSAGE_NAMES[4] == "URL list" and MESSAGE_NAMES[5] == "Acknowledge"


def test_section_10_1_is_numbered_like_figure_8_1(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8"), standard_client)
    assert resolution.url == SECTION_10_1_URL
    sequence = sequence_of(resolution)
    numbers = numbers_of(sequence)
    # (1) user → browser, (2) browser → resolver, (3) to every Archive, (4) the answers, then 5-10.
    assert numbers[:3] == [1, 2, 3]
    assert numbers[-6:] == [5, 6, 7, 8, 9, 10]
    assert set(numbers[3:-6]) == {4}
    assert [line.key for line in sequence.lifelines[:3]] == [USER, BROWSER, RESOLVER]
    assert {line.key for line in sequence.lifelines[3:]} == DEMO_ARCHIVES
    assert {line.key: line.address for line in sequence.lifelines}["mtc-m16c"] == "mtc-m16c.sid.inpe.br"
    request = numbered(sequence, 3)[0]
    assert request.senders == (RESOLVER,) and set(request.receivers) == DEMO_ARCHIVES
    chosen = [m for m in numbered(sequence, 4) if m.tone is Tone.CHOSEN]
    assert [m.senders for m in chosen] == [("mtc-m16c",)]
    assert numbered(sequence, 5)[0].receivers == ("mtc-m16c",)
    assert numbered(sequence, 6)[0].senders == ("mtc-m16c",) and numbered(sequence, 6)[0].tone is Tone.CHOSEN
    assert numbered(sequence, 7)[0].summary == f"redirect to {SECTION_10_1_URL}"
    assert numbered(sequence, 8)[0].senders == (BROWSER,) and numbered(sequence, 8)[0].receivers == ("mtc-m16c",)
    assert numbered(sequence, 10)[0].receivers == (USER,)
    # only what the resolver saw is drawn solid: 1 and 8-10 are expected (dashed)
    assert all(m.tone is Tone.EXPECTED for n in (1, 8, 9, 10) for m in numbered(sequence, n))
    assert all(m.tone is not Tone.EXPECTED for n in range(2, 8) for m in numbered(sequence, n))


def test_section_10_2_has_two_rounds_of_the_loop(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"), standard_client)
    assert resolution.url == SECTION_10_2_URL
    sequence = sequence_of(resolution)
    assert [(hop.number, hop.ibi, hop.verbs) for hop in sequence.hops] == [
        (1, "8JMKD3MGP8W/35MMLL8", "GetLastEdition GetMetadata(oai_dc)"),
        (2, "sid.inpe.br/mtc-m18/2012/07.12.18.08", "GetLastEdition GetMetadata(oai_dc)"),
    ]
    steps = resolution.trace.steps
    for hop in sequence.hops:
        rows = hop_messages(sequence, hop)
        assert rows[0].number == 3 and rows[0].hop == hop.number
        assert {m.number for m in rows} <= {3, 4, None}
        assert steps[hop.chosen].receiver == "mtc-m16c" and steps[hop.chosen].hop == hop.number
        notes = [m for m in rows if m.is_note]
        assert notes and all(m.tone is Tone.CHOSEN for m in notes)
    assert "ibi.nextedition sid.inpe.br/mtc-m18/2012/07.12.18.08" in hop_messages(sequence, sequence.hops[0])[-1].summary
    assert numbers_of(sequence).count(3) == 2
    assert numbers_of(sequence)[-6:] == [5, 6, 7, 8, 9, 10]
    # 5 and 6 come after the loop, not inside its last round.
    assert sequence.hops[-1].last <= sequence.messages.index(numbered(sequence, 5)[0])


def test_edition_chain_asks_three_rounds_and_ends_at_the_last_edition(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/39G4TD2!"), standard_client)
    sequence = sequence_of(resolution)
    steps = resolution.trace.steps
    assert [steps[hop.chosen].receiver for hop in sequence.hops] == ["edition-a", "edition-b", "edition-c"]
    assert numbers_of(sequence).count(3) == 3
    assert numbered(sequence, 8)[0].receivers == ("edition-c",)


def test_an_ibi_no_archive_holds_ends_with_an_alert_and_no_acknowledgment(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/34PGRBS"), standard_client)
    assert resolution.alert.reason.value == "not-found"
    sequence = sequence_of(resolution)
    numbers = numbers_of(sequence)
    assert numbers[:3] == [1, 2, 3] and numbers[-2:] == [7, 10]
    assert not {5, 6, 8, 9} & set(numbers)
    assert numbered(sequence, 7)[0].tone is Tone.ALERT and "alert (Not found)" in numbered(sequence, 7)[0].summary
    empty = [m for m in numbered(sequence, 4) if m.tone is Tone.EMPTY]
    assert len(empty) == 1  # every empty answer of the round in one row
    empty_steps = [i for i, s in enumerate(resolution.trace.steps) if s.status is Status.EMPTY]
    assert sorted(empty[0].steps) == empty_steps
    assert set(empty[0].senders) == {resolution.trace.steps[i].receiver for i in empty_steps}
    garbled = next(m for m in sequence.messages if m.senders == ("garbled",))
    assert garbled.number == 4 and garbled.tone is Tone.FAILED and "malformed" in garbled.summary
    slow = next(m for m in sequence.messages if m.senders == ("slow",))
    assert slow.number is None and slow.tone is Tone.FAILED and "timeout" in slow.summary  # no 4 arrived
    assert sequence.hops[0].chosen is None


def test_conflicting_originals_are_two_answers_and_an_alerting_analysis(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/3MP9QLE?ibiurl.requireditemstatus=Original"),
                                       standard_client)
    assert resolution.alert.reason.value == "conflicting-originals"
    sequence = sequence_of(resolution)
    answers = {m.senders[0]: m for m in numbered(sequence, 4) if m.tone is Tone.ANSWER}
    assert set(answers) == {"rival-a", "rival-b"}
    note = next(m for m in sequence.messages if m.is_note)
    assert note.tone is Tone.ALERT and "conflicting-originals" in note.summary
    assert not {5, 6, 8, 9} & set(numbers_of(sequence))


def test_a_stored_url_that_did_not_parse_is_messages_1_2_7_10():
    """A stored trace whose capture (2) says the URL does not parse (the resolver takes only URLs
    its caller read, so such a trace comes from elsewhere: a JSON trace read back) is drawn as
    1, 2, 7 and 10."""
    url = "http://urlib.net/8JMKD3MGP8W/35MMLL8::"
    capture = TraceStep(2, StepKind.CAPTURE, "browser", "resolver", "", request_url=url,
                        parse_error=ParseProblem("`:` may not follow `:`", 38))
    outcome = TraceStep(7, StepKind.OUTCOME, "resolver", "browser", "", alert=AlertReason.BAD_REQUEST)
    resolution = Resolution(url, Trace((capture, outcome)), alert=Alert(AlertReason.BAD_REQUEST, "not a persistent URL"))
    sequence = sequence_of(resolution)
    assert numbers_of(sequence) == [1, 2, 7, 10]
    assert numbered(sequence, 2)[0].tone is Tone.FAILED and "does not parse" in numbered(sequence, 2)[0].summary
    assert [line.key for line in sequence.lifelines] == [USER, BROWSER, RESOLVER]
    assert sequence.hops == ()


def test_not_waited_for_archives_are_one_event_without_a_number(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8"), standard_client)
    sequence = sequence_of(resolution)
    skipped = [m for m in sequence.messages if m.tone is Tone.SKIPPED]
    assert len(skipped) == 1 and skipped[0].number is None
    assert "slow" in skipped[0].senders  # its answer takes longer than the first usable one
    assert len(skipped[0].senders) == sum(1 for s in resolution.trace.steps if s.status is Status.NOT_WAITED_FOR)


def test_the_stored_json_gives_the_same_diagram(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"), standard_client)
    assert sequence_of(Resolution.from_dict(resolution.to_dict())) == sequence_of(resolution)


def test_archive_columns_keep_one_order_whatever_the_arrival(demo_resolver, standard_client):
    first = sequence_of(demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8"), standard_client))
    second = sequence_of(demo_resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/39G4TD2!"), standard_client))
    names = [line.key for line in first.lifelines[3:]]
    assert names == sorted(names, key=str.casefold) == [line.key for line in second.lifelines[3:]]


def test_every_recorded_step_is_drawn(demo_resolver, standard_client):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/39G4TD2!"), standard_client)
    drawn = Counter(i for message in sequence_of(resolution).messages for i in message.steps)
    for index, step in enumerate(resolution.trace.steps):
        # A urlRequest step is drawn twice: in its round's broadcast (3), and as what came back.
        assert drawn[index] == (2 if step.kind is StepKind.URL_REQUEST else 1), step
