"""Check references in Chromium, at 1280 px and 390 px: paste a real reference list, see the table
with each IBI's line highlighted, check resolution on demand, download CSV; upload a .bib."""
from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.conftest import shoot

DATA = Path(__file__).resolve().parent.parent / "data"
REFERENCES = (DATA / "references.txt").read_text(encoding="utf-8")
#: §10.1's item, which the demo Archives hold, and the standard's Example 2 in a printed reference.
DEMO = ("Banon, G. Example. IBI: <8JMKD3MGP8W/35MMLL8>. Disponível em: <http://urlib.net/ibi/8JMKD3MGP8W/35MMLL8>.\n"
        "(sid.inpe.br/mtc-m18@80/2009/02.16.17.46-NTC). doi: 10.1109/ACCESS.2020.2997019\n")


def find(page: Page, text: str) -> None:
    page.goto("/references")
    page.get_by_label("References").fill(text)
    page.get_by_role("button", name="Find IBIs").click()
    page.wait_for_load_state()


def no_sideways_scroll(page: Page, width: int) -> None:
    page.wait_for_load_state()
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_a_reference_list_at_desktop_width(page, tmp_path):
    find(page, REFERENCES)
    expect(page.get_by_role("heading", name="12 IBIs found")).to_be_visible()
    table = page.locator("table.found-table")
    expect(table.locator("tbody tr")).to_have_count(12)
    first = table.locator("tbody tr").nth(1)
    expect(first.locator("mark")).to_have_text("sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC")
    expect(first).to_contain_text("8JMKD3MGP3W34T/47AF772")
    expect(first).to_contain_text("report-number suffix")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download CSV").click()
    saved = tmp_path / "found.csv"
    download.value.save_as(saved)
    assert saved.read_text(encoding="utf-8").count("\n") == 13
    no_sideways_scroll(page, 1280)
    shoot(page, "references-desktop")


def test_resolution_is_checked_on_demand(page):
    find(page, DEMO)
    expect(page.get_by_role("heading", name="3 IBIs found")).to_be_visible()
    page.get_by_role("button", name="Check resolution").click()
    outcomes = page.locator("td.check .outcome")
    expect(outcomes.nth(0)).to_have_text("resolves", timeout=20_000)
    expect(outcomes.nth(1)).to_have_text("resolves", timeout=20_000)
    expect(outcomes.nth(2)).not_to_have_text("checking…", timeout=20_000)  # §1's Example 2: held by no demo Archive
    expect(outcomes.nth(2)).to_have_class("outcome bad")
    link = page.locator("td.check a").first
    expect(link).to_have_attribute("href", __import__("re").compile(r"^/trace/[\w-]+$"))


def test_phone_width_and_a_bib_upload(phone, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text((DATA / "references.bib").read_text(encoding="utf-8"), encoding="utf-8")
    phone.goto("/references")
    phone.get_by_label("Or a file").set_input_files(str(bib))
    phone.get_by_role("button", name="Find IBIs").click()
    phone.wait_for_load_state()
    expect(phone.get_by_role("heading", name="5 IBIs found")).to_be_visible()
    expect(phone.locator("table.found-table tbody tr")).to_have_count(5)
    no_sideways_scroll(phone, 390)  # the table scrolls inside its own region
    shoot(phone, "references-phone")
