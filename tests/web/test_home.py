"""The home page's box: what a text is, the actions that fit it, errors next to the box."""
from __future__ import annotations

import html as html_lib
import re
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest

from ibiportal.web.identifiers.forms import MAX_LOOKUP_LENGTH

ERROR = re.compile(r'<div class="error" id="q-error"><p>(.*?)</p>')
LINK = re.compile(r'<a class="button[^"]*" href="([^"]+)">([^<]+)</a>')
TRACE_FORM = re.compile(r'<form method="post" action="([^"]+)"[^>]*>(.*?)</form>', re.S)
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def actions(html: str) -> dict[str, str]:
    """The action links of a result: label → href (unescaped)."""
    return {label: html_lib.unescape(href) for href, label in LINK.findall(html)}


def trace_form(html: str) -> tuple[str, dict[str, str]]:
    """The one-click trace: its target and hidden fields."""
    forms = [(action, body) for action, body in TRACE_FORM.findall(html) if action == "/trace"]
    assert len(forms) == 1
    action, body = forms[0]
    return action, {name: html_lib.unescape(value) for name, value in HIDDEN.findall(body)}


def query(href: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(href).query))


def test_landing_page_explains_offers_the_box_examples_and_every_tool(client):
    page = client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Internet Based Identifier" in html
    assert '<label for="q">IBI or persistent URL</label>' in html
    assert 'method="get" action="/"' in html and "csrf_token" not in html.split('role="search"')[1].split("</form>")[0]
    for example in ("sid.inpe.br/mtc-m18@80/2009/07.21.13.23", "8JMKD3MGP8W/35MME4E", "35MMLL8!:(oai_dc)"):
        assert example in html
    assert 'href="/?q=http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"' in html
    for path in ("/mint", "/convert", "/compose", "/parse"):
        assert html.count(f'href="{path}"') == 2, path  # the navigation and the tools
    assert not ERROR.search(html) and "This is" not in html


@pytest.mark.parametrize(
    ("text", "kind", "ibi"),
    [
        ("sid.inpe.br/mtc-m18@80/2009/02.16.17.46", "an IBI in repository-name form", "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"),
        ("8JMKD3MGP8W/34PGRBS", "an IBI in IBIp form", "8JMKD3MGP8W/34PGRBS"),
        ("http://urlib.net/8JMKD3MGP8W/34PGRBS", "a persistent URL", "8JMKD3MGP8W/34PGRBS"),
    ],
)
def test_each_kind_is_named_with_both_forms_and_the_actions(client, text, kind, ibi):
    page = client.get("/", query_string={"q": text})
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f"This is {kind}" in html
    for form in ("sid.inpe.br/mtc-m18", "2009/02.16.17.46", "8JMKD3MGP8W/34PGRBS", "2009-02-16T17:46:00Z"):
        assert form in html
    links = actions(html)
    assert list(links) == ["Resolve", "Convert", "Parse", "Compose", "Cite"]
    assert query(links["Convert"]) == {"ibi": ibi} and links["Convert"].startswith("/convert?")
    assert query(links["Cite"]) == {"ibi": ibi} and links["Cite"].startswith("/cite?")
    assert query(links["Compose"]) == {"ibi": ibi}
    assert links["Resolve"] == "/" + ibi
    persistent = text if text.startswith("http") else "http://localhost/" + ibi
    assert query(links["Parse"]) == {"url": persistent}
    action, fields = trace_form(html)
    assert action == "/trace" and fields["url"] == persistent


def test_trace_button_posts_the_url_with_a_csrf_token(app):
    """The trace contract: POST /trace with csrf_token and url (CSRF on here, so the token is real)."""
    app.config["WTF_CSRF_ENABLED"] = True
    html = app.test_client().get("/", query_string={"q": "/8JMKD3MGP8W/35MMLL8!"}).get_data(as_text=True)
    action, fields = trace_form(html)
    assert action == "/trace"
    assert set(fields) == {"csrf_token", "url"}
    assert len(fields["csrf_token"]) > 20
    assert fields["url"] == "http://localhost/8JMKD3MGP8W/35MMLL8!"


