"""The Convert page in the browser: one identifier's anatomy, a batch pasted or uploaded and
downloaded as CSV, the prefix table with an administrator adding a pair, phone width, keyboard."""
from __future__ import annotations

import csv
import io

from playwright.sync_api import Page, expect

from .conftest import PHONE, hold_timers, shoot

# The standard's worked example (STANDARD.md §1.2, §1.4).
REP = "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"
IBIP = "8JMKD3MGP8W/34PGRBS"
BAD = "8JMKD3MGP8W/34PGRBV"  # V is not in the IBIp alphabet (Table 7.1): character 19


def anatomy_row(page: Page, title: str):
    return page.locator(".anatomy-row").filter(has=page.get_by_role("heading", name=title, exact=True))


def assert_no_sideways_scroll(page: Page) -> None:
    page.wait_for_load_state()  # stylesheets included: layout is measured
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways on a phone ({width}px)"


def test_one_identifier_shows_its_anatomy(page):
    page.goto("/convert")
    page.get_by_label("IBI (either form)").fill(REP)
    page.get_by_role("button", name="Convert", exact=True).click()
    ibip_card = page.locator(".form-ibip")
    expect(ibip_card.locator(".strip")).to_have_text(IBIP)
    expect(page.locator(".form-rep .strip")).to_have_text(REP)
    expect(page.locator(".form-rep")).to_contain_text("your input")

    server = anatomy_row(page, "Server")
    expect(server.locator(".cell-rep .pieces li")).to_have_text(["sid.inpe.br subdomain", "mtc-m18 word"])
    expect(server.locator(".cell-rep .meaning")).to_have_text("→ host mtc-m18.sid.inpe.br")
    expect(server.locator(".cell-ibip .pieces li")).to_have_text(["8JMKD3MGP8 coded IP", "W IPv4 marker"])
    expect(server.locator(".cell-ibip .meaning")).to_have_text("→ IP 150.163.34.243")
    expect(server.locator(".link")).to_have_text("the same server: a known prefix pair")

    port = anatomy_row(page, "Port")
    expect(port.locator(".cell-rep .pieces li")).to_have_text(["@80 port"])
    expect(port.locator(".cell-rep .meaning")).to_have_text("→ port 80")
    expect(port.locator(".cell-ibip .meaning")).to_have_text("→ port 800")
    expect(port.locator(".cell-ibip .note")).to_contain_text("800 is the default")

    date = anatomy_row(page, "Date (UTC)")
    expect(date.locator(".cell-rep .pieces li")).to_have_text(["2009 year", "02.16.17.46 month.day.hour.minute"])
    expect(date.locator(".cell-ibip .pieces li")).to_have_text(["34PGRBS coded seconds"])
    expect(date.locator(".meaning")).to_have_text(["→ 2009-02-16T17:46:00Z", "→ 2009-02-16T17:46:00Z"])
    expect(date.locator(".cell-ibip .note")).to_contain_text("427,571,160 seconds after 1995-08-01T00:00:00Z")
    expect(date.locator(".link")).to_have_text("the same instant, exactly")

    shoot(page, "convert-desktop")
    ibip_card.get_by_role("button", name=f"Copy: {IBIP}").click()
    assert page.evaluate("navigator.clipboard.readText()") == IBIP
    expect(page.get_by_role("link", name="Compose a persistent URL")).to_have_attribute("href", f"/compose?ibi={IBIP}")
    expect(page.get_by_role("link", name="Cite this item")).to_have_attribute("href", f"/cite?ibi={IBIP}")
    expect(page.get_by_role("link", name="Resolve it")).to_have_attribute("href", f"/{IBIP}")


