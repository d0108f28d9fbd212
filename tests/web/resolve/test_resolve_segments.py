"""``GET /ibi/<…>`` and ``GET /rep/<…>`` answer exactly as ``GET /<…>``: urlib.net's links as printed.

The two spellings are compared on an app without the resolution cache (it would otherwise answer
the second from the first; that they share its entries is tested apart), over the demo Archives: modifiers, a repository name, a file path,
queries passed on to the item, a deleted item and a malformed modifier.
"""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from ibiportal import create_app
from tests.servers import fresh_sqlite

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}

PATHS = [
    "/8JMKD3MGP8W/35MMLL8",  # §10.1
    "/8JMKD3MGP8W/35MMLL8!:(oai_dc)",  # §10.2: next edition, metadata
    "/sid.inpe.br/mtc-m18@80/2009/07.21.14.43",  # a repository name (§10.1's item)
    "/8JMKD3MGP7W/3EPGUE5/Relat%C3%B3rio%20Final.pdf",  # a file path (Example 8.9's item)
    "/8JMKD3MGP8W/35MMLL8?ibiurl.backgroundlanguage=pt-BR&choice=brief",  # URLib's pairs, passed on
    "/D7N2U8HW/3GBBQK2",  # deleted: 410
    "/8JMKD3MGP8W/35MMLL8::",  # malformed modifier: 400
]


@pytest.fixture(scope="module")
def uncached(tmp_path_factory):
    """One app without the resolution cache: every request, whichever its spelling, resolves."""
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path_factory.mktemp("segments") / "portal.sqlite"),
                      "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                      "RESOLUTION_CACHE_SECONDS": 0, "NEGATIVE_CACHE_SECONDS": 0})
    return app.test_client()


def answer(client, path: str, accept: str = "application/json"):
    response = client.get(path, environ_base=CLIENT, headers={"Accept": accept})
    trace = None
    if "X-IBI-Trace" in response.headers:
        trace = client.get(urlsplit(response.headers["X-IBI-Trace"]).path).get_json()
    return response, trace


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("segment", ["/ibi", "/rep"])
def test_segment_answers_as_the_bare_path(uncached, path, segment):
    plain, plain_trace = answer(uncached, path)
    spelt, spelt_trace = answer(uncached, segment + path)
    assert spelt.status_code == plain.status_code != 404
    assert spelt.headers.get("Location") == plain.headers.get("Location")
    assert spelt.headers.get("X-IBI-Cache") == plain.headers.get("X-IBI-Cache")
    if plain.status_code >= 400:
        assert spelt.get_json() is not None and plain.get_json() is not None
        assert spelt.get_json().get("alert", {}).get("reason") == plain.get_json().get("alert", {}).get("reason")
        assert spelt.get_json().get("error") == plain.get_json().get("error")
    if plain_trace is not None:
        assert spelt_trace is not None
        assert spelt_trace["persistent_url"] == plain_trace["persistent_url"] == "http://localhost" + path
        assert spelt_trace["url"] == plain_trace["url"]
        assert spelt.headers["Link"].endswith('rel="describedby"; type="application/json"')


def test_query_pairs_of_urlib_reach_the_item(uncached):
    response, _ = answer(uncached, "/ibi/8JMKD3MGP8W/35MMLL8?ibiurl.backgroundlanguage=pt-BR&choice=brief")
    assert response.status_code == 302
    assert response.headers["Location"].endswith("?ibiurl.backgroundlanguage=pt-BR&choice=brief")


def test_a_segment_alone_or_before_no_ibi_is_no_page(uncached):
    client = uncached
    for path in ("/ibi/", "/rep/nothing-here", "/ibi/about"):
        assert client.get(path, environ_base=CLIENT).status_code == 404


def test_the_segment_shares_the_cache_of_the_bare_path(client):
    """One resolution for both spellings: the second is a cache hit pointing to the first's trace."""
    first = client.get("/8JMKD3MGP8W/35MMLL8", environ_base=CLIENT)
    second = client.get("/rep/8JMKD3MGP8W/35MMLL8", environ_base=CLIENT)
    assert (first.headers["X-IBI-Cache"], second.headers["X-IBI-Cache"]) == ("miss", "hit")
    assert second.headers["X-IBI-Trace"] == first.headers["X-IBI-Trace"]
    assert second.headers["Location"] == first.headers["Location"]
