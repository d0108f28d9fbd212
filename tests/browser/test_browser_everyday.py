"""Everyday use in Chromium, each at 1280 px and at 390 px: the portal's own error pages, ..."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import shoot

WIDTHS = ["page", "phone"]  # the fixtures of tests/browser/conftest.py: 1280 px and 390 px


@pytest.fixture(scope="module")
def browser(full_chromium):
    """This walk runs in the whole browser a reader has (``/usr/bin/chromium``); the other browser
    tests in its headless shell, the same engine (``tests/browser/chromium.py``)."""
    return full_chromium


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


# -- why not found -------------------------------------------------------------------------------

EXCLUDED_IP = "203.0.113.77"  # TEST-NET-3: an address only this test registers an Archive at


@pytest.fixture
def excluded_archive(live_server):
    """An Archive registered at EXCLUDED_IP that excluded itself (not asked: other tests unaffected)."""
    from datetime import datetime, timezone

    from ibiportal.protocol.messages import RegistrationKey
    from ibiportal.protocol.registry import ArchiveDetails, Confirmation, KeyHash
    from ibiportal.storage.registry import ArchiveStore

    storage = live_server.storage()
    store, now, service_ibi = ArchiveStore(storage), datetime.now(timezone.utc), "LK47B6W/3GUU2NL"
    store.register_archive(service_ibi, KeyHash.of(RegistrationKey("1234567890")), now)
    details = ArchiveDetails(EXCLUDED_IP, EXCLUDED_IP, "URLib 2.1", "admin@example.org")
    store.record_inclusion(service_ibi, details, Confirmation(True, "confirmation yes"), now)
    store.record_exclusion(service_ibi, now)
    yield service_ibi
    store.remove_archive(service_ibi)
    storage.close()


def test_the_alert_page_says_why_not_found_and_what_next(any_page: Page):
    response = any_page.goto("/8JMKD3MGP8W/34PGRBS")
    assert response.status == 404
    why = any_page.get_by_role("region", name="Why it was not found")
    expect(why).to_contain_text("the IBIp prefix 8JMKD3MGP8W encodes IP 150.163.34.243, port 800")
    expect(why).to_contain_text("none: no Archive at 150.163.34.243")
    expect(why.locator("ol.next-steps li").first).to_contain_text(
        "No Archive at 150.163.34.243 (mtc-m18.sid.inpe.br) is registered with this resolver")
    no_sideways_scroll(any_page)
    shoot(any_page, f"why-not-found-alert-{any_page.width_name}")


def test_the_trace_page_names_the_excluded_archive(any_page: Page, excluded_archive):
    from ibiportal.ibi.ibip import ibip_prefix

    any_page.goto(f"/trace?url=http://urlib.net/{ibip_prefix(EXCLUDED_IP)}/34PGRBS")
    with any_page.expect_navigation():
        any_page.get_by_role("button", name="Trace", exact=True).click()
    why = any_page.get_by_role("region", name="Why it was not found")
    expect(why).to_contain_text(f"{excluded_archive} at {EXCLUDED_IP}")
    expect(why.locator("ol.next-steps li").first).to_contain_text(re.compile(
        rf"The Archive {re.escape(excluded_archive)} at {re.escape(EXCLUDED_IP)} was excluded on "
        r"\d{4}-\d\d-\d\d \d\d:\d\d UTC \(its history says: switched off\), so the resolver no longer asks it"))
    no_sideways_scroll(any_page)
    shoot(any_page, f"why-not-found-trace-{any_page.width_name}")


# -- Archive health ------------------------------------------------------------------------------

def test_the_archive_health_page(any_page: Page):
    any_page.goto("/8JMKD3MGP8W/34PGRBS")  # at least one trace kept
    any_page.goto("/archives/health")
    expect(any_page.get_by_role("heading", name="Archive health", level=1)).to_be_visible()
    table = any_page.get_by_role("table")
    expect(table.get_by_role("row", name="mtc-m16c")).to_contain_text("demo, in-process")
    expect(table.get_by_role("columnheader", name="Median")).to_be_attached()
    no_sideways_scroll(any_page)  # the table scrolls inside its own region on a phone
    shoot(any_page, f"archive-health-{any_page.width_name}")


# -- Post/Redirect/Get for minting ---------------------------------------------------------------

def test_reloading_a_mint_result_never_mints_again_and_mint_more_is_empty(any_page: Page, live_server):
    import re

    from ibiportal.storage.identifiers import IdentifierStore

    def minted() -> int:
        storage = live_server.storage()
        try:
            return len(IdentifierStore(storage).minted_items())
        finally:
            storage.close()

    any_page.goto("/mint")
    any_page.get_by_label("Title").fill("Reloaded report")
    any_page.get_by_role("button", name="Mint", exact=True).click()
    expect(any_page).to_have_url(re.compile(r"/mint/result/[A-Za-z0-9_-]+$"))
    expect(any_page.get_by_role("heading", name="Minted 1 identifier")).to_be_visible()
    before = minted()
    any_page.reload()
    expect(any_page.get_by_role("heading", name="Minted 1 identifier")).to_be_visible()
    assert minted() == before
    expect(any_page.get_by_role("heading", name="Mint more")).to_be_visible()
    expect(any_page.get_by_label("Title")).to_have_value("")
    no_sideways_scroll(any_page)


# -- administrators ------------------------------------------------------------------------------

def test_after_registering_the_admin_gets_the_inclusion_request_and_refused_is_not_failed(any_page: Page, live_server):
    from ibiportal.storage.registry import ArchiveStore

    from .conftest import log_in

    service_ibi = "LK47B6W/3GUU2NP" if any_page.width_name == "desktop" else "LK47B6W/3GUU2NQ"
    log_in(any_page)
    any_page.goto("/admin/archives")
    any_page.get_by_label("Archive service IBI").fill(service_ibi)
    any_page.get_by_label("Registration key").fill("1234567890-1234567890")
    with any_page.expect_navigation():  # its scripts loaded before Copy is pressed
        any_page.get_by_role("button", name="Register").click()
    try:
        expect(any_page.get_by_role("heading", name="Archive registered")).to_be_visible()
        assert any_page.url.endswith(f"/admin/archives/{service_ibi}/registered")
        expect(any_page.locator("#resolver-service-url")).to_have_text(f"{live_server.url}/J8LNKB5R7W/3FUQHC5")
        any_page.get_by_text("The eight pairs (Table 7.2)").click()
        expect(any_page.get_by_role("table").get_by_role("row")).to_have_count(1 + 8)  # all eight pairs of Table 7.2
        curl = any_page.locator("#inclusion-curl")
        expect(curl).to_contain_text("servicesubject=inclusionRequest")
        expect(curl).to_contain_text('"registrationkey=$REGISTRATION_KEY"')
        any_page.get_by_role("button", name="Copy the lines").click()
        copied = any_page.evaluate("navigator.clipboard.readText()")
        assert copied.startswith("ARCHIVE_ADDRESS=") and f"curl --get '{live_server.url}/J8LNKB5R7W/3FUQHC5'" in copied
        no_sideways_scroll(any_page)
        shoot(any_page, f"admin-registered-instructions-{any_page.width_name}")
    finally:
        storage = live_server.storage()
        ArchiveStore(storage).remove_archive(service_ibi)
        storage.close()
    any_page.goto("/admin/conformance")
    any_page.get_by_label("Archive service address").fill("http://127.0.0.1:9/8JMKD3MGP8W/35MMLL8")
    any_page.get_by_role("button", name="Run the check").click()
    expect(any_page.locator("p.summary")).to_contain_text("Not checked (refused to contact 127.0.0.1:9)")
    expect(any_page.locator("p.summary")).to_contain_text("0 failed")
    expect(any_page.locator("#rule-confirmation")).to_contain_text("not checked")
    no_sideways_scroll(any_page)


# -- layout: the navigation and the trace diagram --------------------------------------------------

def test_every_navigation_link_is_on_screen_for_an_administrator(any_page: Page):
    from .conftest import log_in

    log_in(any_page)
    any_page.goto("/")
    width = any_page.evaluate("window.innerWidth")
    links = any_page.get_by_role("navigation", name="Main").get_by_role("link")
    expect(links.last).to_have_text("Archives")  # the administrators' link comes last
    for link in links.all():
        box = link.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, link.inner_text()
    no_sideways_scroll(any_page)
    shoot(any_page, f"navigation-{any_page.width_name}")


def lane_names_inside(page: Page) -> list[str]:
    """The lifeline names whose slanted text leaves the diagram's picture (clipped)."""
    return page.evaluate("""() => {
        const svg = document.querySelector('.seq-head svg').getBoundingClientRect();
        return [...document.querySelectorAll('.seq-head text.name')]
            .filter(t => { const r = t.getBoundingClientRect();
                           return r.right > svg.right + 0.5 || r.top < svg.top - 0.5; })
            .map(t => t.textContent);
    }""")