def test_a_url_with_modifiers_opens_compose_with_its_verbs_and_resolves_here(client):
    text = "https://other.host/LK47B6W/362SFKH+(pt-BR)!:(oai_dc)/doc/a.pdf?ibiurl.requireditemstatus=Original&x=1"
    html = client.get("/", query_string={"q": text}).get_data(as_text=True)
    assert "This is a persistent URL" in html
    assert "<code>https://other.host/</code>" in html  # its own resolver, named
    links = actions(html)
    assert query(links["Compose"]) == {
        "ibi": "LK47B6W/362SFKH",
        "step1-verb": "GetTranslation",
        "step1-language": "pt-BR",
        "step2-verb": "GetLastEdition",
        "step3-verb": "GetMetadata",
        "step3-format": "oai_dc",
        "filepath": "/doc/a.pdf",
        "original": "y",
        "query": "x=1",
    }
    # The Compose page reads those fields back into the same request.
    composed = client.get(links["Compose"])
    assert composed.status_code == 200
    assert "LK47B6W/362SFKH+(pt-BR)!:(oai_dc)/doc/a.pdf?ibiurl.requireditemstatus=Original&amp;x=1" in composed.get_data(as_text=True)
    assert links["Resolve"] == "/LK47B6W/362SFKH+(pt-BR)!:(oai_dc)/doc/a.pdf?ibiurl.requireditemstatus=Original&x=1"
    assert query(links["Parse"]) == {"url": "https://other.host/LK47B6W/362SFKH+(pt-BR)!:(oai_dc)/doc/a.pdf?ibiurl.requireditemstatus=Original&x=1"}


def test_the_actions_lead_to_working_pages(client):
    html = client.get("/", query_string={"q": "http://urlib.net/8JMKD3MGP8W/35MMLL8!"}).get_data(as_text=True)
    links = actions(html)
    converted = client.get(links["Convert"])
    assert converted.status_code == 200 and 'value="8JMKD3MGP8W/35MMLL8"' in converted.get_data(as_text=True)
    parsed = client.get(links["Parse"])
    assert parsed.status_code == 200 and "Last edition of the item 8JMKD3MGP8W/35MMLL8." in parsed.get_data(as_text=True)
    resolved = client.get(links["Resolve"])  # the demo Archive mtc-m16c answers for it (§10.2)
    assert resolved.status_code == 302 and resolved.headers["X-IBI-Trace"]


@pytest.mark.parametrize(
    ("text", "message", "mark"),
    [
        ("8JMKD3MGP8W/35MMLL8!!", "the last edition is asked once", "<mark>!</mark>"),
        ("sid.inpe.br/mtc-m18/2009/13.16.17.46", "month 13", "<mark>1</mark>3.16"),
        ("ftp://urlib.net/8JMKD3MGP8W/34PGRBS", "not a scheme", "<code><mark>f</mark>tp://"),
    ],
)
def test_unrecognisable_text_is_a_400_with_the_error_next_to_the_box(client, text, message, mark):
    page = client.get("/", query_string={"q": text})
    assert page.status_code == 400
    html = page.get_data(as_text=True)
    error = ERROR.search(html)
    assert error and message in html_lib.unescape(error.group(1)) and "at character" in error.group(1)
    assert 'aria-invalid="true"' in html and 'aria-describedby="q-help q-error"' in html
    assert mark in html
    assert not actions(html)


def test_empty_and_overlong_texts_are_refused_next_to_the_box(client):
    empty = client.get("/?q=")
    assert empty.status_code == 400 and "paste an IBI" in ERROR.search(empty.get_data(as_text=True)).group(1)
    long = client.get("/", query_string={"q": "8" * (MAX_LOOKUP_LENGTH + 1)})
    assert long.status_code == 400 and str(MAX_LOOKUP_LENGTH) in ERROR.search(long.get_data(as_text=True)).group(1)


def test_page_text_is_escaped(client):
    html = client.get("/", query_string={"q": "<script>x</script>"}).get_data(as_text=True)
    assert "<script>x" not in html and "&lt;script&gt;" in html


def test_classify_api_answers_every_text(client):
    known = client.get("/api/v1/classify", query_string={"q": "http://urlib.net/LK47B6W/362SFKH+(pt)"})
    assert known.status_code == 200
    body = known.get_json()
    assert (body["kind"], body["ibi"], body["rep"]) == ("url", "LK47B6W/362SFKH", "iconet.com.br/banon/2009/09.09.22.01")
    unknown = client.get("/api/v1/classify", query_string={"q": "8JMKD3MGP8W/34PGRBO"})
    assert unknown.status_code == 200
    assert unknown.get_json()["kind"] == "unknown"
    assert unknown.get_json()["error"] == {
        "message": "character 'O' is not in the IBIp alphabet (0 1 I O V Y Z are excluded, Table 7.1)",
        "position": 19,
        "field": "q",
    }


