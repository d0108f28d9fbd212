"""The Trace page in Chromium: run a trace from the form, read it, share it, and stay safe with hostile Archives."""
from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Page, expect

from ibiportal.archive.demo import load_demo_archives

from tests.browser.conftest import hold_timers, shoot
from tests.web.trace.test_trace_page import EVIL_NAME, HUGE, IMG, SCRIPT, hostile_trace
from ibiportal.storage.traces import TraceStore

SECTION_10_2 = "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"
SECTION_10_2_FINAL = "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18/2012/07.12.18.08.49/doc/metadata.cgi?choice=oai_dc"
PERMALINK = re.compile(r"/trace/[A-Za-z0-9_-]+$")


def run_trace(page: Page, url: str, *, original: bool = False, faulty: bool = False) -> None:
    """Fill the form as support staff would (the user of §10.1 behind their proxy) and press Trace;
    ``faulty`` ticks "Include the faulty demo Archives"."""
    page.goto("/trace")
    page.get_by_label("Persistent URL").fill(url)
    page.get_by_label("Archives to ask").select_option("demo")
    page.get_by_label("Client IP").fill("172.16.44.200 150.163.68.1")
    page.get_by_label("Accept-Language").fill("pt-BR,fr;q=0.8,en;q=0.5,pt;q=0.3")
    if original:
        page.get_by_label("Require the original").check()
    if faulty:
        page.get_by_label("Include the faulty demo Archives").check()
    page.get_by_role("button", name="Trace", exact=True).click()
    expect(page).to_have_url(PERMALINK)
    page.wait_for_load_state()  # its stylesheets too: layout is measured (a loaded CI laid it out unstyled)


def diagram_numbers(page: Page) -> list[int]:
    texts = page.locator(".seq-row .num:not(.event):not(.round)").all_text_contents()
    return [int(re.search(r"\d+", text)[0]) for text in texts]


def test_section_10_2_from_the_form_to_its_permalink(page: Page):
    run_trace(page, SECTION_10_2)
    expect(page.get_by_role("heading", name="Redirected")).to_be_visible()
    expect(page.locator(".status-code")).to_have_text("302")
    final = page.locator(".final-url a")
    expect(final).to_have_text(SECTION_10_2_FINAL)
    expect(final).to_have_attribute("href", SECTION_10_2_FINAL)
    # The diagram: Figure 8.1's numbers in order, a round of the loop per hop.
    numbers = diagram_numbers(page)
    assert numbers[:3] == [1, 2, 3] and numbers[-6:] == [5, 6, 7, 8, 9, 10] and numbers.count(3) == 2
    expect(page.locator(".seq-row.round")).to_have_count(2)
    expect(page.locator(".seq-head text.name")).to_contain_text(["User", "Browser", "Resolver", "edition-a"])
    # Per Archive: the chosen answers unfolded, raw and parsed.
    first_round = page.locator("#hop-1")
    expect(first_round.get_by_role("heading", level=3)).to_contain_text("Round 1: about 8JMKD3MGP8W/35MMLL8")
    chosen = first_round.locator("details.exchange.chosen")
    expect(chosen).to_have_attribute("open", "")
    expect(chosen.locator("pre.raw")).to_contain_text("ibi.nextedition {rep sid.inpe.br/mtc-m18/2012/07.12.18.08}")
    expect(chosen.get_by_role("row", name=re.compile(r"ibi\.nextedition"))).to_contain_text("leads on: asked next")
    expect(page.locator("#hop-2 details.exchange.chosen")).to_contain_text("url.lastedition.metadata(oai_dc)")
    # Decisions in words, in order.
    decisions = page.locator("ol.decisions > li")
    expect(decisions.first).to_contain_text(f"Received {SECTION_10_2}")
    expect(decisions.last).to_contain_text(f"Redirect the browser to {SECTION_10_2_FINAL}")
    expect(page.locator("ol.decisions")).to_contain_text(
        "leads on through ibi.nextedition sid.inpe.br/mtc-m18/2012/07.12.18.08: every Archive is asked about it in round 2.")
    shoot(page, "trace-desktop")


def test_a_diagram_row_leads_to_its_archive(page: Page):
    run_trace(page, "http://urlib.net/8JMKD3MGP8W/35MMLL8")
    page.get_by_role("link", name=re.compile(r"^Message 4 mtc-m16c → Resolver")).click()
    expect(page).to_have_url(re.compile(r"#step-\d+$"))
    target = page.locator("details.exchange:target")
    expect(target).to_be_visible()
    expect(target.locator("summary")).to_contain_text("mtc-m16c")
    expect(target).to_contain_text("url http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/CCSDS%20650.0-B-1.pdf")


