"""Engine bounds: hop limit and cycle detection, each ending with an alert that says why."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from ibiportal.resolver.engine import Asked, ClientInfo, Resolver, ResolverSettings
from ibiportal.resolver.trace import AlertReason, Resolution
from ibiportal.resolver.transport import ArchiveEndpoint, Exchange, Timeouts

CLIENT = ClientInfo(("203.0.113.7",))
ENDPOINT = ArchiveEndpoint("archive.example", "D7N2U8HW/36N24U5", "chain", transport="fake")


class EditionChain:
    """A fake Transport: each IBI's next edition is ``editions[ibi]`` (no URL for the last edition)."""

    def __init__(self, editions):
        self.editions = editions
        self.asked = []

    def fetch(self, url: str, timeouts: Timeouts) -> Exchange:
        ibi = parse_qs(urlsplit(url).query)["parsedibiurl.ibi"][0]
        self.asked.append(ibi)
        body = f"archiveaddress archive.example\nibi {{ibip {ibi}}}\nibi.nextedition {{ibip {self.editions[ibi]}}}\n"
        return Exchange(200, "text/plain", body.encode("ascii"))


def resolve(editions, hop_limit=8):
    transport = EditionChain(editions)
    resolver = Resolver([ENDPOINT], {"fake": transport}, settings=ResolverSettings(hop_limit=hop_limit))
    resolution = resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/39G4TD2!"), CLIENT)
    resolver.close()
    return resolution, transport


def test_cycle_is_detected():
    resolution, transport = resolve({"D7N2U8HW/39G4TD2": "D7N2U8HW/3ETPTF5", "D7N2U8HW/3ETPTF5": "D7N2U8HW/39G4TD2"})
    assert resolution.alert.reason is AlertReason.CYCLE
    assert "cycle" in resolution.alert.message
    assert transport.asked == ["D7N2U8HW/39G4TD2", "D7N2U8HW/3ETPTF5"]


def test_hop_limit():
    chain = [f"D7N2U8HW/3ETPTF{digit}" for digit in "23456789"] + ["D7N2U8HW/3ETPTFA"]
    editions = {"D7N2U8HW/39G4TD2": chain[0], **dict(zip(chain, chain[1:]))}
    resolution, transport = resolve(editions, hop_limit=3)
    assert resolution.alert.reason is AlertReason.HOP_LIMIT
    assert "hop limit 3" in resolution.alert.message
    assert len(transport.asked) == 3 and resolution.hops == 3


def test_no_archives_and_no_transport():
    resolver = Resolver([], {})
    assert resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/39G4TD2"), CLIENT).alert.reason is AlertReason.NO_ARCHIVES
    resolver.close()
    resolver = Resolver([ENDPOINT], {})
    resolution = resolver.resolve(Asked.parse("http://urlib.net/D7N2U8HW/39G4TD2"), CLIENT)
    resolver.close()
    assert resolution.alert.reason is AlertReason.NO_ARCHIVE_ANSWERED
    assert "no transport named 'fake'" in resolution.alert.message


def test_every_url_request_names_what_it_asks_as_facts_the_json_keeps():
    resolution, transport = resolve({"D7N2U8HW/39G4TD2": "D7N2U8HW/3ETPTF5", "D7N2U8HW/3ETPTF5": "D7N2U8HW/39G4TD2"})
    body = Resolution.from_dict(json.loads(json.dumps(resolution.to_dict())))
    captured = body.trace.numbered(2)[0]
    assert (captured.ibi, captured.verbs, captured.client_ips) == ("D7N2U8HW/39G4TD2", ("GetLastEdition",), CLIENT.ip_addresses)
    asked = [(step.hop, step.ibi, step.verbs, step.client_ips, step.relation) for step in body.trace.numbered(3)]
    assert asked == [(1, "D7N2U8HW/39G4TD2", ("GetLastEdition",), CLIENT.ip_addresses, ".lastedition"),
                     (2, "D7N2U8HW/3ETPTF5", ("GetLastEdition",), CLIENT.ip_addresses, ".lastedition")]
    assert [ibi for _, ibi, *_ in asked] == transport.asked  # the facts are what went on the wire
    for step in body.trace.numbered(3):  # and what the request URL says, read the other way
        query = parse_qs(urlsplit(step.request_url).query)
        assert query["parsedibiurl.ibi"] == [step.ibi] and query["parsedibiurl.verblist"] == [" ".join(step.verbs)]
    followed = [step.onward_ibi for step in body.trace.numbered(4) if step.onward_ibi]
    assert followed == ["D7N2U8HW/3ETPTF5", "D7N2U8HW/39G4TD2"]  # the second one closes the cycle
    assert resolution.request.ibi == resolution.request.parse(resolution.persistent_url).ibi  # the parsed request kept
