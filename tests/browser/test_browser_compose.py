"""The Compose page in the browser: live preview in both syntaxes with the meaning in en/pt,
verbs that cannot combine disabled or explained next to their field, copy, keyboard, phone, no-JS,
bookmarkable address, "Trace this"; and the Parse page that shares its result."""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs, unquote_plus, urlsplit

from playwright.sync_api import Page, expect

from .conftest import DESKTOP, hold_timers, shoot

IBI = "8JMKD3MGP8W/35MMLL8"


def step(page: Page, number: int):
    """The fieldset of one step of the verb sequence."""
    return page.get_by_role("group", name=f"Step {number}")


def choose(page: Page, number: int, verb: str) -> None:
    step(page, number).get_by_label("Verb").select_option(verb)


def screenshot(page: Page, name: str) -> None:
    """A full-page screenshot from the top, where the sticky preview sits beside the form."""
    page.evaluate("window.scrollTo(0, 0)")
    shoot(page, name)


@contextmanager
def refused_preview(page: Page, asked: str) -> Iterator[None]:
    """The action in the block makes the preview ask the API for ``asked`` (part of its query),
    which the API refuses with a 400, on purpose. Waits for Playwright to report that answer –
    Chromium may show the page's error before it does, and a 400 reported after the problems
    were forgotten failed the test at its end – then forgets the problems, all such 400s."""
    with page.expect_response(lambda response: "/api/v1/compose?" in response.url and response.status == 400
                              and asked in unquote_plus(response.url)):
        yield
    problems = list(page.problems)
    assert problems and all(re.fullmatch(r"400 for fetch .*/api/v1/compose\?.*", p) for p in problems), problems
    page.problems.clear()


def test_live_preview_follows_the_verbs_in_both_syntaxes_and_explains_them(page, live_server):
    base = live_server.url + "/"
    page.goto("/compose")
    expect(page.get_by_role("status")).to_have_text("Type an IBI to see its persistent URL.")
    page.evaluate("window.notReloaded = true")
    page.get_by_label("IBI").fill(IBI)
    expect(page.locator("#url-symbols")).to_have_text(base + IBI)

    language = step(page, 1).get_by_label("Language")
    expect(language).to_be_hidden()
    choose(page, 1, "GetLastEdition")
    choose(page, 2, "GetTranslation")
    expect(language).to_be_hidden()
    step(page, 2).get_by_label("Language").fill("pt-BR")
    choose(page, 3, "GetMetadata")
    step(page, 3).get_by_label("Metadata format").select_option("oai_dc")
    page.get_by_label("Require the original").check()

    expect(page.locator("#url-symbols")).to_have_text(base + IBI + "!+(pt-BR):(oai_dc)?ibiurl.requireditemstatus=Original")
    expect(page.locator("#url-verblist")).to_have_text(
        base + IBI + "?ibiurl.requireditemstatus=Original&ibiurl.verblist=GetLastEdition+GetTranslation(pt-BR)+GetMetadata(oai_dc)"
    )
    meaning = "Metadata, in oai_dc, of the translation into Portuguese (Brazil) of the last edition of the item 8JMKD3MGP8W/35MMLL8."
    expect(page.locator("[data-result='meaning.en']")).to_contain_text(meaning)
    expect(page.locator("[data-result='meaning.pt']")).to_contain_text(
        "Metadados, em oai_dc, da tradução em português (Brasil) da última edição do item 8JMKD3MGP8W/35MMLL8."
    )
    expect(page.get_by_role("status")).to_contain_text(meaning)
    expect(page.locator("[data-result-code='relation']")).to_have_text(".lastedition.translation(pt-BR).metadata(oai_dc)")
    assert page.evaluate("window.notReloaded") is True  # all of it without submitting

    # The address reproduces the state (bookmarkable), and the links follow the preview.
    query = parse_qs(urlsplit(page.url).query)
    assert query == {
        "ibi": [IBI], "step1-verb": ["GetLastEdition"], "step2-verb": ["GetTranslation"], "step2-language": ["pt-BR"],
        "step3-verb": ["GetMetadata"], "step3-format": ["oai_dc"], "original": ["y"],
    }
    here = base + IBI + "!+(pt-BR):(oai_dc)?ibiurl.requireditemstatus=Original"
    expect(page.get_by_role("link", name="Open (resolve)")).to_have_attribute("href", here)
    parse_link = page.get_by_role("link", name="Parse this URL").get_attribute("href")
    assert parse_qs(urlsplit(parse_link).query) == {"url": [here]}
    screenshot(page, "compose-desktop")

    bookmarked = page.context.new_page()
    bookmarked.goto(page.url)
    expect(step(bookmarked, 2).get_by_label("Language")).to_have_value("pt-BR")
    expect(bookmarked.locator("#url-symbols")).to_have_text(here)
    bookmarked.close()


