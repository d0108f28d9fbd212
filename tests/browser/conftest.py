"""Browser tests: Playwright (Python) driving Debian's Chromium against a live portal.

One portal per test session, served by werkzeug on a loopback port in a thread, with CSRF on and
the demo Archives. Each test gets a fresh browser context (no cookies carried over). Any console
error or uncaught page error fails the test: a Content-Security-Policy violation shows up there.
Screenshots go to ``build/screenshots/`` (``shoot``); the README's and the documentation's
come from ``docs/make_screenshots.py``, which starts Chromium the same way (``chromium.py``).
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from werkzeug.security import generate_password_hash

from ibiportal import create_app
from ibiportal.storage.accounts import AccountStore
from ibiportal.storage.database import Storage
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS, HEADLESS_SHELL
from tests.servers import fresh_sqlite, loopback_server, remembering_response

SCREENSHOTS = Path(__file__).resolve().parent.parent.parent / "build" / "screenshots"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
ADMIN_USERNAME = "admin"
ADMIN_PASSWORD = "correct horse battery staple"


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.browser)


class LiveServer:
    """The portal on ``http://127.0.0.1:<port>``, serving from a thread until the session ends.

    ``told_its_address=False`` starts it without ``PORTAL_URL``: it then takes its address from
    each request (for the trusted loopback names only), as a portal deployed without one does.
    """

    def __init__(self, database: str, *, told_its_address: bool = True, **settings):
        self.server = loopback_server()  # port first …
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        config = {
            "DATABASE": database,
            "SECRET_KEY": "browser-tests",
            # Every browser test reaches this one server from one address: a person's budget of
            # traces and citations (20/minute) would answer 429 to whichever test comes after the
            # twentieth within a minute, the faster the machine the sooner. The limit itself is
            # tested in tests/security on an app of its own.
            "RATELIMIT_TRACE": "1000/minute",
            # Session cookies stay Secure, as in production: Chromium keeps them on
            # http://127.0.0.1 (a potentially trustworthy origin).
        }
        if told_its_address:
            config["PORTAL_URL"] = self.url  # … so that the demo Archives point back here
        self.config = {**config, **settings}
        self.app = create_app(self.config)
        self.server.app = remembering_response(self.app)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @contextmanager
    def built_with(self, **settings) -> Iterator[None]:
        """Served meanwhile by an app built with ``settings`` too, over the same database and with
        the same secret key (a browser's session carries over), at the same address: an app's
        settings are read once, when it is built."""
        self.server.app = remembering_response(create_app({**self.config, **settings}))
        try:
            yield
        finally:
            self.server.app = remembering_response(self.app)

    def storage(self) -> Storage:
        return Storage(self.app.config["DATABASE"])


def serve_with_admin(database: str, **settings) -> LiveServer:
    """A live portal with the administrator account, serving (``settings`` added to its config)."""
    server = LiveServer(database, **settings)
    storage = server.storage()
    AccountStore(storage).set_admin_password_hash(ADMIN_USERNAME, generate_password_hash(ADMIN_PASSWORD))
    storage.close()
    server.thread.start()
    return server


@pytest.fixture(scope="session")
def live_server(tmp_path_factory) -> Iterator[LiveServer]:
    server = serve_with_admin(fresh_sqlite(tmp_path_factory.mktemp("portal") / "portal.sqlite"))
    yield server
    server.server.shutdown()


@pytest.fixture(scope="session")
def addressless_server(tmp_path_factory) -> Iterator[LiveServer]:
    """A second live portal, started without ``PORTAL_URL`` (no administrator needed)."""
    server = LiveServer(fresh_sqlite(tmp_path_factory.mktemp("addressless") / "portal.sqlite"),
                        told_its_address=False)
    server.thread.start()
    yield server
    server.server.shutdown()


@pytest.fixture(scope="session")
def browser(playwright_driver) -> Iterator[Browser]:
    """Debian's ``chromium-headless-shell``: what most browser tests drive (``chromium.py``)."""
    browser = playwright_driver.chromium.launch(executable_path=HEADLESS_SHELL, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def full_chromium(playwright_driver) -> Iterator[Browser]:
    """Debian's whole Chromium, ``/usr/bin/chromium``: a module that overrides ``browser`` with
    it walks in the browser a reader runs."""
    browser = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def _page(browser: Browser, live_server: LiveServer, viewport: dict, **options) -> Iterator[Page]:
    context = browser.new_context(base_url=live_server.url, viewport=viewport, **options)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: _console(problems, m))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("response", lambda r: _subresource(problems, r))
    page.problems = problems  # type: ignore[attr-defined]  (tests expecting an error clear it)
    yield page
    context.close()
    assert problems == [], "the browser reported errors:\n" + "\n".join(problems)


def _console(problems: list[str], message) -> None:
    # A page answered 4xx on purpose (a form with errors) is logged as "Failed to load
    # resource"; failed subresources are caught by _subresource instead.
    if message.type == "error" and not message.text.startswith("Failed to load resource"):
        problems.append(f"console error: {message.text}")


def _subresource(problems: list[str], response) -> None:
    if response.status >= 400 and response.request.resource_type != "document":
        problems.append(f"{response.status} for {response.request.resource_type} {response.url}")


@pytest.fixture
def page(browser, live_server) -> Iterator[Page]:
    """A desktop-sized page on the live portal; ``page.goto("/mint")`` is relative to it."""
    yield from _page(browser, live_server, DESKTOP)


@pytest.fixture
def phone(browser, live_server) -> Iterator[Page]:
    """A phone-sized page (touch, mobile viewport)."""
    yield from _page(browser, live_server, PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)


@pytest.fixture
def pt_phone(browser, live_server) -> Iterator[Page]:
    """A phone-sized page whose browser asks for Brazilian Portuguese (``Accept-Language: pt-BR``)."""
    yield from _page(browser, live_server, PHONE, is_mobile=True, has_touch=True, device_scale_factor=2,
                     locale="pt-BR")


@pytest.fixture(params=["desktop", "phone"])
def addressless_page(request, browser, addressless_server) -> Iterator[Page]:
    """A page on the portal without ``PORTAL_URL``, at 1280 px then at 390 px
    (``page.width_name`` says which)."""
    yield from sized_page(browser, addressless_server, request.param)


def sized_page(browser: Browser, server: LiveServer, width_name: str) -> Iterator[Page]:
    """A page on ``server`` at 1280 px (``desktop``) or 390 px (``phone``, touch), ``page.width_name`` saying which."""
    viewport, options = (DESKTOP, {}) if width_name == "desktop" else (
        PHONE, {"is_mobile": True, "has_touch": True, "device_scale_factor": 2})
    for page in _page(browser, server, viewport, **options):
        page.width_name = width_name  # type: ignore[attr-defined]
        yield page


@pytest.fixture
def admin_page(page) -> Page:
    """A desktop page logged in as the administrator."""
    log_in(page)
    return page


def log_in(page: Page) -> None:
    """Log in as the administrator. A step that leaves the page waits inside ``expect_navigation``
    here and wherever a browser test next does something that does not wait by itself (evaluate,
    hold_timers, goto): ``wait_for_load_state`` after the click can return on the page
    being left, before the form's request is sent, and the next step then meets the navigation."""
    page.goto("/admin/login")
    page.get_by_label("Username").fill(ADMIN_USERNAME)
    page.get_by_label("Password").fill(ADMIN_PASSWORD)
    with page.expect_navigation():
        page.get_by_role("button", name="Log in").click()


def hold_timers(page: Page) -> None:
    """Stop the page's clock (Playwright's fake timers), so that a label the page changes back
    after a delay – a Copy button says "Copied" for 1.5 s – stays until the test moves the clock
    on with ``page.clock.run_for``. On a loaded machine the 1.5 s could pass before Playwright
    looked, and "Copied" was never seen.

    It first waits for the page's scripts (its load event): a test that saw the new page's text
    could otherwise press a Copy button before portal.js had given it its handler (CI: the button
    kept "Copy")."""
    page.wait_for_load_state()
    page.clock.install()
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)


def shoot(page: Page, name: str, full_page: bool = True) -> Path:
    """Save a screenshot as ``build/screenshots/<name>.png`` (look at it!): the whole page, or what
    the window shows where a walk takes many (a tall page's full shot costs seconds on a loaded
    machine)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path
