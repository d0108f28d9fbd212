"""Markup is text in every page, citation and export (security issue 39): an item minted with
``<script>`` and ``"><img onerror>`` in every field it has, and the same typed into the pages that
show what was typed, opened in Chromium against the portal on a loopback port. The Content-Security
Policy would stop an injected script from running, so the proof is not "no alert": it is that the
page holds no element the payloads would make, and shows each payload as the text it is. Every
download carrying the fields is an attachment of a type no browser renders as a page."""
from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote

import pytest
import requests
from playwright.sync_api import Page

from ibiportal import create_app
from tests.browser.chromium import CHROMIUM_ARGS, HEADLESS_SHELL
from tests.servers import fresh_sqlite, loopback_server

#: Each payload makes an element with an ``id`` of its own if it is ever read as markup.
SCRIPT = "<script id=xss-script>alert(1)</script>"
IMG = '"><img src=x id=xss-img onerror=alert(2)>'
SVG = "'><svg id=xss-svg onload=alert(3)>"
TITLE = f"{SCRIPT}{IMG}"
CREATOR = f"Evil, {SVG}"
INJECTED = "#xss-script, #xss-img, #xss-svg, #xss-url, #xss-typed"
PASSWORD = "a long enough password"


@dataclass
class Portal:
    url: str
    item: dict
    trace: str


@pytest.fixture(scope="module")
def portal(tmp_path_factory) -> Iterator[Portal]:
    app = create_app({"DATABASE": fresh_sqlite(tmp_path_factory.mktemp("markup") / "portal.sqlite"), "SECRET_KEY": "t",
                      "SESSION_COOKIE_SECURE": False, "RATELIMIT_ENABLED": False})
    assert app.test_cli_runner().invoke(args=["admin", "set-password", "ada", "--password", PASSWORD]).exit_code == 0
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    item = requests.post(f"{url}/api/v1/mint", json={
        "title": TITLE, "creators": [CREATOR, SCRIPT], "publisher": IMG, "place": SVG, "item_type": "report",
        "report_number": IMG, "language": "en"}).json()
    assert "ibip" in item, item
    trace = requests.post(f"{url}/api/v1/trace", json={"url": f"{url}/{item['ibip']}/{quote(IMG)}"}).json()["id"]
    yield Portal(url, item, trace)
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser(portal, playwright_driver) -> Iterator[Page]:
    """One Chromium page, logged in as the administrator through the login form."""
    chromium = playwright_driver.chromium.launch(executable_path=HEADLESS_SHELL, args=CHROMIUM_ARGS)
    page = chromium.new_context(base_url=portal.url).new_page()
    page.on("dialog", lambda dialog: pytest.fail(f"a dialog opened: {dialog.message}"))
    page.goto("/admin/login")
    page.fill("#username", "ada")
    page.fill("#password", PASSWORD)
    with page.expect_navigation():
        page.click("button[type=submit]")
    yield page
    chromium.close()


def assert_text_not_markup(page: Page, *shown: str) -> None:
    assert page.locator(INJECTED).count() == 0, page.url
    text = page.locator("body").inner_text()
    for payload in shown:
        assert payload in text, (page.url, payload)


def pages(portal: Portal) -> list[tuple[str, tuple[str, ...]]]:
    """Each page showing the item's fields, and which payloads it must show as text."""
    ibip, rep = portal.item["ibip"], portal.item["rep"]
    return [
        (f"/archive/items/{ibip}", (TITLE,)),
        (f"/archive/items/{ibip}/files", ()),
        (f"/cite?ibi={ibip}", (SCRIPT, IMG)),
        (f"/admin/items/?q={quote(TITLE)}", ()),
        (f"/admin/items/{ibip}", ()),
        (f"/admin/items/{ibip}/delete", (TITLE,)),
        (f"/admin/items/{ibip}/files/delete?path={quote(IMG)}", ()),
        (f"/trace/{portal.trace}", ()),
        ("/trace/history", ()),
        ("/api/docs", ()),
        (f"/?q={quote(TITLE)}", (TITLE,)),
        (f"/convert?ibi={quote(TITLE)}", ()),
        (f"/parse?url={quote(TITLE)}", ()),
        (f"/compose?ibi={ibip}&filepath={quote(IMG)}", ()),
        (f"/trace?url={quote(TITLE)}", ()),
        (f"/col/{rep}/doc/{quote(IMG)}", ()),
        (f"/{quote(TITLE)}", ()),
        (f"/admin/archives/{quote(TITLE)}", ()),
    ]


def test_every_page_shows_the_fields_as_text(portal, browser):
    for path, shown in pages(portal):
        response = browser.goto(path)
        assert response.status < 500, path
        assert_text_not_markup(browser, *shown)


def test_the_admin_form_holds_the_fields_as_values(portal, browser):
    browser.goto(f"/admin/items/{portal.item['ibip']}")
    assert browser.locator("#title").input_value() == TITLE
    assert_text_not_markup(browser)


def test_what_is_typed_into_a_form_comes_back_as_text(portal, browser):
    browser.goto("/references")
    browser.fill("textarea", f"{TITLE} IBI: <{portal.item['ibip']}>. <b id=xss-typed>x</b>")
    with browser.expect_navigation():
        browser.click("form[method=post] button[type=submit]")
    assert_text_not_markup(browser)
    browser.goto("/mint")
    browser.fill("#title", TITLE)
    with browser.expect_navigation():
        browser.click("form[method=post] button[type=submit]")
    assert_text_not_markup(browser, TITLE)


DOWNLOADS = ["/cite.bib?ibi={ibip}", "/cite.ris?ibi={ibip}", "/cite.json?ibi={ibip}",
             "/archive/items/{ibip}/oai_dc.xml", "/api/v1/cite?ibi={ibip}", "/api/v1/items/{ibip}",
             "/trace/{trace}.json"]


@pytest.mark.parametrize("path", DOWNLOADS)
def test_every_export_is_of_a_type_no_browser_renders_as_a_page(portal, path):
    answer = requests.get(portal.url + path.format(ibip=portal.item["ibip"], trace=portal.trace))
    assert answer.status_code == 200
    kind = answer.headers["Content-Type"].split(";")[0]
    assert "html" not in kind and kind != "image/svg+xml" and answer.headers["X-Content-Type-Options"] == "nosniff"
    if kind not in ("application/json", "application/xml"):  # the JSON API and the Archive's own XML
        assert answer.headers["Content-Disposition"].startswith("attachment")
    if kind == "application/xml":  # shown by a browser as a tree: its markup must be escaped
        assert "<script" not in answer.text and "&lt;script" in answer.text


@pytest.mark.parametrize("path, data", [
    ("/references.csv", {"text": f"{TITLE} IBI: <8JMKD3MGP8W/34PGRBS>."}),
    ("/references.json", {"text": f"{TITLE} IBI: <8JMKD3MGP8W/34PGRBS>."}),
    ("/convert/batch.csv", {"download-kind": "lines", "download-text": TITLE}),
])
def test_every_table_download_is_an_attachment_not_a_page(portal, path, data):
    client = requests.Session()
    form = client.get(f"{portal.url}/references").text
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', form)[1]
    answer = client.post(portal.url + path, data={**data, "csrf_token": token})
    assert answer.status_code == 200, answer.text[:200]
    kind = answer.headers["Content-Type"].split(";")[0]
    assert kind in ("text/csv", "application/json") and answer.headers["Content-Disposition"].startswith("attachment")
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