@pytest.mark.parametrize("faulty", [False, True])
def test_the_trace_diagram_shows_every_lane_at_1280_px(page: Page, faulty: bool):
    extra = "&include_faulty=y" if faulty else ""
    page.goto(f"/trace?url=http://urlib.net/8JMKD3MGP8W/34PGRBS&archives=demo{extra}")
    with page.expect_navigation():
        page.get_by_role("button", name="Trace", exact=True).click()
    box = page.locator(".seq-scroll")
    assert box.evaluate("el => el.scrollWidth <= el.clientWidth"), "the diagram scrolls at 1280 px"
    assert lane_names_inside(page) == []
    expect(page.locator(".seq-hint")).to_be_hidden()
    shoot(page, f"trace-diagram-desktop{'-faulty' if faulty else ''}")


def test_the_trace_diagram_scrolls_with_a_visible_hint_on_a_phone(phone: Page):
    phone.goto("/trace?url=http://urlib.net/8JMKD3MGP8W/34PGRBS&archives=demo")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Trace", exact=True).click()
    box = phone.locator(".seq-scroll")
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")
    expect(phone.locator(".seq-hint")).to_be_visible()
    expect(phone.locator(".seq-hint")).to_contain_text("scroll the diagram sideways")
    assert lane_names_inside(phone) == []
    no_sideways_scroll(phone)


