"""Check references in Chromium, at 1280 px and 390 px: paste a real reference list and see the
table, its check stream in (progress bar, summary chart, each row's outcome), filter the
problems, re-check only what is unresolved, download CSV and JSON with the outcomes; upload a
.bib and a .docx on a phone."""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, LiveServer, serve_with_admin, shoot, sized_page
from tests.servers import fresh_sqlite
from tests.ibi.test_documents import make_docx

DATA = Path(__file__).resolve().parent.parent / "data"
REFERENCES = (DATA / "references.txt").read_text(encoding="utf-8")
#: §10.1's item, which the demo Archives hold, the standard's Example 2 (held by none of them),
#: a broken link, and a reference whose IBIp and repository name are two items.
DEMO = ("1. Banon, G. Example. IBI: <8JMKD3MGP8W/35MMLL8>. Disponível em: <http://urlib.net/ibi/8JMKD3MGP8W/35MMLL8>.\n"
        "2. (sid.inpe.br/mtc-m18@80/2009/02.16.17.46-NTC). doi: 10.1109/ACCESS.2020.2997019\n"
        "3. Broken: <http://urlib.net/8JMKD3MGP8W/ZZZZZZZ>.\n"
        "4. REIS, M. S. Thesis. IBI: <8JMKD3MGP3W34T/47E2TRB>. (sid.inpe.br/mtc-m21d/2022/07.20.15.45-TDI).\n")


def find(page: Page, text: str) -> None:
    page.goto("/references")
    page.get_by_label("References").fill(text)
    with page.expect_navigation():
        page.get_by_role("button", name="Find IBIs").click()


def checked(page: Page, count: int) -> None:
    """Wait until the check has given every row an outcome."""
    expect(page.locator("#check-status")).to_contain_text("Checked:", timeout=30_000)
    expect(page.locator("table.found-table tbody tr[data-outcome]")).to_have_count(count)


