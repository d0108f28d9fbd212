"""The not-found page of an item whose Archive an administrator excluded, read on a phone by
support staff without a login: it names the exclusion, and each next step is a link that opens."""
from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timezone

import pytest
from playwright.sync_api import Page, expect

from ibiportal.storage.registry import ArchiveStore
from tests.browser.conftest import LiveServer, shoot, sized_page
from tests.reliability.faulty_archives import include
from tests.servers import fresh_sqlite

SERVICE_IBI = "8JMKD3MGP8W/3B8S6GL"
ADDRESS = "150.163.34.243"  # what 8JMKD3MGP8W encodes: the item's Archive


@pytest.fixture(scope="module")
def portal(tmp_path_factory) -> Iterator[LiveServer]:
    server = LiveServer(fresh_sqlite(tmp_path_factory.mktemp("why") / "portal.sqlite"))
    include(server.app.config["DATABASE"], ADDRESS, SERVICE_IBI)
    storage = server.storage()
    ArchiveStore(storage).record_exclusion(SERVICE_IBI, datetime.now(timezone.utc), "excluded by the administrator maria")
    storage.close()
    server.thread.start()
    yield server
    server.server.shutdown()


@pytest.fixture(params=["desktop", "phone"])
def any_page(request, browser, portal) -> Iterator[Page]:
    yield from sized_page(browser, portal, request.param)


def test_the_excluded_archive_is_named_and_each_next_step_opens(any_page: Page):
    page = any_page
    response = page.goto("/8JMKD3MGP8W/34PGRBS")
    assert response.status == 404
    steps = page.locator("ol.next-steps > li")
    expect(steps.first).to_contain_text(re.compile(
        rf"The Archive {SERVICE_IBI} at {ADDRESS} was excluded on \d{{4}}-\d\d-\d\d \d\d:\d\d UTC "
        r"\(its history says: excluded by the administrator maria\)"))
    expect(page.locator("main")).not_to_contain_text("should register it")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    shoot(page, f"not-found-excluded-{page.width_name}")
    link = steps.first.get_by_role("link", name="Archive health: every registered Archive and its state")
    link.click()
    expect(page).to_have_url(re.compile(r"/archives/health$"))
    expect(page.get_by_role("heading", level=1)).to_be_visible()
