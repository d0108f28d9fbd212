"""The Cite page in Chromium: cite a demo IBI from the keyboard, read every style with its
emphasis, copy a citation as HTML and plain text, copy the BibTeX, download the RIS, see errors
next to the field, and fit a phone."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import hold_timers, shoot

DEMO_IBIP = "D7N2U8HW/3J5AC3H"  # Archive "origin" of the demo data, with an oai_dc record
TITLE = "Carbon stocks of mangrove forests on the Bragança peninsula, Pará: 2014 field survey"


def cite_from_the_keyboard(page, text: str) -> None:
    page.goto("/cite")
    field = page.get_by_label("IBI or persistent URL")
    field.focus()
    page.keyboard.type(text)
    with page.expect_navigation():
        page.keyboard.press("Enter")


def test_cite_a_demo_item_copy_bibtex_and_download_ris(page, live_server):
    cite_from_the_keyboard(page, DEMO_IBIP)
    url = f"{live_server.url}/{DEMO_IBIP}"
    expect(page.get_by_role("heading", name="The item")).to_be_visible()
    expect(page.locator(".cite-item")).to_contain_text(TITLE)
    expect(page.get_by_role("link", name=url, exact=True)).to_have_attribute("href", url)
    apa = page.get_by_role("region", name="APA (7th edition)")
    expect(apa).to_contain_text(f"Almeida, R. C., & Okafor, D. N. (2015). {TITLE}. IBI Portal demonstration collection. {url}")
    expect(apa.locator("i")).to_have_text(TITLE)  # the title in italics, as APA sets it
    abnt = page.get_by_role("region", name="ABNT (NBR 6023:2018)")
    expect(abnt).to_contain_text(f"ALMEIDA, R. C.; OKAFOR, D. N. {TITLE}. [S. l.]: IBI Portal demonstration collection, 2015.")
    expect(abnt).to_contain_text(f"Disponível em: {url}. Acesso em:")
    expect(abnt.locator("b")).to_have_text(TITLE.split(": ")[0])  # bold, without the subtitle
    inpe = page.get_by_role("region", name="INPE (NBR 6023 as the INPE library prints it)")
    expect(inpe).to_contain_text(f"IBI: <{DEMO_IBIP}>. (ibiportal.test/lab/2015/03.10.14.22). Disponível em: <{url}>.")
    ieee = page.get_by_role("region", name="IEEE")
    expect(ieee).to_contain_text(f"R. C. Almeida and D. N. Okafor, “{TITLE},”")
    expect(ieee).to_contain_text(f"Available: {url}")
    shoot(page, "cite-desktop")

    bibtex = page.get_by_role("region", name="BibTeX")
    shown = bibtex.locator("pre").inner_text()
    assert shown.startswith("@misc{almeida2015carbon,") and f"url = {{{url}}}" in shown
    copy = bibtex.get_by_role("button", name="Copy BibTeX")
    copy.focus()
    hold_timers(page)
    page.keyboard.press("Enter")
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == shown
    page.clock.resume()

    ris = page.get_by_role("region", name="RIS")
    with page.expect_download() as download_info:
        ris.get_by_role("link", name="Download almeida2015carbon.ris").click()
    download = download_info.value
    assert download.suggested_filename == "almeida2015carbon.ris"
    with open(download.path(), "rb") as saved:
        content = saved.read().decode("utf-8")
    assert content.startswith("TY  - GEN\r\nAU  - Almeida, Rita C.\r\n")
    assert f"UR  - {url}\r\n" in content and content.endswith("ER  - \r\n")


#: Reads both flavours the clipboard holds: what a word processor and a text field would paste.
READ_CLIPBOARD = """async () => {
  const [item] = await navigator.clipboard.read();
  const read = async (type) => item.types.includes(type) ? await (await item.getType(type)).text() : null;
  return {html: await read("text/html"), text: await read("text/plain")};
}"""


def test_copy_puts_html_and_plain_text_on_the_clipboard(page, live_server):
    cite_from_the_keyboard(page, DEMO_IBIP)
    url = f"{live_server.url}/{DEMO_IBIP}"
    hold_timers(page)
    for style, label in (("apa", "Copy APA"), ("abnt", "Copy ABNT"), ("inpe", "Copy INPE")):
        section = page.locator(f'section[data-style="{style}"]')
        shown_html = section.locator(".citation-text").inner_html()
        shown_text = section.locator(".citation-text").inner_text()
        expect(section.get_by_role("button", name=label, exact=True)).to_have_count(1)
        button = section.locator("button[data-copy-html]")  # its name becomes "Copied"
        button.click()
        expect(button).to_have_text("Copied")
        page.clock.run_for(1500)
        expect(button).to_have_text(label)  # back after 1.5 s
        clipboard = page.evaluate(READ_CLIPBOARD)
        assert clipboard["text"] == shown_text
        # Chromium wraps pasted HTML in a <meta charset> prologue; the fragment itself is ours.
        assert shown_html in clipboard["html"]
        assert ("<i>" if style == "apa" else "<b>") in clipboard["html"]
        assert "<i>" not in clipboard["text"] and "<b>" not in clipboard["text"]
        assert url in clipboard["text"]


def test_bad_input_is_shown_next_to_the_field(page):
    cite_from_the_keyboard(page, "8JMKD3MGP8W34PGRBS")
    field = page.get_by_label("IBI or persistent URL")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#ibi-error")).to_contain_text("missing '/' between IBIp prefix and suffix")
    expect(field).to_have_value("8JMKD3MGP8W34PGRBS")
    expect(page.get_by_role("heading", name="Formatted citations")).to_have_count(0)
    shoot(page, "cite-error-desktop")


def test_a_deleted_item_says_so_with_its_trace(page):
    cite_from_the_keyboard(page, "D7N2U8HW/3GBBQK2")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("No oai_dc metadata for D7N2U8HW/3GBBQK2")
    expect(alert).to_contain_text("was deleted")
    expect(alert.get_by_role("link", name="the trace of this resolution")).to_have_attribute("href", re.compile(r"^/trace/[\w-]+$"))
    expect(alert.get_by_role("link", name="JSON")).to_have_attribute("href", re.compile(r"/api/v1/trace/[\w-]+$"))


def test_cite_page_on_a_phone(phone, live_server):
    phone.goto(f"/cite?ibi={DEMO_IBIP}")
    expect(phone.get_by_role("region", name="IEEE")).to_contain_text(f"{live_server.url}/{DEMO_IBIP}")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    shoot(phone, "cite-phone")


#: The demo Archive "library": one item per case the styles must handle, with the emphasis
#: each style gives it (APA italic, NBR bold) — none for a part of a larger work in APA, and
#: none in NBR for an item cited by its title.
LIBRARY = [
    ("D7N2U8HW/3UGHFGH", "doctoral thesis", "SILVA, M. da.", True, True),
    ("D7N2U8HW/47AF772", "report", "SILVA, M. da; LEITE FILHO, W. de C.; SANTIAGO JÚNIOR, V. A. de.", True, True),
    ("D7N2U8HW/4A6FS32", "conference paper", "COSTA, A. P. dos S.; VAN DER BERG, J.; OLIVEIRA NETO, P.", False, False),
    ("D7N2U8HW/4497CA2", "dataset", "INSTITUTO NACIONAL DE PESQUISAS ESPACIAIS.", True, True),
    ("D7N2U8HW/4B3H4DL", "other", "BOLETIM de monitoramento do Pantanal: março de 2024.", True, False),
    ("D7N2U8HW/3QKMHES", "master's thesis", "SANTOS SOBRINHO, J. dos.", True, True),
]


def test_the_cite_page_shows_every_style_for_the_demo_records_with_emphasis(page, phone, live_server):
    for ibip, kind, inpe_start, apa_italic, nbr_bold in LIBRARY:
        page.goto(f"/cite?ibi={ibip}")
        url = f"{live_server.url}/{ibip}"
        sections = page.locator("section.citation")
        expect(sections).to_have_count(6)
        for index in range(6):
            expect(sections.nth(index).locator(".citation-text")).to_contain_text(url)
        inpe = page.locator('section[data-style="inpe"] .citation-text')
        expect(inpe).to_contain_text(inpe_start)
        expect(inpe).to_contain_text(f"IBI: <{ibip}>.")
        expect(page.locator('section[data-style="apa"] .citation-text i')).to_have_count(1 if apa_italic else 0)
        expect(page.locator('section[data-style="harvard"] .citation-text i')).to_have_count(1 if apa_italic else 0)
        expect(page.locator('section[data-style="abnt"] .citation-text b')).to_have_count(1 if nbr_bold else 0)
        expect(page.locator(".cite-item")).to_contain_text(kind.capitalize())
        if ibip == "D7N2U8HW/3UGHFGH":
            style = page.locator('section[data-style="apa"] .citation-text i').evaluate("e => getComputedStyle(e).fontStyle")
            assert style == "italic"
            weight = inpe.locator("b").evaluate("e => getComputedStyle(e).fontWeight")
            assert int(weight) >= 600
            shoot(page, "cite-thesis-desktop")
            phone.goto(f"/cite?ibi={ibip}")
            width = phone.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
            shoot(phone, "cite-thesis-phone")


def test_reference_manager_metadata_is_data_the_csp_allows(page, live_server):
    """The JSON-LD is read as data (no CSP report, no console error: the page fixture fails on
    any) and names the item; the citation_* tags are in the head, as Zotero's connector reads them."""
    for path in (f"/cite?ibi={LIBRARY[0][0]}", f"/?q={LIBRARY[0][0]}", f"/demo/archives/library/col/ibiportal.test/lab/2019/12.04.15.16/doc/publicacao.pdf"):
        page.goto(path)
        data = page.evaluate("JSON.parse(document.querySelector('script[type=\"application/ld+json\"]').textContent)")
        assert data["@type"] == "Thesis" and data["url"] == f"{live_server.url}/{LIBRARY[0][0]}"
        authors = page.evaluate("[...document.querySelectorAll('meta[name=citation_author]')].map(m => m.content)")
        assert authors == ["Silva, Maria da"]