def test_getfilelist_and_the_other_options_reach_the_url(page, live_server):
    page.goto("/compose")
    page.get_by_label("IBI").fill("LK47B6W/362SFKH")
    page.get_by_label("GetFileList: the list of files").check()
    page.get_by_label("File path").fill("/reference.bib")
    page.get_by_label("Query pairs for the item").fill("lang=pt\nq=a b")
    page.get_by_label("Resolver base").fill("http://urlib.net")
    expect(page.locator("#url-symbols")).to_have_text(
        "http://urlib.net/LK47B6W/362SFKH/reference.bib?ibiurl.verblist=GetFileList&lang=pt&q=a%20b"
    )
    expect(page.locator("#filepath-note")).to_be_visible()
    expect(page.get_by_label("File path")).to_have_attribute("aria-describedby", re.compile("filepath-note"))
    expect(page.locator("[data-result-code='query']")).to_have_text("lang=pt, q=a b")
    # Open and Trace resolve here, whatever the base written into the URL.
    expect(page.get_by_role("link", name="Open (resolve)")).to_have_attribute(
        "href", live_server.url + "/LK47B6W/362SFKH/reference.bib?ibiurl.verblist=GetFileList&lang=pt&q=a%20b"
    )


def test_verbs_that_cannot_follow_are_disabled_with_the_reason(page):
    page.goto("/compose")
    page.get_by_label("IBI").fill(IBI)
    choose(page, 1, "GetMetadata")
    second = step(page, 2).get_by_label("Verb")
    expect(second.locator("option[value=GetLastEdition]")).to_be_disabled()
    expect(second.locator("option[value=GetMetadata]")).to_be_disabled()
    expect(second.locator("option[value=GetTranslation]")).to_be_enabled()
    note = page.locator("#step2-note")
    expect(note).to_contain_text("the last edition is asked before the metadata")
    expect(second).to_have_attribute("aria-describedby", re.compile("step2-note"))
    choose(page, 2, "GetTranslation")
    third = step(page, 3).get_by_label("Verb")
    expect(third).to_be_disabled()  # `:+` is complete: nothing follows it
    expect(page.locator("#step3-note")).to_have_text("No verb can follow :+: no modifier of Table 8.2 goes on from it.")
    expect(page.locator("#url-symbols")).to_contain_text(IBI + ":+")
    screenshot(page, "compose-disabled-desktop")


def test_an_invalid_combination_is_explained_next_to_its_step(page):
    page.goto("/compose")
    page.get_by_label("IBI").fill(IBI)
    choose(page, 1, "GetLastEdition")
    choose(page, 2, "GetMetadata")
    expect(page.locator("#url-symbols")).to_contain_text(IBI + "!:")
    with refused_preview(page, "verb=GetMetadata&verb=GetMetadata"):
        choose(page, 1, "GetMetadata")  # now step 2 asks for metadata twice
    error = page.locator("#step2-verb-error")
    expect(error).to_have_text("GetMetadata may not follow GetMetadata — metadata is asked once: :: is not a modifier of Table 8.2")
    second = step(page, 2).get_by_label("Verb")
    expect(second).to_have_attribute("aria-invalid", "true")
    expect(second).to_have_attribute("aria-describedby", re.compile("step2-verb-error"))
    expect(page.get_by_role("status")).to_contain_text("Not updated. Step 2: GetMetadata may not follow")
    expect(page.locator("#result")).to_be_hidden()
    screenshot(page, "compose-error-desktop")

    choose(page, 2, "GetTranslation")  # fixed: the error goes, the preview comes back
    expect(error).to_have_count(0)
    expect(page.locator("#url-symbols")).to_contain_text(IBI + ":+")
    expect(second).not_to_have_attribute("aria-invalid", "true")

    step(page, 2).get_by_label("Language").fill("PT")  # read case-blind, as ABNF's quoted literals (Table 8.1)
    expect(page.locator("#url-symbols")).to_contain_text(IBI + ":+(pt)")
    with refused_preview(page, "ibi=8JMKD3MGP8W/35MMLV8"):
        page.get_by_label("IBI").fill("8JMKD3MGP8W/35MMLV8")
    expect(page.locator("#ibi-error")).to_contain_text("(at character 18)")
    expect(page.get_by_label("IBI")).to_have_attribute("aria-invalid", "true")


