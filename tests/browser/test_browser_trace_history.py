"""The trace history in Chromium at 1280 and 390 px: find traces by IBI, tick two, compare them."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import LiveServer, shoot, sized_page
from tests.servers import fresh_sqlite

FOUND = "http://urlib.net/8JMKD3MGP8W/35MMLL8"
DELETED = "http://urlib.net/D7N2U8HW/3GBBQK2"


@pytest.fixture(scope="module")
def portal(tmp_path_factory) -> Iterator[LiveServer]:
    """A portal of this module's own: its history holds only the traces these tests make."""
    server = LiveServer(fresh_sqlite(tmp_path_factory.mktemp("history") / "portal.sqlite"))
    server.thread.start()
    yield server
    server.server.shutdown()


@pytest.fixture(params=["desktop", "phone"])
def any_page(request, browser, portal) -> Iterator[Page]:
    yield from sized_page(browser, portal, request.param)


def traced(page: Page, url: str) -> str:
    response = page.request.post("/api/v1/trace", data={"url": url, "archives": "demo"})
    assert response.ok
    return response.json()["id"]


def test_find_by_ibi_tick_two_and_compare(any_page: Page):
    page = any_page
    older, _, newer = traced(page, DELETED), traced(page, FOUND), traced(page, DELETED)
    page.goto("/trace")
    page.get_by_role("link", name=re.compile("Trace history")).click()
    page.get_by_label("IBI").fill("D7N2U8HW/3GBBQK2")
    page.get_by_label("Outcome").select_option("deleted")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_role("heading", level=2)).to_contain_text("traces: D7N2U8HW/3GBBQK2")
    expect(page.locator("table.history tbody tr")).not_to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    page.locator(f"#pick-{newer}").check()
    page.locator(f"#pick-{older}").check()
    shoot(page, f"trace-history-{page.width_name}")
    page.get_by_role("button", name="Compare the two ticked").click()
    expect(page).to_have_url(re.compile(rf"/trace/{newer}\?compare={older}#compare$"))
    expect(page.get_by_role("heading", name=re.compile("Compared with the earlier run"))).to_be_visible()
    expect(page.locator("#compare")).to_contain_text("Same outcome")


def test_one_ticked_is_told_and_kept(page_desktop: Page):
    page = page_desktop
    traced(page, FOUND)
    page.goto("/trace/history?outcome=found")
    page.get_by_role("checkbox").first.check()
    page.get_by_role("button", name="Compare the two ticked").click()
    alert = page.get_by_role("alert")
    expect(alert).to_have_text("Tick exactly two traces to compare them (1 ticked).")
    expect(page.get_by_role("checkbox").first).to_be_checked()
    expect(page.get_by_label("Outcome")).to_have_value("found")


@pytest.fixture
def page_desktop(browser, portal) -> Iterator[Page]:
    yield from sized_page(browser, portal, "desktop")
