"""The Archives pages and the conformance check in Chromium.

Demo Archives run as real HTTP servers on loopback (``ArchiveHTTPServer``). The live portal
refuses loopback Archives (``ALLOW_PRIVATE_ARCHIVES`` off, as in production), so the tests
that check one turn it on for their duration only, and every test removes the Archives it
registered: the portal is shared with the other browser tests.
"""
from __future__ import annotations

import re
import time
from collections.abc import Iterator
from urllib.parse import urlsplit
from datetime import datetime, timezone

import pytest
from playwright.sync_api import Page, expect

from ibiportal.archive.demo import load_demo_archives
from ibiportal.archive.http_server import ArchiveHTTPServer
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.registry import ArchiveDetails, Confirmation, KeyHash
from ibiportal.resolver.conformance_probes import CHECK_TIMEOUTS
from ibiportal.storage.registry import ArchiveStore

from .conftest import log_in, shoot

M16C_IBI = "sid.inpe.br/mtc-m18@80/2008/03.17.15.17"  # the Archive of §10.1
KNOWN_IBI = "8JMKD3MGP8W/35MMLL8"  # held by it
NEW_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"  # Example 7.1's Archive
M16C = load_demo_archives()["mtc-m16c"].service


@pytest.fixture
def allow_private(live_server) -> Iterator[None]:
    """Let the portal contact loopback Archives for this test only."""
    before = live_server.app.config["ALLOW_PRIVATE_ARCHIVES"]
    live_server.app.config["ALLOW_PRIVATE_ARCHIVES"] = True
    yield
    live_server.app.config["ALLOW_PRIVATE_ARCHIVES"] = before


@pytest.fixture
def registry(live_server) -> Iterator[ArchiveStore]:
    """The live portal's registry; whatever the test registered is removed afterwards."""
    storage = live_server.storage()
    store = ArchiveStore(storage)
    before = {archive.service_ibi for archive in store.archives()}
    yield store
    for archive in store.archives():
        if archive.service_ibi not in before:
            store.remove_archive(archive.service_ibi)
    storage.close()


def include(registry: ArchiveStore, server: ArchiveHTTPServer, service_ibi: str = M16C_IBI) -> None:
    """Register the served Archive and include it at its loopback address, as §7.2 would."""
    now = datetime.now(timezone.utc)
    registry.register_archive(service_ibi, KeyHash.of(RegistrationKey("1234567890-1234567890")), now)
    address = server.service.identity.address
    details = ArchiveDetails(address, "127.0.0.1", "URLib 2.1", "admin@example.org")
    registry.record_inclusion(service_ibi, details, Confirmation(True, "confirmation yes"), now)


def no_sideways_scroll(page: Page) -> None:
    page.wait_for_load_state()  # stylesheets included: layout is measured
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"


def test_a_login_without_next_lands_on_the_archives_page(page):
    log_in(page)
    expect(page).to_have_url(re.compile(r"/admin/archives$"))
    expect(page.get_by_role("heading", name="Register an Archive")).to_be_visible()


def test_anonymous_user_is_sent_to_the_login_page(page):
    page.goto("/admin/archives")
    expect(page).to_have_url(re.compile(r"/admin/login\?next=/admin/archives$"))
    expect(page.get_by_role("heading", name="Administrator login")).to_be_visible()
    page.goto("/admin/conformance")
    expect(page).to_have_url(re.compile(r"/admin/login\?next=/admin/conformance$"))


def test_register_an_archive_with_the_keyboard_and_see_its_key_once(admin_page, registry):
    page = admin_page
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Archives").click()
    expect(page.get_by_role("heading", name="Archives", exact=True)).to_be_visible()
    page.get_by_label("Archive service IBI").focus()
    page.keyboard.type(NEW_IBI)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Archive registered")).to_be_visible()
    key = page.locator("#registration-key").inner_text()
    assert re.fullmatch(r"\d{15}-\d{15}", key)
    expect(page.get_by_text("will not be shown again")).to_be_visible()
    page.get_by_role("button", name=re.compile("Copy the key")).click()
    assert page.evaluate("navigator.clipboard.readText()") == key
    assert registry.find_archive(NEW_IBI).key_hash.matches(RegistrationKey(key))
    shoot(page, "admin-registered-desktop")

    page.get_by_role("link", name="Open this Archive's page").click()
    expect(page.get_by_role("heading", name=f"Archive {NEW_IBI}")).to_be_visible()
    expect(page.get_by_text("not yet included").first).to_be_visible()
    assert key not in page.content()
    page.get_by_role("link", name="Archives", exact=True).last.click()  # the breadcrumb
    expect(page.get_by_role("link", name=NEW_IBI)).to_be_visible()
    assert key not in page.content()


