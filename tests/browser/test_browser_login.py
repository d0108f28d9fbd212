"""Administrator login in the browser: errors next to the fields, then in and out again."""
from __future__ import annotations

from playwright.sync_api import expect

from .conftest import ADMIN_PASSWORD, ADMIN_USERNAME, shoot


def test_wrong_password_is_shown_next_to_the_password_field(page):
    page.goto("/admin/login")
    page.get_by_label("Username").fill(ADMIN_USERNAME)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#password-error")).to_have_text("Wrong username or password.")
    expect(page.get_by_label("Password")).to_have_attribute("aria-invalid", "true")
    shoot(page, "login-error-desktop")


def test_log_in_and_out_with_the_keyboard(page):
    page.goto("/admin/login")
    page.keyboard.press("Tab")  # the skip link comes first
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.get_by_label("Username").focus()
    page.keyboard.type(ADMIN_USERNAME)
    page.keyboard.press("Tab")
    page.keyboard.type(ADMIN_PASSWORD)
    page.keyboard.press("Enter")
    expect(page.locator(".account .who")).to_have_text(ADMIN_USERNAME)
    cookie = next(c for c in page.context.cookies() if c["name"] == "session")
    assert cookie["httpOnly"] and cookie["secure"] and cookie["sameSite"] == "Lax"
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Administrator login")).to_be_visible()


def test_login_page_on_a_phone(phone):
    phone.goto("/admin/login")
    expect(phone.get_by_label("Username")).to_be_visible()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    shoot(phone, "login-phone")
