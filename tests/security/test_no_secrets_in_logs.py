"""No secret reaches a log, at any level (security issue 39): administrators' passwords (right and
wrong), API tokens (valid and not), session cookies and the session ids inside them. Every logger
is captured at DEBUG while the portal serves on a loopback port (werkzeug's request lines, the
app's, SQLAlchemy's statements and their parameters, urllib3's) and its CLI makes the password and
the token. Registration keys, which arrive in query strings, are proven in ``test_key_secrecy``."""
from __future__ import annotations

import base64
import json
import zlib
import logging
import threading

import requests

from ibiportal import create_app
from tests.servers import fresh_sqlite, loopback_server

PASSWORD = "correct horse battery staple"
WRONG_PASSWORD = "incorrect donkey battery staple"
WRONG_TOKEN = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"


def session_id(cookie: str) -> str:
    """The server-side session's id inside a Flask session cookie: its payload is base64 JSON,
    zlib-compressed when that is shorter (itsdangerous then starts the cookie with a ".", as it
    did when a flashed message rode along)."""
    compressed = cookie.startswith(".")
    payload = cookie.lstrip(".").split(".")[0]
    data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    return json.loads(zlib.decompress(data) if compressed else data)["admin_session"]


def test_no_password_token_or_session_in_any_log(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    app = create_app({"DATABASE": fresh_sqlite(tmp_path / "logs.sqlite"), "SECRET_KEY": "test",
                      "SESSION_COOKIE_SECURE": False, "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False})
    runner = app.test_cli_runner()
    assert runner.invoke(args=["admin", "set-password", "ada", "--password", PASSWORD]).exit_code == 0
    token = runner.invoke(args=["api-token", "create", "writer"]).output.strip().splitlines()[-1]
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    portal = f"http://127.0.0.1:{server.server_port}"
    try:
        browser = requests.Session()
        refused = browser.post(f"{portal}/admin/login", data={"username": "ada", "password": WRONG_PASSWORD})
        assert refused.status_code == 400
        browser.post(f"{portal}/admin/login", data={"username": "ada", "password": PASSWORD, "next": "/admin/items/"})
        cookie = browser.cookies["session"]
        assert browser.get(f"{portal}/admin/items/").status_code == 200
        minted = requests.post(f"{portal}/api/v1/mint", json={"title": "x"}, headers={"Authorization": f"Bearer {token}"})
        ibi = minted.json()["ibip"]
        headers = {"Authorization": f"Bearer {token}"}
        assert requests.patch(f"{portal}/api/v1/items/{ibi}", json={"title": "y"}, headers=headers).status_code == 200
        assert requests.patch(f"{portal}/api/v1/items/{ibi}", json={"title": 5}, headers=headers).status_code == 400
        assert requests.delete(f"{portal}/api/v1/items/{ibi}",
                               headers={"Authorization": f"Bearer {WRONG_TOKEN}"}).status_code == 401
        browser.post(f"{portal}/admin/logout")
        assert requests.get(f"{portal}/admin/items/", cookies={"session": cookie}, allow_redirects=False).status_code == 302
    finally:
        server.shutdown()
        server.server_close()
    logged = caplog.text + "".join(str(record.__dict__) for record in caplog.records)
    assert "POST /admin/login" in logged and "PATCH /api/v1/items/" in logged  # the requests were logged
    for secret in (PASSWORD, WRONG_PASSWORD, token, token[:20], WRONG_TOKEN, cookie, cookie.lstrip(".").split(".")[0],
                   session_id(cookie)):
        assert secret not in logged
