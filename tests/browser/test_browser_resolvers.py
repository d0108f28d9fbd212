"""The Resolvers page in Chromium: the own Archive joins an outside resolver and leaves it.

The resolver is ``tests/archive/independent_resolver.py`` (written from file 003 §7 alone) on
loopback; the portal is a live server of its own that may contact loopback addresses and knows
its address and administrator's e-mail, so the resolver's confirmation request (Example 7.4)
reaches the portal's Archive service route while the page's own request waits for the status.
"""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.archive.independent_resolver import IndependentResolver
from tests.servers import fresh_sqlite

from .conftest import LiveServer, log_in, serve_with_admin, shoot, sized_page

SERVICE_IBI = "32G4GKPW/4GR3P92"
KEY = "1234567890-0987654321"


@pytest.fixture(scope="module")
def archive_portal(tmp_path_factory) -> Iterator[LiveServer]:
    server = serve_with_admin(fresh_sqlite(tmp_path_factory.mktemp("joining") / "portal.sqlite"),
                              ALLOW_PRIVATE_ARCHIVES=True, ADMIN_EMAIL="archive-admin@example.org")
    yield server
    server.server.shutdown()


@pytest.fixture
def resolver() -> Iterator[IndependentResolver]:
    resolver = IndependentResolver(registered={SERVICE_IBI: KEY}, callback_timeout=10.0).start()
    yield resolver
    resolver.stop()


@pytest.fixture(params=["desktop", "phone"])
def admin(request, browser, archive_portal) -> Iterator[Page]:
    for page in sized_page(browser, archive_portal, request.param):
        log_in(page)
        yield page


def test_join_and_leave_an_outside_resolver(admin, archive_portal, resolver):
    admin.goto("/admin/archives")
    admin.get_by_role("link", name="Join an outside resolver").click()
    expect(admin.get_by_role("heading", name="Outside resolvers", level=1)).to_be_visible()
    expect(admin.locator("dl.identity")).to_contain_text(archive_portal.url.removeprefix("http://"))

    admin.get_by_label("Resolver service URL").fill(resolver.url)
    admin.get_by_label("Registration key").fill(KEY)
    admin.get_by_role("button", name="Join (inclusionRequest)").click()
    expect(admin.get_by_role("status")).to_have_text(
        "Included: the resolver asked this Archive for its confirmation and received it; it will ask this "
        "Archive when resolving.")
    row = admin.locator("table.resolvers tbody tr", has_text=resolver.url)
    expect(row.locator(".badge")).to_have_text("included")
    expect(row).to_contain_text("status.archive included status.confirmation successful")
    assert resolver.received[-1].confirmation_answer.split() == ["confirmation", "yes"]
    shoot(admin, f"admin-resolvers-joined-{admin.width_name}")

    row.get_by_role("link", name="Join or leave again").click()
    expect(admin.get_by_label("Resolver service URL")).to_have_value(resolver.url)
    admin.get_by_label("Registration key").fill(KEY)
    admin.get_by_role("button", name="Leave (exclusionRequest)").click()
    expect(admin.get_by_role("status")).to_have_text("Excluded: the resolver no longer asks this Archive.")
    expect(row.locator(".badge")).to_have_text("excluded")
    assert resolver.included == {}
    assert KEY not in admin.content()
    if admin.width_name == "phone":  # the table scrolls in its own region; the page does not
        assert admin.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_wrong_key_is_refused_in_words(admin, resolver):
    admin.goto("/admin/resolvers")
    admin.get_by_label("Resolver service URL").fill(resolver.url)
    admin.get_by_label("Registration key").fill("5555555555")
    admin.get_by_role("button", name="Join (inclusionRequest)").click()
    expect(admin.get_by_role("status")).to_have_text("Refused by the resolver: wrong registration key (HTTP 403).")
    shoot(admin, f"admin-resolvers-refused-{admin.width_name}")
