"""Cite falls forward: an item whose own answer has no metadata but whose last edition has (file 003,
§10.2: ``8JMKD3MGP8W/35MMLL8`` → ``8JMKD3MGP8W/3C9EP6P``) gets the last edition offered."""
from __future__ import annotations

from ibiportal.ibi.conversion import convert

ITEM = "8JMKD3MGP8W/35MMLL8"
LAST_EDITION = convert("sid.inpe.br/mtc-m18/2012/07.12.18.08").ibip  # §10.2's last edition, in IBIp form


def test_api_error_body_suggests_the_last_edition(client):
    response = client.get("/api/v1/cite", query_string={"ibi": ITEM})
    assert response.status_code == 404
    body = response.get_json()
    assert "No oai_dc metadata for 8JMKD3MGP8W/35MMLL8" in body["error"]["message"]
    assert body["suggestion"] == {
        "ibi": LAST_EDITION,
        "persistent_url": f"http://localhost/{LAST_EDITION}",
        "reason": body["suggestion"]["reason"],
    }
    assert ITEM in body["suggestion"]["reason"] and "last edition" in body["suggestion"]["reason"]
    # The second resolution (!:(oai_dc)) found the last edition's record: its trace asked about it.
    assert LAST_EDITION == "8JMKD3MGP8W/3C9EP6P"


def test_no_suggestion_without_a_later_edition(client):
    for ibi in ("D7N2U8HW/3GBBQK2", "D7N2U8HW/3AAAAAA", f"{ITEM}!"):  # deleted; held by no one; already the last edition
        body = client.get("/api/v1/cite", query_string={"ibi": ibi}).get_json()
        assert "suggestion" not in body, ibi


def test_the_page_cites_the_last_edition_and_says_so(client):
    """A reader who follows Cite from an earlier edition (Convert offers it for any IBI) gets the
    last edition's citation, told which edition it is; its downloads are that edition's."""
    response = client.get("/cite", query_string={"ibi": ITEM})
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert f"{ITEM} has no oai_dc metadata of its own, but its last edition, {LAST_EDITION}, has" in html
    assert "Reference model for an open archival information system (OAIS)" in html
    assert f'href="/cite.bib?ibi={LAST_EDITION}"' in html
    assert client.get(f"/cite.bib?ibi={LAST_EDITION}").status_code == 200
    # A download names the IBI asked: the earlier edition's has no record, said so.
    download = client.get(f"/cite.bib?ibi={ITEM}")
    assert download.status_code == 404 and "has no url.metadata(oai_dc)" in download.get_data(as_text=True)


def test_the_page_without_a_later_edition_says_why_nothing_was_cited(client):
    response = client.get("/cite", query_string={"ibi": "D7N2U8HW/3AAAAAA"})
    assert response.status_code == 404
    assert "No oai_dc metadata for D7N2U8HW/3AAAAAA" in response.get_data(as_text=True)


def test_the_offer_cites_the_last_edition(client):
    """One click: the suggested IBI cites (the demo Archive mtc-m16c writes §10.2's record in process)."""
    suggestion = client.get("/api/v1/cite", query_string={"ibi": ITEM}).get_json()["suggestion"]
    body = client.get("/api/v1/cite", query_string={"ibi": suggestion["ibi"]}).get_json()
    assert body["ibi"] == LAST_EDITION
    assert body["metadata"]["title"] == "Reference model for an open archival information system (OAIS)"
    assert "Reference model for an open archival information system" in body["citations"]["formatted"]["apa"]


def test_content_negotiation_answers_404_with_a_link_to_the_last_edition(client):
    response = client.get(f"/{ITEM}", headers={"Accept": "application/x-bibtex"})
    assert response.status_code == 404
    assert response.headers["Link"] == f'<http://localhost/{LAST_EDITION}>; rel="latest-version"'
    text = response.get_data(as_text=True)
    assert f"No oai_dc metadata for {ITEM}" in text and f"http://localhost/{LAST_EDITION}" in text
    # The link cites: the same request on the last edition answers the citation.
    cited = client.get(f"/{LAST_EDITION}", headers={"Accept": "application/x-bibtex"})
    assert cited.status_code == 200 and cited.get_data(as_text=True).startswith("@")


def test_no_link_when_there_is_no_later_edition(client):
    response = client.get("/D7N2U8HW/3AAAAAA", headers={"Accept": "application/x-bibtex"})
    assert response.status_code == 404 and "Link" not in response.headers