def test_the_key_can_be_shown_and_a_pasted_service_url_is_split(admin_page, registry):
    page = admin_page
    page.goto("/admin/archives")
    key_field = page.get_by_label("Registration key (optional)")
    expect(key_field).to_have_attribute("type", "password")
    key_field.fill("1234567890-0987654321")
    show = page.get_by_role("button", name="Show")
    show.click()
    expect(key_field).to_have_attribute("type", "text")
    expect(page.get_by_role("button", name="Hide")).to_have_attribute("aria-pressed", "true")
    expect(key_field).to_be_focused()
    page.get_by_label("Archive service IBI").fill(f"http://127.0.0.1:8741/{NEW_IBI}")
    shoot(page, "admin-register-key-shown-desktop")
    page.get_by_role("button", name="Register", exact=True).click()
    expect(page.get_by_role("heading", name="Archive registered")).to_be_visible()
    assert registry.find_archive(NEW_IBI).key_hash.matches(RegistrationKey("1234567890-0987654321"))


def test_register_error_is_next_to_the_field(admin_page, registry):
    page = admin_page
    page.goto("/admin/archives")
    page.get_by_label("Archive service IBI").fill("sid.inpe.br/mtc-m21/2012/13.05.15.34.39")
    page.get_by_role("button", name="Register").click()
    expect(page.locator("#service_ibi-error")).to_contain_text("month 13 out of range 01-12 (at character 26)")
    expect(page.get_by_label("Archive service IBI")).to_have_attribute("aria-invalid", "true")


def test_archive_page_confirmation_request_and_conformance_check(admin_page, serve_demo_archive, allow_private, registry):
    page = admin_page
    server = serve_demo_archive("mtc-m16c")
    include(registry, server)
    page.goto("/admin/archives")
    row = page.locator("tbody tr", has_text=M16C_IBI)
    expect(row.get_by_text("included", exact=True)).to_be_visible()
    expect(row.get_by_text(server.service.identity.address)).to_be_visible()
    shoot(page, "admin-archives-desktop")

    page.get_by_role("link", name=M16C_IBI).click()
    page.get_by_role("button", name="Send a confirmation request").click()
    outcome = page.locator("section.outcome")
    expect(outcome).to_contain_text("'confirmation yes'.")
    expect(outcome.locator("pre.answer")).to_have_text("confirmation yes\n")
    expect(outcome).to_contain_text(f"GET {server.base_url}?servicesubject=inclusionConfirmationRequest")
    expect(page.locator("table.history tbody tr").first).to_contain_text("confirmation request by an administrator: successful")
    shoot(page, "admin-archive-desktop")

    page.get_by_label("Known IBI (optional)").fill(KNOWN_IBI)
    page.get_by_role("button", name="Run the conformance check").click()
    expect(page.get_by_role("heading", name="Conformance check")).to_be_visible()
    expect(page.locator("p.summary")).to_contain_text("No rule failed: 10 passed, 0 failed, 0 skipped")
    expect(page.locator("li.rule-passed")).to_have_count(10)


def test_exclude_and_include_again_beside_remove_with_the_history_kept(admin_page, registry):
    page = admin_page
    now = datetime.now(timezone.utc)
    registry.register_archive(NEW_IBI, KeyHash.of(RegistrationKey("1234567890-1234567890")), now)
    details = ArchiveDetails("150.163.34.239", "150.163.34.239", "URLib 2.1", "admin@example.org")
    registry.record_inclusion(NEW_IBI, details, Confirmation(True, "confirmation yes"), now)
    page.goto(f"/admin/archives/{NEW_IBI}")
    actions = page.locator("div.actions")
    expect(actions.get_by_role("link", name="Remove this Archive…")).to_be_visible()
    actions.get_by_role("button", name="Exclude this Archive").click()
    expect(page).to_have_url(re.compile(f"/admin/archives/{re.escape(NEW_IBI)}$"))
    expect(page.get_by_role("status").first).to_contain_text(f"Excluded {NEW_IBI}: the resolver no longer asks it.")
    expect(page.locator("table.history tbody tr").first).to_contain_text("excluded by the administrator")
    shoot(page, "admin-archive-excluded-desktop")
    assert not registry.find_archive(NEW_IBI).included

    page.reload()  # Post/Redirect/Get: a reload sends nothing again and the message is gone
    expect(page.get_by_text("the resolver no longer asks it")).to_have_count(0)
    page.locator("div.actions").get_by_role("button", name="Include again at 150.163.34.239").click()
    expect(page.get_by_role("status").first).to_contain_text(f"Included {NEW_IBI} again at 150.163.34.239")
    expect(page.locator("table.history tbody tr")).to_have_count(4)  # registered, included, excluded, included
    expect(page.locator("div.actions").get_by_role("button", name="Exclude this Archive")).to_be_visible()
    assert registry.find_archive(NEW_IBI).included


