"""Everyday use in Chromium, each at 1280 px and at 390 px: the portal's own error pages, ..."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .conftest import shoot

WIDTHS = ["page", "phone"]  # the fixtures of tests/browser/conftest.py: 1280 px and 390 px


@pytest.fixture(params=WIDTHS)
def any_page(request) -> Page:
    """The desktop page, then the phone one."""
    page = request.getfixturevalue(request.param)
    page.width_name = "desktop" if request.param == "page" else "phone"  # type: ignore[attr-defined]
    return page


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


# -- every error is the portal's --------------------------------------------------------------

def test_a_path_that_is_no_ibi_gets_the_portals_page_with_the_parsers_reason(any_page: Page):
    response = any_page.goto("/8JMKD3MGP8W")
    assert response.status == 404
    expect(any_page.get_by_role("heading", level=1)).to_contain_text("Not found (404)")
    alert = any_page.get_by_role("alert")
    expect(alert).to_contain_text("There is no page /8JMKD3MGP8W on this portal, and it is not a persistent URL:")
    expect(alert).to_contain_text("of path")
    expect(any_page.get_by_label("Paste an IBI or a persistent URL")).to_be_visible()
    no_sideways_scroll(any_page)
    shoot(any_page, f"error-404-{any_page.width_name}")


def test_a_malformed_persistent_url_gets_the_parsers_message(any_page: Page):
    response = any_page.goto("/8JMKD3MGP8W/34PGRBS!!")
    assert response.status == 400
    expect(any_page.get_by_role("alert")).to_contain_text("at character")
    expect(any_page.locator("nav[aria-label=Main]")).to_be_visible()
