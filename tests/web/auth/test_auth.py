"""Administrator accounts and login: CLI-set hashes, sessions, safe ``next``."""
from __future__ import annotations

import pytest

from ibiportal import create_app
from ibiportal.storage.accounts import AccountStore
from ibiportal.storage.database import Storage
from ibiportal.web.auth.session import safe_next

PASSWORD = "a long enough password"


@pytest.fixture
def admin(app, runner):
    result = runner.invoke(args=["admin", "set-password", "ada", "--password", PASSWORD])
    assert result.exit_code == 0, result.output
    return "ada"


def test_set_password_stores_a_hash_never_the_password(app, admin):
    stored = AccountStore(Storage(app.config["DATABASE"])).admin_password_hash("ada")
    assert stored.startswith("scrypt:") and PASSWORD not in stored


def test_set_password_prompts_twice_hidden_and_refuses_short_ones(runner):
    result = runner.invoke(args=["admin", "set-password", "ada"], input="short\nshort\n")
    assert result.exit_code == 2 and "at least 12 characters" in result.output
    result = runner.invoke(args=["admin", "set-password", "ada"], input=f"{PASSWORD}\nother one entirely\n")
    assert result.exit_code != 0 and "do not match" in result.output


def test_login_then_logout(client, admin):
    page = client.post("/admin/login", data={"username": "ada", "password": PASSWORD, "next": "/convert"})
    assert page.status_code == 302 and page.headers["Location"] == "/convert"
    assert "ada" in client.get("/").get_data(as_text=True)
    client.post("/admin/logout")
    assert "Administrator login" in client.get("/").get_data(as_text=True)


def test_without_next_the_login_leads_to_the_archives_page(client, admin):
    page = client.post("/admin/login", data={"username": "ada", "password": PASSWORD})
    assert page.status_code == 302 and page.headers["Location"] == "/admin/archives"
    assert "Register an Archive" in client.get(page.headers["Location"]).get_data(as_text=True)


@pytest.mark.parametrize(("username", "password"), [("ada", "wrong password!"), ("nobody", PASSWORD)])
def test_wrong_credentials_are_one_message_next_to_the_password(client, admin, username, password):
    page = client.post("/admin/login", data={"username": username, "password": password})
    assert page.status_code == 400
    assert 'id="password-error"><p>Wrong username or password.</p>' in page.get_data(as_text=True)


#: Every way found to make ``next`` lead elsewhere: browsers drop tabs, CR and LF and read ``\\`` as
#: ``/``; proxies may decode ``%2F``, ``%5C`` and ``%09``.
OFF_SITE = ["//evil.example/", "/\\evil.example", "\\\\evil.example", "https://evil.example/", "http:evil.example",
            "javascript:alert(1)", "/\t/evil.example", "\t//evil.example", "/\r\n/evil.example", "/\n/evil.example",
            "/%09/evil.example", "/%0d%0a/evil.example", "/%2F/evil.example", "/%2f%2fevil.example", "/%5Cevil.example",
            "/%5c%5cevil.example", " //evil.example", "evil.example", "///evil.example", "/\x00/evil.example"]


@pytest.mark.parametrize(
    ("target", "followed"),
    [("/convert?ibi=x", True), ("/trace/AB12?compare=CD34#steps", True), ("/a%20b", True),
     ("", False), (None, False), *((target, False) for target in OFF_SITE)],
)
def test_only_paths_on_this_site_are_followed_after_login(app, target, followed):
    with app.test_request_context():
        assert (safe_next(target) == target) is followed


@pytest.mark.parametrize("target", OFF_SITE)
def test_a_login_never_leads_off_site(client, admin, target):
    """The whole way, as a browser sends it: the login page's link, then the form posted back."""
    form = client.get("/admin/login", query_string={"next": target})
    assert form.status_code in (200, 400) and "Location" not in form.headers
    page = client.post("/admin/login", data={"username": "ada", "password": PASSWORD, "next": target})
    if page.status_code == 400:  # a control character: refused at the edge, naming the field
        assert "of <code>next</code>" in page.get_data(as_text=True)
    else:
        assert page.status_code == 302 and page.headers["Location"] == "/admin/archives"


def test_session_cookie_flags(tmp_path, runner, admin):
    app = create_app({"DATABASE": runner.app.config["DATABASE"], "SECRET_KEY": "k", "WTF_CSRF_ENABLED": False})
    page = app.test_client().post("/admin/login", data={"username": "ada", "password": PASSWORD})
    cookie = page.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "Secure" in cookie and "SameSite=Lax" in cookie


def test_login_needs_the_csrf_token(tmp_path, admin, runner):
    app = create_app({"DATABASE": runner.app.config["DATABASE"], "SECRET_KEY": "k"})
    page = app.test_client().post("/admin/login", data={"username": "ada", "password": PASSWORD})
    assert page.status_code == 400 and "CSRF" in page.get_data(as_text=True)


def test_without_a_configured_key_a_random_one_is_kept_in_the_instance_folder(tmp_path, monkeypatch):
    from ibiportal.secret_key import instance_secret_key

    first = instance_secret_key(str(tmp_path))
    assert len(first) == 64 and instance_secret_key(str(tmp_path)) == first
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("path", ["/", "/mint", "/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS", "/8JMKD3MGP8W/35MMLL8", "/nope/x"])
def test_security_headers_on_every_response(client, path):
    headers = client.get(path).headers
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp and "frame-ancestors 'none'" in csp
    assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"


def test_a_request_body_over_8_mb_is_refused_unread(client):
    answer = client.post("/api/v1/mint", data=b"{" + b" " * (8 * 1024 * 1024) + b"}",
                         content_type="application/json")
    assert answer.status_code == 413 and "too large" in answer.get_json()["error"]["message"].lower()
