"""The browser the tests drive: Debian's Chromium, with what no test looks at turned off.

Chromium reads only the last ``--disable-features`` it is given, and ours comes after
Playwright's: if Playwright's list grows with an upgrade, ours must grow with it, or Chromium
quietly gets back what Playwright turns off for the sake of reliable tests.
"""
from __future__ import annotations

import re
from pathlib import Path

import playwright

from tests.browser.chromium import PLAYWRIGHT_DISABLED_FEATURES


def installed_playwright_disabled_features() -> list[str]:
    """The names in the installed Playwright driver's ``disabledFeatures = [ … ]``."""
    driver = Path(playwright.__file__).parent / "driver" / "package" / "lib"
    for script in driver.rglob("*.js"):
        text = script.read_text(encoding="utf-8", errors="replace")
        found = re.search(r"disabledFeatures = \[(.*?)\]", text, re.S)
        if found and "chromiumSwitches" in text:
            return re.findall(r'^\s*"(\w+)"', found[1], re.M)
    raise AssertionError(f"no chromiumSwitches' disabledFeatures in {driver}: read where Playwright now lists them")


def test_our_disabled_features_keep_every_one_playwright_disables():
    theirs = installed_playwright_disabled_features()
    assert "PaintHolding" in theirs  # the parse found the real list
    assert [name for name in theirs if name not in PLAYWRIGHT_DISABLED_FEATURES] == []


def test_a_browser_context_opens_its_page_and_no_browser_ui(full_chromium):
    """Each context is a window of the whole browser; without ``BROWSER_UI_NOT_TESTED`` turned
    off, each window opened the address bar's pop-ups (``browser_ui`` targets,
    ``chrome://omnibox-popup.top-chrome/…``)."""
    browser = full_chromium  # the headless shell has no browser UI to turn off
    context = browser.new_context()
    try:
        context.new_page().goto("about:blank")
        targets = browser.new_browser_cdp_session().send("Target.getTargets")["targetInfos"]
    finally:
        context.close()
    opened = [(target["type"], target["url"]) for target in targets]
    assert [(kind, url) for kind, url in opened if kind != "page"] == []
    assert ("page", "about:blank") in opened
