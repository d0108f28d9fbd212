"""Remake the README's screenshots: ``.venv/bin/python docs/make_screenshots.py``.

Runs the portal with its demo Archives on a loopback port (a throwaway database) and photographs
three pages in Debian's Chromium: the home page's answer for a persistent URL, a trace of
§10.2's URL with its sequence diagram, and a minted item on a phone.
"""
from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ibiportal import create_app  # noqa: E402  (after the path is set)

OUT = ROOT / "docs" / "screenshots"
EXAMPLE = "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"


def main() -> None:
    server = make_server("127.0.0.1", 0, app=None, threaded=True)
    url = f"http://127.0.0.1:{server.server_port}"
    database = str(Path(tempfile.mkdtemp()) / "portal.sqlite")
    server.app = create_app({"DATABASE": database, "PORTAL_URL": url})
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 860}, base_url=url)
        page.goto(f"/?q={EXAMPLE}")
        page.screenshot(path=str(OUT / "home.png"))
        page.goto(f"/trace?url={EXAMPLE}")
        page.locator("main form button[type=submit]").first.click()
        page.wait_for_url("**/trace/*")
        page.locator("h2", has_text="Messages").first.scroll_into_view_if_needed()
        page.screenshot(path=str(OUT / "trace-diagram.png"))
        phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, base_url=url)
        phone.goto("/mint")
        phone.get_by_label("Title").fill("Hyperspectral imaging of the Amazon canopy")
        phone.get_by_role("button", name="Mint", exact=True).click()
        phone.wait_for_load_state()
        phone.screenshot(path=str(OUT / "mint-phone.png"))
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
