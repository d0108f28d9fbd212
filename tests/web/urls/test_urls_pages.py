"""The Parse and Compose pages: results shown, errors next to their fields with a 400."""
from __future__ import annotations

import json
import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest

from ibiportal.ibi.modifiers import COMPOSITIONS

ERROR = re.compile(r'<div class="error" id="([^"]+)-error"><p>(.*?)</p>')


def errors(html: str) -> dict[str, str]:
    """The field errors of a page: field id → message (the code it quotes marked ``<code>``)."""
    return dict(ERROR.findall(html))


def test_pages_are_linked_from_the_nav_and_the_home_page(client):
    html = client.get("/").get_data(as_text=True)
    assert html.count('href="/parse"') == 2 and html.count('href="/compose"') == 2


@pytest.mark.parametrize("path", ["/parse", "/compose"])
def test_empty_page_is_a_form_without_errors(client, path):
    page = client.get(path)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f'action="{path}"' in html and not errors(html)


@pytest.mark.parametrize("path", ["/parse", "/compose"])
@pytest.mark.parametrize(("tag", "heading"), [("pt-BR", "Nada foi"), ("en", "Nothing was")])
def test_the_language_switch_on_an_empty_page_is_the_empty_form(client, path, tag, heading):
    """``?lang=`` is the switch's, not the form's: the empty page in the other language."""
    page = client.get(f"{path}?lang={tag}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f'<html lang="{tag}"' in html and not errors(html) and 'class="error error-summary"' not in html
    # With the form's fields, the switch keeps them and the page is the result.
    filled = client.get(path, query_string={"lang": tag, "url": "/8JMKD3MGP8W/35MMLL8", "ibi": "8JMKD3MGP8W/35MMLL8"})
    assert filled.status_code == 200 and "8JMKD3MGP8W/35MMLL8" in filled.get_data(as_text=True)


def test_parse_page_shows_fields_relation_meaning_and_both_forms(client):
    page = client.get("/parse", query_string={"url": "http://urlib.net/LK47B6W/362SFKH+?ibiurl.requireditemstatus=Original&ibiurl.verblist=GetMetadata"})
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    for text in (
        "parsedibiurl.verblist",
        "<code>GetTranslation</code> <code>GetMetadata</code>",
        "<code>Original</code>",
        "<code>.translation.metadata</code>",
        "Metadata of the translation of the item LK47B6W/362SFKH.",
        "Metadados da tradução do item LK47B6W/362SFKH.",
        "http://urlib.net/LK47B6W/362SFKH+:?ibiurl.requireditemstatus=Original",
        "http://urlib.net/LK47B6W/362SFKH?ibiurl.requireditemstatus=Original&amp;ibiurl.verblist=GetTranslation+GetMetadata",
    ):
        assert text in html


@pytest.mark.settings(RESOLVER_BASE="https://urlib.net/")
def test_parse_page_builds_a_bare_ibi_on_the_portals_resolver(client):
    html = client.get("/parse?url=8JMKD3MGP8W/35MMLL8!").get_data(as_text=True)
    assert "https://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition" in html


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("", "a persistent URL is expected, such as http://urlib.net/LK47B6W/362SFKH (at character 1)"),
        ("http://urlib.net/LK47B6W/362SFKH!!", "the last edition is asked once (Table 8.1) (at character 34)"),
        ("http://urlib.net/LK47B6W/362SFKO", "(at character 32)"),
    ],
)
def test_parse_page_shows_the_error_next_to_the_url(client, url, fragment):
    page = client.get("/parse", query_string={"url": url})
    assert page.status_code == 400
    html = page.get_data(as_text=True)
    assert fragment in errors(html)["url"] and 'aria-invalid="true"' in html


