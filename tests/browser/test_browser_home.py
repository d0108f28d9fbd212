"""The home page's box in the browser: each kind of input, the actions that follow, errors, a phone."""
from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .conftest import shoot


def look_up(page: Page, text: str) -> None:
    page.get_by_label("IBI or persistent URL").fill(text)
    page.get_by_role("button", name="Look up").click()


def action(page: Page, name: str):
    """An action of the result ("What next"), not the navigation's link of the same name."""
    return page.get_by_role("list", name="What next").get_by_role("link", name=name, exact=True)


def test_an_ibip_is_recognised_and_converts_to_the_repository_name(page):
    page.goto("/")
    expect(page.get_by_role("heading", name="Identifiers that outlive addresses")).to_be_visible()
    look_up(page, "8JMKD3MGP8W/34PGRBS")
    expect(page.get_by_role("heading", name="This is an IBI in IBIp form")).to_be_visible()
    expect(page.locator(".recognised .card")).to_contain_text("sid.inpe.br/mtc-m18@80/2009/02.16.17.46")
    shoot(page, "home-desktop")
    action(page, "Convert").click()
    expect(page).to_have_url(re.compile(r"/convert\?ibi=8JMKD3MGP8W%2F34PGRBS$"))
    expect(page.get_by_label("IBI (either form)")).to_have_value("8JMKD3MGP8W/34PGRBS")
    expect(page.locator("main")).to_contain_text("sid.inpe.br/mtc-m18@80/2009/02.16.17.46")


def test_a_repository_name_opens_compose_with_its_ibi(page):
    page.goto("/")
    look_up(page, "sid.inpe.br/mtc-m18@80/2009/02.16.17.46")
    expect(page.get_by_role("heading", name="This is an IBI in repository-name form")).to_be_visible()
    expect(page.locator(".recognised .card")).to_contain_text("8JMKD3MGP8W/34PGRBS")
    action(page, "Compose").click()
    expect(page).to_have_url(re.compile(r"/compose\?"))
    expect(page.locator("#ibi")).to_have_value("sid.inpe.br/mtc-m18@80/2009/02.16.17.46")


def test_a_persistent_url_with_modifiers_is_parsed_and_traced(page, live_server):
    page.goto("/")
    url = "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"
    look_up(page, url)
    expect(page.get_by_role("heading", name="This is a persistent URL")).to_be_visible()
    card = page.locator(".recognised .card")
    expect(card).to_contain_text("Metadata, in oai_dc, of the last edition of the item 8JMKD3MGP8W/35MMLL8.")
    expect(card).to_contain_text("http://urlib.net/")
    # The one-click trace is a POST to /trace with the CSRF token and the URL (the trace page's contract).
    trace = page.locator('form[action="/trace"]')
    expect(trace).to_have_attribute("method", "post")
    expect(trace.locator('input[name="url"]')).to_have_value(url)
    expect(trace.locator('input[name="csrf_token"]')).to_have_value(re.compile(r".{20,}"))
    expect(trace.get_by_role("button", name="Trace")).to_be_visible()
    action(page, "Parse").click()
    expect(page.get_by_label("Persistent URL")).to_have_value(url)
    expect(page.locator("main")).to_contain_text("GetLastEdition")


def test_a_host_less_url_resolves_on_this_portal(page, live_server):
    page.goto("/")
    look_up(page, "/D7N2U8HW/39G4TD2!")
    expect(page.get_by_role("heading", name="This is a persistent URL")).to_be_visible()
    expect(page.locator(".recognised .card")).to_contain_text(f"{live_server.url}/D7N2U8HW/39G4TD2!")
    action(page, "Resolve").click()
    # The last edition of the demo edition chain (edition-a -> edition-b -> edition-c).
    expect(page).to_have_url(re.compile(r"/demo/archives/edition-c/"))


def test_classification_as_you_type_and_errors_next_to_the_box(page):
    page.goto("/")
    box = page.get_by_label("IBI or persistent URL")
    box.fill("8JMKD3MGP8W/35MMLL8!")
    expect(page.locator("#q-live")).to_have_text(re.compile(r"^Looks like a persistent URL"))
    box.fill("8JMKD3MGP8W/35MMLL8!!")
    expect(page.locator("#q-live")).to_have_text(re.compile(r"^Not recognised yet: .*at character 21"))
    page.keyboard.press("Enter")
    expect(page.locator("#q-error")).to_contain_text("the last edition is asked once (Table 8.1) (at character 21)")
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(page.locator(".where mark")).to_have_text("!")
    shoot(page, "home-error-desktop")


def test_examples_are_one_click_and_the_page_fits_a_phone(phone):
    phone.goto("/")
    shoot(phone, "home-phone-landing")
    phone.get_by_role("link", name="http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)").click()
    expect(phone.get_by_role("heading", name="This is a persistent URL")).to_be_visible()
    phone.wait_for_load_state()  # stylesheets included: layout is measured
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    shoot(phone, "home-phone")


def test_the_box_works_from_the_keyboard(page):
    page.goto("/")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.keyboard.press("Enter")
    # Skip to content, then the first control of the page is the box.
    page.keyboard.press("Tab")
    expect(page.get_by_label("IBI or persistent URL")).to_be_focused()
    page.keyboard.type("LK47B6W/362SFKH")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="This is an IBI in IBIp form")).to_be_visible()
    expect(page.locator(".recognised .card")).to_contain_text("iconet.com.br/banon/2009/09.09.22.01")
