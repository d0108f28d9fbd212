"""URLib's published forms at every entry point: the classify API and the home box take any text,
line breaks included; ``GET /…`` answers ``upn:`` and ``ibi:`` spellings and a mirror's
``mirrorget.cgi`` page about an item as the persistent URL they name, and says plainly what it
cannot read; URLib's link pairs (``ibiurl.clientinformation.citingitem``, ``linktype``) reach the
item verbatim. Over the demo Archives of file 003 §10 (STANDARD.md §6 and §8)."""
from __future__ import annotations

import re

import pytest

from ibiportal.application.usage_counting import citing_item
from ibiportal.ibi.url import parse_persistent_url
from tests.web.resolve.test_resolve_segments import uncached  # noqa: F401 (the module's app without a resolution cache)

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}
ITEM = "sid.inpe.br/mtc-m18@80/2009/07.21.14.43"  # §10.1's item, held by a demo Archive
IBIP = "8JMKD3MGP8W/35MMLL8"  # §10.1
FILE_ITEM = "8JMKD3MGP7W/3EPGUE5"  # Example 8.9's item, with its file
FILE = "Relat%C3%B3rio%20Final.pdf"
REFERENCE = ("UBA, D. M. TATHU - Software para rastreio. INPE, 2022.\n"
             "Disponível em: <http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772>.")


@pytest.mark.parametrize("text", [REFERENCE, "http:\n//urlib.net/ibi/8JMKD3MGP3W34T/47AF772", "IBI:\t<8JMKD3MGP3W34T/47AF772>\r\n"])
def test_classify_answers_any_text_line_breaks_included(client, text):
    answer = client.get("/api/v1/classify", query_string={"q": text})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["ibi"] == "8JMKD3MGP3W34T/47AF772"


def test_classify_still_refuses_other_control_characters_and_overlong_text(client):
    assert client.get("/api/v1/classify", query_string={"q": "8JMKD3MGP3W34T/47AF772\x00"}).status_code == 400
    assert client.get("/api/v1/classify", query_string={"q": "\n" * 5000}).status_code == 400


def test_the_openapi_description_lets_classify_take_line_breaks(client):
    schema = client.get("/api/v1/openapi.json").get_json()["paths"]["/api/v1/classify"]["get"]["parameters"][0]["schema"]
    assert re.fullmatch(schema["pattern"], "Title.\r\nAvailable from:\t<http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772>.")
    assert not re.fullmatch(schema["pattern"], "8JMKD3MGP3W34T/47AF772\x00")
    assert schema["maxLength"] == 4096


def test_the_home_box_reads_a_reference_pasted_over_two_lines(client):
    page = client.get("/", query_string={"q": REFERENCE})
    assert page.status_code == 200
    assert "8JMKD3MGP3W34T/47AF772" in page.get_data(as_text=True)


@pytest.mark.parametrize(("spelling", "plain"), [
    (f"/upn:LNRMAL:{ITEM}", f"/{ITEM}"),
    (f"/upn:LNRMAL:/{ITEM}", f"/{ITEM}"),  # as the absolute link prints it
    (f"/upn:S4T6RL:{IBIP}!:(oai_dc)", f"/{IBIP}!:(oai_dc)"),
    (f"/upn:9HFNHE-:{FILE_ITEM}/{FILE}", f"/{FILE_ITEM}/{FILE}"),
    (f"/ibi:{IBIP}", f"/{IBIP}"),
    (f"/col/sid.inpe.br/banon/2001/03.30.15.38.24/doc/mirrorget.cgi?metadatarepository={ITEM}.12&choice=full"
     "&languagebutton=en", f"/{ITEM}"),
])
def test_upn_ibi_and_mirrorget_spellings_resolve_as_the_persistent_url(uncached, spelling, plain):
    spelt = uncached.get(spelling, environ_base=CLIENT)
    expected = uncached.get(plain, environ_base=CLIENT)
    assert spelt.status_code == expected.status_code == 302, spelt.get_data(as_text=True)
    assert spelt.headers["Location"] == expected.headers["Location"]
    trace = uncached.get(spelt.headers["X-IBI-Trace"].split("localhost", 1)[1]).get_json()
    assert trace["persistent_url"] == "http://localhost" + plain


def test_a_relative_upn_link_followed_from_a_page_an_archive_serves_resolves(uncached):
    """``<a href="./upn:…">`` on a page served at ``/col/<rep>/doc/…`` (URLib's relative links, with
    the pairs URLib adds to count them) reaches ``/col/<rep>/doc/upn:…``: it is the upn: URI."""
    pairs = "ibiurl.clientinformation.citingitem=sid.inpe.br/mtc-m21c/2019/12.04.15.16&linktype=relative"
    for page_dir in ("/col/sid.inpe.br/mtc-m21c/2019/12.04.15.16/doc/", "/col/sid.inpe.br/mtc-m21c/2019/12.04.15.16/doc/html/"):
        followed = uncached.get(f"{page_dir}upn:S4T6RL:{IBIP}?{pairs}", environ_base=CLIENT)
        plain = uncached.get(f"/{IBIP}?{pairs}", environ_base=CLIENT)
        assert followed.status_code == plain.status_code == 302
        assert followed.headers["Location"] == plain.headers["Location"] and plain.headers["Location"].endswith(pairs)


