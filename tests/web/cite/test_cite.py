"""The Cite page, its downloads and ``GET /api/v1/cite``: demo items, minted items, a remote
Archive (on loopback, its record mocked with ``responses``), and every way a citation can fail."""
from __future__ import annotations

import functools
import html
import json
import re
import socket
from datetime import datetime, timezone

import pytest
import responses

from ibiportal import create_app
from ibiportal.citation import STYLES
from ibiportal.resolver import transport
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.protocol.registry import ArchiveDetails, Confirmation, KeyHash
from ibiportal.storage.registry import ArchiveStore
from ibiportal.application.citing import CiteProblem
from ibiportal.web.context import APPLICATION, application, holdings, request_site
from tests.servers import fresh_sqlite

#: A demo item with an oai_dc record (ibiportal/archive/data/demo_archives.json, Archive "origin").
DEMO_IBIP = "D7N2U8HW/3J5AC3H"
DEMO_REP = "ibiportal.test/lab/2015/03.10.14.22"
DELETED = "D7N2U8HW/3GBBQK2"

REMOTE_HOST = "archive.example.org"
REMOTE_SERVICE = "example.org/svc/2020/01.02.03.04"
REMOTE_ITEM = "example.org/lab/2020/05.04.03.02"
RECORD_URL = f"http://{REMOTE_HOST}/oai/record.xml"
HOSTS = {REMOTE_HOST: "93.184.216.34", "intranet.example": "192.168.1.10"}
RECORD = """<?xml version="1.0" encoding="UTF-8"?>
<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <dc:title>Relatório de campo &amp; dados</dc:title>
  <dc:creator>Gonçalves, João</dc:creator>
  <dc:creator>van der Berg, Jan</dc:creator>
  <dc:date>2020-05-04</dc:date>
  <dc:language>pt</dc:language>
</oai_dc:dc>
"""


def demo_dc(ibi: str):
    """The Dublin Core of a demo item, read from the demo data (what every answer must show)."""
    return holdings().demo["origin"].service.store.find(ibi).dc


def error_next_to_ibi(html: str) -> str:
    match = re.search(r'<div class="error" id="ibi-error">(.*?)</div>', html, re.S)
    assert match, "no error next to the ibi field"
    assert 'aria-invalid="true"' in html and 'aria-describedby="ibi-help ibi-error"' in html
    return re.sub(r"<[^>]+>", "", match.group(1)).strip()


# -- demo items: metadata served by the portal itself, read in process ---------------------------


def test_blank_page_has_a_labelled_field(client):
    response = client.get("/cite")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert '<label for="ibi">IBI or persistent URL</label>' in html
    assert "Formatted citations" not in html


def test_cites_a_demo_item_without_any_http_request(app, client):
    with responses.RequestsMock() as mocked:  # nothing registered: any HTTP request would fail
        response = client.get("/cite", query_string={"ibi": DEMO_IBIP})
        assert len(mocked.calls) == 0
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    with app.app_context():
        dc = demo_dc(DEMO_IBIP)
    assert dc.title in html
    for creator in dc.creators:
        assert f"<li>{creator}</li>" in html
    assert "<dt>Date</dt><dd>10 Mar 2015</dd>" in html  # the record's 2015-03-10, as the page's language writes it
    url = f"http://localhost/{DEMO_IBIP}"
    assert f'href="{url}"' in html
    assert f"Almeida, R. C., &amp; Okafor, D. N. (2015). <i>{dc.title}</i>. {dc.publisher}. {url}" in html
    assert f"ALMEIDA, R. C.; OKAFOR, D. N. <b>Carbon stocks of mangrove forests on the Bragança peninsula, Pará</b>:" in html
    assert f"2014 field survey. [S. l.]: {dc.publisher}, 2015. Disponível em: {url}. Acesso em: " in html
    assert f"R. C. Almeida and D. N. Okafor, “{dc.title},” {dc.publisher}, 2015. [Online]. Available: {url}" in html
    assert '<p class="citation-text" lang="pt-BR">' in html
    for style in STYLES:
        assert f'<h3 id="style-{style.key}">{style.label}</h3>' in html
    assert "@misc{almeida2015carbon," in html and "TY  - GEN" in html and "&#34;URL&#34;" in html
    assert f'href="/cite.ris?ibi={DEMO_IBIP}" download' in html
    trace = re.search(r'\(<a href="(/trace/[\w-]+)">trace</a>\)', html).group(1)
    assert client.get(trace).status_code == 200


