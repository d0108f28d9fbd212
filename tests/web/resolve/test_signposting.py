"""FAIR Signposting (issue 37, point 6): an own item's page and the resolver's redirect to it carry
typed links in ``Link`` headers, the page's ``<link>`` elements and a linkset (RFC 9264), read
here by the Signposting project's own parser (``signposting``)."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from signposting import find_signposting_http_link
from signposting.htmllinks import HTML, _parse_html
from signposting.linkset import LinksetJSON, _parse_linkset_json

from ibiportal.web.signposting import landing_ibip

PDF = b"%PDF-1.4\n" + b"x" * 100
BASE = "http://localhost"


@pytest.fixture
def item(client, auth) -> dict:
    """A report with one file."""
    response = client.post("/api/v1/mint", json={"title": "Relatório", "item_type": "report"}, headers=auth)
    assert response.status_code == 201, response.get_json()
    minted = response.get_json()
    assert client.put(f"/api/v1/items/{minted['ibip']}/files/docs/relatório.pdf", data=PDF,
                      headers={**auth, "Content-Type": "application/pdf"}).status_code in (200, 201)
    return minted


def page_signposts(client, ibip: str):
    response = client.get(f"/archive/items/{ibip}")
    assert response.status_code == 200
    return response, find_signposting_http_link(response.headers.getlist("Link"), f"{BASE}/archive/items/{ibip}")


def answers(client, url: str) -> int:
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == BASE, url
    return client.get(parts.path + (f"?{parts.query}" if parts.query else "")).status_code


def test_the_item_page_signposts_every_relation_and_each_link_answers(client, item):
    ibip = item["ibip"]
    response, signposts = page_signposts(client, ibip)
    assert signposts.citeAs.target == f"{BASE}/{ibip}"
    described = {(str(s.target), s.type) for s in signposts.describedBy}
    assert (f"{BASE}/archive/items/{ibip}/oai_dc.xml", "application/xml") in described
    oai_dc = next(s for s in signposts.describedBy if s.target.endswith("/oai_dc.xml"))
    assert oai_dc.profiles == {"http://www.openarchives.org/OAI/2.0/oai_dc/"}
    assert {media for _, media in described} >= {"application/x-bibtex", "application/x-research-info-systems",
                                                 "application/vnd.citationstyles.csl+json"}
    assert {str(s.target) for s in signposts.types} == {"https://schema.org/Report", "https://schema.org/AboutPage"}
    [file] = signposts.items
    assert file.type == "application/pdf" and file.target.lower().endswith("/doc/docs/relat%c3%b3rio.pdf")
    assert signposts.license is None  # the items have no licence field
    [linkset] = signposts.linksets
    assert linkset.target == f"{BASE}/archive/items/{ibip}/linkset" and linkset.type == "application/linkset+json"
    for signpost in signposts:
        if signpost.rel == "type":
            continue  # schema.org's vocabulary terms, not this portal's
        expected = 302 if signpost.rel == "cite-as" else 200  # cite-as: the resolver's redirect to this page
        assert answers(client, signpost.target) == expected, signpost
    assert not signposts._extras, signposts._extras  # nothing the parser did not recognise


def test_the_page_head_has_the_same_links(client, item):
    ibip = item["ibip"]
    response, headers = page_signposts(client, ibip)
    url = f"{BASE}/archive/items/{ibip}"
    in_head = _parse_html(HTML(response.get_data(as_text=True), "text/html", url, url))
    assert set(in_head) == set(headers)


def test_the_linkset_lists_the_same_links(client, item):
    ibip = item["ibip"]
    _, headers = page_signposts(client, ibip)
    response = client.get(f"/archive/items/{ibip}/linkset")
    assert response.status_code == 200 and response.mimetype == "application/linkset+json"
    document = response.get_json(force=True)
    # RFC 9264 §4.2: a "linkset" array of link context objects, each relation an array of target objects with "href"
    assert list(document) == ["linkset"] and isinstance(document["linkset"], list)
    [context] = document["linkset"]
    assert context["anchor"] == f"{BASE}/archive/items/{ibip}"
    for rel, targets in context.items():
        if rel != "anchor":
            assert isinstance(targets, list) and all(isinstance(t, dict) and "href" in t for t in targets)
    url = f"{BASE}/archive/items/{ibip}/linkset"
    parsed = _parse_linkset_json(LinksetJSON(response.get_data(as_text=True), response.mimetype, url, url))
    assert set(parsed.for_context(context["anchor"])) == set(headers)


def test_a_deleted_items_page_has_no_file_links(client, auth, item):
    ibip = item["ibip"]
    assert client.delete(f"/api/v1/items/{ibip}", headers=auth).status_code == 200
    assert client.get(f"/{ibip}").status_code == 410
    _, signposts = page_signposts(client, ibip)
    assert not signposts.items
    assert signposts.citeAs.target == f"{BASE}/{ibip}" and signposts.linksets
    linkset = client.get(f"/archive/items/{ibip}/linkset").get_json(force=True)
    assert "item" not in linkset["linkset"][0]


def test_the_redirect_to_a_landing_page_signposts_it_and_keeps_its_trace_link(client, item):
    ibip = item["ibip"]
    for _ in range(2):  # a fresh resolution, then the cached redirect
        response = client.get(f"/{ibip}")
        assert response.status_code == 302 and response.headers["Location"] == f"{BASE}/archive/items/{ibip}"
        headers = response.headers.getlist("Link")
        assert any('rel="describedby"; type="application/json"' in h and "/trace" in h for h in headers), headers
        signposts = find_signposting_http_link(headers, f"{BASE}/{ibip}")
        assert signposts.citeAs.target == f"{BASE}/{ibip}"
        assert f"{BASE}/archive/items/{ibip}/oai_dc.xml" in {s.target for s in signposts.describedBy}
        assert {s.target for s in signposts.linksets} == {f"{BASE}/archive/items/{ibip}/linkset"}
    assert response.headers["X-IBI-Cache"] == "hit"


def test_a_redirect_elsewhere_has_only_its_trace_link(client, auth):
    minted = client.post("/api/v1/mint", json={"title": "Fora", "target_url": "https://example.org/a"},
                         headers=auth).get_json()
    response = client.get(f"/{minted['ibip']}")
    assert response.status_code == 302
    [link] = response.headers.getlist("Link")
    assert 'rel="describedby"' in link and "cite-as" not in link


@pytest.mark.parametrize("url, ibip", [
    ("http://localhost/archive/items/32G4GKPW/4GS8HHN", "32G4GKPW/4GS8HHN"),
    ("http://localhost/archive/items/32G4GKPW/4GS8HHN/files", None),
    ("http://localhost/archive/items/32G4GKPW/4GS8HHN/oai_dc.xml", None),
    ("http://localhost/archive/items/32G4GKPW/4GS8HHN?lang=en", None),
    ("http://elsewhere.example/archive/items/32G4GKPW/4GS8HHN", None),
    ("http://localhost/archive/items/", None),
])
def test_only_a_landing_page_of_this_portal_is_recognised(url, ibip):
    assert landing_ibip(url, "http://localhost") == ibip