@pytest.mark.parametrize(("path", "said"), [
    ("/upn:K28A8B:6qtX3pFwXQZGivnK2Y/TLEBM", ("`upn:`", "K28A8B", "cannot read")),
    ("/col/sid.inpe.br/banon/2001/03.30.15.38.24/doc/mirror.cgi/About?languagebutton=en", ("mirror",)),
    ("/col/sid.inpe.br/mtc-m18@80/2008/03.17.15.17.24/doc/mirrorget.cgi?choice=full", ("mirror", "metadatarepository")),
])
def test_what_names_no_readable_item_is_said_plainly(uncached, path, said):
    answer = uncached.get(path, environ_base=CLIENT, headers={"Accept": "application/json"})
    assert answer.status_code == 404
    message = answer.get_json()["error"]["message"]
    assert all(words in message for words in said), message
    assert "IBIp alphabet" not in message and "not a persistent URL:" not in message
    portuguese = uncached.get(path, environ_base=CLIENT, headers={"Accept": "application/json", "Accept-Language": "pt-BR"})
    assert portuguese.get_json()["error"]["message"] != message


def test_urlibs_link_pairs_reach_the_item_verbatim_and_count_for_the_citing_item(uncached):
    query = "ibiurl.clientinformation.citingitem=sid.inpe.br/mtc-m18/2010/12.15.11.49&linktype=relative"
    answer = uncached.get(f"/{IBIP}?{query}", environ_base=CLIENT)
    assert answer.status_code == 302 and answer.headers["Location"].endswith(query)
    # usage counts the activation for the citing item (UsageKey.of, on every resolution)
    url = parse_persistent_url(f"http://urlib.net/{IBIP}?{query}")
    assert citing_item(url) == "sid.inpe.br/mtc-m18/2010/12.15.11.49"
    assert citing_item(parse_persistent_url(f"http://urlib.net/{IBIP}")) is None


def test_the_home_box_explains_upn_and_urlibs_pairs_in_both_languages(client):
    text = (f"http://urlib.net/upn:S4T6RL:{IBIP}?ibiurl.clientinformation.citingitem=sid.inpe.br/mtc-m18/2010/12.15.11.49"
            "&linktype=relative")
    english = client.get("/", query_string={"q": text}, headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "ResolverID S4T6RL" in english and "the repository of the item whose page holds this link" in english
    portuguese = client.get("/", query_string={"q": text}, headers={"Accept-Language": "pt-BR"}).get_data(as_text=True)
    assert "ResolverID S4T6RL" in portuguese and "ResolverID S4T6RL names" not in portuguese


def test_a_glued_typo_in_a_reference_is_said_in_both_languages(client):
    text = "UBA, D. M. TATHU. INPE, 2022. IBI: <8JMKD3MGP8W/35MML!8>. Disponível em: <http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772>."
    body = client.post("/api/v1/extract", json={"text": text}).get_json()
    assert [entry["ibi"] for entry in body["found"]] == [None, "8JMKD3MGP3W34T/47AF772"]
    assert "`!8` is glued right after the IBI 8JMKD3MGP8W/35MML" in body["found"][0]["error"]["message"]
    page = client.post("/references", data={"text": text}, headers={"Accept-Language": "pt-BR"}).get_data(as_text=True)
    assert "<code>!8</code> está colado logo depois do IBI 8JMKD3MGP8W/35MML" in page and "is glued right after" not in page


def test_the_reference_checker_reads_upn_citations(client):
    text = ("EPIPHANIO, J. C. N.; GALVÃO, L. S. (Ed.). SBSR, 14. São José dos Campos: INPE, 2009. URI: "
            "<upn:S4T6RL:3ERPFQRTBW/34RQDB8>. Available from: <http://urlib.net/upn:S4T6RL:3ERPFQRTBW/34RQDB8>.\n"
            "FRANÇA, V. D. J. Avaliação. 2008. URI: <upn:K28A8B:6qtX3pFwXQZGivnK2Y/TLEBM>.")
    body = client.post("/api/v1/extract", json={"text": text}).get_json()
    assert [entry["ibi"] for entry in body["found"]] == ["3ERPFQRTBW/34RQDB8", "3ERPFQRTBW/34RQDB8", None]
    assert body["distinct"] == 1 and body["broken"] == 1
    assert "cannot read" in body["found"][2]["error"]["message"]
