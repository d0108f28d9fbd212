"""Rate limits: each limit refuses with 429, a message and Retry-After, in the answer
format of its route; resolution redirects and static files are never limited."""
from __future__ import annotations

import re

import pytest
from werkzeug.security import generate_password_hash

from ibiportal import create_app
from ibiportal.protocol.pairlist import parse_pair_list
from ibiportal.storage.accounts import AccountStore
from ibiportal.storage.database import Storage
from tests import standard_examples as standard
from tests.standard_examples import query_of
from tests.servers import fresh_sqlite

RESOLVER_SERVICE = "/J8LNKB5R7W/3FUQHC5"
SERVICE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"
KEY = "1234567890"
WRONG_KEY = "1234567899"
INCLUSION = query_of(standard.EXAMPLE_7_2)
EXCLUSION = query_of(standard.EXAMPLE_7_3)
PASSWORD = "correct horse battery staple"
#: Every limit high, so a test lowers only the one it is about.
HIGH = {name: "1000/minute" for name in (
    "RATELIMIT_KEY_CHECKS", "RATELIMIT_RESOLVER_SERVICE", "RATELIMIT_LOGIN", "RATELIMIT_API", "RATELIMIT_TRACE")}


def make_app(tmp_path, **config):
    return create_app({
        "TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "limits.sqlite"), "SECRET_KEY": "test",
        "WTF_CSRF_ENABLED": False, **HIGH, **config,
    })


def from_ip(ip: str) -> dict:
    return {"REMOTE_ADDR": ip}


def assert_refused(response, message: str) -> int:
    """A 429 with Retry-After in whole seconds (a per-minute limit), also said in the message."""
    assert response.status_code == 429
    retry_after = int(response.headers["Retry-After"])
    assert 1 <= retry_after <= 61
    text = response.get_data(as_text=True)
    assert message in text
    said = int(re.search(r"try again in (\d+) s", text).group(1))
    assert abs(said - retry_after) <= 1
    return said


# -- the public API -----------------------------------------------------------------------------


def test_api_limit_is_a_json_429_shared_by_every_endpoint(tmp_path):
    client = make_app(tmp_path, RATELIMIT_API="3/minute").test_client()
    answers = [
        client.get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS"),
        client.get("/api/v1/parse?url=http://urlib.net/8JMKD3MGP8W/35MMLL8"),
        client.post("/api/v1/mint", json={}),
    ]
    assert [answer.status_code for answer in answers] == [200, 200, 201]
    assert answers[0].headers["X-RateLimit-Remaining"] == "2"
    refused = client.get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS")
    wait = assert_refused(refused, "too many API requests from your address: at most 3/minute")
    error = refused.get_json()["error"]
    assert error == {"message": f"too many API requests from your address: at most 3/minute; try again in {wait} s",
                     "position": None}
    # Another client is not affected.
    assert client.get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS", environ_base=from_ip("192.0.2.9")).status_code == 200


def test_trace_has_a_lower_limit_of_its_own(tmp_path):
    client = make_app(tmp_path, RATELIMIT_TRACE="2/minute").test_client()
    body = {"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8", "archives": "demo"}
    assert [client.post("/api/v1/trace", json=body).status_code for _ in range(2)] == [201, 201]
    refused = client.post("/api/v1/trace", json=body)
    assert_refused(refused, "too many traces and citations from your address: at most 2/minute")
    assert refused.get_json()["error"]["position"] is None
    # The rest of the API still answers, stored traces included.
    assert client.get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS").status_code == 200


def test_trace_and_cite_pages_share_the_trace_limit_with_the_api(tmp_path):
    """Each of these resolves on demand, bypassing the cache: one budget for all of them."""
    client = make_app(tmp_path, RATELIMIT_TRACE="3/minute").test_client()
    url = "http://urlib.net/8JMKD3MGP8W/35MMLL8"
    assert client.post("/trace", data={"url": url, "archives": "demo"}).status_code == 303
    assert client.get("/cite", query_string={"ibi": "D7N2U8HW/3J5AC3H"}).status_code == 200
    assert client.get("/cite").status_code == 200  # the empty form resolves nothing
    assert client.get("/api/v1/cite", query_string={"ibi": "D7N2U8HW/3J5AC3H"}).status_code == 200
    refused = client.post("/trace", data={"url": url, "archives": "demo"})
    assert_refused(refused, "too many traces and citations from your address: at most 3/minute")
    assert "<h1>" in refused.get_data(as_text=True)  # the HTML error page
    assert client.get("/trace").status_code == 200  # the form itself is not limited


def test_resolution_redirects_and_static_files_are_never_limited(tmp_path):
    client = make_app(tmp_path, RATELIMIT_API="1/minute", RATELIMIT_TRACE="1/minute").test_client()
    statuses = {client.get("/8JMKD3MGP8W/35MMLL8", environ_base=from_ip("172.16.44.200")).status_code for _ in range(15)}
    assert statuses == {302}
    for _ in range(15):
        with client.get("/static/style.css") as response:
            assert response.status_code == 200


# -- administrator login ------------------------------------------------------------------------


@pytest.fixture
def login_app(tmp_path):
    app = make_app(tmp_path, RATELIMIT_LOGIN="3/minute")
    storage = Storage(app.config["DATABASE"])
    AccountStore(storage).set_admin_password_hash("admin", generate_password_hash(PASSWORD))
    storage.close()
    return app


def log_in(client, password: str, ip: str = "127.0.0.1"):
    return client.post("/admin/login", data={"username": "admin", "password": password, "next": ""},
                       environ_base=from_ip(ip))