def test_compose_page_shows_both_syntaxes_and_meaning(client):
    page = client.get(
        "/compose",
        query_string={
            "ibi": "8JMKD3MGP8W/35MMLL8",
            "step1-verb": "GetLastEdition",
            "step3-verb": "GetTranslation",
            "step3-language": "pt-BR",
            "filelist": "y",
            "original": "y",
            "query": "lang=pt\n\n  x=a b  \n",
            "base": "http://urlib.net",
        },
    )
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    for text in (
        "http://urlib.net/8JMKD3MGP8W/35MMLL8!+(pt-BR)?ibiurl.requireditemstatus=Original&amp;ibiurl.verblist=GetFileList&amp;lang=pt&amp;x=a%20b",
        "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.requireditemstatus=Original"
        "&amp;ibiurl.verblist=GetLastEdition+GetTranslation(pt-BR)+GetFileList&amp;lang=pt&amp;x=a%20b",
        "List of files of the translation into Portuguese (Brazil) of the last edition of the item 8JMKD3MGP8W/35MMLL8.",
        "Lista de arquivos da tradução em português (Brasil) da última edição do item 8JMKD3MGP8W/35MMLL8.",
        "<code>.lastedition.translation(pt-BR)</code>",
    ):
        assert text in html
    assert not errors(html)


def test_compose_page_with_only_an_ibi_is_the_item_on_the_portals_resolver(client):
    page = client.get("/compose?ibi=sid.inpe.br/mtc-m18@80/2009/07.21.14.43&filepath=/doc/a.pdf")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "http://localhost/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/a.pdf" in html
    assert 'data-ibip="IBIp">repository name</span>)' in html


@pytest.mark.parametrize(
    ("query", "field", "fragment"),
    [
        ({"ibi": ""}, "ibi", "empty"),
        ({"ibi": "8JMKD3MGP8W/35MMLV8"}, "ibi", "(at character 18)"),
        ({"step1-verb": "GetMetadata", "step3-verb": "GetLastEdition"}, "step3-verb", "<code>:!</code> is not a modifier of Table 8.2"),
        ({"step2-verb": "GetTranslation", "step4-verb": "GetTranslation"}, "step4-verb", "a translation is not translated again"),
        ({"step1-verb": "GetNothing"}, "step1-verb", "Not a valid choice"),
        ({"step1-verb": "GetFileList"}, "step1-verb", "Not a valid choice"),
        ({"step2-verb": "GetMetadata", "step2-language": "pt"}, "step2-language", "only GetTranslation takes a language"),
        ({"step2-language": "pt"}, "step2-language", "only GetTranslation takes a language"),
        ({"step1-verb": "GetTranslation", "step1-language": "PT"}, "step1-language", "did you mean <code>pt</code>?"),
        ({"step1-verb": "GetTranslation", "step1-language": "pt-br"}, "step1-language", "did you mean <code>BR</code>?"),
        ({"step1-verb": "GetTranslation", "step1-format": "oai_dc"}, "step1-format", "only GetMetadata takes a format"),
        ({"step1-verb": "GetMetadata", "step1-format": "marc"}, "step1-format", "Not a valid choice"),
        ({"filepath": "/a/../b"}, "filepath", "<code>..</code> is not allowed as a path segment: the file path names a file inside the item (at character 4)"),
        ({"query": "a=1\n\nnovalue"}, "query", "pair 2: <code>novalue</code> is not a pair"),
        ({"query": "ibiurl.verblist=GetMetadata"}, "query", "pair 1: <code>ibiurl.verblist</code> is a resolver pair"),
        ({"base": "ftp://urlib.net/"}, "base", "<code>ftp</code> is not a scheme"),
    ],
)
def test_compose_page_shows_the_error_next_to_its_field(client, query, field, fragment):
    page = client.get("/compose", query_string={"ibi": "8JMKD3MGP8W/35MMLL8", **query})
    assert page.status_code == 400
    html = page.get_data(as_text=True)
    shown = errors(html)
    assert list(shown) == [field] and fragment in shown[field].replace("&#39;", "'")
    assert '<div class="url-result" id="result" hidden>' in html


def test_compose_page_announces_a_steps_error_by_the_step_and_the_fields_label(client):
    page = client.get("/compose", query_string={"ibi": "8JMKD3MGP8W/35MMLL8", "step2-verb": "GetTranslation",
                                                "step2-language": "PT"})
    summary = re.search(r'<p class="error error-summary" role="alert">(.*?)</p>', page.get_data(as_text=True))
    assert summary and summary[1] == "Nothing was composed: correct this field: Step 2: Language."


def attribute(html: str, pattern: str) -> str:
    """The unescaped value captured by ``pattern`` (one group) in ``html``."""
    found = re.search(pattern, html, re.DOTALL)
    assert found, pattern
    return unescape(found.group(1))