def test_both_forms_of_the_ibi_give_the_same_citation(client):
    ibip = client.get("/api/v1/cite", query_string={"ibi": DEMO_IBIP}).get_json()
    rep = client.get("/api/v1/cite", query_string={"ibi": DEMO_REP}).get_json()
    path = client.get("/api/v1/cite", query_string={"ibi": f"http://urlib.net/{DEMO_IBIP}"}).get_json()
    assert ibip["metadata"] == rep["metadata"] == path["metadata"]
    assert rep["persistent_url"] == f"http://localhost/{DEMO_REP}"
    assert path["persistent_url"] == f"http://urlib.net/{DEMO_IBIP}"
    assert ibip["citations"]["formatted"]["apa"].replace(DEMO_IBIP, DEMO_REP) == rep["citations"]["formatted"]["apa"]


def test_the_cited_url_keeps_modifiers_but_not_metadata_or_file_verbs(client):
    edition = client.get("/api/v1/cite", query_string={"ibi": "http://urlib.net/D7N2U8HW/39G4TD2!"}).get_json()
    assert edition["persistent_url"] == "http://urlib.net/D7N2U8HW/39G4TD2!"
    assert edition["metadata_url"] == "http://urlib.net/D7N2U8HW/39G4TD2!:(oai_dc)"
    assert "(3rd edition)" in edition["metadata"]["title"]
    metadata = client.get("/api/v1/cite", query_string={"ibi": f"{DEMO_IBIP}:(oai_dc)"}).get_json()
    assert metadata["persistent_url"] == f"http://localhost/{DEMO_IBIP}"


def test_api_answer(app, client):
    response = client.get("/api/v1/cite", query_string={"ibi": DEMO_IBIP})
    assert response.status_code == 200
    body = response.get_json()
    with app.app_context():
        dc = demo_dc(DEMO_IBIP)
    assert body["ibi"] == DEMO_IBIP
    assert body["metadata"] == {
        "title": dc.title, "creators": list(dc.creators), "date": dc.date, "language": "en", "publisher": dc.publisher,
        "item_type": "other", "place": None, "extent": None, "degree": None, "report_number": None,
    }
    # origin and mirror both hold the item (as a copy elsewhere): whichever answers first is used.
    assert any(body["oai_dc_url"].endswith(f"/demo/archives/{name}/col/{DEMO_REP}/metadata.xml")
               for name in ("origin", "mirror"))
    assert set(body["citations"]["formatted"]) == {style.key for style in STYLES}
    assert body["citations"]["csl_json"]["URL"] == f"http://localhost/{DEMO_IBIP}"
    assert client.get(body["trace"]).status_code == 200


@pytest.mark.parametrize(
    ("extension", "content_type", "start"),
    [
        ("bib", "application/x-bibtex; charset=utf-8", "@misc{almeida2015carbon,\n"),
        ("ris", "application/x-research-info-systems; charset=utf-8", "TY  - GEN\r\n"),
        ("json", "application/vnd.citationstyles.csl+json; charset=utf-8", "[\n"),
    ],
)
def test_downloads(client, extension, content_type, start):
    response = client.get(f"/cite.{extension}", query_string={"ibi": DEMO_IBIP})
    assert response.status_code == 200
    assert response.headers["Content-Type"] == content_type
    assert response.headers["Content-Disposition"] == f'attachment; filename="almeida2015carbon.{extension}"'
    text = response.get_data(as_text=True)
    assert text.startswith(start)
    api = client.get("/api/v1/cite", query_string={"ibi": DEMO_IBIP}).get_json()["citations"]
    expected = {"bib": api["bibtex"], "ris": api["ris"]}.get(extension)
    assert text == expected if expected else json.loads(text) == [api["csl_json"]]


# -- items minted by the portal (its own Archive) ------------------------------------------------


def test_cites_an_item_minted_by_the_portal(client):
    minted = client.post("/api/v1/mint", json={"title": "Cartas de Bragança", "creators": ["Gonçalves, João"]})
    assert minted.status_code == 201
    ibip = minted.get_json()["ibip"]
    with responses.RequestsMock():
        body = client.get("/api/v1/cite", query_string={"ibi": ibip}).get_json()
    assert body["metadata"]["title"] == "Cartas de Bragança"
    assert body["metadata"]["creators"] == ["Gonçalves, João"]
    assert body["oai_dc_url"].endswith(f"/archive/items/{ibip}/oai_dc.xml")
    # No date given: the year of the repository name, in brackets (NBR 6023:2018 8.6.1.3).
    year = minted.get_json()["rep"].split("/")[2]
    assert body["citations"]["formatted"]["abnt"].startswith(f"GONÇALVES, J. Cartas de Bragança. [S. l.: s. n.], [{year}].")
    assert f"http://localhost/{ibip}" in body["citations"]["formatted"]["apa"]
    assert body["repository"] == minted.get_json()["rep"]


