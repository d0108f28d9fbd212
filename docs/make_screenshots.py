"""Remake the screenshots of the README and the documentation site (``docs/screenshots/``):
``.venv/bin/python docs/make_screenshots.py``.

Runs the portal with its demo Archives on a loopback port (a throwaway database) and photographs
pages in Debian's Chromium: the home page's answer for a persistent URL, a trace of §10.2's URL
with its sequence diagram, a minted item on a phone, Check references on a reference list, and the citations of a thesis.
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
from ibiportal.storage.migrations import upgrade  # noqa: E402
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (the browser tests' Chromium)

OUT = ROOT / "docs" / "screenshots"
EXAMPLE = "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"
#: The demo library Archive's doctoral thesis.
THESIS = "D7N2U8HW/3UGHFGH"
#: A reference list as INPE prints them (TATHU, 2022, from a public README) and §10.1's item, which
#: the demo Archives hold, so that the check shows both outcomes.
REFERENCES = """UBA, D. M.; NEGRI, R. G.; ENORÉ, D. P.; COSTA, I. C.; JORGE, A. A. S. TATHU - Software para rastreio e \
análise do ciclo de vida de sistemas convectivos. São José dos Campos: INPE, 2022. 39 p. IBI: <8JMKD3MGP3W34T/47AF772>. \
(sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC). Disponível em: <http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772>.

BANON, G. J. F. Reference model for an open archival information system. Available from:
<http://urlib.net/rep/8JMKD3MGP8W/35MMLL8>. doi: 10.1109/ACCESS.2020.2997019.
"""


def main() -> None:
    server = make_server("127.0.0.1", 0, app=None, threaded=True)
    url = f"http://127.0.0.1:{server.server_port}"
    database = str(Path(tempfile.mkdtemp()) / "portal.sqlite")
    upgrade(database)  # what bin/serve does first
    server.app = create_app({"DATABASE": database, "PORTAL_URL": url})
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
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
        references(browser, url)
        cite(browser, url)
        browser.close()
    server.shutdown()


def references(browser, url: str) -> None:
    """Check references: the table of IBIs found, the check streamed in (summary, outcomes)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900}, base_url=url)
    page.goto("/references")
    page.get_by_label("References").fill(REFERENCES)
    page.get_by_role("button", name="Find IBIs").click()
    page.wait_for_load_state()
    page.locator("#check-status").filter(has_text="Checked:").wait_for(timeout=30_000)
    page.locator("#found").screenshot(path=str(OUT / "references.png"))


def cite(browser, url: str) -> None:
    """Cite: a doctoral thesis of the demo library Archive in every style, emphasis kept."""
    page = browser.new_page(viewport={"width": 1280, "height": 1100}, base_url=url)
    page.goto(f"/cite?ibi={THESIS}")
    top = page.get_by_role("heading", name="Formatted citations").bounding_box()
    bottom = page.locator("section.citation").last.bounding_box()
    clip = {"x": top["x"] - 8, "y": top["y"] - 8, "width": 1000,
            "height": bottom["y"] + bottom["height"] - top["y"] + 16}
    page.screenshot(path=str(OUT / "cite.png"), clip=clip, full_page=True)


if __name__ == "__main__":
    main()
