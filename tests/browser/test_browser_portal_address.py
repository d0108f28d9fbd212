"""The portal's address in Chromium, at 1280 px and at 390 px, on a portal started WITHOUT
``PORTAL_URL``: an own item's page and its metadata links use the address the browser used, and a
forged ``Host`` gets the portal's 400 and poisons neither a link nor a cached redirect."""
from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from .conftest import shoot

FORGED = "evil.example"


def mint_here(page: Page, base: str, title: str) -> str:
    """Mint an item without a target URL from the form at ``base``; its IBIp."""
    page.goto(f"{base}/mint")
    page.get_by_label("Title").fill(title)
    page.get_by_role("button", name="Mint", exact=True).click()
    card = page.locator("article.minted")
    expect(card).to_contain_text(title)
    links = card.get_by_role("link", name=re.compile("^http"))  # the persistent URL and the item's page
    expect(links).to_have_count(2)
    for link in links.all():
        expect(link).to_have_attribute("href", re.compile(f"^{re.escape(base)}/"))
    return card.locator("dt:text-is('IBIp') + dd code").inner_text()


def links_of_the_item_page(page: Page) -> list[str]:
    """Every address the item page gives reference managers: cite-as, the Highwire URL, JSON-LD."""
    json_ld = json.loads(page.locator("script[type='application/ld+json']").text_content())
    return [page.locator("link[rel=cite-as]").get_attribute("href"),
            page.locator("meta[name=citation_abstract_html_url]").get_attribute("content"),
            json_ld["@id"], json_ld["url"]]


def open_item(page: Page, base: str, ibip: str, title: str) -> None:
    """Follow the item's persistent URL at ``base``: it must land on the item page at ``base``."""
    page.goto(f"{base}/{ibip}")
    expect(page).to_have_url(f"{base}/archive/items/{ibip}")
    expect(page.get_by_role("heading", level=1)).to_have_text(title)
    assert all(link.startswith(f"{base}/") for link in links_of_the_item_page(page)), links_of_the_item_page(page)
    assert FORGED not in page.content()


def test_an_own_items_page_and_metadata_links_follow_the_address_the_browser_used(addressless_page: Page,
                                                                                 addressless_server):
    page, port = addressless_page, addressless_server.server.server_port
    by_name, by_number = f"http://localhost:{port}", f"http://127.0.0.1:{port}"
    title = f"Found where it was asked for ({page.width_name})"
    ibip = mint_here(page, by_name, title)
    open_item(page, by_name, ibip, title)
    shoot(page, f"portal-address-item-{page.width_name}")
    open_item(page, by_number, ibip, title)  # the same item, by the other name: its own links


def test_a_forged_host_gets_the_portals_400_and_poisons_nothing(addressless_page: Page, addressless_server):
    page, port = addressless_page, addressless_server.server.server_port
    base = f"http://127.0.0.1:{port}"
    title = f"Not poisoned ({page.width_name})"
    ibip = mint_here(page, base, title)
    open_item(page, base, ibip, title)  # the redirect is now cached …
    for path in (f"/{ibip}", f"/archive/items/{ibip}"):
        forged = page.request.get(f"{base}{path}", headers={"Host": FORGED}, max_redirects=0)
        assert forged.status == 400
        assert "IBIPORTAL_TRUSTED_HOSTS" in forged.text() and FORGED not in forged.text()
        assert "location" not in forged.headers
        as_json = page.request.get(f"{base}{path}", headers={"Host": FORGED, "Accept": "application/json"},
                                   max_redirects=0)
        assert as_json.status == 400 and as_json.json()["error"]["message"].startswith("This portal does not answer")
    # … and after the forged requests, neither the cached redirect nor the page names the forged host.
    for _ in range(2):
        again = page.request.get(f"{base}/{ibip}", max_redirects=0)
        assert again.status in (302, 303, 307) and again.headers["location"] == f"{base}/archive/items/{ibip}"
    open_item(page, base, ibip, title)
