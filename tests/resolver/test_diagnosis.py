"""Why not found: the IBI's prefix decoded, the registered Archives at that address, the failures,
and the next step for each case — from a real engine's resolution, never from its sentences."""
from __future__ import annotations

import json

import pytest

from ibiportal.i18n import Message
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS
from ibiportal.resolver.diagnosis import Case, NextStep, NotFoundDiagnosis, IssuingSubsystem, Page, diagnose, subsystem_of
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver
from ibiportal.protocol.registry import ArchiveEvent, KeyHash, RegisteredArchive
from ibiportal.resolver.transport import ArchiveEndpoint, Exchange, Failure, Timeouts

CLIENT = ClientInfo(("172.16.44.200",), None)
UNKNOWN = "http://urlib.net/8JMKD3MGP8W/34PGRBS"  # minted at 150.163.34.243, port 800
KEY = KeyHash(b"salt", b"digest")


class Answers:
    """A transport whose Archives answer by address: ``"empty"`` or ``"timeout"``."""

    def __init__(self, behaviour: dict[str, str]):
        self.behaviour = behaviour

    def fetch(self, url: str, timeouts: Timeouts) -> Exchange:
        address = url.split("/")[2]
        if self.behaviour[address] == "timeout":
            return Exchange(failure=Failure.TIMEOUT, error=f"no answer within {timeouts.read:g} s")
        return Exchange(200, "text/plain", b"")


def resolve(behaviour: dict[str, str], url: str = UNKNOWN):
    endpoints = [ArchiveEndpoint(address, "J8LNKB5R7W/3FUQHC5", address, "http", 0.1, 0.1) for address in behaviour]
    return Resolver(endpoints, {"http": Answers(behaviour)}).resolve(Asked.parse(url), CLIENT)


def archive(address: str, ip: str, included: bool) -> RegisteredArchive:
    return RegisteredArchive(f"SERVICE/{address.split('.')[0].upper()}", KEY, "2026-11-01T10:00:00Z",
                             "2026-11-20T09:30:00Z", included, address, ip, "1.0", "admin@example.org", None)


def test_the_ibip_prefix_is_decoded_and_completed_by_known_pairs():
    subsystem = subsystem_of(parse_ibi("8JMKD3MGP8W/34PGRBS"), KNOWN_PREFIX_PAIRS)
    assert subsystem.ips == ("150.163.34.243",) and subsystem.port == 800
    assert "mtc-m18.sid.inpe.br" in subsystem.hosts
    assert subsystem.decoded.startswith("the IBIp prefix 8JMKD3MGP8W encodes IP 150.163.34.243, port 800")


def test_a_repository_name_prefix_is_decoded_to_host_and_port():
    subsystem = subsystem_of(parse_ibi("sid.inpe.br/mtc-m18@80/2009/02.16.17.46"), KNOWN_PREFIX_PAIRS)
    assert subsystem.hosts == ("mtc-m18.sid.inpe.br",) and subsystem.port == 80
    assert subsystem.ips == ("150.163.34.243",)
    assert subsystem.holds("150.163.34.243:8080") and subsystem.holds("MTC-M18.sid.inpe.br")
    assert not subsystem.holds("mtc-m16c.sid.inpe.br")


def test_a_found_resolution_has_no_diagnosis():
    class Holds:
        def fetch(self, url, timeouts):
            return Exchange(200, "text/plain", b"url http://example.org/item state Original")

    endpoint = ArchiveEndpoint("a.example.org", "J8LNKB5R7W/3FUQHC5", "a", "http")
    resolution = Resolver([endpoint], {"http": Holds()}).resolve(Asked.parse(UNKNOWN), CLIENT)
    assert resolution.found and diagnose(resolution, []) is None


def test_no_archive_registered_at_the_address():
    resolution = resolve({"other.example.org": "empty"})
    diagnosis = diagnose(resolution, [archive("other.example.org", "203.0.113.9", True)], KNOWN_PREFIX_PAIRS)
    assert diagnosis.case is Case.NONE_REGISTERED
    assert diagnosis.at_address == ()
    assert diagnosis.next_steps[0].text.startswith(
        "No Archive at 150.163.34.243 (mtc-m18.sid.inpe.br) is registered with this resolver: "
        "the item's Archive administrator should register it")
    assert diagnosis.next_steps[0].pages == (Page.ARCHIVE_HEALTH,)
    assert diagnosis.next_steps[1].pages == (Page.PARSE, Page.CONVERT)


def test_the_archive_at_the_address_is_excluded_and_its_history_says_when_and_by_whom():
    registry = [archive("other.example.org", "203.0.113.9", True), archive("mtc-m18.sid.inpe.br", "150.163.34.243", False)]
    exclusions = {"SERVICE/MTC-M18": ArchiveEvent("2026-11-24T07:10:05.987505Z", "excluded",
                                                  "excluded by the administrator maria")}
    diagnosis = diagnose(resolve({"other.example.org": "empty"}), registry, KNOWN_PREFIX_PAIRS, exclusions)
    assert diagnosis.case is Case.EXCLUDED
    (here,) = diagnosis.at_address
    assert (here.name, here.state) == ("SERVICE/MTC-M18", "excluded")
    assert here.detail == "registered, but excluded on 2026-11-24 07:10 UTC (excluded by the administrator maria)"
    (step,) = diagnosis.next_steps
    assert step.text.startswith(
        "The Archive SERVICE/MTC-M18 at mtc-m18.sid.inpe.br was excluded on 2026-11-24 07:10 UTC "
        "(its history says: excluded by the administrator maria), so the resolver no longer asks it.")
    assert "should register it" not in step.text and "inclusionRequest" in step.text
    assert step.values["date"] == "2026-11-24 07:10 UTC" and step.pages == (Page.ARCHIVE_HEALTH,)


