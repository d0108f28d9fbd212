"""Minting in the browser: one item and several, copy buttons, the QR code, errors, keyboard, a phone."""
from __future__ import annotations

import base64
import re
from pathlib import Path

from playwright.sync_api import Page, expect

from ibiportal.ibi.identifier import parse_ibi
from ibiportal.web.identifiers.qr import qr_svg

from .conftest import hold_timers, shoot


def card_value(page: Page, term: str, index: int = 0) -> str:
    """The text of ``term``'s value on the ``index``-th result card."""
    card = page.locator("article.minted").nth(index)
    return card.locator(f"dt:text-is('{term}') + dd code, dt:text-is('{term}') + dd a").first.inner_text()


def test_mint_one_item_with_qr_code_copy_and_citations(page, live_server):
    page.goto("/mint")
    page.get_by_label("Title").fill("Interoperability of persistent identifiers")
    page.get_by_label("Creators (one per line)").fill("Banon, Gerald Jean Francis\nBanon, Lise Christine")
    page.get_by_label("Date of the item").fill("2009-02-16")
    page.get_by_label("Language").fill("en")
    with page.expect_navigation():  # its scripts loaded before a Copy button is pressed
        page.get_by_role("button", name="Mint").click()
    expect(page.get_by_role("heading", name="Minted 1 identifier")).to_be_visible()
    rep, ibip = card_value(page, "Repository name"), card_value(page, "IBIp")
    assert parse_ibi(rep).date == parse_ibi(ibip).date
    url = card_value(page, "Persistent URL")
    assert url == f"{live_server.url}/{ibip}"

    # The copy button puts the persistent URL on the clipboard.
    hold_timers(page)
    page.get_by_role("button", name=f"Copy: {url}").click()
    expect(page.get_by_role("button", name=f"Copy: {url}")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == url
    page.clock.resume()

    # The QR code is segno's SVG of that very URL, shown as an image; the download is the same file.
    image = page.get_by_role("img", name=f"QR code of {url}")
    expect(image).to_be_visible()
    source = image.get_attribute("src")
    assert source.startswith("data:image/svg+xml;base64,")
    svg = base64.b64decode(source.split(",", 1)[1])
    assert svg == qr_svg(url) and b'viewBox="0 0 ' in svg
    assert image.evaluate("img => img.naturalWidth") > 0  # the browser could draw it
    with page.expect_download() as download:
        page.get_by_role("link", name="Download QR (SVG)").click()
    assert download.value.suggested_filename == f"qr-{ibip.replace('/', '-')}.svg"
    assert Path(download.value.path()).read_bytes() == svg

    # Citations: shown at once for one item, each with its copy button.
    citations = page.locator("details.citations")
    expect(citations).to_have_attribute("open", "")
    expect(citations).to_contain_text(f"Banon, G. J. F., & Banon, L. C. (2009). Interoperability of persistent identifiers. {url}")
    page.get_by_role("button", name="Copy BibTeX").click()
    bibtex = page.evaluate("navigator.clipboard.readText()")
    assert bibtex.startswith("@") and f"url = {{{url}}}" in bibtex
    shoot(page, "mint-desktop")


def test_mint_several_items_one_card_each(page):
    page.goto("/mint")
    page.get_by_label("Title").fill("Series")
    page.get_by_label("How many identifiers").fill("3")
    page.get_by_role("button", name="Mint").click()
    expect(page.get_by_role("heading", name="Minted 3 identifiers")).to_be_visible()
    cards = page.locator("article.minted")
    expect(cards).to_have_count(3)
    ibips = [card_value(page, "IBIp", index) for index in range(3)]
    dates = [parse_ibi(ibip).date for ibip in ibips]
    assert dates == sorted(set(dates))
    # Compact: the citations start closed and open on demand.
    first = cards.nth(0).locator("details.citations")
    expect(first).not_to_have_attribute("open", "")
    first.locator("summary").click()
    expect(first.get_by_role("button", name="Copy APA")).to_be_visible()
    shoot(page, "mint-several-desktop")


def test_errors_are_shown_next_to_their_fields(page):
    page.goto("/mint")
    page.get_by_label("Date of the item").fill("2024-02-30")
    page.get_by_label("Target URL").fill("example.org/my-item")
    page.get_by_role("button", name="Mint").click()
    expect(page.locator("#date-error")).to_contain_text("is not a calendar date")
    expect(page.locator("#target_url-error")).to_contain_text("absolute http:// or https:// URL")
    expect(page.get_by_label("Date of the item")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Target URL")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Title")).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator("article.minted")).to_have_count(0)
    shoot(page, "mint-errors-desktop")