def no_sideways_scroll(page: Page, width: int) -> None:
    page.wait_for_load_state()
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_a_reference_list_checked_at_desktop_width(page, tmp_path):
    find(page, REFERENCES)
    expect(page.get_by_role("heading", name="12 IBIs found")).to_be_visible()
    table = page.locator("table.found-table")
    expect(table.locator("tbody tr")).to_have_count(12)
    first = table.locator("tbody tr").nth(1)
    expect(first.locator("mark")).to_have_text("sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC")
    expect(first).to_contain_text("report-number suffix")
    checked(page, 12)
    # The demo Archives hold none of these published items: every row is "not found (404)".
    expect(table.locator("td.check .outcome")).to_have_text(["not found (404)"] * 12)
    expect(page.locator('[data-count="not found"]')).to_have_text("12")
    expect(page.locator("#check-progress")).to_have_attribute("value", "12")
    assert page.locator('#check-chart rect[data-outcome="not found"]').get_attribute("width") == "100"
    expect(page.locator("#check-status")).to_have_text("Checked: 0 found, 0 deleted, 12 not found, 0 invalid, 0 errors.")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download CSV").click()
    rows = list(csv.reader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8"))))
    assert rows[0][-5:] == ["outcome", "status", "location", "reason", "trace"] and len(rows) == 13
    assert {row[-5] for row in rows[1:]} == {"not found"} and {row[-4] for row in rows[1:]} == {"404"}
    assert all(row[-1].startswith("http://127.0.0.1") and "/api/v1/trace/" in row[-1] for row in rows[1:])
    no_sideways_scroll(page, 1280)
    shoot(page, "references-desktop")


def test_outcomes_filter_trace_links_and_json_download(page):
    find(page, DEMO)
    expect(page.get_by_role("heading", name="5 IBIs found")).to_be_visible()
    checked(page, 6)
    outcomes = page.locator("td.check .outcome")
    expect(outcomes).to_have_text(["found (302)", "found (302)", "not found (404)", "invalid",
                                   "not found (404)", "not found (404)"])
    expect(page.locator('[data-count="found"]')).to_have_text("2")
    expect(page.locator('[data-count="invalid"]')).to_have_text("1")
    expect(page.locator("td.check .reason").nth(0)).to_contain_text("redirects to http://")
    expect(page.locator("td.check a.trace").first).to_have_attribute("href", re.compile(r"^/trace/[\w-]+$"))
    expect(page.locator("ul.contradictions")).to_have_count(2)
    page.get_by_label("Only problems").check()
    visible = page.locator("table.found-table tbody tr:visible")
    expect(visible).to_have_count(4)  # the two found rows hide; the contradicting ones stay
    shoot(page, "references-problems")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download JSON").click()
    body = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert [row["resolution"]["outcome"] for row in body["found"]] == [
        "found", "found", "not found", "invalid", "not found", "not found"]
    assert body["summary"] == {"found": 2, "deleted": 0, "not found": 3, "invalid": 1, "error": 0}


def test_a_conflict_is_checked_counted_as_an_error_and_not_offered_again(page):
    """Two Archives claiming the original (409) is the Archives' answer: the entry was checked,
    the progress bar is full, the summary counts it as an error, and re-checking it would only
    ask the same question again, so the button offers nothing."""
    find(page, "1. Banon. <http://urlib.net/8JMKD3MGP8W/35MMLL8>.\n2. Calibration report, the original: <http://urlib.net/D7N2U8HW/3MP9QLE?ibiurl.requireditemstatus=Original>.\n")
    checked(page, 2)
    expect(page.locator("td.check .outcome")).to_have_text(["found (302)", "error (409)"])
    expect(page.locator("#check-progress")).to_have_attribute("value", "2")
    assert page.evaluate("document.getElementById('check-progress').max") == 2
    expect(page.locator("#check-status")).to_have_text("Checked: 1 found, 0 deleted, 0 not found, 0 invalid, 1 error.")
    expect(page.locator('[data-count="error"]')).to_have_text("1")
    expect(page.locator("#recheck")).to_be_disabled()
    expect(page.locator("#recheck")).to_have_text("Re-check unresolved")
    shoot(page, "references-conflict")


@pytest.mark.parametrize("extension", ["CSV", "JSON"])
def test_the_downloads_of_a_long_checked_list(page, extension):
    """Thirty found references post back resolutions far past the 4,096 characters of a
    single-line field; both downloads carry every one of them."""
    find(page, "".join(f"{n}. Banon, G. Example. <http://urlib.net/8JMKD3MGP8W/35MMLL8>.\n" for n in range(1, 31)))
    checked(page, 30)
    with page.expect_download() as download, page.expect_request(re.compile(r"/references\.\w+$")) as sent:
        page.get_by_role("button", name=f"Download {extension}").click()
    assert len(parse_qs(sent.value.post_data)["resolutions"][0]) > 4096
    assert sent.value.response().status == 200
    text = Path(download.value.path()).read_text(encoding="utf-8")
    if extension == "CSV":
        assert [row[-5] for row in csv.reader(io.StringIO(text))][1:] == ["found"] * 30
    else:
        assert json.loads(text)["summary"]["found"] == 30


@pytest.fixture
def limited_page(browser, tmp_path) -> Page:
    """A desktop page on a portal of its own that checks 2 IBIs a minute per client."""
    server: LiveServer = serve_with_admin(fresh_sqlite(tmp_path / "limited.sqlite"), RATELIMIT_REFERENCES="2/minute")
    yield from sized_page(browser, server, "desktop")
    server.server.shutdown()


def test_recheck_sends_only_the_unresolved_rows(limited_page):
    page = limited_page
    find(page, DEMO)
    checked(page, 6)
    outcomes = page.locator("td.check .outcome")
    # Two requests within the limit (35MMLL8, asked by two rows, and Example 2), the rest not checked.
    expect(outcomes).to_have_text(["found (302)", "found (302)", "not found (404)", "invalid",
                                   "not checked (429)", "not checked (429)"])
    expect(page.locator("td.check .reason").nth(4)).to_contain_text("at most 2/minute IBIs are checked")
    expect(page.locator("#check-status")).to_have_text(
        "Checked: 2 found, 0 deleted, 1 not found, 1 invalid, 0 errors; 2 not checked yet.")
    expect(page.locator("#check-progress")).to_have_attribute("value", "4")  # the two not checked are not done
    expect(page.locator('[data-count="error"]')).to_have_text("0")
    button = page.get_by_role("button", name="Re-check 2 unresolved")
    with page.expect_request(re.compile(r"/api/v1/extract\?resolve=1$")) as sent:
        button.click()
    text = json.loads(sent.value.post_data)["text"]
    assert text.split("\n") == ["http://urlib.net/8JMKD3MGP3W34T/47E2TRB",
                                "http://urlib.net/sid.inpe.br/mtc-m21d/2022/07.20.15.45"]
    checked(page, 6)
    expect(outcomes.nth(0)).to_have_text("found (302)")  # resolved rows are left as they were
    # The limit refuses them again: the button is there to try again later.
    expect(page.get_by_role("button", name="Re-check 2 unresolved")).to_be_enabled()


def test_phone_width_with_bib_and_docx_uploads(phone, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text((DATA / "references.bib").read_text(encoding="utf-8"), encoding="utf-8")
    phone.goto("/references")
    phone.get_by_label("Or a file").set_input_files(str(bib))
    with phone.expect_navigation():
        phone.get_by_role("button", name="Find IBIs").click()
    expect(phone.get_by_role("heading", name="5 IBIs found")).to_be_visible()
    checked(phone, 5)
    no_sideways_scroll(phone, PHONE["width"])  # the table scrolls inside its own region
    shoot(phone, "references-phone")
    document = tmp_path / "refs.docx"
    document.write_bytes(make_docx())
    phone.goto("/references")
    phone.get_by_label("Or a file").set_input_files(str(document))
    with phone.expect_navigation():
        phone.get_by_role("button", name="Find IBIs").click()
    expect(phone.get_by_role("heading", name="3 IBIs found")).to_be_visible()
    checked(phone, 3)


REFERENCE_LINE = ("UBA, D. M. et al. TATHU - Software para rastreio. São José dos Campos: INPE, 2022. 39 p. "
                  "IBI: <8JMKD3MGP3W34T/47AF772>. (sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC). "
                  "Disponível em: <http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772>.")


@pytest.mark.parametrize("width_name", ["desktop", "phone"])
def test_the_home_box_offers_a_pasted_reference_to_check_references(browser, live_server, width_name):
    for page in sized_page(browser, live_server, width_name):
        page.goto("/")
        page.get_by_label("IBI or persistent URL").fill(REFERENCE_LINE)
        offer = page.get_by_role("heading", name="This looks like a reference: 3 IBIs found")
        expect(offer).to_be_visible()
        expect(page.locator("#q-live")).to_have_text("")  # no parser jargon beside it
        shoot(page, f"home-reference-{width_name}")
        with page.expect_navigation():
            page.get_by_role("button", name="Check in References").click()
        expect(page.get_by_role("heading", name="3 IBIs found")).to_be_visible()
        checked(page, 3)
        # Typed away: the offer goes.
        page.goto("/")
        page.get_by_label("IBI or persistent URL").fill("8JMKD3MGP8W/35MME4E")
        expect(page.locator("#q-live")).to_contain_text("Looks like an IBI")
        expect(page.locator("#reference-offer")).to_be_hidden()


def test_a_bib_checked_in_portuguese_on_a_phone(pt_phone, tmp_path):
    """Upload a .bib in Portuguese: the headings, the streamed status, the legend, the outcomes
    and the filter are Portuguese; the downloads keep their machine-readable columns."""
    page = pt_phone
    bib = tmp_path / "refs.bib"
    bib.write_text((DATA / "references.bib").read_text(encoding="utf-8"), encoding="utf-8")
    page.goto("/references")
    assert page.evaluate("document.documentElement.lang") == "pt-BR"
    expect(page.get_by_role("heading", name="Verificar referências")).to_be_visible()
    page.get_by_label("Ou um arquivo").set_input_files(str(bib))
    with page.expect_navigation():
        page.get_by_role("button", name="Encontrar IBIs").click()
    expect(page.get_by_role("heading", name="5 IBIs encontrados")).to_be_visible()
    expect(page.locator("#check-status")).to_contain_text("Verificação concluída", timeout=30_000)
    expect(page.locator("table.found-table tbody tr[data-outcome]")).to_have_count(5)
    expect(page.locator("td.check .outcome").first).to_have_text(re.compile(r"^não encontrado \(404\)$"))
    expect(page.locator("#check-summary")).to_contain_text("não encontrado: 5")
    page.get_by_label("Só os problemas").check()
    expect(page.locator("table.found-table tbody tr:visible")).to_have_count(5)
    no_sideways_scroll(page, PHONE["width"])
    shoot(page, "references-phone-pt-BR")
    with page.expect_download() as download:
        page.get_by_role("button", name="Baixar CSV").click()
    header = Path(download.value.path()).read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("line,text,ibi,form,repository name,IBIp,persistent URL,")