# -- failures ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Enter an IBI"),
        ("   ", "Enter an IBI"),
        ("8JMKD3MGP8W34PGRBS", "missing '/' between IBIp prefix and suffix"),
        ("http://urlib.net/8JMKD3MGP8W/34PGRBS?ibiurl.requireditemstatus=Copy", "takes only the value `Original`"),
    ],
)
def test_bad_input_is_shown_next_to_the_field(client, text, message):
    response = client.get("/cite", query_string={"ibi": text})
    assert response.status_code == 400
    assert message.replace("`", "") in html.unescape(error_next_to_ibi(response.get_data(as_text=True)))  # code: <code>
    api = client.get("/api/v1/cite", query_string={"ibi": text})
    assert api.status_code == 400
    assert api.get_json()["error"]["field"] == "ibi"
    assert message in api.get_json()["error"]["message"]


@pytest.mark.parametrize(
    ("ibi", "status", "words"),
    [
        (DELETED, 410, "was deleted"),
        ("D7N2U8HW/3AAAAAA", 404, "not found"),
    ],
)
def test_no_metadata_is_a_message_with_the_trace(client, ibi, status, words):
    response = client.get("/cite", query_string={"ibi": ibi})
    assert response.status_code == status
    html = response.get_data(as_text=True)
    failure = re.search(r'<div class="failure" role="alert">(.*?)</div>', html, re.S).group(1)
    assert f"No oai_dc metadata for {ibi}" in failure and words in failure
    trace_id = re.search(r'<a href="/trace/([\w-]+)">the trace of this resolution</a>', failure).group(1)
    assert f'href="http://localhost/api/v1/trace/{trace_id}">JSON</a>' in failure
    assert client.get(f"/api/v1/trace/{trace_id}").get_json()["persistent_url"].endswith(f"{ibi}:(oai_dc)")
    api = client.get("/api/v1/cite", query_string={"ibi": ibi})
    assert api.status_code == status
    assert words in api.get_json()["error"]["message"] and api.get_json()["trace"].startswith("http://localhost/api/v1/trace/")
    download = client.get("/cite.bib", query_string={"ibi": ibi})
    assert download.status_code == status and words in download.get_data(as_text=True)


def oai_dc_record(url: str) -> bytes | str:
    """The record Cite reads at ``url``, for the request in context."""
    return application().citing.oai_dc_record(url, request_site())


def test_a_portal_page_that_is_not_an_oai_dc_record_is_refused(app):
    with app.test_request_context("/cite"):
        for url in ("http://localhost/convert", "http://localhost/demo/archives/origin/col/x/metadata",
                    "http://localhost/demo/archives/nowhere/col/x/metadata.xml"):  # the request's own address
            with pytest.raises(CiteProblem, match="a page of this portal that is not an oai_dc record"):
                oai_dc_record(url)
        with pytest.raises(CiteProblem, match="holds no oai_dc record there"):
            oai_dc_record(f"http://localhost/archive/items/{DEMO_IBIP}/oai_dc.xml")


def test_portal_url_with_a_path_is_read_in_process(tmp_path):
    app = create_app({
        "TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "t.sqlite"), "SECRET_KEY": "t",
        "PORTAL_URL": "https://portal.example/ibi",
    })
    with app.test_request_context("/cite"), responses.RequestsMock():
        with pytest.raises(CiteProblem, match="not an oai_dc record"):
            oai_dc_record(f"https://portal.example/ibi/demo/archives/origin/col/{DEMO_REP}/metadata")
        record = oai_dc_record(f"https://portal.example/ibi/demo/archives/origin/col/{DEMO_REP}/metadata.xml")
    assert "<dc:title>Carbon stocks" in record


# -- a remote Archive (registered, over HTTP: on loopback; its record mocked) --------------------


def fake_dns(host, port, *args, **kwargs):
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (HOSTS.get(host, host), port))]


def archive_answer(record_url: str, request) -> str:
    """The remote Archive's service: a URL list pointing to ``record_url`` (§9.2, like §10.2's answer 2)."""
    if request.subject != "urlRequest" or REMOTE_ITEM not in request.target:
        return ""
    return (
        f"archiveaddress {request.host}\n"
        "contenttype.metadata(oai_dc) Metadata\n"
        f"ibi {{rep {REMOTE_ITEM}}}\n"
        f"ibi.archiveservice {{rep {REMOTE_SERVICE}}}\n"
        "state.metadata(oai_dc) Original\n"
        "timestamp.metadata(oai_dc) 2020-05-04T03:02:00Z\n"
        f"url.metadata(oai_dc) {record_url}\n"
        "urlkey 1588561320-1\n"
    )