def test_every_example_offered_is_recognised_and_resolves(client):
    """An example a new user clicks must lead somewhere: read as what it says, and redirected to the item."""
    html = client.get("/").get_data(as_text=True)
    examples = re.findall(r'<a href="/\?q=([^"]+)"', html.split('class="examples"')[1].split("</p>")[0])
    assert len(examples) == 4
    for example in examples:
        text = unquote(example)
        page = client.get("/", query_string={"q": text})
        assert page.status_code == 200 and "This is" in page.get_data(as_text=True), text
        path = "/" + text.removeprefix("http://urlib.net/")
        assert client.get(path, environ_base={"REMOTE_ADDR": "172.16.44.200"}).status_code == 302, text


@pytest.mark.parametrize("lang", ["en", "pt-BR"])
def test_every_action_of_every_example_works_offline(client, lang):
    """A fresh portal with no internet: each example's actions answer through the demo Archives,
    which write the standard's records in process (Cite included: 200 with a citation)."""
    html = client.get("/").get_data(as_text=True)
    examples = [unquote(example) for example in
                re.findall(r'<a href="/\?q=([^"]+)"', html.split('class="examples"')[1].split("</p>")[0])]
    user = {"REMOTE_ADDR": "172.16.44.200"}
    for text in examples:
        page = client.get("/", query_string={"q": text, "lang": lang}).get_data(as_text=True)
        for label, href in actions(page).items():
            answer = client.get(href, environ_base=user)
            assert answer.status_code in (200, 302), (text, label, href, answer.status_code)
        cite = client.get(actions(page)["Citar" if lang == "pt-BR" else "Cite"], environ_base=user)
        assert 'class="citation-text"' in cite.get_data(as_text=True), text
        action, fields = trace_form(page)
        assert client.post(action, data=fields, environ_base=user).status_code in (302, 303), text


def test_cite_from_a_result_keeps_the_modifiers_that_name_the_item(client):
    """``…!:(oai_dc)`` is the last edition's metadata: Cite is asked for the last edition (``!``),
    its metadata verb dropped, as Cite drops it."""
    html = client.get("/", query_string={"q": "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"}).get_data(as_text=True)
    assert query(actions(html)["Cite"]) == {"ibi": "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"}
    cited = client.get(actions(html)["Cite"], environ_base={"REMOTE_ADDR": "172.16.44.200"})
    assert cited.status_code == 200 and "http://urlib.net/8JMKD3MGP8W/35MMLL8!" in cited.get_data(as_text=True)


REFERENCE_LINE = ("UBA, D. M. et al. TATHU - Software para rastreio. São José dos Campos: INPE, 2022. 39 p. "
                  "IBI: <8JMKD3MGP3W34T/47AF772>. (sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC). "
                  "Disponível em: <http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772>.")


def test_a_pasted_reference_is_offered_to_check_references(client):
    response = client.get("/", query_string={"q": REFERENCE_LINE})
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "This looks like a reference: 3 IBIs found" in html
    assert 'action="/references#found"' in html and "Check in References" in html
    assert "longer than" not in html and not ERROR.search(html)  # no parser jargon
    answer = client.get("/api/v1/classify", query_string={"q": REFERENCE_LINE}).get_json()
    assert answer["kind"] == "unknown" and answer["reference"] == {"ibis": 3, "distinct": 1}
    # Text without an IBI keeps the parser's message; an IBI keeps its own answer.
    plain = client.get("/", query_string={"q": "hello world, no identifier here"})
    assert plain.status_code == 400 and 'id="reference-offer" hidden>' in plain.get_data(as_text=True)
    assert client.get("/api/v1/classify", query_string={"q": "8JMKD3MGP8W/35MME4E"}).get_json()["reference"] is None
    checked = client.post("/references", data={"text": REFERENCE_LINE})
    assert checked.status_code == 200 and "3 IBIs found" in checked.get_data(as_text=True)