def test_keyboard_only_minting_with_a_next_edition(page):
    page.goto("/mint")
    page.get_by_label("Title").focus()
    page.keyboard.type("First edition")
    page.keyboard.press("Enter")  # Enter in a text field submits the form
    # Focused: the page's script has run and moved the focus to the result, so it will not take
    # the focus back while the keys below are typed.
    expect(page.get_by_role("heading", name="Minted 1 identifier")).to_be_focused()
    first = card_value(page, "IBIp")
    # Tab from the title through the fields to the advanced section, open it and fill it.
    page.get_by_label("Title").focus()
    page.keyboard.type("Second edition")
    for _ in range(6):  # creators, date, language, target URL, the citation details' summary, this summary
        page.keyboard.press("Tab")
    expect(page.locator("details.advanced summary")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Next edition of")).to_be_focused()
    page.keyboard.type(first)
    for _ in range(3):  # translation of, how many, the button
        page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Mint")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Minted 1 identifier")).to_be_visible()
    expect(page.locator("article.minted")).to_contain_text(f"Next edition of{first}")
    assert card_value(page, "IBIp") != first


def test_mint_page_on_a_phone(phone):
    phone.goto("/mint")
    shoot(phone, "mint-phone-form")
    phone.get_by_label("Title").fill("A field report with a rather long title to wrap on a phone")
    phone.get_by_label("Creators (one per line)").fill("Silva, Maria da")
    phone.get_by_label("Target URL").fill("https://example.org/reports/2024/field-report-with-a-long-name.pdf")
    phone.get_by_role("button", name="Mint").click()
    expect(phone.get_by_role("heading", name="Minted 1 identifier")).to_be_visible()
    expect(phone.locator("article.minted img")).to_be_visible()
    phone.wait_for_load_state()  # stylesheets included: layout is measured
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    shoot(phone, "mint-phone")
    phone.get_by_label("How many identifiers").fill("2")
    phone.get_by_role("button", name="Mint").click()
    expect(phone.locator("article.minted")).to_have_count(2)
    phone.wait_for_load_state()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"several cards scroll sideways on a phone ({width}px)"
    assert re.search(r"Minted 2 identifiers", phone.locator("main").inner_text())
    shoot(phone, "mint-phone-several")


