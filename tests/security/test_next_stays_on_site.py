"""After login, ``next`` leads only to this site (security issue 39): 30 and more ways of writing
another site, each posted with the login form over real sockets, and every ``Location`` answered
read by Chromium's own URL parser (``new URL(location, page)``: what a browser does with a
``Location``, tabs and line breaks dropped, ``\\`` read as ``/``) to the portal's origin."""
from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import requests

from werkzeug.security import generate_password_hash

from ibiportal import create_app
from ibiportal.storage.accounts import AccountStore
from ibiportal.storage.database import Storage
from tests.browser.chromium import CHROMIUM_ARGS, HEADLESS_SHELL
from tests.servers import fresh_sqlite, loopback_server

PASSWORD = "a long enough password"
LANDING = "/admin/archives"

#: Another site, written every way found: schemes, slashes and backslashes, controls a browser
#: drops, escapes a proxy decodes, user information, other hosts' spellings.
OFF_SITE = [
    "//evil.example/", "///evil.example", "////evil.example", "/\\evil.example", "\\\\evil.example", "\\/evil.example",
    "/\\/evil.example", "//\\evil.example", "https://evil.example/", "HTTPS://evil.example", "http:evil.example",
    "https:/\\evil.example", "https:evil.example", "evil.example", " //evil.example", "\t//evil.example",
    "/\t/evil.example", "/\r\n/evil.example", "/\n/evil.example", "\x0b//evil.example", "/\x00/evil.example",
    "/%09/evil.example", "/%0d%0a/evil.example", "%0a//evil.example", "/%2F/evil.example", "/%2f%2fevil.example",
    "/%5Cevil.example", "/%5c%5cevil.example", "%2F%2Fevil.example", "%5C%5Cevil.example",
    "//evil.example@127.0.0.1", "https://127.0.0.1@evil.example", "//evil%2Eexample", "//127.0.0.1.evil.example",
    "javascript:alert(1)", "java\tscript:alert(1)", "javascript://%0aalert(1)", "data:text/html,<script>alert(1)</script>",
    "/\u3000/evil.example", "https:\\\\evil.example",
]
#: Paths of this site, followed as given.
#: (``/%252F%252F…`` is one: a browser reads it as a path here, whatever a proxy decoding twice makes of it.)
ON_SITE = ["/convert?ibi=x", "/trace/AB12?compare=CD34#steps", "/a%20b", "/admin/items/", "/@evil.example",
           "/%252F%252Fevil.example"]


@pytest.fixture(scope="module")
def portal(tmp_path_factory) -> Iterator[str]:
    app = create_app({"DATABASE": fresh_sqlite(tmp_path_factory.mktemp("next") / "portal.sqlite"), "SECRET_KEY": "t",
                      "SESSION_COOKIE_SECURE": False, "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False})
    storage = Storage(app.config["DATABASE"])  # a hash cheap to check: this test logs in once per target
    AccountStore(storage).set_admin_password_hash("ada", generate_password_hash(PASSWORD, method="pbkdf2:sha256:1"))
    storage.close()
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser_reads(playwright_driver):
    """``browser_reads(LOCATIONS, PAGE)``: each Location as Chromium resolves it on PAGE."""
    browser = playwright_driver.chromium.launch(executable_path=HEADLESS_SHELL, args=CHROMIUM_ARGS)
    page = browser.new_page()

    def read(locations: list[str], base: str) -> list[dict]:
        return page.evaluate("([locations, base]) => locations.map(location => { const url = new URL(location, base);"
                             " return {origin: url.origin, path: url.pathname + url.search + url.hash}; })",
                             [locations, base])

    yield read
    browser.close()


def log_in(portal: str, target: str) -> str | None:
    """The Location the login answers with ``next=target`` (``None``: refused, no redirect)."""
    browser = requests.Session()
    form = browser.get(f"{portal}/admin/login", params={"next": target}, allow_redirects=False)
    assert form.status_code in (200, 400) and "Location" not in form.headers
    answer = browser.post(f"{portal}/admin/login", data={"username": "ada", "password": PASSWORD, "next": target},
                          allow_redirects=False)
    if answer.status_code == 400:  # a control character, refused at the edge naming the field
        assert "of <code>next</code>" in answer.text
        return None
    assert answer.status_code == 302
    return answer.raw.headers["Location"]


def test_there_are_at_least_30_ways_off_site():
    assert len(OFF_SITE) >= 30 and len(set(OFF_SITE)) == len(OFF_SITE)


def test_no_next_leads_off_site_as_a_browser_reads_it(portal, browser_reads):
    locations = {target: log_in(portal, target) for target in OFF_SITE + ON_SITE}
    answered = {target: location for target, location in locations.items() if location is not None}
    read = dict(zip(answered, browser_reads(list(answered.values()), f"{portal}/admin/login")))
    for target, where in read.items():
        assert where["origin"] == portal, (target, answered[target], where)
    for target in OFF_SITE:
        assert locations[target] in (None, LANDING), target
    for target in ON_SITE:
        assert locations[target] == target