def test_conformance_check_of_a_garbled_archive_by_keyboard(admin_page, serve_demo_archive, allow_private):
    page = admin_page
    server = serve_demo_archive("garbled")
    page.goto("/admin/conformance")
    page.get_by_label("Archive service address").focus()
    page.keyboard.type(server.base_url)
    page.keyboard.press("Tab")
    expect(page.get_by_label("Known IBI (optional)")).to_be_focused()
    page.keyboard.type("D7N2U8HW/3SNU8PS")
    page.keyboard.press("Enter")
    expect(page.locator("p.summary")).to_contain_text("5 failed")
    grammar = page.locator("#rule-grammar")
    expect(grammar).to_contain_text("failed")
    expect(grammar).to_contain_text("line break inside the braced value opened at character 43")
    expect(grammar.locator("details")).to_have_attribute("open", "")
    expect(grammar.locator("pre.answer").first).to_contain_text("ibi {rep ibiportal.test/lab/2019/02.14.20.10 ibip D7N2U8HW/3SNU8PS")
    expect(page.locator("#rule-content-type")).to_contain_text("passed")
    expect(page.locator("#rule-acknowledgment")).to_contain_text("skipped")
    page.locator("#rule-timing summary").focus()
    page.keyboard.press("Enter")  # evidence opens from the keyboard
    expect(page.locator("#rule-timing details")).to_have_attribute("open", "")
    shoot(page, "admin-conformance-desktop")


def test_conformance_check_of_a_slow_archive_shows_each_rule_as_it_comes(admin_page, scripted_archive, allow_private):
    page = admin_page
    delay = CHECK_TIMEOUTS.read * 0.15  # well within the limit; five of them make a wait worth watching

    def slow_m16c(request):
        time.sleep(delay)
        return M16C.respond(urlsplit(request.target).query).text

    archive = scripted_archive(slow_m16c)
    page.goto("/admin/conformance")
    page.get_by_label("Archive service address").fill(f"http://{archive.address}/{M16C_IBI}")
    page.get_by_label("Known IBI (optional)").fill(KNOWN_IBI)
    page.get_by_role("button", name="Run the check").click()
    expect(page.locator("#rule-confirmation")).to_contain_text("passed")
    # The first rule is on the screen while the Archive is still being asked the others.
    expect(page.locator("p.running")).to_be_visible()
    assert page.locator("#summary").count() == 0 and len(archive.received) < 5
    expect(page.locator("#summary")).to_contain_text("No rule failed")
    expect(page.locator("p.running")).to_be_hidden()
    expect(page.locator("ol.rules > li.rule-passed")).to_have_count(10)


def test_loopback_archive_is_refused_unless_private_archives_are_allowed(admin_page, serve_demo_archive):
    page = admin_page
    server = serve_demo_archive("mtc-m16c")
    page.goto("/admin/conformance")
    page.get_by_label("Archive service address").fill(server.base_url)
    page.get_by_role("button", name="Run the check").click()
    expect(page.locator("p.unreachable")).to_contain_text("No answer at all: refused to contact 127.0.0.1")
    expect(page.locator("p.unreachable")).to_contain_text("IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1")


def test_conformance_address_error_is_next_to_the_field(admin_page):
    page = admin_page
    page.goto("/admin/conformance")
    page.get_by_label("Archive service address").fill("http://mtc-m16c.sid.inpe.br")
    page.get_by_role("button", name="Run the check").click()
    expect(page.locator("#address-error")).to_contain_text("no service IBI after the address")
    expect(page.get_by_label("Archive service address")).to_have_attribute("aria-invalid", "true")


def test_admin_pages_on_a_phone(phone, serve_demo_archive, allow_private, registry):
    server = serve_demo_archive("mtc-m16c")
    include(registry, server)
    log_in(phone)
    phone.goto("/admin/archives")
    expect(phone.get_by_role("link", name=M16C_IBI)).to_be_visible()
    no_sideways_scroll(phone)  # the wide table scrolls inside its own region
    shoot(phone, "admin-archives-phone")
    phone.get_by_role("link", name=M16C_IBI).click()
    no_sideways_scroll(phone)
    phone.get_by_label("Known IBI (optional)").fill(KNOWN_IBI)
    phone.get_by_role("button", name="Run the conformance check").click()
    expect(phone.locator("p.summary")).to_contain_text("No rule failed")
    phone.locator("#rule-known-ibi summary").click()
    expect(phone.locator("#rule-known-ibi pre.answer")).to_contain_text("urlkey")
    no_sideways_scroll(phone)
    shoot(phone, "admin-phone")