def test_download_the_json_and_copy_the_permalink(page: Page):
    run_trace(page, SECTION_10_2)
    trace_id = page.url.rsplit("/", 1)[1]
    with page.expect_download() as info:
        page.get_by_role("link", name="Download JSON").click()
    download = info.value
    assert download.suggested_filename == f"ibi-trace-{trace_id}.json"
    body = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert body["id"] == trace_id and body["url"] == SECTION_10_2_FINAL and body["hops"] == 2
    assert body["request"]["client_ip"] == "172.16.44.200 150.163.68.1"
    assert [s["number"] for s in body["trace"]["steps"]][-3:] == [5, 6, 7]
    hold_timers(page)
    page.get_by_role("button", name="Copy permalink").click()
    expect(page.get_by_role("button", name="Copy permalink")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == page.url


def test_trace_again_compares_the_two_runs(page: Page):
    run_trace(page, "http://urlib.net/8JMKD3MGP8W/35MMLL8")
    first = page.url.rsplit("/", 1)[1]
    page.get_by_role("button", name="Trace again and compare").click()
    expect(page).to_have_url(re.compile(rf"/trace/[A-Za-z0-9_-]+\?compare={first}$"))
    comparison = page.locator("#compare")
    expect(comparison.get_by_role("heading")).to_contain_text(f"Compared with the earlier run {first}")
    expect(comparison).to_contain_text("Same outcome: redirect to")
    well_behaved = [archive for archive in load_demo_archives().values() if not archive.faulty]
    expect(comparison.get_by_role("row")).to_have_count(1 + len(well_behaved))  # header, then each of them


def test_conflicting_originals(page: Page):
    run_trace(page, "http://urlib.net/D7N2U8HW/3MP9QLE", original=True, faulty=True)
    expect(page.get_by_role("heading", name="Conflict: more than one original")).to_be_visible()
    expect(page.locator(".status-code")).to_have_text("409")
    expect(page.locator(".alert-message")).to_contain_text("two or more Archives under suspicion, investigation needed")
    expect(page.locator("#hop-1 details.exchange", has_text="slow")).to_contain_text("timeout")
    expect(page.locator("#hop-1 details.exchange", has_text="garbled")).to_contain_text("garbage")
    shoot(page, "trace-conflict-desktop")


def test_the_faulty_demo_archives_join_only_when_ticked(phone: Page):
    run_trace(phone, "http://urlib.net/8JMKD3MGP8W/34PGRBS")
    expect(phone.locator("#hop-1 details.exchange", has_text="slow")).to_have_count(0)
    expect(phone.locator("dl.facts")).to_contain_text(re.compile(r"Faulty demo Archives\s*left out"))
    phone.get_by_role("link", name="Change the options…").click()
    expect(phone.get_by_label("Include the faulty demo Archives")).not_to_be_checked()
    phone.goto("/trace")
    phone.get_by_role("link", name="An Archive that never answers in time").click()
    expect(phone.get_by_label("Include the faulty demo Archives")).to_be_checked()
    phone.get_by_role("button", name="Trace", exact=True).click()
    expect(phone).to_have_url(PERMALINK)
    expect(phone.locator("#hop-1 details.exchange", has_text="slow")).to_contain_text("timeout")
    shoot(phone, "trace-faulty-phone")


def lane_names(page: Page) -> list[str]:
    return page.locator(".seq-head text.name").all_text_contents()


def test_a_reader_is_answered_without_the_faulty_demo_archives_and_the_trace_can_ask_them(page: Page):
    """At 1280 px: ``GET /<persistent URL>`` of an unknown IBI leaves ``slow`` and ``garbled`` out
    (so it answers well before the 2 s ``slow`` would cost); ticking the box brings their lanes in."""
    response = page.goto("/8JMKD3MGP8W/34PGRBS")  # an IBI no Archive holds
    assert response.status == 404
    elapsed_ms = float(re.search(r"\(([\d.]+) ms\)", page.locator(".resolve-alert").inner_text())[1])
    assert elapsed_ms < 2000, f"the resolution waited {elapsed_ms} ms: a faulty demo Archive was asked"
    page.get_by_role("link", name="See every message the resolver sent and received").click()
    expect(page).to_have_url(PERMALINK)
    lanes = lane_names(page)
    assert "mtc-m16c" in lanes and not {"slow", "garbled"} & set(lanes), lanes
    expect(page.locator("dl.facts")).to_contain_text(re.compile(r"Faulty demo Archives\s*left out"))
    run_trace(page, "http://urlib.net/8JMKD3MGP8W/34PGRBS", faulty=True)
    assert {"slow", "garbled"} <= set(lane_names(page)), lane_names(page)
    expect(page.locator("#hop-1 details.exchange", has_text="slow")).to_contain_text("timeout")
    expect(page.locator("#hop-1 details.exchange", has_text="garbled")).to_contain_text("garbage")
    shoot(page, "trace-faulty-desktop")


def test_errors_are_shown_next_to_their_fields(page: Page):
    page.goto("/trace?url=http://urlib.net/8JMKD3MGP8W/35MMLL8!!")
    page.get_by_label("Client IP").fill("172.16.44.200 nobody")
    page.get_by_role("button", name="Trace", exact=True).click()
    url = page.get_by_label("Persistent URL")
    expect(url).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#url-error")).to_contain_text("may not follow !")  # the code as <code>
    expect(page.locator("#url-error")).to_contain_text("(at character 38)")
    expect(page.locator(".where mark")).to_have_text("!")
    expect(page.locator("#client_ip-error")).to_contain_text("'nobody' is not an IP address (at character 15)")
    expect(url).to_have_value("http://urlib.net/8JMKD3MGP8W/35MMLL8!!")  # kept, to be corrected
    expect(page).to_have_url(re.compile(r"/trace$"))


def test_hostile_archive_content_is_text_never_code(page: Page, live_server):
    storage = live_server.storage()
    body = hostile_trace()
    TraceStore(storage).save_trace("HostileBrowser", body["persistent_url"], "found", body, 1000, 10**7)
    storage.close()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto("/trace/HostileBrowser")
    evil = page.locator("details.exchange", has_text="evil.example").first
    expect(evil.get_by_role("row", name=re.compile("^note"))).to_contain_text(SCRIPT)
    expect(evil.get_by_role("row", name=re.compile("^title"))).to_contain_text(IMG)
    expect(page.locator(".seq-head text.name", has_text="evil<svg")).to_have_count(1)
    expect(evil.locator("summary .name")).to_have_text(EVIL_NAME)
    # The 100 KB value is cut, the whole behind "Show all".
    huge = evil.get_by_role("row", name=re.compile("^huge"))
    expect(huge.locator("td > code")).to_contain_text("(100,000 characters in all)")
    huge.get_by_text("Show all 100,000 characters").click()
    expect(huge.locator("details.all pre")).to_have_text(HUGE)
    # The broken Archive: controls visible, the raw answer shown as text.
    garbage = page.locator("details.exchange", has_text="garbage.example")
    expect(garbage).to_have_attribute("open", "")
    expect(garbage.locator("pre.raw").first).to_contain_text("garbage.example\\x07\\x1b[31m <script>alert(2)</script>\\r\\n")
    expect(page.locator("main img, main script, main iframe")).to_have_count(0)
    page.mouse.wheel(0, 4000)
    page.wait_for_timeout(300)
    assert dialogs == []
    shoot(page, "trace-hostile-desktop")


def test_phone_reads_without_sideways_page_scroll(phone: Page):
    run_trace(phone, SECTION_10_2)
    expect(phone.get_by_role("heading", name="Redirected")).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= phone.evaluate("window.innerWidth")
    # The diagram scrolls inside its own box, its labels staying in view.
    box = phone.locator(".seq-scroll")
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")
    label = phone.locator(".seq-row .seq-label").nth(3)
    before = label.bounding_box()
    box.evaluate("el => el.scrollBy(400, 0)")
    assert abs(label.bounding_box()["x"] - before["x"]) < 1  # sticky
    box.evaluate("el => el.scrollTo(0, 0)")
    shoot(phone, "trace-phone")


def test_keyboard_only(page: Page):
    page.goto("/trace")
    page.get_by_label("Persistent URL").focus()
    page.keyboard.type("http://urlib.net/8JMKD3MGP8W/35MMLL8")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Archives to ask")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_label("Client IP")).to_be_focused()
    page.keyboard.type("150.163.2.175")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Accept-Language")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_label("Include the faulty demo Archives")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_label("Require the original")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Trace", exact=True)).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(PERMALINK)
    expect(page.get_by_role("heading", name="Redirected")).to_be_visible()
    # The diagram's rows are links: reach one with Tab and follow it with Enter.
    page.get_by_role("link", name=re.compile(r"^Message 4 mtc-m16c → Resolver")).focus()
    page.keyboard.press("Enter")
    expect(page.locator("details.exchange:target summary")).to_contain_text("mtc-m16c")
    # An Archive's details fold and unfold from the keyboard.
    summary = page.locator("#hop-1 details.exchange", has_text="mtc-m16d").locator("summary")
    summary.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#hop-1 details.exchange", has_text="mtc-m16d")).to_have_attribute("open", "")
    # The scrolling diagram can be focused, so it scrolls from the keyboard too.
    page.locator(".seq-scroll").focus()
    expect(page.locator(".seq-scroll")).to_be_focused()