def test_unknown_prefix_is_explained_in_words(page):
    page.goto("/convert?ibi=dpi.inpe.br/banon/1999/01.09.22.14")
    expect(page.locator(".form-ibip .strip")).to_have_text("(unknown prefix)/9HFNHE")
    expect(anatomy_row(page, "Server").locator(".cell-ibip .meaning")).to_have_text("unknown")
    note = page.get_by_role("note")
    expect(note).to_contain_text("prefix unknown: no known IBIp prefix for dpi.inpe.br/banon")
    expect(note).to_contain_text("neither follows from the other")
    note.get_by_role("link", name="prefix table").click()
    expect(page.get_by_role("heading", name="Prefix table", level=1)).to_be_visible()


def test_bad_identifier_error_is_next_to_its_field(page):
    page.goto("/convert")
    page.get_by_label("IBI (either form)").fill(BAD)
    page.keyboard.press("Enter")
    expect(page.locator("#ibi-error")).to_contain_text("(at character 19)")
    expect(page.get_by_label("IBI (either form)")).to_have_attribute("aria-invalid", "true")


def test_paste_a_batch_with_a_bad_row(page):
    page.goto("/convert")
    page.get_by_label("Identifiers, one per line").fill(f"{IBIP}\n\n{BAD}\nLK47B6W/362SFKH\n")
    page.get_by_role("button", name="Convert all").click()
    expect(page.locator(".counts")).to_have_text("2 converted 1 with a note 1 failed")
    rows = page.locator(".batch-table tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0).locator("td")).to_contain_text(["1", IBIP, "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"])
    failed = rows.nth(1)
    expect(failed.locator("td.line")).to_have_text("3")  # the blank line 2 is counted, not shown
    expect(failed.locator("mark")).to_have_text("V")
    expect(failed.locator("td.error")).to_contain_text("'V' is not in the IBIp alphabet")
    expect(failed.locator("td.error")).to_contain_text("(at character 19)")
    expect(rows.nth(2).locator("td")).to_contain_text(["4", "LK47B6W/362SFKH", "iconet.com.br/banon/2009/09.09.22.01"])
    expect(page.get_by_label("Identifiers, one per line")).to_have_value(f"{IBIP}\n\n{BAD}\nLK47B6W/362SFKH\n")
    shoot(page, "convert-batch-desktop")


def test_upload_a_csv_file_and_download_the_result(page, tmp_path):
    upload = tmp_path / "items.csv"
    text = f'title,ibi\r\n"Images, 2009",{REP}\r\n"Bad one",{BAD}\r\nLegacy,iconet.com.br/banon/2009/09.09.22.01\r\n'
    upload.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))  # as spreadsheets save "CSV UTF-8"
    page.goto("/convert")
    page.get_by_label("Or a CSV file").set_input_files(str(upload))
    page.get_by_role("button", name="Convert all").click()
    expect(page.locator(".batch-table tbody tr")).to_have_count(3)
    expect(page.locator(".batch-table tbody tr td.line")).to_have_text(["2", "3", "4"])
    with page.expect_download() as waiting:
        page.get_by_role("button", name="Download CSV").click()
    download = waiting.value
    assert download.suggested_filename == "ibi-conversions.csv"
    rows = list(csv.DictReader(io.StringIO(download.path().read_text(encoding="utf-8"), newline="")))
    assert [row["line"] for row in rows] == ["2", "3", "4"]
    assert rows[0]["input"] == REP and rows[0]["IBIp"] == IBIP and rows[0]["UTC date"] == "2009-02-16T17:46:00Z"
    assert rows[1]["repository name"] == "" and "'V'" in rows[1]["error"] and rows[1]["error position"] == "19"
    assert rows[2]["IBIp"] == "LK47B6W/362SFKH"


def test_a_file_over_the_limit_is_refused_next_to_its_field(page, tmp_path):
    upload = tmp_path / "many.csv"
    upload.write_text("\n".join([IBIP] * 5001), encoding="utf-8")
    page.goto("/convert")
    page.get_by_label("Or a CSV file").set_input_files(str(upload))
    page.get_by_role("button", name="Convert all").click()
    expect(page.locator("#csv_file-error")).to_contain_text("5,001 identifiers; at most 5,000")
    expect(page.locator(".batch-table")).to_have_count(0)