def test_mint_a_doctoral_thesis_and_copy_its_inpe_citation_with_emphasis(page, live_server):
    page.goto("/mint")
    page.get_by_label("Title").fill("Segmentação hierárquica de imagens de radar")
    page.get_by_label("Creators (one per line)").fill("Silva, Maria da")
    page.get_by_label("Date of the item").fill("2019")
    page.locator("details.advanced-bibliographic summary").click()
    page.get_by_label("Kind of item").select_option("doctoral thesis")
    page.get_by_label("Publisher or institution").fill("Instituto Nacional de Pesquisas Espaciais (INPE)")
    page.get_by_label("Place of publication").fill("São José dos Campos")
    page.get_by_label("Pages").fill("189")
    page.get_by_label("Report number").fill("TDI")
    page.get_by_label("Degree (theses)").fill("Doutorado em Computação Aplicada")
    shoot(page, "mint-thesis-form-desktop")
    page.get_by_role("button", name="Mint").click()
    expect(page.get_by_role("heading", name="Minted 1 identifier")).to_be_visible()
    rep, ibip, url = card_value(page, "Repository name"), card_value(page, "IBIp"), card_value(page, "Persistent URL")
    inpe = page.locator('dd[data-style="inpe"]')
    expected = (
        f"SILVA, M. da. Segmentação hierárquica de imagens de radar. 2019. 189 p. IBI: <{ibip}>. ({rep}-TDI)."
        " Tese (Doutorado em Computação Aplicada) - Instituto Nacional de Pesquisas Espaciais (INPE),"
        f" São José dos Campos, 2019. Disponível em: <{url}>."
    )
    expect(inpe.locator("span")).to_have_text(expected)
    expect(inpe.locator("b")).to_have_text("Segmentação hierárquica de imagens de radar")
    expect(page.locator('dd[data-style="apa"] i')).to_have_text("Segmentação hierárquica de imagens de radar")
    hold_timers(page)
    inpe.locator("button").click()
    expect(inpe.locator("button")).to_have_text("Copied")
    page.clock.resume()
    clipboard = page.evaluate("""async () => {
      const [item] = await navigator.clipboard.read();
      return {html: await (await item.getType("text/html")).text(), text: await (await item.getType("text/plain")).text()};
    }""")
    assert clipboard["text"] == expected
    assert "<b>Segmentação hierárquica de imagens de radar</b>" in clipboard["html"]
    assert page.locator("details.citations pre").first.inner_text().startswith("@phdthesis{")
    shoot(page, "mint-thesis-desktop")


def test_the_mint_result_links_an_item_page_anyone_can_open(page, phone, live_server):
    """The result page lives in the minting session; the item page it links to is public and
    cites as Cite does (the phone is another browser context: no session, no cookie)."""
    page.goto("/mint")
    page.get_by_label("Title").fill("Modelagem de fluxos de carbono")
    page.get_by_label("Creators (one per line)").fill("Silva, Maria da\nLeite Filho, Waldir de Carvalho")
    page.get_by_label("Date of the item").fill("2020")
    page.locator("details.advanced-bibliographic summary").click()
    page.get_by_label("Kind of item").select_option("doctoral thesis")
    page.get_by_label("Pages").fill("182 p.")
    page.get_by_role("button", name="Mint").click()
    expect(page.get_by_role("heading", name="Minted 1 identifier")).to_be_visible()
    ibip, rep = card_value(page, "IBIp"), card_value(page, "Repository name")
    assert "pages = {182}" in page.locator("details.citations pre").first.inner_text()
    with page.expect_download() as download:
        page.locator("article.minted").get_by_role("link", name="BibTeX").click()
    assert "pages = {182}" in Path(download.value.path()).read_text()
    item_page = page.locator("a.item-page")
    expect(item_page).to_have_text(f"{live_server.url}/archive/items/{ibip}")
    shoot(page, "mint-result-item-link-desktop")

    phone.goto(page.url)  # the result page itself: this browser did not mint it
    expect(phone.locator("main")).to_contain_text("Each minted item has its own public page")
    phone.goto(item_page.get_attribute("href"))
    expect(phone.get_by_role("heading", name="Modelagem de fluxos de carbono")).to_be_visible()
    expect(phone.locator("dt:text-is('Repository name') + dd code")).to_have_text(rep)
    expect(phone.locator("dt:text-is('IBIp') + dd code")).to_have_text(ibip)
    expect(phone.locator("dt:text-is('Persistent URL') + dd a")).to_have_text(f"{live_server.url}/{ibip}")
    phone.wait_for_load_state()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    shoot(phone, "item-page-phone")
    phone.get_by_role("link", name="Cite this item").click()
    expect(phone.locator('[data-style="apa"]')).to_contain_text("Silva, M. da, & Leite Filho, W. de C. (2020)")
    page.goto(f"/archive/items/{ibip}")
    shoot(page, "item-page-desktop")
