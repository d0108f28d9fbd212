"""Direct Archive links in the browser: pasted on the home page they say where the item is now;
opened on the portal they are rescued, or name the item's persistent URL when nobody holds it."""
from __future__ import annotations

from playwright.sync_api import expect

from .conftest import shoot

ITEM = "sid.inpe.br/mtc-m19/2013/09.04.12.27.57"  # Example 8.9's item, held by a demo Archive
GONE = "sid.inpe.br/mtc-m21b/2017/08.10.22.44"  # a real thesis (tests/ibi/data/wild_ibis.py) no demo Archive holds


def test_a_dead_direct_link_pasted_on_the_home_page_says_where_the_item_is_now(page):
    page.goto("/")
    page.get_by_label("IBI or persistent URL").fill(f"[Relatório](http://mtc-m16c.sid.inpe.br/col/{ITEM}/doc/Relat%C3%B3rio%20Final.pdf).")
    page.get_by_role("button", name="Look up").click()
    where = page.get_by_role("status").filter(has_text="Where the item is now")
    expect(where).to_contain_text("the resolver found the item at")
    found = where.get_by_role("link").first.get_attribute("href")
    assert ITEM in found and "mtc-m16c" not in found  # the copy the resolver found, not the dead host
    expect(page.locator(".recognised .card")).to_contain_text(f"http://urlib.net/{ITEM}")
    expect(page.locator(".notes, .recognised")).to_contain_text("a direct link to a file in one Archive's copy of the item")
    shoot(page, "home-direct-link-desktop")


def test_an_item_nobody_holds_is_named_on_the_rescue_page(page):
    response = page.goto(f"/col/{GONE}/doc/publicacao.pdf")
    assert response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Could not resolve this persistent URL")
    expect(page.locator("main")).to_contain_text(f"/{GONE}/publicacao.pdf")
    expect(page.locator(".rescued")).to_contain_text("is a direct link to one Archive's copy of the item")
    expect(page.locator("main")).not_to_contain_text("not a persistent URL")
    shoot(page, "rescue-not-found-desktop")