def test_a_server_error_stays_next_to_its_field_until_the_next_preview(page):
    page.goto(f"/compose?ibi={IBI}&step1-verb=GetMetadata&step1-language=pt")  # a bookmark, or a no-JS submit
    page.problems.clear()  # the page itself answered 400, on purpose
    language = step(page, 1).get_by_label("Language")
    expect(language).to_be_visible()  # kept, though GetMetadata takes none: its error is shown next to it
    expect(page.locator("#step1-language-error")).to_have_text("only GetTranslation takes a language (Table 8.4)")
    expect(page.get_by_role("status")).to_have_text("Fix the error next to its field to see the URL.")
    page.get_by_label("Require the original").check()
    expect(page.locator("#url-symbols")).to_contain_text(IBI + ":?ibiurl.requireditemstatus=Original")
    expect(language).to_be_hidden()  # the language is no longer sent
    expect(page.locator("#step1-language-error")).to_have_count(0)
    assert "step1-language" not in page.url


def test_a_value_is_previewed_once_though_leaving_its_field_fires_change_too(page):
    """Typing fires ``input``, leaving the field ``change``: the preview asks for a query once,
    not again for the same one (the second, refused, 400 could arrive as the page was left for
    the submitted form: a browser test failed on it, depending on the machine's load)."""
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/api/v1/compose?" in request.url else None)
    page.goto("/compose")
    field = page.get_by_label("IBI", exact=True)
    with page.expect_response(lambda response: "/api/v1/compose?" in response.url):
        field.fill(IBI)
    expect(page.locator("#url-symbols")).to_contain_text(IBI)
    field.blur()  # change
    page.get_by_label("Require the original").focus()
    page.wait_for_timeout(600)  # past the preview's delay: a second request would be on its way
    assert len(asked) == 1, asked
    page.get_by_label("Require the original").check()  # a new query is asked
    expect(page.locator("#url-symbols")).to_contain_text("requireditemstatus=Original")
    assert len(asked) == 2, asked


def test_copy_a_url_to_the_clipboard(page):
    page.goto(f"/compose?ibi={IBI}&step1-verb=GetLastEdition")
    hold_timers(page)
    page.get_by_role("button", name="Copy the URL in verb-list syntax").click()
    expect(page.get_by_role("button", name="Copy the URL in verb-list syntax")).to_have_text("Copied")
    page.clock.resume()
    assert page.evaluate("navigator.clipboard.readText()") == page.locator("#url-verblist").text_content()
    page.get_by_label("IBI").fill("LK47B6W/362SFKH")  # the button copies what the preview shows now
    expect(page.locator("#url-symbols")).to_contain_text("LK47B6W/362SFKH!")
    page.get_by_role("button", name="Copy the URL in modifier syntax").click()
    assert page.evaluate("navigator.clipboard.readText()").endswith("/LK47B6W/362SFKH!")


def test_keyboard_only(page):
    page.goto("/compose")
    page.get_by_label("IBI").focus()
    page.keyboard.type(IBI)
    page.keyboard.press("Tab")
    expect(step(page, 1).get_by_label("Verb")).to_be_focused()
    page.keyboard.press("ArrowDown")  # (none) → GetLastEdition
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Move step 1 down")).to_be_focused()
    page.keyboard.press("Tab")
    expect(step(page, 2).get_by_label("Verb")).to_be_focused()
    page.keyboard.press("End")  # GetMetadata
    expect(page.locator("#url-symbols")).to_contain_text(IBI + "!:")
    page.keyboard.press("Shift+Tab")
    expect(page.get_by_role("button", name="Move step 1 down")).to_be_focused()
    with refused_preview(page, "verb=GetMetadata&verb=GetLastEdition"):
        page.keyboard.press("Enter")  # metadata first: then the last edition is refused
    expect(step(page, 1).get_by_label("Verb")).to_have_value("GetMetadata")
    expect(step(page, 2).get_by_label("Verb")).to_be_focused()  # focus follows the step moved
    expect(page.locator("#step2-verb-error")).to_contain_text("the last edition is asked before the metadata")
    page.keyboard.press("Shift+Tab")  # step 1's metadata format ...
    page.keyboard.press("Shift+Tab")  # ... and its "Move down" again
    expect(page.get_by_role("button", name="Move step 1 down")).to_be_focused()
    page.keyboard.press("Enter")  # back: the last edition, then its metadata
    expect(step(page, 1).get_by_label("Verb")).to_have_value("GetLastEdition")
    expect(page.locator("#step2-verb-error")).to_have_count(0)
    expect(page.locator("#url-symbols")).to_contain_text(IBI + "!:")
    page.get_by_role("button", name="Copy the URL in modifier syntax").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("navigator.clipboard.readText()").endswith(IBI + "!:")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Trace this")).to_be_focused()


