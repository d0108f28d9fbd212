"""An Archive's answer is checked against the IBI asked before it is used (security issue 39,
finding 5): an ``ibi`` pair naming another item, in either form, or a pair name given twice with
two values, sets the answer aside; where the portal's own Archive holds the item as Original,
another Archive's claim of the original is set aside and the own answer wins. Pure rules first,
then the resolver over HTTP with the Archives mocked by ``responses``."""
from __future__ import annotations

import json
import socket
import time

import pytest
import responses

from ibiportal.i18n import to_record
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS
from ibiportal.protocol.pairlist import parse_pair_list
from ibiportal.resolver import wording
from ibiportal.resolver.asking import Reply
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver, ResolverSettings
from ibiportal.resolver.http_transport import HttpTransport
from ibiportal.resolver.reading import proven_prefix_pairs, read_reply, set_aside
from ibiportal.resolver.selecting import Choice, competing_claims, select
from ibiportal.resolver.trace import AlertReason, Resolution, Selection, SetAside, Status
from ibiportal.resolver.transport import ArchiveEndpoint, Exchange

REP = "sid.inpe.br/mtc-m18@80/2009/07.21.14.43"  # §10.1: both forms of one item
IBIP = "8JMKD3MGP8W/35MMLL8"
FORGED = "ibi {rep sid.inpe.br/mtc-m18/2009/02.16.17.46 ibip 8JMKD3MGP8W/34PGRBS} state Original url http://evil.example/forged"
CLIENT = ClientInfo(("172.16.44.200",))


def known():
    return KNOWN_PREFIX_PAIRS


def verdict(body: str, asked: str):
    return set_aside(parse_pair_list(body), asked, known)


# -- which answers are set aside ------------------------------------------------------------


def test_the_forged_answer_on_one_line_is_set_aside_for_either_form_asked():
    for asked in (IBIP, REP, IBIP.lower(), REP.upper()):
        found = verdict(FORGED, asked)
        assert found.reason is SetAside.OTHER_ITEM and found.answered_ibi == "sid.inpe.br/mtc-m18/2009/02.16.17.46"
        assert f"another item than {asked}, the IBI asked" in found.message


@pytest.mark.parametrize("ibi", [
    f"{{rep {REP} ibip {IBIP}}}",  # as §10.1 answers
    f"{{rep {REP.upper()} ibip {IBIP.lower()}}}",  # case does not matter
    "{rep sid.inpe.br/mtc-m18/2009/07.21.14.43}",  # the same prefix without the legacy @80
    f"{{ibip {IBIP}}}", f"{{rep {REP}}}", IBIP,  # one form only; a bare IBI
    "{rep not-an-ibi}",  # names nothing that can be told apart: not checked
])
def test_answers_naming_the_item_asked_are_used(ibi):
    for asked in (IBIP, REP):
        assert verdict(f"ibi {ibi} url http://mtc-m16c.sid.inpe.br/x state Original", asked) is None


@pytest.mark.parametrize(("ibi", "named"), [
    ("{ibip 8JMKD3MGP8W/34PGRBS}", "8JMKD3MGP8W/34PGRBS"),  # another date
    (f"{{rep {REP} ibip 8JMKD3MGP8W/34PGRBS}}", "8JMKD3MGP8W/34PGRBS"),  # one form right, the other another item
    ("{rep sid.inpe.br/mtc-m19/2009/07.21.14.43}", "sid.inpe.br/mtc-m19/2009/07.21.14.43"),  # another server
    ("{ibip 8JMKD3MGP7W/35MMLL8}", "8JMKD3MGP7W/35MMLL8"),
])
def test_answers_naming_another_item_are_set_aside(ibi, named):
    found = verdict(f"ibi {ibi} url http://evil.example/", IBIP)
    assert (found.reason, found.answered_ibi) == (SetAside.OTHER_ITEM, named)


