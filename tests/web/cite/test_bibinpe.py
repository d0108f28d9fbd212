"""``:(BibINPE)``, URLib's "how to cite" metadata format beside ``oai_dc`` (STANDARD.md §8).

urlib.net answers ``<IBI>:(BibINPE)`` with a page citing the item in INPE's form. The portal reads
the format wherever it reads ``(oai_dc)`` (modifier, verb list, relation, pair list), passes the
verb ``GetMetadata(BibINPE)`` to the Archives as it passes ``GetMetadata(oai_dc)``, and its own
Archive answers ``url.metadata(BibINPE)`` with such a page, in both languages.
"""
from __future__ import annotations

import pytest

from ibiportal.archive.relation import Relation
from ibiportal.ibi.modifiers import Modifier, scan_verb_list
from ibiportal.ibi.url import parse_persistent_url
from ibiportal.protocol.messages import UrlRequest

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


@pytest.mark.parametrize("written", [":(BibINPE)", ":(bibinpe)", ":(BIBINPE)"])
def test_bibinpe_is_a_metadata_format_read_case_blind(written):
    modifier = Modifier.parse(written)
    assert str(modifier) == ":(BibINPE)"
    assert [str(verb) for verb in modifier.verbs] == ["GetMetadata(BibINPE)"]
    assert modifier.verbs[0].relation == ".metadata(BibINPE)"


def test_bibinpe_composes_like_oai_dc_in_urls_verb_lists_and_relations():
    url = parse_persistent_url("http://www.urlib.net/iconet.com.br/banon/2001/05.25.16.44.43:(BibINPE)"
                               "?ibiurl.backgroundlanguage=en")
    assert url.relation == ".metadata(BibINPE)"
    assert url.to_table_8_8()["parsedibiurl.verblist"] == ["GetMetadata(BibINPE)"]
    assert [str(verb) for verb, _ in scan_verb_list("GetLastEdition+GetMetadata(BibINPE)")] == [
        "GetLastEdition", "GetMetadata(BibINPE)"]
    assert str(Relation.parse(".lastedition.metadata(BibINPE)")) == ".lastedition.metadata(BibINPE)"
    request = UrlRequest(client_ips=("172.16.44.200",), ibi="8JMKD3MGP8W/35MMLL8", verbs=("GetMetadata(BibINPE)",))
    assert "parsedibiurl.verblist=GetMetadata(BibINPE)" in request.to_query()  # as §10.2 sends GetMetadata(oai_dc)


def test_other_formats_are_still_refused_naming_both():
    with pytest.raises(Exception) as caught:
        Modifier.parse(":(marc)")
    assert "(oai_dc)" in str(caught.value.message) and "(BibINPE)" in str(caught.value.message)


def mint(client, **fields) -> str:
    response = client.post("/api/v1/mint", json=fields)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


@pytest.fixture
def item(client) -> dict:
    return mint(client, title="Detecção de nuvens em imagens CBERS", creators=["Souza, Ana Maria", "Lima, João"],
                date="2024", item_type="report", target_url="https://example.org/report.pdf")


def test_the_own_archive_answers_bibinpe_with_its_citation_page(client, item):
    ibip = item["ibip"]
    response = client.get(f"/{ibip}:(BibINPE)", environ_base=CLIENT)
    assert response.status_code == 302, response.get_data(as_text=True)
    page_url = response.headers["Location"]
    assert page_url == f"http://localhost/archive/items/{ibip}/bibinpe"
    assert client.get(f"/{ibip}!:(bibinpe)", environ_base=CLIENT).headers["Location"] == page_url
    page = client.get(page_url.removeprefix("http://localhost"), headers={"Accept-Language": "pt-BR"})
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "SOUZA, A. M.; LIMA, J." in text and "Detecção de nuvens em imagens CBERS" in text
    assert f"IBI: &lt;{ibip}&gt;" in text and "Disponível em:" in text
    english = client.get(page_url.removeprefix("http://localhost"), headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Available from:" in english and "How to cite" in english
    assert "Como citar" in text


def test_the_own_archive_lists_the_bibinpe_pairs_in_its_answer(client, app, item):
    service = f"/{app.config['ARCHIVE_SERVICE_IBI']}?servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4"
    answer = client.get(f"{service}&parsedibiurl.ibi={item['ibip']}&parsedibiurl.verblist=GetMetadata(BibINPE)")
    pairs = dict(line.split(" ", 1) for line in answer.get_data(as_text=True).splitlines())
    assert pairs["url.metadata(BibINPE)"] == f"http://localhost/archive/items/{item['ibip']}/bibinpe"
    assert pairs["contenttype.metadata(BibINPE)"] == "Metadata"


def test_the_resolver_passes_the_verb_as_it_passes_oai_dc(client, item):
    response = client.get(f"/{item['ibip']}:(BibINPE)", environ_base=CLIENT)
    trace = client.get(response.headers["X-IBI-Trace"]).get_json()
    requests = [step for step in trace["trace"]["steps"] if step["number"] == 3]
    assert requests and all(step["verbs"] == ["GetMetadata(BibINPE)"] for step in requests)
    assert all("parsedibiurl.verblist=GetMetadata%28BibINPE%29" in step["request_url"]
               or "parsedibiurl.verblist=GetMetadata(BibINPE)" in step["request_url"] for step in requests)

