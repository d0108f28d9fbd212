"""A hostile Archive in Chromium: its markup and scripts, sent over a real socket and
resolved by a real portal, are shown as text on the alert page and the trace page – no dialog
ever opens, no element of the Archive's making appears, the Content-Security-Policy is never
even tested (a violation would fail the test through the page fixture).

The shared ``live_server`` does not allow private Archives, so this module runs a portal of its
own on loopback (``ALLOW_PRIVATE_ARCHIVES``, no demo Archives) with one included Archive, the
hostile one, on another loopback port.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from ibiportal import create_app
from tests.reliability.faulty_archives import RawArchive, by_ibi, include

from .conftest import shoot
from tests.servers import fresh_sqlite, loopback_server

IMG = '"><img src=x id=archive-img onerror=alert(1)>'
SCRIPT = "<script>alert(2)</script>"
ANSWERS = {
    # Deleted, with markup in the timestamp the alert quotes.
    "8JMKD3MGP8W/35MMLL8": f"state Deleted\r\ntimestamp {{{IMG}{SCRIPT}}}\r\n".encode(),
    # A javascript: URL with markup: refused, and quoted by the alert.
    "8JMKD3MGP8W/34PGRBS": f"url javascript:alert(3)//{SCRIPT}\r\ntitle {{{IMG}}}\r\n".encode(),
    # Not a pair list at all: markup, control characters, non-ASCII bytes.
    "D7N2U8HW/3GBBQK2": b"<script>alert(4)</script>\x00\x1b[31m\xe9\xff{\r\n<img src=x onerror=alert(5)>",
    # A long URL without a break opportunity, quoted by the alert.
    "D7N2U8HW/39G4TD2": b"url ftp://archive.example/" + b"a" * 300 + b"\r\n",
}


@pytest.fixture(scope="module")
def hostile_portal(tmp_path_factory) -> Iterator[str]:
    with RawArchive(by_ibi(ANSWERS)) as archive:
        app = create_app({
            "DATABASE": fresh_sqlite(tmp_path_factory.mktemp("hostile") / "portal.sqlite"), "SECRET_KEY": "hostile",
            "DEMO_ARCHIVES": False, "ALLOW_PRIVATE_ARCHIVES": True,
        })
        include(app.config["DATABASE"], archive.address)
        server = loopback_server(app)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{server.server_port}"
        server.shutdown()
        thread.join()


@pytest.fixture
def dialogs(page: Page) -> list[str]:
    """Every alert/confirm/prompt the page would open (none may)."""
    opened: list[str] = []
    page.on("dialog", lambda dialog: (opened.append(dialog.message), dialog.dismiss()))
    return opened


def assert_nothing_of_the_archives_making(page: Page, dialogs: list[str]) -> None:
    assert dialogs == []
    assert page.locator("#archive-img").count() == 0
    assert page.locator("img[src='x']").count() == 0
    assert page.evaluate("[...document.scripts].every(s => s.src.includes('/static/'))")


def open_trace_page(page: Page) -> None:
    with page.expect_navigation():
        page.get_by_role("link", name="See every message the resolver sent and received").click()
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")


def show_deleted(view: Page, hostile_portal: str, opened: list[str], name: str) -> None:
    response = view.goto(f"{hostile_portal}/8JMKD3MGP8W/35MMLL8")
    assert response.status == 410
    expect(view.get_by_role("alert")).to_contain_text(f"{IMG}{SCRIPT}")
    assert_nothing_of_the_archives_making(view, opened)
    width = view.evaluate("document.documentElement.scrollWidth")
    assert width <= view.viewport_size["width"], f"the alert page scrolls sideways ({width}px)"
    shoot(view, name)


def test_a_deleted_answer_with_markup_is_text(hostile_portal, page: Page, dialogs):
    show_deleted(page, hostile_portal, dialogs, "hostile-alert-desktop")


def test_a_deleted_answer_with_markup_on_a_phone(hostile_portal, phone: Page):
    opened: list[str] = []
    phone.on("dialog", lambda dialog: (opened.append(dialog.message), dialog.dismiss()))
    show_deleted(phone, hostile_portal, opened, "hostile-alert-phone")
    phone.goto(f"{hostile_portal}/D7N2U8HW/39G4TD2")  # a long unbroken URL in the alert
    expect(phone.get_by_role("alert")).to_contain_text("ftp://archive.example/aaaa")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the alert page scrolls sideways ({width}px)"
    assert opened == []


def test_a_javascript_url_is_refused_and_shown(hostile_portal, page: Page, dialogs):
    response = page.goto(f"{hostile_portal}/8JMKD3MGP8W/34PGRBS")
    assert response.status == 502 and page.url == f"{hostile_portal}/8JMKD3MGP8W/34PGRBS"
    expect(page.get_by_role("alert")).to_contain_text(f"javascript:alert(3)//{SCRIPT}")
    expect(page.get_by_role("alert")).to_contain_text("javascript: is not http or https")
    open_trace_page(page)
    expect(page.locator("pre.raw").filter(has_text=IMG).first).to_be_visible()
    assert_nothing_of_the_archives_making(page, dialogs)


def test_garbage_is_shown_with_its_control_characters_made_visible(hostile_portal, page: Page, dialogs):
    page.goto(f"{hostile_portal}/D7N2U8HW/3GBBQK2")
    open_trace_page(page)
    raw = page.locator("pre.raw").filter(has_text="<script>alert(4)</script>").first
    expect(raw).to_be_visible()
    expect(raw).to_contain_text("<img src=x onerror=alert(5)>")
    assert "\x00" not in raw.inner_text() and "\x1b" not in raw.inner_text()
    assert_nothing_of_the_archives_making(page, dialogs)
    shoot(page, "hostile-trace-desktop")