def test_the_other_form_alone_is_told_by_the_known_prefix_pairs():
    # asked as IBIp, answered as a repository name of the same date: the table decides
    same_date_other_server = "{rep sid.inpe.br/mtc-m19/2009/07.21.14.43}"
    assert verdict(f"ibi {same_date_other_server}", IBIP).reason is SetAside.OTHER_ITEM
    unknown_server = "{rep example.org/repository/2009/07.21.14.43}"
    assert verdict(f"ibi {unknown_server}", IBIP).reason is SetAside.OTHER_ITEM  # the table names IBIP's server
    assert verdict(f"ibi {unknown_server}", "733NF83AW/35MMLL8") is None  # no pair knows either: nobody can tell
    read = []
    set_aside(parse_pair_list(f"ibi {{rep {REP} ibip {IBIP}}}"), IBIP, lambda: read.append(1) or KNOWN_PREFIX_PAIRS)
    assert read == []  # a form naming the item asked in its own form: no table read


def test_a_name_given_twice_with_two_values_sets_the_answer_aside():
    body = f"ibi {{ibip {IBIP}}} url http://mtc-m16c.sid.inpe.br/item url http://evil.example/"
    found = verdict(body, IBIP)
    assert found.reason is SetAside.REPEATED_NAME and found.answered_ibi is None
    assert found.message.values == {"name": "url", "position": body.index("http://evil") + 1}
    twice = verdict(f"ibi {{ibip {IBIP}}} ibi {{ibip 8JMKD3MGP8W/34PGRBS}} url http://evil.example/", IBIP)
    assert twice.reason is SetAside.REPEATED_NAME  # a second ibi cannot smuggle another item past the check
    assert verdict(f"ibi {{ibip {IBIP}}}\nstate Copy\nstate Copy\nurl http://x.example/", IBIP) is None  # same value


def reply(name: str, body: str, *, own: bool = False, order: int = 1) -> Reply:
    endpoint = ArchiveEndpoint(f"{name}.example:80", "SERVICE/IBI", name, own=own)
    return Reply(endpoint, f"http://{name}.example/", Exchange(200, "text/plain", body.encode("latin-1")), 3.0,
                 float(order))


def test_a_set_aside_step_keeps_its_pairs_and_says_why_in_the_json():
    step, reading = read_reply(reply("evil", FORGED), 1, (), 1, None, prefix_pairs=known, ibi=IBIP)
    assert reading is None and step.status is Status.SET_ASIDE and step.meaning is None
    assert dict(step.pairs)["url"] == "http://evil.example/forged"
    assert "set aside" in wording.decision(step) and "another item" in wording.decision(step)
    data = json.loads(json.dumps(step.to_dict()))
    assert (data["status"], data["set_aside"], data["answered_ibi"]) == (
        "set-aside", "other-item", "sid.inpe.br/mtc-m18/2009/02.16.17.46")
    assert data["error_i18n"] == to_record(step.error)  # shown later in its reader's language
    again = type(step).from_dict(data)
    assert again == step and again.set_aside is SetAside.OTHER_ITEM
    assert proven_prefix_pairs([step]) == ()  # a forged answer teaches no prefix pair


# -- the own Archive's original --------------------------------------------------------------


ORIGINAL = f"ibi {{rep {REP} ibip {IBIP}}} state Original url "


def arrivals(*replies: Reply):
    return [(each, read_reply(each, index, (), 1, None, ibi=IBIP)[1]) for index, each in enumerate(replies, 1)]


def test_the_own_original_wins_over_an_earlier_claim_of_the_original():
    round_ = arrivals(reply("outside", ORIGINAL + "http://outside.example/"),
                      reply("portal", ORIGINAL + "http://portal.example/own", own=True, order=2))
    assert [each.endpoint.name for each in competing_claims(round_)] == ["outside"]
    for original_required in (False, True):  # not the "two Archives claim the original" alert either
        choice = select([(r, None if r.endpoint.name == "outside" else reading) for r, reading in round_],
                        original_required, [])
        assert isinstance(choice, Choice)
        assert (choice.selection, choice.reading.url) == (Selection.OWN_ORIGINAL, "http://portal.example/own")


