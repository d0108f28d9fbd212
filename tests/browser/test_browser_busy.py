"""Slow actions in Chromium (static/js/busy.js): once sent, a form marked ``data-busy`` disables
its button, says what is running in a live region with a spinner and the seconds spent, ignores a
second submission, and comes back usable from the back/forward cache.

Playwright waits for a navigation under way before it looks at a page, so the page is looked at
while a submission is stopped in the browser instead: a listener on ``window`` (the last to hear a
``submit``, after busy.js on ``document``) counts each submission busy.js let through and cancels
it. One test then lets the real submission go, to the page that answers."""
from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import hold_timers, shoot, sized_page

PERMALINK = re.compile(r"/trace/[A-Za-z0-9_-]+$")
STOP_SUBMISSIONS = """() => {
  window.submissions = 0;
  window.addEventListener("submit", (event) => {
    if (!event.defaultPrevented) window.submissions += 1;
    event.preventDefault();
  });
}"""


def submissions(page: Page) -> int:
    return page.evaluate("window.submissions")


def test_a_trace_disables_its_button_and_says_it_is_running(page: Page):
    page.goto("/trace?url=http://urlib.net/8JMKD3MGP8W/35MMLL8&archives=demo")
    hold_timers(page)  # the seconds shown move only when the test moves the clock
    page.evaluate(STOP_SUBMISSIONS)
    button = page.get_by_role("button", name="Trace", exact=True)
    button.click()
    page.clock.run_for(10)  # the buttons are disabled by a timer of 0 ms, once the form's values are taken
    form = page.locator("form.trace-form")
    status = form.get_by_role("status")
    expect(status).to_have_text(re.compile(r"^\s*Tracing: asking the Archives…\s*$"))
    expect(button).to_be_disabled()
    expect(form).to_have_attribute("aria-busy", "true")
    expect(status.locator(".spinner")).to_have_attribute("aria-hidden", "true")
    page.clock.run_for(3000)
    expect(status.locator(".busy-elapsed")).to_have_text(" 3 s")
    # Impatient: another click, Enter in the field: nothing more is sent.
    button.click(force=True)
    page.get_by_label("Persistent URL").press("Enter")
    assert submissions(page) == 1


def test_the_busy_trace_form_at_1280_and_390_px(browser, live_server):
    for width in ("desktop", "phone"):
        for page in sized_page(browser, live_server, width):
            page.goto("/trace?url=http://urlib.net/8JMKD3MGP8W/35MMLL8&archives=demo")
            page.evaluate(STOP_SUBMISSIONS)
            page.get_by_role("button", name="Trace", exact=True).click()
            status = page.locator("form.trace-form").get_by_role("status")
            expect(status).to_be_visible()
            box, button = status.bounding_box(), page.get_by_role("button", name="Trace", exact=True).bounding_box()
            assert box["y"] >= button["y"] + button["height"] - 1  # under the button, never over it
            assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
            shoot(page, f"busy-trace-{width}")


def test_the_submission_goes_through_with_its_values(page: Page):
    """The buttons are disabled only after the form's values were taken: the trace asked is the one typed."""
    page.goto("/trace?url=http://urlib.net/8JMKD3MGP8W/35MMLL8&archives=demo&accept_language=pt-BR")
    page.get_by_role("button", name="Trace", exact=True).click()
    expect(page).to_have_url(PERMALINK)
    expect(page.get_by_role("heading", name="Redirected")).to_be_visible()
    expect(page.locator(".facts")).to_contain_text("pt-BR")


def test_back_from_the_cache_the_form_is_usable_again(page: Page):
    """Chromium under Playwright keeps no page in the back/forward cache, so the ``pageshow``
    event such a return fires (``persisted``) is fired here as the browser would."""
    page.goto("/trace?url=8JMKD3MGP8W/35MMLL8&archives=demo")
    page.evaluate(STOP_SUBMISSIONS)
    button = page.get_by_role("button", name="Trace", exact=True)
    button.click()
    expect(button).to_be_disabled()
    page.evaluate("window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))")
    expect(button).to_be_enabled()
    expect(page.locator("form.trace-form")).not_to_have_attribute("aria-busy", "true")
    expect(page.locator(".busy-status")).to_be_hidden()
    button.click()  # and it can be sent again
    assert submissions(page) == 2


def test_cite_says_it_is_reading_the_metadata(page: Page):
    """A GET form too: the Cite button is disabled until the citation page comes."""
    page.goto("/cite")
    page.evaluate(STOP_SUBMISSIONS)
    page.get_by_label("IBI").fill("8JMKD3MGP8W/35MMLL8")
    button = page.get_by_role("button", name="Cite", exact=True)
    button.click()
    expect(page.locator("form.cite-form").get_by_role("status")).to_contain_text("Reading the item’s metadata…")
    expect(button).to_be_disabled()


def test_a_form_without_the_attribute_is_left_alone(page: Page):
    page.goto("/parse")
    page.evaluate(STOP_SUBMISSIONS)
    page.get_by_label("Persistent URL").fill("8JMKD3MGP8W/35MMLL8")
    page.get_by_role("button", name="Parse").click()
    page.get_by_role("button", name="Parse").click()
    assert submissions(page) == 2
    expect(page.locator(".busy-status")).to_have_count(0)