@pytest.fixture
def remote(tmp_path, monkeypatch, scripted_archive, loopback_fan_out):
    """``remote(RECORD_URL)``: an app without demo Archives, with one included Archive (on a
    loopback port) whose answer points to RECORD_URL; the record itself is fetched with the
    app's address policy (names from HOSTS), through ``requests``, mocked by each test."""
    monkeypatch.setattr(socket, "getaddrinfo", fake_dns)  # where check_host looks names up at the call
    apps = []

    def start(record_url: str):
        archive = scripted_archive(functools.partial(archive_answer, record_url))
        app = create_app({
            "TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "t.sqlite"), "SECRET_KEY": "t", "DEMO_ARCHIVES": False,
        })
        now = datetime(2024, 1, 2, tzinfo=timezone.utc)
        with app.app_context():
            store = ArchiveStore(application().storage())
            store.register_archive(REMOTE_SERVICE, KeyHash.of(RegistrationKey("1234567890")), now)
            details = ArchiveDetails(archive.address, "127.0.0.1", "URLib 2.0", "adm@example.org")
            store.record_inclusion(REMOTE_SERVICE, details, Confirmation(True, "confirmed"), now)
        apps.append(app)
        return app

    yield start
    for app in apps:
        app.extensions[APPLICATION].http_transport.close()


@responses.activate
def test_cites_an_item_of_a_remote_archive(remote):
    app = remote(RECORD_URL)
    responses.get(RECORD_URL, body=RECORD.encode("utf-8"), content_type="application/xml")
    body = app.test_client().get("/api/v1/cite", query_string={"ibi": REMOTE_ITEM}).get_json()
    assert body["oai_dc_url"] == RECORD_URL
    assert body["metadata"] == {
        "title": "Relatório de campo & dados", "creators": ["Gonçalves, João", "van der Berg, Jan"],
        "date": "2020-05-04", "language": "pt", "publisher": None,
        "item_type": "other", "place": None, "extent": None, "degree": None, "report_number": None,
    }
    url = f"http://localhost/{REMOTE_ITEM}"
    assert body["citations"]["formatted"]["apa"] == (
        f"Gonçalves, J., & van der Berg, J. (2020). Relatório de campo & dados. {url}"
    )
    assert r"title = {Relatório de campo \& dados}" in body["citations"]["bibtex"]
    assert [call.request.url for call in responses.calls][-1] == RECORD_URL


@pytest.mark.parametrize(
    ("record_url", "mock", "words"),
    [
        (RECORD_URL, {"body": "<oai_dc:dc"}, "cannot be read: the oai_dc record is not well-formed XML"),
        (RECORD_URL, {"body": '<!DOCTYPE x [<!ENTITY a "b">]><x/>'}, "document type declaration"),
        (RECORD_URL, {"status": 500, "body": "oops"}, "HTTP status 500"),
        (RECORD_URL, {"status": 301, "headers": {"Location": "http://elsewhere.example/"}}, "not followed"),
        (RECORD_URL, {"body": "x" * (transport.DEFAULT_MAX_ANSWER_BYTES + 10)}, "longer than the cap"),
        ("http://intranet.example/record.xml", None, "could not be fetched"),
    ],
)
@responses.activate
def test_a_bad_remote_record_is_a_message_with_the_trace(remote, record_url, mock, words):
    app = remote(record_url)
    if mock is not None:
        responses.get(record_url, **mock)
    client = app.test_client()
    response = client.get("/cite", query_string={"ibi": REMOTE_ITEM})
    assert response.status_code == 502
    failure = re.search(r'<div class="failure" role="alert">(.*?)</div>', response.get_data(as_text=True), re.S).group(1)
    assert words in failure and record_url in failure
    assert re.search(r'<a href="/trace/[\w-]+">the trace of this resolution</a>', failure)
    if mock is None:
        assert "192.168.1.10" in failure and record_url not in [call.request.url for call in responses.calls]