def test_an_excluded_archive_without_its_exclusion_in_the_history_is_still_excluded_not_unregistered():
    # The history keeps the last 200 events: a long-excluded Archive's exclusion may have gone.
    registry = [archive("mtc-m18.sid.inpe.br", "150.163.34.243", False)]
    diagnosis = diagnose(resolve({"other.example.org": "empty"}), registry, KNOWN_PREFIX_PAIRS)
    assert diagnosis.case is Case.EXCLUDED
    assert diagnosis.at_address[0].detail == "registered, but excluded on 2026-11-20 09:30 UTC"
    assert diagnosis.next_steps[0].text.startswith(
        "The Archive SERVICE/MTC-M18 at mtc-m18.sid.inpe.br is registered but excluded: the resolver no longer asks it.")


def test_the_archive_at_the_address_timed_out_matched_by_its_registered_ip():
    # Registered under a name that is not the prefix's host: its archiveip (Table 7.2) matches.
    registry = [archive("urlib.example.org:8080", "150.163.34.243", True), archive("b.example.org", "203.0.113.9", True)]
    diagnosis = diagnose(resolve({"urlib.example.org:8080": "timeout", "b.example.org": "empty"}), registry)
    assert diagnosis.case is Case.INCLUDED_FAILED
    (here,) = diagnosis.at_address
    assert here.state == "failed" and here.detail.startswith("did not answer in time (no answer within 0.1 s)")
    assert diagnosis.failed == (here,)
    assert diagnosis.next_steps[0].text.startswith("The Archive SERVICE/URLIB at urlib.example.org:8080 is included but "
                                              "did not answer in time")
    assert "check that its server is up" in diagnosis.next_steps[0].text
    assert diagnosis.next_steps[0].pages == (Page.ARCHIVE_HEALTH, Page.TRACE)


def test_the_archive_at_the_address_answered_empty_and_another_failed():
    registry = [archive("150.163.34.243", "150.163.34.243", True), archive("b.example.org", "203.0.113.9", True)]
    diagnosis = diagnose(resolve({"150.163.34.243": "empty", "b.example.org": "timeout"}), registry)
    assert diagnosis.case is Case.INCLUDED_EMPTY
    assert "answered that it holds no item 8JMKD3MGP8W/34PGRBS" in diagnosis.next_steps[0].text
    assert diagnosis.next_steps[1].text.startswith("Other Archives failed to answer: SERVICE/B (did not answer in time")


def test_to_dict_and_back():
    diagnosis = diagnose(resolve({"b.example.org": "timeout"}), [archive("mtc-m18.sid.inpe.br", "150.163.34.243", False)],
                         KNOWN_PREFIX_PAIRS)
    data = diagnosis.to_dict()
    assert data["case"] == "excluded" and data["subsystem"]["ips"] == ["150.163.34.243"]
    assert NotFoundDiagnosis.from_dict(data) == diagnosis
    assert data["next_steps"] == [step.text for step in diagnosis.next_steps]


def test_a_trace_stored_before_next_steps_had_pages_keeps_its_sentences():
    data = diagnose(resolve({"b.example.org": "timeout"}), [], KNOWN_PREFIX_PAIRS).to_dict()
    del data["next_step_details"]
    old = NotFoundDiagnosis.from_dict(data)
    assert old.next_steps == tuple(NextStep(text, translatable=False) for text in data["next_steps"])
    assert [step.text for step in old.next_steps] == data["next_steps"] and old.next_steps[0].pages == ()
    assert not isinstance(old.next_steps[0].sentence, Message)  # its English is all there is to show


def test_a_stored_diagnosis_keeps_its_messages_for_the_reader_s_language():
    """Each Archive's detail and each next step come back from the stored JSON as the messages they
    were, values that are messages themselves included, so a page can show them translated."""
    diagnosis = diagnose(resolve({"a.example.org": "timeout", "b.example.org": "timeout"}), [], KNOWN_PREFIX_PAIRS)
    stored = NotFoundDiagnosis.from_dict(json.loads(json.dumps(diagnosis.to_dict())))
    failed = stored.failed[0]
    assert isinstance(failed.detail, Message) and failed.detail == diagnosis.failed[0].detail
    assert failed.detail.template == "%(failure)s, after %(ms)s ms"
    assert failed.detail.values["failure"].template == "%(failure)s (%(error)s)"
    others = stored.next_steps[0]  # nobody registered at the address: the Archives that failed come first
    assert others.message.startswith("First, the Archives that failed to answer: %(listed)s.")
    assert all(isinstance(item, Message) for item in others.values["listed"])
    assert others.text == diagnosis.next_steps[0].text


@pytest.mark.parametrize("address, expected", [("[2001:db8::1]:80", True), ("2001:db8::1", True), ("x.org", False)])
def test_ipv6_addresses_are_matched_by_host(address, expected):
    subsystem = IssuingSubsystem("P", "ibip", (), ("2001:db8::1",), 800)
    assert subsystem.holds(address) is expected