def test_failed_logins_are_limited_then_even_the_right_password_waits(login_app):
    client = login_app.test_client()
    assert [log_in(client, "wrong password!").status_code for _ in range(3)] == [400, 400, 400]
    refused = log_in(client, PASSWORD)
    assert_refused(refused, "too many failed logins from your address: at most 3/minute")
    assert refused.mimetype == "text/html" and "Too many requests" in refused.get_data(as_text=True)
    assert log_in(client, PASSWORD, ip="192.0.2.7").status_code == 302  # another address may log in


def test_successful_logins_and_the_login_page_are_not_counted(login_app):
    client = login_app.test_client()
    assert {log_in(client, PASSWORD).status_code for _ in range(6)} == {302}
    assert {client.get("/admin/login").status_code for _ in range(6)} == {200}
    assert {client.post("/admin/logout").status_code for _ in range(6)} == {302}


# -- the resolver service (§7.2): registration keys ------------------------------------------------


@pytest.fixture
def service_app(tmp_path):
    def build(**limits):
        app = make_app(tmp_path, **limits)
        result = app.test_cli_runner().invoke(args=["archives", "register", SERVICE_IBI, "--key", KEY])
        assert result.exit_code == 0, result.output
        return app

    return build


def exclusion(client, key: str, ip: str = "198.51.100.1"):
    query = EXCLUSION.replace(f"registrationkey={KEY}", f"registrationkey={key}")
    return client.get(f"{RESOLVER_SERVICE}?{query}", environ_base=from_ip(ip))


def test_wrong_keys_from_one_address_are_limited_as_a_pair_list(service_app):
    client = service_app(RATELIMIT_KEY_CHECKS="3/minute").test_client()
    assert [exclusion(client, WRONG_KEY).status_code for _ in range(3)] == [403, 403, 403]
    refused = exclusion(client, KEY)  # the right key too: guessing must stop
    assert_refused(refused, "too many wrong registration keys from your address: at most 3/minute")
    assert refused.headers["Content-Type"] == "text/plain; charset=us-ascii"
    answer = parse_pair_list(refused.get_data(as_text=True))
    assert answer.get("status.archive") == "refused"
    assert answer.get("status.reason").startswith("too many wrong registration keys")
    assert WRONG_KEY not in refused.get_data(as_text=True) and KEY not in refused.get_data(as_text=True)


def test_wrong_keys_for_one_archive_from_many_addresses_are_limited(service_app):
    client = service_app(RATELIMIT_KEY_CHECKS="3/minute").test_client()
    statuses = [exclusion(client, WRONG_KEY, ip=f"198.51.100.{n}").status_code for n in range(1, 4)]
    assert statuses == [403, 403, 403]
    refused = exclusion(client, KEY, ip="203.0.113.50")
    assert_refused(refused, "too many wrong registration keys for this archiveserviceibi: at most 3/minute")


def test_right_keys_are_not_counted_as_failures(service_app):
    client = service_app(RATELIMIT_KEY_CHECKS="2/minute").test_client()
    assert {exclusion(client, KEY).status_code for _ in range(6)} == {200}


def test_every_request_to_the_service_is_limited_per_address(service_app):
    client = service_app(RATELIMIT_RESOLVER_SERVICE="4/minute").test_client()
    statuses = [client.get(f"{RESOLVER_SERVICE}?servicesubject=nothing").status_code for _ in range(4)]
    assert statuses == [400] * 4
    assert_refused(exclusion(client, KEY, ip="127.0.0.1"), "too many requests from your address: at most 4/minute")


# -- who the client is ---------------------------------------------------------------------------


def test_a_forged_x_forwarded_for_does_not_reset_the_count(tmp_path):
    client = make_app(tmp_path, RATELIMIT_API="2/minute").test_client()
    for n in range(2):
        assert client.get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS", headers={"X-Forwarded-For": f"192.0.2.{n}"}).status_code == 200
    forged = client.get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS", headers={"X-Forwarded-For": "192.0.2.99"})
    assert forged.status_code == 429


def test_clients_behind_a_trusted_proxy_are_counted_apart(tmp_path):
    client = make_app(tmp_path, RATELIMIT_API="2/minute", TRUSTED_PROXIES=["127.0.0.1"]).test_client()
    for user in ("192.0.2.1", "192.0.2.2"):
        statuses = [client.get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS", headers={"X-Forwarded-For": user}).status_code
                    for _ in range(3)]
        assert statuses == [200, 200, 429]


# -- configuration -------------------------------------------------------------------------------


def test_each_app_counts_from_zero(tmp_path):
    first = make_app(tmp_path, RATELIMIT_API="1/minute")
    second = make_app(tmp_path, RATELIMIT_API="1/minute")
    url = "/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS"
    assert first.test_client().get(url).status_code == 200
    assert second.test_client().get(url).status_code == 200
    assert first.test_client().get(url).status_code == 429


def test_limits_can_be_switched_off(tmp_path):
    client = make_app(tmp_path, RATELIMIT_API="1/minute", RATELIMIT_ENABLED=False).test_client()
    assert {client.get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS").status_code for _ in range(5)} == {200}


def test_a_bad_limit_stops_the_start_up_naming_its_variable(tmp_path):
    with pytest.raises(ValueError, match="IBIPORTAL_RATELIMIT_API must be a rate limit"):
        make_app(tmp_path, RATELIMIT_API="often")


def test_limits_from_the_environment():
    from ibiportal.config import from_environment

    settings = from_environment({
        "IBIPORTAL_RATELIMIT_KEY_CHECKS": "3/hour", "IBIPORTAL_RATELIMIT_STORAGE": "redis://cache:6379",
        "IBIPORTAL_RATELIMIT_ENABLED": "off",
    })
    assert settings == {"RATELIMIT_KEY_CHECKS": "3/hour", "RATELIMIT_STORAGE_URI": "redis://cache:6379",
                        "RATELIMIT_ENABLED": False}
