"""Every form that can show field errors, in Chromium at 1280 px and at 390 px: after a submit
with a mistake, one summary above the form names the fields by their labels and is announced
(``role="alert"``), the first field with an error has the focus, and its message is next to it."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Page, expect

from .conftest import log_in, shoot


@dataclass(frozen=True)
class Mistake:
    """A form filled wrongly: what the summary must say and which field must have the focus."""

    name: str
    path: str
    fill: dict[str, str]
    button: str
    summary: str
    focused: str
    admin: bool = False
    uploads: dict[str, str] = field(default_factory=dict)
    #: The page's live preview asks this API as the field is filled, and gets a 400 (on purpose).
    preview: str | None = None


MISTAKES = [
    Mistake("convert", "/convert", {"IBI (either form)": "8JMKD3MGP8W/34PGRB!!x"}, "Convert",
            "Nothing was converted: correct this field: IBI (either form).", "IBI (either form)"),
    Mistake("batch-convert", "/convert", {}, "Convert all",
            "Nothing was converted: correct this field: Identifiers, one per line.", "Identifiers, one per line"),
    Mistake("compose", "/compose", {"IBI": "8JMKD3MGP8W/34PGRB!!x"}, "Compose",
            "Nothing was composed: correct this field: IBI.", "IBI", preview="/api/v1/compose?"),
    Mistake("parse", "/parse", {"Persistent URL": "http://urlib.net/8JMKD3MGP8W/34PGRBS!!"}, "Parse",
            "Nothing was parsed: correct this field: Persistent URL.", "Persistent URL"),
    Mistake("cite", "/cite", {"IBI or persistent URL": "8JMKD3MGP8W/34PGRB!!x"}, "Cite",
            "Nothing was cited: correct this field: IBI or persistent URL.", "IBI or persistent URL"),
    Mistake("trace", "/trace", {"Persistent URL": "ftp://urlib.net/8JMKD3MGP8W/34PGRBS"}, "Trace",
            "Nothing was resolved: correct this field: Persistent URL.", "Persistent URL"),
    Mistake("references", "/references", {}, "Find IBIs",
            "Nothing was checked: correct this field: References.", "References"),
    Mistake("login", "/admin/login", {"Username": "admin", "Password": "not the password"}, "Log in",
            "You are not logged in: correct this field: Password.", "Password"),
    Mistake("register-archive", "/admin/archives", {"Archive service IBI": "not an IBI!"}, "Register",
            "Nothing was registered: correct this field: Archive service IBI.",
            "Archive service IBI", admin=True),
    Mistake("prefix-pair", "/convert/prefixes", {"Repository-name prefix": "sid.inpe.br/mtc-m18",
                                                 "IBIp prefix": "8JMKD3MGP8!"}, "Add pair",
            "No pair was added: correct this field: IBIp prefix.", "IBIp prefix", admin=True),
    Mistake("conformance", "/admin/conformance", {"Archive service address": "not a URL"}, "Run the check",
            "Nothing was checked: correct this field: Archive service address.", "Archive service address",
            admin=True),
]


@pytest.fixture(params=["page", "phone"])
def any_page(request) -> Page:
    """The desktop page, then the phone one."""
    page = request.getfixturevalue(request.param)
    page.width_name = "desktop" if request.param == "page" else "phone"  # type: ignore[attr-defined]
    return page


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.name for m in MISTAKES])
def test_a_mistake_is_announced_and_its_field_takes_the_focus(any_page: Page, mistake: Mistake):
    if mistake.admin:
        log_in(any_page)
    any_page.goto(mistake.path)
    form = any_page.locator("main form", has=any_page.get_by_role("button", name=mistake.button, exact=True))
    for label, value in mistake.fill.items():
        if mistake.preview is None:
            form.get_by_label(label, exact=True).fill(value)
            continue
        # The preview's 400 is waited for before the submit: whether it came before the page
        # left (and was reported) depended on how loaded the machine was.
        with any_page.expect_response(lambda response: mistake.preview in response.url and response.status == 400):
            form.get_by_label(label, exact=True).fill(value)
        any_page.problems.clear()
    with any_page.expect_navigation():  # the page with the errors is loaded before its layout is measured
        form.get_by_role("button", name=mistake.button, exact=True).click()
    summary = any_page.locator("main form .error-summary")
    expect(summary).to_have_count(1)
    expect(summary).to_have_attribute("role", "alert")
    expect(summary).to_have_text(mistake.summary)
    focused = any_page.get_by_label(mistake.focused, exact=True)
    expect(focused).to_be_focused()
    expect(focused).to_have_attribute("aria-invalid", "true")
    error_id = focused.get_attribute("aria-describedby").split()[-1]
    expect(any_page.locator(f"#{error_id}")).to_be_visible()  # its message, read with it
    assert focused.evaluate("el => { const r = el.getBoundingClientRect();"
                            " return r.top >= 0 && r.bottom <= window.innerHeight; }"), "the focused field is on screen"
    assert any_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shoot(any_page, f"form-error-{mistake.name}-{any_page.width_name}")
