"""Engine bounds: hop limit and cycle detection, each ending with an alert that says why."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from ibiportal.resolver.engine import ClientInfo, Resolver, ResolverSettings
from ibiportal.resolver.trace import AlertReason
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
    resolution = resolver.resolve("http://urlib.net/D7N2U8HW/39G4TD2!", CLIENT)
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
    assert resolver.resolve("http://urlib.net/D7N2U8HW/39G4TD2", CLIENT).alert.reason is AlertReason.NO_ARCHIVES
    resolver.close()
    resolver = Resolver([ENDPOINT], {})
    resolution = resolver.resolve("http://urlib.net/D7N2U8HW/39G4TD2", CLIENT)
    resolver.close()
    assert resolution.alert.reason is AlertReason.NO_ARCHIVE_ANSWERED
    assert "no transport named 'fake'" in resolution.alert.message
