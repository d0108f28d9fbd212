"""The portal as a resolver: GET /<persistent URL>, the trace API, the own and demo Archives."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

import pytest

import ibiportal.application.resolving as resolving_module
import ibiportal.ibi.url as url_module
import ibiportal.web.resolve.views as resolve_views
from ibiportal.protocol.pairlist import parse_pair_list
from tests.standard_examples import SECTION_10_1_URL, SECTION_10_2_URL

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


def trace_of(client, response) -> dict:
    link = response.headers["X-IBI-Trace"]
    assert response.headers["Link"] == f'<{link}>; rel="describedby"; type="application/json"'
    trace = client.get(urlsplit(link).path)
    assert trace.status_code == 200
    return trace.get_json()


def test_section_10_1_redirects_to_the_item(client):
    response = client.get("/8JMKD3MGP8W/35MMLL8", environ_base=CLIENT)
    assert response.status_code == 302
    assert response.headers["Location"] == SECTION_10_1_URL
    body = trace_of(client, response)
    assert body["url"] == SECTION_10_1_URL and body["archive"] == "mtc-m16c"
    numbers = [step["number"] for step in body["trace"]["steps"]]
    assert numbers[0] == 2 and numbers[-1] == 7 and 5 in numbers and 6 in numbers


def test_the_redirect_and_its_cached_repeat_are_the_same_answer(client):
    """A hit is made by the same function as the first answer: same status, Location, trace
    headers and body (a page linking the URL, for a client that does not follow redirects)."""
    first = client.get("/8JMKD3MGP8W/35MMLL8", environ_base=CLIENT)
    again = client.get("/8JMKD3MGP8W/35MMLL8", environ_base=CLIENT)
    assert (first.headers["X-IBI-Cache"], again.headers["X-IBI-Cache"]) == ("miss", "hit")
    for response in (first, again):
        assert response.status_code == 302 and response.mimetype == "text/html"
        assert response.headers["Location"] == SECTION_10_1_URL
        assert response.headers["Cache-Control"] == "no-store" and response.headers["Vary"] == "Accept"
        assert f'<a href="{SECTION_10_1_URL}">' in response.get_data(as_text=True)
    assert first.get_data() == again.get_data() and first.headers["X-IBI-Trace"] == again.headers["X-IBI-Trace"]


def test_the_redirect_page_escapes_the_url(app):
    """An Archive chooses the URL (Table 8.4's ``url``): the body's link holds it escaped."""
    with app.test_request_context("/x"):
        response = resolve_views.found_response('http://a.example/"><script>x()</script>', None, "http://t/1", "miss")
    body = response.get_data(as_text=True)
    assert "<script>" not in body and "&#34;&gt;&lt;script&gt;" in body
    assert response.headers["Location"] == 'http://a.example/"><script>x()</script>'


def test_section_10_2_follows_the_next_edition_to_its_metadata(client):
    response = client.get("/8JMKD3MGP8W/35MMLL8!:(oai_dc)", environ_base=CLIENT)
    assert response.status_code == 302
    assert response.headers["Location"] == SECTION_10_2_URL
    body = trace_of(client, response)
    assert body["hops"] == 2
    assert "url.persistent=http://localhost:80/8JMKD3MGP8W/35MMLL8!:(oai_dc)" in body["acknowledgment_url"]


def test_deleted_item_is_410_with_its_timestamp(client):
    response = client.get("/D7N2U8HW/3GBBQK2", environ_base=CLIENT, headers={"Accept": "application/json"})
    assert response.status_code == 410
    alert = response.get_json()["alert"]
    assert alert["reason"] == "deleted" and alert["timestamp"]


def test_two_claimed_originals_are_409(client):
    response = client.get(
        "/D7N2U8HW/3MP9QLE?ibiurl.requireditemstatus=Original", environ_base=CLIENT,
        headers={"Accept": "application/json"},
    )
    assert response.status_code == 409
    assert response.get_json()["alert"]["reason"] == "conflicting-originals"


def test_unknown_ibi_is_an_html_404_alert_with_a_trace_link(client):
    response = client.get("/8JMKD3MGP8W/34PGRBS", environ_base=CLIENT)
    assert response.status_code == 404
    html = response.get_data(as_text=True)
    assert "not-found" in html and response.headers["X-IBI-Trace"] in html


def test_alert_as_plain_text(client):
    response = client.get("/D7N2U8HW/3GBBQK2", environ_base=CLIENT, headers={"Accept": "text/plain"})
    assert response.status_code == 410
    assert response.mimetype == "text/plain" and response.get_data(as_text=True).startswith("deleted: ")


def test_a_bad_modifier_is_a_400_naming_the_character(client):
    response = client.get("/8JMKD3MGP8W/35MMLL8::", headers={"Accept": "application/json"})
    assert response.status_code == 400
    assert response.get_json()["error"]["position"] == len("http://localhost/8JMKD3MGP8W/35MMLL8:") + 1


@pytest.mark.parametrize("path", ["/favicon.ico", "/no/such/page", "/api/v1/nothing"])
def test_paths_that_are_no_ibi_are_404(client, path):
    assert client.get(path).status_code == 404


def test_minted_item_resolves_to_its_target_url(client):
    minted = client.post("/api/v1/mint", json={"title": "Own", "target_url": "https://example.org/own"}).get_json()
    response = client.get("/" + minted["ibip"], environ_base=CLIENT)
    assert response.status_code == 302
    assert response.headers["Location"] == "https://example.org/own"
    assert trace_of(client, response)["archive"] == "portal"


def test_minted_item_metadata_resolves_to_real_oai_dc(client):
    minted = client.post("/api/v1/mint", json={"title": "Metadata <&> test"}).get_json()
    response = client.get("/" + minted["ibip"] + ":(oai_dc)", environ_base=CLIENT)
    assert response.status_code == 302
    xml = client.get(urlsplit(response.headers["Location"]).path)
    assert xml.mimetype == "application/xml"
    root = ET.fromstring(xml.data)
    titles = [e.text for e in root.iter("{http://purl.org/dc/elements/1.1/}title")]
    assert titles == ["Metadata <&> test"]


def test_next_edition_of_an_own_item_is_followed(client):
    first = client.post("/api/v1/mint", json={"title": "v1", "target_url": "https://example.org/v1"}).get_json()
    second = client.post(
        "/api/v1/mint", json={"title": "v2", "target_url": "https://example.org/v2", "previous_edition": first["rep"]}
    ).get_json()
    response = client.get("/" + first["ibip"] + "!", environ_base=CLIENT)
    assert response.headers["Location"] == "https://example.org/v2"
    assert trace_of(client, response)["hops"] == 2
    assert second["ibip"]


def test_bad_links_mint_nothing(client, app):
    response = client.post("/api/v1/mint", json={"previous_edition": "8JMKD3MGP8W/34PGRBS"})
    assert response.status_code == 400
    assert response.get_json()["error"]["field"] == "previous_edition"
    with app.app_context():
        from ibiportal.storage.identifiers import IdentifierStore
        from ibiportal.web.context import application

        assert IdentifierStore(application().storage()).minted_items() == []


def test_own_archive_service_answers_the_protocol(client, app, vectors):
    minted = client.post("/api/v1/mint", json={"target_url": "http://example.org/p"}).get_json()
    service = "/" + app.config["ARCHIVE_SERVICE_IBI"]
    answer = client.get(f"{service}?servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4&parsedibiurl.ibi={minted['ibip']}")
    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    pairs = parse_pair_list(answer.data)
    assert pairs.text("url") == "http://example.org/p" and pairs.get("state") == "Original"
    assert parse_pair_list(pairs.get("ibi")).get("ibip") == minted["ibip"]
    confirmation = client.get(f"{service}?servicesubject=inclusionConfirmationRequest")
    assert confirmation.get_data(as_text=True).strip() == vectors["status_messages"]["confirmation"]
    ack = client.get(
        f"{service}?servicesubject=acknowledgment&clientinformation.ipaddress=1.2.3.4&contenttype=Data"
        f"&state=Original&url=http://example.org/p&url.persistent=http://localhost:80/{minted['ibip']}"
        f"&urlkey={pairs.get('urlkey')}"
    )
    assert ack.get_data(as_text=True).strip() == vectors["status_messages"]["ack_notice"]


def test_demo_archive_pages_serve_oai_dc(client):
    response = client.get("/D7N2U8HW/3QDQH85:(oai_dc)", environ_base=CLIENT)
    assert response.status_code == 302
    xml = client.get(urlsplit(response.headers["Location"]).path)
    assert xml.status_code == 200
    assert ET.fromstring(xml.data).tag == "{http://www.openarchives.org/OAI/2.0/oai_dc/}dc"


def test_trace_api(client):
    response = client.post(
        "/api/v1/trace",
        json={"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8", "archives": "demo", "client_ip": "150.163.2.175",
              "accept_language": "pt-BR"},
    )
    assert response.status_code == 201
    body = response.get_json()
    assert body["url"] == SECTION_10_1_URL
    first_request = next(s for s in body["trace"]["steps"] if s["number"] == 3)
    assert "clientinformation.ipaddress=150.163.2.175" in first_request["request_url"]
    assert client.get(f"/api/v1/trace/{body['id']}").get_json()["url"] == SECTION_10_1_URL


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "url"),
        ({"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8", "archives": "some"}, "archives"),
        ({"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8", "client_ip": "me"}, "client_ip"),
    ],
)
def test_trace_api_bad_input(client, body, field):
    response = client.post("/api/v1/trace", json=body)
    assert response.status_code == 400
    assert response.get_json()["error"]["field"] == field


def test_trace_api_bad_url_names_the_character(client):
    response = client.post("/api/v1/trace", json={"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8!!"})
    assert response.status_code == 400
    assert response.get_json()["error"]["position"] == len("http://urlib.net/8JMKD3MGP8W/35MMLL8!") + 1


def test_unknown_trace_is_404(client):
    assert client.get("/api/v1/trace/nope").status_code == 404


@pytest.mark.settings(TRACE_RETENTION=2)
def test_traces_are_bounded(client):
    ids = [client.post("/api/v1/trace", json={"url": "/8JMKD3MGP8W/34PGRBS", "archives": "demo"}).get_json()["id"]
           for _ in range(3)]
    assert client.get(f"/api/v1/trace/{ids[0]}").status_code == 404
    assert client.get(f"/api/v1/trace/{ids[2]}").status_code == 200


def first_url_request(client, response) -> str:
    return next(s for s in trace_of(client, response)["trace"]["steps"] if s["number"] == 3)["request_url"]


@pytest.mark.parametrize("addresses", [
    pytest.param("150.163.68.1", id="untrusted"),
    # Table 8.10: the user's IP first, then its proxies' (as §10.1 shows them).
    pytest.param("172.16.44.200%20150.163.68.1", id="trusted", marks=pytest.mark.settings(TRUSTED_PROXIES=["150.163.68.1"])),
])
def test_forwarded_for_is_believed_only_from_trusted_proxies(client, addresses):
    forwarded = {"X-Forwarded-For": "172.16.44.200"}
    response = client.get("/8JMKD3MGP8W/35MMLL8", environ_base={"REMOTE_ADDR": "150.163.68.1"}, headers=forwarded)
    assert f"clientinformation.ipaddress={addresses}&" in first_url_request(client, response)


def test_language_preference_chooses_the_translation_and_is_not_passed_on(client):
    response = client.get("/D7N2U8HW/3J5AC3H+", environ_base=CLIENT, headers={"Accept-Language": "pt-BR,en;q=0.5"})
    assert response.status_code == 302
    # The field survey's Portuguese translation, an item of its own (demo Archive "origin").
    assert "/demo/archives/origin/col/ibiportal.test/lab/2015/06.02.09.41/" in response.headers["Location"]
    steps = trace_of(client, response)["trace"]["steps"]
    assert all("languagepreference" not in (s["request_url"] or "") for s in steps)
    assert all("requireditemstatus" not in (s["request_url"] or "") for s in steps)


def test_a_persistent_url_is_parsed_once_per_request(client, monkeypatch):
    """The use case reads the URL once, after a cache miss (to tell a bad one, 400, from an
    unknown page, 404), and hands that value to the engine, which takes no text."""
    calls = []
    real = url_module.parse_persistent_url
    counting = lambda text: calls.append(text) or real(text)  # noqa: E731
    monkeypatch.setattr(url_module, "parse_persistent_url", counting)  # PersistentUrl.parse calls it
    monkeypatch.setattr(resolving_module, "parse_persistent_url", counting)
    response = client.get("/8JMKD3MGP8W/35MMLL8!:(oai_dc)", environ_base=CLIENT)
    assert response.status_code == 302 and response.headers["Location"] == SECTION_10_2_URL
    assert calls == ["http://localhost/8JMKD3MGP8W/35MMLL8!:(oai_dc)"]