def test_phone_width_has_no_sideways_scroll(phone):
    long_query = "&".join(["query=title%3DA+long+title+without+spaces+" + "x" * 60])
    phone.goto(f"/compose?ibi=sid.inpe.br/mtc-m18@80/2009/07.21.14.43&step1-verb=GetTranslation&step1-language=pt-BR"
               f"&step2-verb=GetLastEdition&step3-verb=GetMetadata&step3-format=oai_dc&original=y&{long_query}")
    expect(phone.locator("#url-verblist")).to_be_visible()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    phone.get_by_label("IBI").fill(IBI)
    expect(phone.locator("#url-symbols")).to_contain_text(IBI + "+(pt-BR)!:(oai_dc)")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(phone, "compose-phone")


def test_trace_this_posts_the_url_on_this_portal(page, live_server):
    page.goto("/compose")
    page.get_by_label("IBI").fill(IBI)
    choose(page, 1, "GetLastEdition")
    page.get_by_label("Resolver base").fill("http://urlib.net/")
    expect(page.locator("#url-symbols")).to_have_text(f"http://urlib.net/{IBI}!")
    trace = page.locator("form.trace")
    assert trace.evaluate("f => [f.method, f.action]") == ["post", live_server.url + "/trace"]
    expect(trace.locator("input[name=url]")).to_have_value(f"{live_server.url}/{IBI}!")
    expect(trace.locator("input[name=csrf_token]")).not_to_have_value("")
    trace.get_by_role("button", name="Trace this").click()  # one click: resolved here, kept, shown
    expect(page).to_have_url(re.compile(re.escape(live_server.url) + r"/trace/[^/?]+$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Trace of {live_server.url}/{IBI}!")


def test_parse_page_shares_the_result_and_composes_from_it(page, live_server):
    url = "http://urlib.net/LK47B6W/362SFKH+?ibiurl.requireditemstatus=Original&ibiurl.verblist=GetMetadata"
    page.goto("/parse")
    page.get_by_label("Persistent URL").fill(url)
    page.get_by_role("button", name="Parse").click()
    expect(page.locator("#url-symbols")).to_have_text("http://urlib.net/LK47B6W/362SFKH+:?ibiurl.requireditemstatus=Original")
    expect(page.locator("[data-result='meaning.pt']")).to_contain_text("Metadados da tradução do item LK47B6W/362SFKH.")
    expect(page.locator("form.trace input[name=url]")).to_have_value(live_server.url + "/LK47B6W/362SFKH+:?ibiurl.requireditemstatus=Original")
    screenshot(page, "parse-desktop")
    page.get_by_role("link", name="Compose from this").click()
    expect(step(page, 1).get_by_label("Verb")).to_have_value("GetTranslation")
    expect(step(page, 2).get_by_label("Verb")).to_have_value("GetMetadata")
    expect(page.get_by_label("Require the original")).to_be_checked()
    expect(page.locator("#url-symbols")).to_have_text("http://urlib.net/LK47B6W/362SFKH+:?ibiurl.requireditemstatus=Original")


def test_without_javascript_the_form_gives_the_same_result(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport=DESKTOP, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto("/compose")
        page.get_by_label("IBI").fill(IBI)
        step(page, 1).get_by_label("Verb").select_option("GetLastEdition")
        step(page, 2).get_by_label("Verb").select_option("GetMetadata")
        step(page, 2).get_by_label("Metadata format").select_option("oai_dc")
        page.get_by_role("button", name="Compose").click()
        expect(page.locator("#url-symbols")).to_have_text(f"{live_server.url}/{IBI}!:(oai_dc)")
        expect(page.locator("#url-verblist")).to_have_text(f"{live_server.url}/{IBI}?ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)")
        expect(page.locator("[data-result='meaning.en']")).to_have_text(f"Metadata, in oai_dc, of the last edition of the item {IBI}.")
        expect(page.locator("form.trace input[name=url]")).to_have_value(f"{live_server.url}/{IBI}!:(oai_dc)")
        expect(page.get_by_role("button", name="Move step 2 up")).to_be_hidden()  # needs the script

        step(page, 1).get_by_label("Verb").select_option("GetMetadata")
        response_status = []
        page.on("response", lambda r: response_status.append(r.status) if r.request.resource_type == "document" else None)
        page.get_by_role("button", name="Compose").click()
        expect(page.locator("#step2-verb-error")).to_contain_text("GetMetadata(oai_dc) may not follow GetMetadata")
        expect(step(page, 2).get_by_label("Verb")).to_have_attribute("aria-invalid", "true")
        expect(page.locator("#result")).to_be_hidden()
        assert response_status == [400]
        screenshot(page, "compose-nojs-error-desktop")
    finally:
        context.close()
