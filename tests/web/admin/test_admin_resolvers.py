"""The Resolvers page (``/admin/resolvers``): the own Archive joins and leaves an outside resolver.

The resolver is ``tests/archive/independent_resolver.py`` on loopback; the portal is the test
client, so nothing answers the resolver's confirmation request (included, unconfirmed). The
confirmed path, with the portal serving the callback, is in ``tests/browser/test_browser_resolvers.py``.
"""
from __future__ import annotations

import html
import logging
import re

import pytest

from ibiportal import create_app
from tests.archive.independent_resolver import IndependentResolver
from tests.servers import free_port, fresh_sqlite
from tests.admin_session import log_in_as

SERVICE_IBI = "32G4GKPW/4GR3P92"
KEY = "1234567890-0987654321"


@pytest.fixture
def resolver():
    resolver = IndependentResolver(registered={SERVICE_IBI: KEY}, callback_timeout=2.0).start()
    yield resolver
    resolver.stop()


def make_app(tmp_path, **config):
    settings = {"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "pages.sqlite"), "SECRET_KEY": "test",
                "WTF_CSRF_ENABLED": False, "ALLOW_PRIVATE_ARCHIVES": True, "ADMIN_EMAIL": "a@example.org",
                "PORTAL_URL": f"http://127.0.0.1:{free_port()}"}
    return create_app({**settings, **config})


def admin_client(app):
    client = app.test_client()
    log_in_as(client, "ada")
    return client


def text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_page_is_for_administrators_only(tmp_path):
    client = make_app(tmp_path).test_client()
    assert client.get("/admin/resolvers").headers["Location"].startswith("/admin/login?next=")
    response = client.post("/admin/resolvers", data={"resolver_url": "http://192.0.2.7/J8LNKB5R7W/3FUQHC5",
                                                     "registration_key": KEY, "join": "1"})
    assert response.headers["Location"].startswith("/admin/login?next=")


def test_the_page_shows_what_the_archive_will_send_or_what_is_missing(tmp_path):
    app = make_app(tmp_path)
    page = text(admin_client(app).get("/admin/resolvers").get_data(as_text=True))
    port = app.config["PORTAL_URL"].rsplit(":", 1)[1]
    assert f"archiveaddress 127.0.0.1:{port} archiveserviceibi {SERVICE_IBI} archiveip 127.0.0.1" in page
    assert "archiveadmemailaddress a@example.org" in page and "No resolver has been asked yet." in page
    assert f"asks http://127.0.0.1:{port}/{SERVICE_IBI}?servicesubject=inclusionConfirmationRequest for" in page
    page = text(admin_client(make_app(tmp_path, ADMIN_EMAIL="")).get("/admin/resolvers").get_data(as_text=True))
    assert "IBIPORTAL_ADMIN_EMAIL is not set: Table 7.2 requires" in page


def test_join_then_leave_show_each_outcome_and_the_last_status(tmp_path, resolver, caplog):
    app = make_app(tmp_path)
    client = admin_client(app)
    caplog.set_level(logging.DEBUG)
    response = client.post("/admin/resolvers", data={"resolver_url": resolver.url, "registration_key": KEY,
                                                     "join": "Join"})
    assert response.status_code == 303 and response.headers["Location"] == "/admin/resolvers"
    page = client.get("/admin/resolvers").get_data(as_text=True)
    assert "Included, but the resolver could not get this Archive&#39;s confirmation" in page
    address = app.config["PORTAL_URL"].removeprefix("http://")
    row = text(re.search(r"<tbody>(.*?)</tbody>", page, re.S).group(1))
    assert re.fullmatch(rf"{re.escape(resolver.url)} Join or leave again inclusionRequest from {address} "
                        r"included, unconfirmed status.archive included status.confirmation unsuccessful "
                        r"(just now|\d+ seconds? ago)", row), row
    assert resolver.included == {SERVICE_IBI: address}

    client.post("/admin/resolvers", data={"resolver_url": resolver.url, "registration_key": KEY, "leave": "Leave"})
    page = client.get("/admin/resolvers").get_data(as_text=True)
    assert '<p class="success" role="status">Excluded: the resolver no longer asks this Archive.</p>' in page
    assert "exclusionRequest" in page and "status.archive excluded" in page and resolver.included == {}
    assert len(resolver.received) == 2
    assert KEY not in caplog.text and KEY not in page
    assert "exclusionRequest sent to " in caplog.text  # the page's own log line, without the key


def test_a_refusal_is_shown_with_the_resolvers_reason(tmp_path, resolver):
    client = admin_client(make_app(tmp_path))
    client.post("/admin/resolvers", data={"resolver_url": resolver.url, "registration_key": "5555555555",
                                          "join": "Join"})
    page = client.get("/admin/resolvers").get_data(as_text=True)
    assert ('<p class="failure" role="status">Refused by the resolver: wrong registration key (HTTP 403).</p>'
            in page)
    assert '<span class="badge bad">refused</span>' in page and "5555555555" not in page


@pytest.mark.parametrize(("data", "field", "message"), [
    ({"resolver_url": "urlib.net/J8LNKB5R7W/3FUQHC5", "registration_key": KEY},
     "resolver_url", "a resolver service URL starts with http:// or https:// (§6.1) (at character 1)"),
    ({"resolver_url": "http://192.0.2.7/J8LNKB5R7W/3FUQHC5", "registration_key": ""},
     "registration_key", "Give the key this Archive was registered with at that resolver."),
    ({"resolver_url": "http://192.0.2.7/J8LNKB5R7W/3FUQHC5", "registration_key": "12345"},
     "registration_key", "the registration key: the first number has 5 digits"),
])
def test_bad_input_is_shown_next_to_its_field_and_nothing_is_sent(tmp_path, resolver, data, field, message):
    client = admin_client(make_app(tmp_path))
    response = client.post("/admin/resolvers", data={**data, "join": "Join"})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    error = text(re.search(rf'<div class="error" id="{field}-error">(.*?)</div>', page, re.S).group(1))
    assert error.startswith(message)
    assert "Nothing was sent: correct this field" in text(page)
    assert data["registration_key"] not in page or not data["registration_key"]
    assert resolver.received == []


def test_without_the_portal_url_the_post_says_so(tmp_path, resolver):
    client = admin_client(make_app(tmp_path, PORTAL_URL=""))
    response = client.post("/admin/resolvers", data={"resolver_url": resolver.url, "registration_key": KEY,
                                                     "join": "Join"})
    assert response.status_code == 400
    assert text(response.get_data(as_text=True)).count("IBIPORTAL_PORTAL_URL is not set") == 2  # above the form too
    assert resolver.received == []


def test_posts_need_the_csrf_token(tmp_path, resolver):
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    client = admin_client(app)
    response = client.post("/admin/resolvers", data={"resolver_url": resolver.url, "registration_key": KEY,
                                                     "join": "Join"})
    assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True)
    assert resolver.received == []
    assert 'name="csrf_token"' in client.get("/admin/resolvers").get_data(as_text=True)