# -- forms: dates as written, labels, focus, announcements, the reading of a name -----------------

def test_mint_form_reads_a_brazilian_date_notes_the_name_reading_and_moves_focus(any_page: Page):
    any_page.goto("/mint")
    any_page.get_by_label("Title").fill("Relatório de campo")
    any_page.get_by_label("Creators (one per line)").fill("Maria da Silva")
    any_page.get_by_label("Date of the item").fill("30/11/2023")
    any_page.get_by_role("button", name="Mint", exact=True).click()
    heading = any_page.get_by_role("heading", name="Minted 1 identifier")
    expect(heading).to_be_focused()
    card = any_page.locator("article.minted")
    expect(card).to_contain_text("2023-11-30")
    note = card.locator(".creator-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("“Maria da Silva” has no comma, so it was read as family name “Silva”")
    no_sideways_scroll(any_page)
    shoot(any_page, f"mint-date-and-name-{any_page.width_name}")


def test_mint_form_errors_use_labels_are_announced_and_take_the_focus(any_page: Page):
    any_page.goto("/mint")
    any_page.get_by_label("Date of the item").fill("30-11-2023")
    any_page.get_by_label("Target URL").fill("ftp://example.org/x")
    any_page.get_by_role("button", name="Mint", exact=True).click()
    expect(any_page.get_by_role("alert")).to_contain_text("Nothing was minted: correct these fields: Date of the item, Target URL.")
    expect(any_page.get_by_label("Date of the item")).to_be_focused()  # the first field with an error
    expect(any_page.locator("#date-error")).to_contain_text("Date of the item '30-11-2023' must be")
    expect(any_page.locator("#target_url-error")).to_contain_text("Target URL")
    no_sideways_scroll(any_page)
    shoot(any_page, f"mint-errors-{any_page.width_name}")


# -- batch conversion ------------------------------------------------------------------------------

def test_a_batch_with_a_malformed_csv_line_keeps_the_users_columns_and_fits(any_page: Page, tmp_path):
    import csv
    import io

    upload = tmp_path / "catalogue.csv"
    upload.write_text('title;ibi;shelf\r\nReport;8JMKD3MGP8W/34PGRBS;A1\r\nBroken;"8JMKD3MGP8W/35MMLL8"x;A2\r\n'
                      "Edition;8JMKD3MGP8W/35MMLL8;A3\r\nLast;8JMKD3MGP8W/3C9EP6P;A4\r\nBad;8JMKD3MGP8W/34PGRBV;A5\r\n",
                      encoding="utf-8")
    any_page.goto("/convert")
    any_page.get_by_label("Or a CSV file").set_input_files(str(upload))
    any_page.get_by_role("button", name="Convert all").click()
    rows = any_page.locator(".batch-table tbody tr")
    expect(rows).to_have_count(5)
    expect(rows.nth(1).locator("td.error")).to_contain_text("this CSV record cannot be read")
    expect(any_page.locator(".counts")).to_contain_text("3 converted")
    # The note every 8JMKD3MGP8W row shares is said once, above the table, and not on the rows.
    common = any_page.locator(".common-notes")
    expect(common).to_contain_text("8JMKD3MGP8W has 2 known repository-name spellings")
    expect(any_page.locator(".batch-table td.note", has_text="known repository-name spellings")).to_have_count(0)
    width = any_page.evaluate("window.innerWidth")
    for cell in any_page.locator(".batch-table td.error").all():  # the error column is on screen
        box = cell.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert any_page.locator(".batch-result .table-scroll").evaluate("el => el.scrollWidth <= el.clientWidth")
    if any_page.width_name == "phone":  # one card per row
        assert rows.first.evaluate("el => getComputedStyle(el).display") == "block"
    no_sideways_scroll(any_page)
    shoot(any_page, f"convert-batch-csv-{any_page.width_name}")
    with any_page.expect_download() as waiting:
        any_page.get_by_role("button", name="Download CSV").click()
    table = list(csv.DictReader(io.StringIO(waiting.value.path().read_text(encoding="utf-8"), newline="")))
    assert [row["shelf"] for row in table] == ["A1", "", "A3", "A4", "A5"]  # the user's columns, kept
    assert [row["title"] for row in table] == ["Report", "", "Edition", "Last", "Bad"]
    assert "cannot be read" in table[1]["error"]
