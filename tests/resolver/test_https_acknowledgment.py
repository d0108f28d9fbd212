"""Table 8.11's ``http`` read as http or https: an item and a portal on https are acknowledged."""
from __future__ import annotations

from ibiportal.archive.demo import load_demo_archives
from ibiportal.protocol.messages import Acknowledgment, parse_request
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver, ResolverSettings
from ibiportal.resolver.trace import Status
from ibiportal.resolver.local_transport import LocalTransport

SURVEY = "D7N2U8HW/3J5AC3H"  # original at origin, copy at mirror
CLIENT = ClientInfo(("203.0.113.7",), "en")


def test_an_https_item_found_through_an_https_portal_is_acknowledged():
    transport = LocalTransport(load_demo_archives(portal_url="https://portal.example").values())
    resolver = Resolver(
        [endpoint for endpoint in transport.endpoints(connect_timeout=0.3, read_timeout=0.3) if endpoint.name in ("origin", "mirror")],
        {"local": transport},
        settings=ResolverSettings(deadline=3.0, resolver_base="https://portal.example/"),
    )
    try:
        resolution = resolver.resolve(Asked.parse(f"https://portal.example/{SURVEY}"), CLIENT)
    finally:
        resolver.close()
    assert resolution.found and resolution.url.startswith("https://portal.example/")
    (acknowledgment,) = resolution.trace.numbered(5)
    assert acknowledgment.status is not Status.NOT_SENT
    assert "url.persistent=https://portal.example:443/" + SURVEY in acknowledgment.request_url
    (notice,) = resolution.trace.numbered(6)
    assert notice.decision == "notice {acknowledgment received}"
    assert resolution.acknowledgment_url == acknowledgment.request_url


def test_the_message_accepts_https_and_still_refuses_other_schemes():
    message = Acknowledgment(
        client_ips=("203.0.113.7",), content_type="Data", url="https://example.org/a.pdf",
        url_persistent="https://portal.example:443/8JMKD3MGP8W/35MMLL8", urlkey="1424636122-5331490054869684",
    )
    assert parse_request(message.to_query()) == message
    for bad in ("ftp://example.org/a", "https://", "example.org/a"):
        try:
            Acknowledgment(client_ips=("203.0.113.7",), content_type="Data", url=bad,
                           url_persistent="https://portal.example:443/x/y", urlkey="1424636122-5331490054869684")
        except ValueError as error:
            assert "is not an http:// or https:// URL" in str(error)
        else:
            raise AssertionError(f"{bad!r} was accepted")
