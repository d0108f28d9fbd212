"""The alert pages a reader lands on, at 1280 px and 390 px, in English and Portuguese: a deleted
item of this portal (its title and a link to its record, the date once in the reader's form) and
a not-found whose only other Archive did not answer in time (named in the headline)."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import DESKTOP, PHONE, LiveServer, _page, shoot
from tests.reliability.faulty_archives import RawArchive, include, says_nothing
from tests.servers import fresh_sqlite

SERVICE_IBI = "8JMKD3MGP8W/3B8S6GL"
WORDS = {"en-GB": ("This item was deleted", "Its record, kept on this portal", "did not answer in time"),
         "pt-BR": ("Este item foi removido", "Seu registro, mantido neste portal", "não respondeu a tempo")}


@pytest.fixture(scope="module")
def portal(tmp_path_factory) -> Iterator[tuple[LiveServer, str, RawArchive]]:
    """A portal with one deleted item of its own and a registered Archive that never answers."""
    server = LiveServer(fresh_sqlite(tmp_path_factory.mktemp("alerts") / "portal.sqlite"),
                        ARCHIVE_READ_TIMEOUT=0.5, ALLOW_PRIVATE_ARCHIVES=True)
    client = server.app.test_client()
    token = server.app.test_cli_runner().invoke(args=["api-token", "create", "t"]).output.strip().splitlines()[-1]
    item = client.post("/api/v1/mint", json={"title": "Relatório de campo", "target_url": "https://example.org/r"}).get_json()
    assert client.delete(f"/api/v1/items/{item['ibip']}", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    with RawArchive(says_nothing) as silent:
        include(server.app.config["DATABASE"], silent.address, SERVICE_IBI)
        server.thread.start()
        yield server, item["ibip"], silent
    server.server.shutdown()


@pytest.fixture(params=[("desktop", "en-GB"), ("desktop", "pt-BR"), ("phone", "en-GB"), ("phone", "pt-BR")],
                ids=lambda p: "-".join(p))
def reader(request, browser, portal) -> Iterator[Page]:
    width, locale = request.param
    viewport, options = (DESKTOP, {}) if width == "desktop" else (
        PHONE, {"is_mobile": True, "has_touch": True, "device_scale_factor": 2})
    for page in _page(browser, portal[0], viewport, locale=locale, **options):
        page.name = f"{width}-{locale}"  # type: ignore[attr-defined]
        page.locale = locale  # type: ignore[attr-defined]
        yield page


def test_a_deleted_item_and_a_silent_archive(reader: Page, portal):
    page = reader
    deleted, gone_title, late = WORDS[page.locale]
    _, ibip, _ = portal
    assert page.goto(f"/{ibip}").status == 410
    expect(page.get_by_role("heading", level=1)).to_have_text(deleted)
    expect(page.locator("p.deleted-item")).to_contain_text("Relatório de campo")
    link = page.get_by_role("link", name=gone_title)
    expect(link).to_have_attribute("href", f"/archive/items/{ibip}")
    text = page.locator("main").inner_text()
    assert not re.search(r"\d{4}-\d\d-\d\dT", text) and len(re.findall(r"\d\d:\d\d:\d\d UTC", text)) == 1, text
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    shoot(page, f"alert-deleted-{page.name}")
    link.click()
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert page.goto("/8JMKD3MGP8W/34PGRBS").status == 404
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"{SERVICE_IBI} {late}")
    expect(page.locator("ol.next-steps li").first).to_contain_text(SERVICE_IBI)
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    shoot(page, f"alert-timeout-{page.name}")