def test_content_negotiation_over_a_real_socket(page, live_server):
    """The same GET /<IBI> on the live portal: a citation for a citation type, the redirect for
    the browser's own Accept, 406 for a style not offered — headers as sent over HTTP."""
    ibip = LIBRARY[0][0]
    bibtex = page.request.get(f"/{ibip}", headers={"Accept": "application/x-bibtex"}, max_redirects=0)
    assert bibtex.status == 200 and bibtex.headers["content-type"] == "application/x-bibtex; charset=utf-8"
    assert bibtex.headers["vary"] == "Accept" and bibtex.text().startswith("@phdthesis{")
    inpe = page.request.get(f"/ibi/{ibip}", headers={"Accept": "text/x-bibliography; style=inpe; locale=en"}, max_redirects=0)
    assert inpe.status == 200 and inpe.text().endswith(f"Available from: <{live_server.url}/{ibip}>.\n")
    refused = page.request.get(f"/{ibip}", headers={"Accept": "text/x-bibliography; style=mla"}, max_redirects=0)
    assert refused.status == 406 and "application/x-research-info-systems" in refused.text()
    page.goto(f"/{ibip}")  # Chromium's own Accept: redirected to the item
    assert page.url.endswith("/demo/archives/library/col/ibiportal.test/lab/2019/12.04.15.16/doc/publicacao.pdf")


