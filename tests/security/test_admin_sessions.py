"""Administrator sessions over real sockets (security issue 39): a login rotates the session
cookie, and a cookie once logged in gives nothing after the logout, nor after the password is
changed. The portal on a loopback port, spoken to with ``requests`` as a browser or an attacker
holding a copied cookie would; the login's own rate limit is proven in ``test_rate_limits``, its
CSRF token here with every other form's."""
from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import pytest
import requests
from flask import Flask

from ibiportal import create_app
from tests.servers import fresh_sqlite, loopback_server

PASSWORD = "a long enough password"
ADMIN_PAGE = "/admin/archives"


class Portal(str):
    """The portal's base URL, which also knows its app (for the CLI)."""

    app: Flask


@pytest.fixture(scope="module")
def portal(tmp_path_factory) -> Iterator[Portal]:
    """The portal, CSRF on, cookies allowed over plain HTTP (loopback), with administrator ada."""
    database = fresh_sqlite(tmp_path_factory.mktemp("sessions") / "portal.sqlite")
    app = create_app({"DATABASE": database, "SECRET_KEY": "test", "SESSION_COOKIE_SECURE": False,
                      "RATELIMIT_ENABLED": False})
    result = app.test_cli_runner().invoke(args=["admin", "set-password", "ada", "--password", PASSWORD])
    assert result.exit_code == 0, result.output
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = Portal(f"http://127.0.0.1:{server.server_port}")
    url.app = app
    yield url
    server.shutdown()
    server.server_close()


def csrf_token(browser: requests.Session, url: str) -> str:
    page = browser.get(url)
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page.text)[1]


def log_in(portal: str) -> requests.Session:
    browser = requests.Session()
    token = csrf_token(browser, f"{portal}/admin/login")
    answer = browser.post(f"{portal}/admin/login", data={"csrf_token": token, "username": "ada", "password": PASSWORD},
                          allow_redirects=False)
    assert answer.status_code == 302 and answer.headers["Location"] == ADMIN_PAGE
    return browser


def log_out(portal: str, browser: requests.Session) -> None:
    token = csrf_token(browser, f"{portal}{ADMIN_PAGE}")
    answer = browser.post(f"{portal}/admin/logout", data={"csrf_token": token}, allow_redirects=False)
    assert answer.status_code == 302


def is_admin(portal: str, cookie: str) -> bool:
    """Whether ``cookie``, sent alone by a fresh client, opens an administrator page."""
    answer = requests.get(f"{portal}{ADMIN_PAGE}", cookies={"session": cookie}, allow_redirects=False)
    assert answer.status_code in (200, 302)
    return answer.status_code == 200


def test_the_session_cookie_changes_at_login_and_the_one_before_gives_nothing(portal):
    browser = requests.Session()
    csrf_token(browser, f"{portal}/admin/login")
    before = browser.cookies["session"]
    token = csrf_token(browser, f"{portal}/admin/login")
    browser.post(f"{portal}/admin/login", data={"csrf_token": token, "username": "ada", "password": PASSWORD},
                 allow_redirects=False)
    after = browser.cookies["session"]
    assert after != before
    assert is_admin(portal, after) and not is_admin(portal, before)


def test_a_cookie_copied_while_logged_in_gives_nothing_after_the_logout(portal):
    browser = log_in(portal)
    copied = browser.cookies["session"]
    assert is_admin(portal, copied)
    log_out(portal, browser)
    assert not is_admin(portal, copied)
    assert browser.get(f"{portal}{ADMIN_PAGE}", allow_redirects=False).status_code == 302


def test_a_logout_ends_only_its_own_session(portal):
    first, second = log_in(portal), log_in(portal)
    copied = first.cookies["session"]
    log_out(portal, first)
    assert is_admin(portal, second.cookies["session"]) and not is_admin(portal, copied)


def test_a_new_password_ends_every_session_of_the_administrator(portal):
    copied = log_in(portal).cookies["session"]
    result = portal.app.test_cli_runner().invoke(args=["admin", "set-password", "ada", "--password", PASSWORD])
    assert result.exit_code == 0, result.output
    assert not is_admin(portal, copied)