def test_compose_page_offers_trace_open_and_parse_on_this_portal(client):
    html = client.get("/compose?ibi=8JMKD3MGP8W/35MMLL8&step1-verb=GetLastEdition&base=http://urlib.net/").get_data(as_text=True)
    here = "http://localhost/8JMKD3MGP8W/35MMLL8!"
    trace = attribute(html, r'(<form method="post" action="/trace" class="trace"[^>]*>.*?</form>)')
    assert 'name="csrf_token" value="' in trace and f'name="url" value="{here}"' in trace
    assert attribute(html, r'<a class="button secondary" href="([^"]*)" data-result-href="portal_url">Open') == here
    parse_link = attribute(html, r'data-param="url"[^>]*href="([^"]*)">Parse this URL</a>')
    assert urlsplit(parse_link).path == "/parse"
    assert parse_qs(urlsplit(parse_link).query) == {"url": ["http://urlib.net/8JMKD3MGP8W/35MMLL8!"]}
    assert "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition" in html


def test_compose_page_gives_its_script_the_cores_rules_for_each_step(client):
    """Every verb the script would disable after a begun modifier is one the core refuses there (Table 8.2)."""
    rules = json.loads(attribute(client.get("/compose").get_data(as_text=True), r"data-rules='([^']*)'"))
    begun = {word[:end] for word in COMPOSITIONS for end in range(len(word) + 1)}
    assert set(rules["unavailable"]) == begun and rules["symbols"] == {"GetLastEdition": "!", "GetTranslation": "+", "GetMetadata": ":"}
    for shape, names in rules["unavailable"].items():
        assert sorted(names) == sorted(name for name, symbol in rules["symbols"].items() if shape + symbol not in begun), shape
        if names:
            assert "Table 8.2" in rules["notes"][shape], shape
    assert rules["unavailable"][""] == [] and "" not in rules["notes"]
    assert rules["notes"][":+"] == "No verb can follow `:+`: no modifier of Table 8.2 goes on from it."
    assert rules["notes"]["!"] == "Unavailable after `!` (Table 8.2): GetLastEdition, as the last edition is asked once."


def test_compose_page_puts_getfilelist_last_whatever_the_steps(client):
    page = client.get("/compose?ibi=LK47B6W/362SFKH&step2-verb=GetMetadata&step2-format=oai_dc&filelist=y&base=http://urlib.net/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "http://urlib.net/LK47B6W/362SFKH:(oai_dc)?ibiurl.verblist=GetFileList" in html
    assert "http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetMetadata(oai_dc)+GetFileList" in html
    assert "List of files of the metadata, in oai_dc, of the item LK47B6W/362SFKH." in html


PARSED = [
    *(f"http://urlib.net/LK47B6W/362SFKH{word}" for word in sorted(COMPOSITIONS)),
    "http://urlib.net/LK47B6W/362SFKH+(pt-BR)!:(oai_dc)+(en)?ibiurl.verblist=GetFileList",
    "https://example.org:8443/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/a%20b.pdf?ibiurl.requireditemstatus=Original&x=1&y=a%26b",
    "/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition+GetTranslation(pt)",
]


@pytest.mark.parametrize("url", PARSED)
def test_compose_from_this_rebuilds_the_parsed_url(client, url):
    parsed = client.get("/parse", query_string={"url": url}).get_data(as_text=True)
    link = attribute(parsed, r'<a class="button secondary" href="([^"]*)">Compose from this</a>')
    composed = client.get(link)
    assert composed.status_code == 200, link
    html = composed.get_data(as_text=True)
    for key in ("symbols", "verblist"):
        assert attribute(html, rf'<code class="url" id="url-{key}"[^>]*>([^<]*)</code>') == attribute(
            parsed, rf'<code class="url" id="url-{key}"[^>]*>([^<]*)</code>'
        ), key


def test_parse_page_traces_the_url_on_this_portal(client):
    html = client.get("/parse?url=http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)").get_data(as_text=True)
    assert 'name="url" value="http://localhost/8JMKD3MGP8W/35MMLL8!:(oai_dc)"' in html
    assert '<form method="post" action="/trace" class="trace" data-busy="Tracing…">' in html
    assert "Compose from this" in html and 'data-param="url"' not in html