def test_any_csl_style_by_name_and_the_closest_names_for_an_unknown_one(page, phone):
    thesis = "D7N2U8HW/3UGHFGH"
    for view in (page, phone):
        view.goto(f"/cite?ibi={thesis}")
        view.locator("details.other-style summary").click()
        view.get_by_label("Another style (optional)").fill("vancouver")
        view.get_by_role("button", name="Cite").click()
        expect(view.get_by_text("no citation style named 'vancouver'")).to_be_visible()
        view.get_by_role("link", name="elsevier-vancouver", exact=True).click()
        other = view.locator('section[data-style="elsevier-vancouver"]')
        expect(other).to_contain_text("[1] Silva M da. Segmentação hierárquica de imagens de radar")
        view.get_by_label("Its language (optional)").fill("pt-BR")
        view.get_by_label("Another style (optional)").fill("nature")
        view.get_by_role("button", name="Cite").click()
        expect(view.locator('section[data-style="nature"] p')).to_have_text(
            "1. Silva, M. da. Segmentação hierárquica de imagens de radar: um estudo na Amazônia. "
            "(Instituto Nacional de Pesquisas Espaciais (INPE), São José dos Campos, 2019).")
        view.wait_for_load_state()
        assert view.evaluate("document.documentElement.scrollWidth") <= view.viewport_size["width"]
        view.locator('section[data-style="nature"]').scroll_into_view_if_needed()
        shoot(view, f"cite-csl-{'phone' if view is phone else 'desktop'}")



def test_cite_in_portuguese_on_a_phone_writes_a_csl_style_in_portuguese(pt_phone):
    """A reader whose browser asks for Portuguese: the page's words are Portuguese, and a CSL
    style asked for without a language is written in Brazilian Portuguese (the page's)."""
    page = pt_phone
    page.goto(f"/cite?ibi={DEMO_IBIP}&style=chicago-author-date")
    assert page.evaluate("document.documentElement.lang") == "pt-BR"
    expect(page.get_by_role("heading", name="Citar um item")).to_be_visible()
    expect(page.get_by_role("heading", name="O item")).to_be_visible()
    expect(page.get_by_role("region", name="APA (7ª edição)")).to_contain_text("Almeida, R. C., & Okafor, D. N. (2015).")
    expect(page.get_by_label("Idioma da citação (opcional)")).to_have_attribute("placeholder", "pt-BR")
    other = page.locator('section[data-style="chicago-author-date"]')
    expect(other.get_by_role("heading")).to_contain_text("(CSL, pt-BR)")
    expect(other.locator("p")).to_contain_text("Almeida, R. C., e D. N. Okafor. 2015.")  # CSL's pt-BR "e", not "and"
    expect(other.get_by_role("button", name="Copiar chicago-author-date")).to_be_visible()
    page.wait_for_load_state()
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    shoot(page, "cite-phone-pt-BR")
