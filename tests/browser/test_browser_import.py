"""The Import page in Chromium: a long import's page follows it in place (import-progress.js),
then, once it ends, shows every record and the report; no script error, none blocked by the CSP."""
from __future__ import annotations

import threading
from datetime import datetime, timezone

import pytest
from playwright.sync_api import Page, expect

from tests.oai_source import OaiSource, SourceRecord
from tests.servers import loopback_server


@pytest.fixture
def slow_source():
    """Five records of mtc-m21d in pages of two; the second and third pages wait for the test."""
    records = [SourceRecord(f"oai:urlib.net:sid.inpe.br/mtc-m21d/2021/03.1{day}.10.20",
                            datetime(2021, 3, 10 + day, tzinfo=timezone.utc), (("title", f"Relatório nº {day}"),))
               for day in range(5)]
    source = OaiSource(records, page_size=2, hold={2: threading.Event(), 3: threading.Event()})
    server = loopback_server(source)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    source.url = f"http://127.0.0.1:{server.server_port}/oai"
    yield source
    for event in source.hold.values():
        event.set()
    server.shutdown()
    server.server_close()


def test_a_long_import_is_followed_in_place_then_shows_its_report(admin_page: Page, slow_source):
    page = admin_page
    page.goto("/admin/import/")
    page.get_by_label("or an OAI-PMH base URL").fill(slow_source.url)
    with page.expect_navigation():
        page.get_by_role("button", name="Import without a preview").click()
    progress = page.locator("#progress")
    expect(progress).to_contain_text("2 of 5 records done", timeout=20_000)
    expect(page.get_by_role("heading", level=1)).to_have_text("Importing…")
    page.evaluate("window.sameDocument = true")

    slow_source.hold[2].set()

    expect(progress).to_contain_text("4 of 5 records done", timeout=20_000)  # renewed in place, no reload
    assert page.evaluate("window.sameDocument === true")
    expect(page.locator("#run-live progress")).to_have_attribute("value", "4")
    expect(page.locator("#latest tbody tr")).to_have_count(4)

    slow_source.hold[3].set()

    expect(page.get_by_role("heading", level=1)).to_have_text("What the import did", timeout=20_000)
    expect(page.locator("#totals")).to_contain_text("5 records: 5 created")
    expect(page.get_by_role("link", name="Download the report (JSON Lines)")).to_be_visible()
    expect(page.locator(".import-outcomes tbody tr")).to_have_count(5)
