"""Each scenario demo Archive gives its expected outcome, and the trace says why."""
from __future__ import annotations

import time

from ibiportal.resolver.engine import Asked, ClientInfo
from ibiportal.resolver.trace import AlertReason, Status

SURVEY = "D7N2U8HW/3J5AC3H"  # original at origin, copy at mirror
CLIENT = ClientInfo(("203.0.113.7",), "pt-BR,fr;q=0.8,en;q=0.5,pt;q=0.3")


def outcome(resolution):
    return resolution.trace.numbered(7)[0].decision


def test_copy_elsewhere_first_arrival_wins(demo_resolver):
    resolution = demo_resolver.resolve(Asked.parse(f"http://urlib.net/{SURVEY}"), CLIENT)
    assert resolution.archive in ("origin", "mirror")
    assert "/demo/archives/" + resolution.archive + "/" in resolution.url


def test_original_required_waits_for_all_and_picks_the_original(demo_resolver):
    resolution = demo_resolver.resolve(Asked.parse(f"http://urlib.net/{SURVEY}?ibiurl.requireditemstatus=Original"), CLIENT)
    assert resolution.archive == "origin"
    statuses = {step.receiver: step.status for step in resolution.trace.numbered(3)}
    assert Status.NOT_WAITED_FOR not in statuses.values()
    assert statuses["slow"] is Status.TIMEOUT  # waited for up to its deadline
    assert "the only answer claiming the original, from origin" in resolution.trace.numbered(4)[0].decision


def test_two_originals_are_under_suspicion(demo_resolver):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/3MP9QLE?ibiurl.requireditemstatus=Original"), CLIENT)
    assert resolution.alert.reason is AlertReason.CONFLICTING_ORIGINALS
    assert "two or more Archives under suspicion, investigation needed" in resolution.alert.message
    assert "rival-a" in resolution.alert.message and "rival-b" in resolution.alert.message
    assert not resolution.trace.numbered(5), "no acknowledgment for an alert"


def test_deleted_gives_its_timestamp_and_no_acknowledgment(demo_resolver):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/3GBBQK2"), CLIENT)
    assert resolution.alert.reason is AlertReason.DELETED
    assert resolution.alert.timestamp and resolution.alert.timestamp in resolution.alert.message
    assert not resolution.trace.numbered(5)


def test_next_edition_chain_across_archives(demo_resolver):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/39G4TD2!"), CLIENT)
    assert resolution.archive == "edition-c" and resolution.hops == 3
    asked = [step.request_url for step in resolution.trace.numbered(3) if step.receiver == "edition-a"]
    assert "parsedibiurl.ibi=D7N2U8HW/39G4TD2&" in asked[0]
    assert "parsedibiurl.ibi=ibiportal.test/lab/2013/09.30.17.02&" in asked[1]
    assert "parsedibiurl.ibi=ibiportal.test/lab/2018/01.22.11.47&" in asked[2]
    assert all("parsedibiurl.verblist=GetLastEdition&" in url for url in asked), "the verb list is kept"
    (ack,) = resolution.trace.numbered(5)
    assert ack.receiver == "edition-c"


def test_translation_chosen_by_accept_language(demo_resolver):
    resolution = demo_resolver.resolve(Asked.parse(f"http://urlib.net/{SURVEY}+"), CLIENT)
    assert resolution.found
    notes = [note for step in resolution.trace.numbered(3) for note in step.notes]
    assert any("translation (pt) chosen by Accept-Language" in note for note in notes)
    # From the mirror, which holds no Portuguese translation, the resolver follows ibi.translation(pt).
    assert resolution.archive == "origin"
    english = demo_resolver.resolve(Asked.parse(f"http://urlib.net/{SURVEY}+"), ClientInfo(("203.0.113.7",), "en"))
    assert english.url != resolution.url


def test_translation_that_does_not_exist(demo_resolver):
    resolution = demo_resolver.resolve(Asked.parse(f"http://urlib.net/{SURVEY}+(fr)"), CLIENT)
    assert resolution.alert.reason is AlertReason.TRANSLATION_MISSING
    assert "translation does not exist" in resolution.alert.message


def test_slow_archive_times_out_at_its_deadline(demo_resolver):
    start = time.monotonic()
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/3P82998"), CLIENT)
    assert time.monotonic() - start < 2.0  # the read timeout (0.3 s), not the 30 s delay
    assert resolution.alert.reason is AlertReason.NOT_FOUND
    assert "slow failed (timeout" in resolution.alert.message
    (slow,) = [step for step in resolution.trace.numbered(3) if step.receiver == "slow"]
    assert slow.status is Status.TIMEOUT


def test_malformed_answer_is_recorded_with_position(demo_resolver):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/3SNU8PS"), CLIENT)
    assert resolution.alert.reason is AlertReason.NOT_FOUND
    (garbled,) = [step for step in resolution.trace.numbered(3) if step.receiver == "garbled"]
    assert garbled.status is Status.MALFORMED and garbled.parse_error.position is not None
    assert "garbled answered a malformed pair list" in resolution.alert.message


def test_unknown_ibi_is_not_found(demo_resolver):
    resolution = demo_resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/3J5AC3J"), CLIENT)
    assert resolution.alert.reason is AlertReason.NOT_FOUND
    assert "do not hold this IBI" in resolution.alert.message


def test_every_composition_of_table_8_2_resolves_at_the_scenario_archives(demo_resolver):
    # The survey and its Portuguese translation have no next edition: ! is the item itself (§9.2).
    for modifier in ("!+(pt)", "+(pt)!", "!+(pt):", "+(pt)!:", "!+(pt):(oai_dc)", "+(pt)!:(oai_dc)", ":+", "!:+",
                     "+(pt):+", "!+(pt):+", "+(pt)!:+"):
        resolution = demo_resolver.resolve(Asked.parse(f"http://urlib.net/{SURVEY}{modifier}"), CLIENT)
        assert resolution.found, (modifier, resolution.alert)
    translation = demo_resolver.resolve(Asked.parse(f"http://urlib.net/{SURVEY}+(pt)"), CLIENT).url
    assert demo_resolver.resolve(Asked.parse(f"http://urlib.net/{SURVEY}!+(pt)"), CLIENT).url == translation
