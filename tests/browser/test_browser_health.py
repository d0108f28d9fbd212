"""The Archive health page in Chromium at 1280 and 390 px: recent exchanges drawn against the
resolver's limit, Archives near the timeout or failing marked in words as well as colour, and on
a phone one card per Archive with nothing off to the right.

A portal of its own (fresh database) with traces stored as the resolver stores them, so that the
Archives' latencies are the ones the test chose: one near the timeout (a median of 4,004 ms
against 5 s), one whose last exchanges failed, one quick.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from ibiportal.resolver.health import NEAR_TIMEOUT_SHARE
from ibiportal.storage.traces import TraceStore

from .conftest import LiveServer, serve_with_admin, shoot, sized_page
from tests.servers import fresh_sqlite

NEAR, DOWN, QUICK = "near.example.org:8080", "down.example.org", "quick.example.org"


def step(address: str, status: str, ms: float) -> dict:
    return {"number": 3, "kind": "urlRequest", "receiver": address, "archive": address, "status": status,
            "elapsed_ms": ms, "error": "no answer within 5 s" if status == "timeout" else None}


@pytest.fixture(scope="module")
def health_server(tmp_path_factory) -> Iterator[LiveServer]:
    server = serve_with_admin(fresh_sqlite(tmp_path_factory.mktemp("health") / "portal.sqlite"))
    limit_ms = server.app.config["ARCHIVE_READ_TIMEOUT"] * 1000
    storage = server.storage()
    traces = TraceStore(storage)
    for n in range(16):  # oldest first; the last three exchanges with DOWN failed
        down = step(DOWN, "timeout", limit_ms) if n >= 13 else step(DOWN, "answered", 40.0 + n)
        steps = [step(NEAR, "answered", 4004.0 + 37 * (n % 5)), down, step(QUICK, "empty" if n % 3 else "answered", 12.0 + n)]
        traces.save_trace(f"health-{n:02d}", "http://urlib.net/8JMKD3MGP8W/34PGRBS", "found",
                          {"trace": {"steps": steps}}, keep=1000, budget_bytes=10**7)
    storage.close()
    yield server
    server.server.shutdown()


@pytest.fixture(params=["desktop", "phone"])
def health_page(request, browser, health_server) -> Iterator[Page]:
    yield from sized_page(browser, health_server, request.param)


def test_latency_against_the_limit_near_and_failing_archives_marked_a_card_each_on_a_phone(health_page, health_server):
    page = health_page
    page.goto("/archives/health")
    limit_ms = health_server.app.config["ARCHIVE_READ_TIMEOUT"] * 1000
    assert 4004 >= NEAR_TIMEOUT_SHARE * limit_ms  # the configuration makes 4,004 ms near the timeout
    near = page.locator("tr", has=page.locator("th", has_text=NEAR))
    down = page.locator("tr", has=page.locator("th", has_text=DOWN))
    quick = page.locator("tr", has=page.locator("th", has_text=QUICK))
    expect(near.locator(".badge.condition")).to_have_text("⚠ Near the timeout")
    expect(near).to_contain_text("median 4,078 ms of 5,000 ms")
    expect(down.locator(".badge.condition")).to_have_text("✗ Failing")
    expect(down).to_contain_text("its last exchange failed")
    expect(quick.locator(".badge.condition")).to_have_text("✓ Answering")
    # The bars: one per exchange, drawn by the server, named for assistive technology.
    chart = near.get_by_role("img", name=f"Recent exchanges with {NEAR}")
    expect(chart).to_be_visible()
    expect(near.locator("svg.latency rect.bar")).to_have_count(16)
    expect(near.locator("svg.latency rect.bar-slow")).to_have_count(16)
    expect(down.locator("svg.latency rect.bar-failed")).to_have_count(3)
    expect(down.locator(".counts")).to_contain_text("13 answered, 0 empty, ✗ 3 failed")
    assert "3 failed" in " ".join(down.locator("svg desc").text_content().split())
    assert "against the limit of 5,000 ms" in " ".join(chart.locator("desc").text_content().split())
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    if page.width_name == "phone":  # one card per Archive: its name and chart as wide as the card
        card = near.bounding_box()
        assert card["width"] > 300
        assert near.locator("th").bounding_box()["width"] > 0.9 * card["width"] - 20
        assert chart.bounding_box()["width"] > 0.8 * card["width"]
        assert down.locator("td[data-label='Last failure']").bounding_box()["x"] < 390
    shoot(page, f"archive-health-chart-{page.width_name}")


def test_in_portuguese_words_numbers_and_times_follow_the_language(browser, health_server):
    for page in sized_page(browser, health_server, "phone"):
        page.goto("/archives/health?lang=pt-BR")
        assert page.locator("html").get_attribute("lang") == "pt-BR"
        near = page.locator("tr", has=page.locator("th", has_text=NEAR))
        expect(near.locator(".badge.condition")).to_have_text("⚠ Perto do tempo-limite")
        expect(near).to_contain_text("mediana de 4.078 ms em 5.000 ms")  # Brazilian digit grouping
        expect(near.get_by_role("img", name=f"Trocas recentes com {NEAR}")).to_be_visible()
        down = page.locator("tr", has=page.locator("th", has_text=DOWN))
        moment = down.locator("td.failure-cell time")  # a relative time, the exact one in its title, as Brazilians write it
        expect(moment).to_have_attribute("title", re.compile(r"^\d{2}/\d{2}/\d{4} \d{2}:\d{2}:\d{2} UTC$"))
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        shoot(page, "archive-health-chart-phone-pt")