def test_a_demo_items_landing_page_labels_both_forms_and_offers_cite(app, client):
    response = client.get("/demo/archives/library/col/ibiportal.test/lab/2019/12.04.15.16/doc/publicacao.pdf")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    with app.app_context():
        item = holdings().demo["library"].service.store.find("ibiportal.test/lab/2019/12.04.15.16")
    rep, ibip = item.ibi.rep, item.ibi.ibip
    assert f"<dt>Repository name</dt><dd><code>{rep}</code>" in html
    assert f"<dt>IBIp</dt><dd><code>{ibip}</code>" in html
    assert "<dt>IBI</dt>" not in html
    assert f'<a class="url" href="http://localhost/{ibip}">http://localhost/{ibip}</a>' in html
    assert f'href="/cite?ibi={ibip}">Cite this item</a>' in html
    download = client.get(f"/cite.ris?ibi={ibip}")
    assert f'href="/cite.ris?ibi={ibip}" download' in html and download.status_code == 200


def test_the_api_adds_any_csl_style_asked_for(client):
    thesis = "D7N2U8HW/3UGHFGH"
    body = client.get("/api/v1/cite", query_string={"ibi": thesis, "style": "nature"}).get_json()
    citations = body["citations"]
    assert citations["formatted"]["nature"] == (
        "1. Silva, M. da. Segmentação hierárquica de imagens de radar: um estudo na Amazônia. "
        "(Instituto Nacional de Pesquisas Espaciais (INPE), São José dos Campos, 2019).")
    assert set(citations["formatted_html"]) == {*(style.key for style in STYLES), "nature"}
    plain = client.get("/api/v1/cite", query_string={"ibi": thesis}).get_json()["citations"]["formatted"]
    assert set(plain) == {style.key for style in STYLES}  # the six stay the defaults
    assert client.get("/api/v1/cite", query_string={"ibi": thesis, "style": "apa"}).get_json()["citations"]["formatted"] == plain


def test_the_api_answers_an_unknown_style_with_406_and_the_closest_names(client):
    response = client.get("/api/v1/cite", query_string={"ibi": "D7N2U8HW/3UGHFGH", "style": "chicago-autor-date"})
    assert response.status_code == 406
    body = response.get_json()
    assert body["closest"][0] == "chicago-author-date" and body["error"]["field"] == "style"
    locale = client.get("/api/v1/cite", query_string={"ibi": "D7N2U8HW/3UGHFGH", "style": "nature", "locale": "xx"})
    assert locale.status_code == 406 and locale.get_json()["error"]["field"] == "locale"


def test_the_page_shows_a_csl_style_and_offers_the_closest_names(client):
    page = client.get("/cite", query_string={"ibi": "D7N2U8HW/3UGHFGH", "style": "elsevier-vancouver", "locale": "pt-BR"})
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert ('<p class="citation-text" lang="pt-BR">[1] Silva M da. Segmentação hierárquica de imagens de radar: '
            "um estudo na Amazônia. Doutorado em Computação Aplicada. Instituto Nacional de Pesquisas Espaciais (INPE), 2019.</p>") in html
    unknown = client.get("/cite", query_string={"ibi": "D7N2U8HW/3UGHFGH", "style": "vancouver"})
    assert unknown.status_code == 406
    text = unknown.get_data(as_text=True)
    assert "no citation style named &#39;vancouver&#39;" in text or "no citation style named 'vancouver'" in text
    assert 'href="/cite?ibi=D7N2U8HW/3UGHFGH&amp;style=elsevier-vancouver"' in text


def test_a_csl_style_without_a_language_is_written_in_the_pages(client):
    """Chicago's connective between two authors is CSL's locale term: "e" in pt-BR, "and" in en-US.
    The page writes it in its own language; the API keeps CSL's en-US whatever the reader's."""
    asked = {"ibi": DEMO_IBIP, "style": "chicago-author-date"}
    portuguese = client.get("/cite", query_string={**asked, "lang": "pt-BR"}).get_data(as_text=True)
    assert '<p class="citation-text" lang="pt-BR">Almeida, R. C., e D. N. Okafor. 2015.' in portuguese
    assert "(CSL, pt-BR)" in portuguese and 'placeholder="pt-BR"' in portuguese
    assert "<dt>Data</dt><dd>10/03/2015</dd>" in portuguese and "<dt>Idioma</dt><dd>inglês</dd>" in portuguese
    english = client.get("/cite", query_string={**asked, "lang": "en"}).get_data(as_text=True)
    assert '<p class="citation-text" lang="en-US">Almeida, R. C., and D. N. Okafor. 2015.' in english
    chosen = client.get("/cite", query_string={**asked, "lang": "pt-BR", "locale": "en-GB"}).get_data(as_text=True)
    assert "(CSL, en-GB)" in chosen
    api = client.get("/api/v1/cite", query_string=asked, headers={"Accept-Language": "pt-BR"}).get_json()
    assert api["citations"]["formatted"]["chicago-author-date"].startswith("Almeida, R. C., and D. N. Okafor.")