def test_no_claim_is_set_aside_unless_the_own_archive_holds_the_original():
    copy_at_home = arrivals(reply("outside", ORIGINAL + "http://outside.example/"),
                            reply("portal", ORIGINAL.replace("Original", "Copy") + "http://p.example/", own=True))
    not_at_home = arrivals(reply("outside", ORIGINAL + "http://outside.example/"), reply("portal", "", own=True))
    assert competing_claims(copy_at_home) == [] and competing_claims(not_at_home) == []
    assert select(not_at_home, False, []).reading.url == "http://outside.example/"


# -- the resolver, with Archives mocked by responses ------------------------------------------


def public_dns(host, port, *args, **kwargs):
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("150.163.34.243", port))]


OWN = ArchiveEndpoint("portal.example", "LK47B6W/3CHHJU5", "portal", own=True)
OUTSIDE = ArchiveEndpoint("outside.example", "sid.inpe.br/mtc-m18@80/2008/03.17.15.17", "outside")
OWN_URL = "https://portal.example/own/item.pdf"


def mock(endpoint: ArchiveEndpoint, body: str, delay: float = 0.0) -> None:
    def answer(request):
        if "servicesubject=acknowledgment" in request.url:
            return 200, {}, "notice {acknowledgment received}\r\n"
        time.sleep(delay)
        return 200, {}, body

    responses.add_callback(responses.GET, f"http://{endpoint.address}/{endpoint.service_ibi}", callback=answer,
                           content_type="text/plain")


def resolve(endpoints, url: str = f"http://urlib.net/{IBIP}") -> Resolution:
    transport = HttpTransport(getaddrinfo=public_dns)
    resolver = Resolver(endpoints, {"http": transport}, settings=ResolverSettings(deadline=5.0),
                        prefix_pairs=known)
    try:
        return resolver.resolve(Asked.parse(url), CLIENT)
    finally:
        # Joined, not left running: a message not waited for would end in the next test, and
        # the mocks of ``responses`` would count it there (tests/resolver/test_http_transport.py).
        resolver.executor.shutdown(wait=True)
        transport.close()


def steps_by_archive(resolution: Resolution) -> dict:
    return {step.receiver: step for step in resolution.trace.numbered(3)}


@responses.activate
def test_a_forged_answer_alone_redirects_nobody():
    mock(OUTSIDE, FORGED + "\r\n")
    resolution = resolve([OUTSIDE])
    assert resolution.url is None and resolution.alert.reason is AlertReason.NO_ARCHIVE_ANSWERED
    assert "outside answered after" in resolution.alert.message and "set aside" in resolution.alert.message
    step = steps_by_archive(resolution)["outside"]
    assert (step.status, step.set_aside) == (Status.SET_ASIDE, SetAside.OTHER_ITEM)


@responses.activate
def test_the_forged_answer_does_not_win_over_the_own_archive_even_arriving_first():
    mock(OWN, ORIGINAL + OWN_URL + "\r\n", delay=0.3)  # the own Archive answers last
    mock(OUTSIDE, FORGED + "\r\n")
    resolution = resolve([OWN, OUTSIDE])
    assert (resolution.url, resolution.archive) == (OWN_URL, "portal")
    steps = steps_by_archive(resolution)
    assert steps["outside"].arrival == 1 and steps["outside"].set_aside is SetAside.OTHER_ITEM


@responses.activate
def test_a_competing_claim_of_the_own_original_is_set_aside_and_shown():
    mock(OWN, ORIGINAL + OWN_URL + "\r\n", delay=0.3)
    mock(OUTSIDE, ORIGINAL + "http://evil.example/forged\r\n")  # names the item asked, claims the original
    resolution = resolve([OWN, OUTSIDE], f"http://urlib.net/{IBIP}?ibiurl.requireditemstatus=Original")
    assert (resolution.url, resolution.archive) == (OWN_URL, "portal")
    outside = steps_by_archive(resolution)["outside"]
    assert (outside.status, outside.set_aside, outside.meaning) == (Status.SET_ASIDE, SetAside.COMPETING_ORIGINAL, None)
    assert "this portal's own Archive holds" in outside.error and "set aside" in outside.decision
    (selection,) = resolution.trace.numbered(4)
    assert selection.selection is Selection.OWN_ORIGINAL and ("outside", Status.SET_ASIDE) in selection.outcomes
    assert "own Archive holds the original" in selection.decision
