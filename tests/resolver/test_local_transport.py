"""The in-process transport hands the resolver the pair list an Archive wrote, and splits the
request URLs it is given as ``urlsplit`` does: what a resolution reads and records is the same as
if the answer had crossed a network."""
from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

import pytest

from ibiportal.protocol.messages import UrlRequest, request_url
from ibiportal.protocol.pairlist import read_answer
from ibiportal.resolver.local_transport import _parts
from ibiportal.resolver.transport import ARCHIVE_TIMEOUTS


@pytest.mark.parametrize("url", [
    "http://portal.example:8080/32G4GKPW/4GR3P92?servicesubject=urlRequest&parsedibiurl.ibi=a/b",
    "http://portal.example", "http://portal.example?x=1", "http://portal.example/", "http://u@host/b/c?d?e",
    "https://host/b?c", "http://host/b?c#d", "http://host/b c?x", "HTTP://host/b?c", "http://host/b?x=1/2",
    "http:///b?c", "http://host/b\t?c", " http://host/b", "http://[::1]:80/b?c",
])
def test_a_request_url_is_split_as_urlsplit_splits_it(url):
    parts = urlsplit(url)
    assert _parts(url) == (parts.netloc, parts.path, parts.query)


def test_an_answer_comes_with_the_pairs_its_text_was_written_from(demo_archives, demo_transport):
    for archive in demo_archives.values():
        for item in list(archive.service.store.items())[:3]:
            for ibi in item.ibi.forms():
                url = request_url(archive.service.identity.address, archive.service.identity.service_ibi.forms()[0],
                                  UrlRequest(("150.163.34.1",), ibi))
                if not demo_transport.answers_at_once(url):
                    continue
                exchange = demo_transport.fetch(url, ARCHIVE_TIMEOUTS)
                if exchange.body is None or exchange.failure is not None:
                    continue
                read = read_answer(exchange.body)
                behaviour = demo_transport.behaviours.get(archive.service.identity.address.lower())
                if behaviour is not None and behaviour.malformed is not None:
                    assert exchange.pairs is None
                else:
                    assert exchange.pairs == read  # what parsing the text sent gives, pair for pair
                    assert exchange.pairs.serialize("\r\n").encode("latin-1") == exchange.body


def test_a_resolution_reads_and_records_the_same_with_the_pairs_handed_over_or_the_text_read(
        demo_resolver, demo_transport, standard_client):
    from ibiportal.resolver.engine import Asked

    with_pairs = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8"), standard_client)
    fetch = demo_transport.fetch
    demo_transport.fetch = lambda url, timeouts: replace(fetch(url, timeouts), pairs=None)
    try:
        read_back = demo_resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8"), standard_client)
    finally:
        del demo_transport.fetch
    assert with_pairs.url == read_back.url

    def facts(resolution):  # each answer has a fresh urlkey; the rest is the same
        return [(step.number, step.kind, step.receiver, step.status, step.meaning, step.deciding_pair,
                 tuple(pair for pair in step.pairs or () if pair[0] != "urlkey"))
                for step in resolution.trace.steps]

    assert facts(with_pairs) == facts(read_back)
    assert any(step.pairs for step in with_pairs.trace.steps)