def test_administrator_adds_a_prefix_pair(admin_page):
    page = admin_page
    page.goto("/convert")
    page.get_by_role("link", name="Prefix table").first.click()
    page.get_by_label("Repository-name prefix").fill("example.org/repo")
    page.get_by_label("IBIp prefix").fill("32G4GL2O")
    page.get_by_role("button", name="Add pair").click()
    expect(page.locator("#ibip_prefix-error")).to_contain_text("'O' is not in the IBIp alphabet")
    expect(page.locator("#ibip_prefix-error")).to_contain_text("(at character 8)")
    expect(page.locator("#rep_prefix-error")).to_have_count(0)
    shoot(page, "convert-prefixes-error-desktop")
    page.get_by_label("IBIp prefix").fill("32G4GL2W")  # 192.0.2.7, port 800 (Algorithm 5)
    page.get_by_role("button", name="Add pair").click()
    expect(page.get_by_role("status")).to_have_text("Added example.org/repo = 32G4GL2W.")
    added = page.get_by_role("row").filter(has_text="example.org/repo")
    expect(added.locator("td")).to_contain_text(
        ["example.org/repo", "repo.example.org, port 80", "32G4GL2W", "192.0.2.7, port 800", "administrator admin"]
    )
    page.goto("/convert?ibi=example.org/repo/2020/01.02.03.04")
    expect(page.locator(".form-ibip .strip")).to_have_text("32G4GL2W/3UM7HAS")


def test_prefix_table_without_login_offers_no_form(page):
    page.goto("/convert/prefixes")
    expect(page.get_by_role("row").filter(has_text="8JMKD3MGP8W").first).to_contain_text("file 003 of the standards")
    expect(page.get_by_role("button", name="Add pair")).to_have_count(0)
    expect(page.get_by_role("link", name="log in")).to_be_visible()


def test_phone_width(phone):
    phone.goto(f"/convert?ibi={REP}")
    expect(anatomy_row(phone, "Server").locator(".cell-ibip .meaning")).to_have_text("→ IP 150.163.34.243")
    rep, ibip = (anatomy_row(phone, "Server").locator(f".cell-{side}").bounding_box() for side in ("rep", "ibip"))
    assert ibip["y"] > rep["y"] + rep["height"] - 1, "the two forms stack on a phone"
    assert_no_sideways_scroll(phone)
    shoot(phone, "convert-phone")
    phone.get_by_label("Identifiers, one per line").fill(f"{IBIP}\n{BAD}\n{REP}")
    phone.get_by_role("button", name="Convert all").click()
    expect(phone.locator(".batch-table tbody tr")).to_have_count(3)
    assert_no_sideways_scroll(phone)
    shoot(phone, "convert-batch-phone")
    phone.goto("/convert/prefixes")
    assert_no_sideways_scroll(phone)


def test_keyboard_only(page):
    page.goto("/convert")
    page.get_by_label("IBI (either form)").focus()
    page.keyboard.type(IBIP)
    page.keyboard.press("Enter")
    expect(page.locator(".form-rep .strip")).to_have_text("sid.inpe.br/mtc-m18@80/2009/02.16.17.46")
    copy = page.locator(".form-rep").get_by_role("button", name="Copy")
    copy.focus()
    hold_timers(page)
    page.keyboard.press("Enter")
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"
    page.clock.run_for(1500)
    expect(copy).to_have_text("Copy")  # the label comes back after 1.5 s
    page.clock.resume()  # the rest of the page runs on real time again

    page.get_by_label("Identifiers, one per line").focus()
    page.keyboard.type(f"{REP}\n{BAD}")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Or a CSV file")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Convert all")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".counts")).to_contain_text("1 failed")
    download = page.get_by_role("button", name="Download CSV")
    download.focus()
    expect(download).to_be_focused()  # Enter goes to the button, not to whatever had the focus
    with page.expect_download() as waiting:
        page.keyboard.press("Enter")
    assert waiting.value.suggested_filename == "ibi-conversions.csv"
