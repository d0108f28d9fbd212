"""The pages' HTML, in both languages: ids unique, ``<time datetime>`` values valid HTML date and
time strings to the second, ``aria-label`` only where a role names something, every ``<dt>``
with its ``<dd>``, the API docs' code blocks reachable by keyboard and named."""
from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.admin_session import log_in_as

PDF = b"%PDF-1.4\n%%EOF\n"
USER = {"REMOTE_ADDR": "172.16.44.200"}
#: HTML's valid date string, or global date and time string to the second (UTC, ``Z``).
TIME_VALUE = re.compile(r"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\dZ)?|\d{4}(-\d\d)?")
#: Elements whose role (generic, paragraph, code) ARIA does not let a label name: they need a role.
PLAIN = frozenset({"div", "span", "p", "pre", "code"})


class Markup(HTMLParser):
    """What is wrong with a page's markup, as a list of findings."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: Counter = Counter()
        self.findings: list[tuple] = []
        self.times: list[str] = []
        self.lists: list[list[str]] = []
        self.pres: list[dict] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids[attributes["id"]] += 1
        if "datetime" in attributes:
            self.times.append(attributes["datetime"])
            if not TIME_VALUE.fullmatch(attributes["datetime"]):
                self.findings.append(("datetime", attributes["datetime"]))
        if "aria-label" in attributes and tag in PLAIN and "role" not in attributes:
            self.findings.append(("aria-label without a role", tag, attributes.get("class")))
        if tag == "ul" and attributes.get("role") == "note":
            self.findings.append(("a list as a note", attributes.get("class")))
        if tag == "pre":
            self.pres.append(attributes)
        if tag == "dl":
            self.lists.append([])
        elif tag in ("dt", "dd") and self.lists:
            self.lists[-1].append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "dl" and self.lists:
            children = self.lists.pop()
            for index, child in enumerate(children):
                if child == "dt" and "dd" not in children[index:]:
                    self.findings.append(("a dt without its dd",))

    def report(self) -> list[tuple]:
        return self.findings + [("duplicate id", name) for name, count in self.ids.items() if count > 1]


def markup_of(html: str) -> Markup:
    parser = Markup()
    parser.feed(html)
    return parser


def log_in(client) -> None:
    log_in_as(client, "ada")


@pytest.fixture
def pages(client, api_token) -> list[str]:
    """Pages showing times, lists and forms: an item with a file, a trace, the history, home."""
    item = client.post("/api/v1/mint", json={"title": "Relatório", "creators": ["Silva, M."]}).get_json()
    assert client.put(f"/api/v1/items/{item['ibip']}/files/a.pdf", data=PDF,
                      headers={"Content-Type": "application/pdf", "Authorization": f"Bearer {api_token}"}).status_code in (200, 201)
    traced = client.post("/trace", data={"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8"}, environ_base=USER)
    faulty = client.post("/trace", data={"url": "http://urlib.net/D7N2U8HW/3SNU8PS", "include_faulty": "y"},
                         environ_base=USER)  # garbled's answer, shown up to where it stops being a pair list
    log_in(client)
    return ["/", "/?q=8JMKD3MGP8W/35MMLL8", f"/archive/items/{item['ibip']}", f"/admin/items/{item['ibip']}",
            traced.headers["Location"], faulty.headers["Location"], "/?q=8JMKD3MGP8W/35MMLL8!!", "/trace/history", "/archives/health", "/api/docs", "/convert/prefixes",
            "/admin/archives", "/admin/conformance", "/admin/resolvers", "/mint", "/cite?ibi=8JMKD3MGP8W/3C9EP6P",
            "/D7N2U8HW/3GBBQK2"]


@pytest.mark.parametrize("lang", ["en", "pt-BR"])
def test_pages_have_valid_times_unique_ids_and_named_regions(client, pages, lang):
    times = []
    for path in pages:
        answer = client.get(path + ("&" if "?" in path else "?") + f"lang={lang}", environ_base=USER,
                            headers={"Accept": "text/html"})
        assert answer.status_code in (200, 400, 410), path
        markup = markup_of(answer.get_data(as_text=True))
        assert markup.report() == [], path
        times += markup.times
    assert len(times) >= 4 and any("T" in time for time in times)


@pytest.mark.parametrize("lang", ["en", "pt-BR"])
def test_a_checked_reference_list_has_one_of_each_id(client, lang):
    """The page's own form has a text field; the downloads post theirs again, without ids."""
    text = "1. <http://urlib.net/8JMKD3MGP8W/35MMLL8>\n2. (sid.inpe.br/mtc-m18@80/2009/02.16.17.46) <8JMKD3MGP3W34T/47E2TRB>\n"
    html = client.post("/references", data={"text": text}, query_string={"lang": lang}).get_data(as_text=True)
    assert markup_of(html).report() == []
    assert html.count('name="resolutions"') == 1 and html.count('formaction="/references.json"') == 1


def test_the_api_docs_code_blocks_are_reached_by_keyboard_and_named(client):
    html = client.get("/api/docs").get_data(as_text=True)
    markup = markup_of(html)
    assert len(markup.pres) > 20
    for pre in markup.pres:
        assert pre.get("tabindex") == "0" and pre.get("role") == "region", pre
        for name in pre["aria-labelledby"].split():
            assert f'id="{name}"' in html, name


def test_no_template_names_a_plain_element_without_a_role():
    """Every template, pages not reached above included: an aria-label on a div, p, pre, span or
    code goes with a role that may be named."""
    templates = Path(__file__).resolve().parents[2] / "templates"
    for template in templates.rglob("*.html"):
        for tag in re.findall(r"<(?:div|p|pre|span|code)\b[^>]*\baria-label=[^>]*>", template.read_text(encoding="utf-8")):
            assert "role=" in tag, (template.name, tag)
