"""The JSON API's page in Chromium: every operation reachable from its list, readable on a phone."""
from __future__ import annotations

from playwright.sync_api import expect

from .conftest import shoot


def test_the_footer_leads_to_the_docs_and_an_operation_link_to_its_section(page):
    page.goto("/")
    page.get_by_role("link", name="JSON API").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("IBI Portal API")
    page.get_by_role("link", name="/api/v1/convert/batch").click()
    section = page.locator("#convertBatch")
    expect(section).to_be_in_viewport()
    expect(section.get_by_role("heading", level=2)).to_contain_text("POST")
    expect(section.locator(".responses dt").first).to_contain_text("200")
    shoot(page, "api-docs-desktop")


def test_the_docs_page_on_a_phone(phone):
    phone.goto("/api/docs")
    phone.wait_for_load_state("load")
    expect(phone.get_by_role("heading", name="Schemas")).to_be_attached()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    shoot(phone, "api-docs-phone")
