"""The administrator's Archives pages and the conformance check page.

Archives are mocked with ``responses`` at public IP literals (no DNS involved), answering
with the project's own correct Archive service (demo ``mtc-m16c``) or with hostile bodies.
"""
from __future__ import annotations

import html
import logging
import re
import sqlite3
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import responses

from ibiportal import create_app
from ibiportal.archive.demo import load_demo_archives
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.protocol.registry import ArchiveDetails, Confirmation
from ibiportal.storage.database import Storage
from ibiportal.storage.registry import ArchiveStore
from tests.servers import fresh_sqlite
from tests.admin_session import log_in_as

SERVICE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"  # Examples 7.2-7.4
ADDRESS = "150.163.34.239"  # Example 7.2's archiveip, as the address: no DNS in tests
CONFIRM_URL = f"http://{ADDRESS}/{SERVICE_IBI}?servicesubject=inclusionConfirmationRequest"
M16C = load_demo_archives()["mtc-m16c"].service
M16C_BASE = "http://150.163.34.243/sid.inpe.br/mtc-m18@80/2008/03.17.15.17"
KEY = "1234567890-0987654321"


def log_in(client) -> None:
    log_in_as(client, "ada")


@pytest.fixture
def admin(client):
    log_in(client)
    return client


def store(app) -> ArchiveStore:
    return ArchiveStore(Storage(app.config["DATABASE"]))


def register(app, included: bool = True) -> None:
    """Example 7.1's Archive, registered and (optionally) included at ADDRESS as by Example 7.2."""
    from ibiportal.protocol.registry import KeyHash

    archives = store(app)
    archives.register_archive(SERVICE_IBI, KeyHash.of(RegistrationKey(KEY)), datetime(2024, 5, 1, 12, tzinfo=timezone.utc))
    if included:
        details = ArchiveDetails(ADDRESS, ADDRESS, "2014:11.09.02.16.15", "banon@dpi.inpe.br")
        archives.record_inclusion(SERVICE_IBI, details, Confirmation(True, "confirmation yes"),
                                  datetime(2024, 5, 1, 12, 5, tzinfo=timezone.utc))


def error_next_to(page: str, field: str) -> str:
    found = re.search(rf'<div class="error" id="{field}-error">(.*?)</div>', page, re.S)
    assert found, f"no error next to {field}"
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip()


def mock_m16c(body=None) -> None:
    def callback(request):
        answer = M16C.respond(urlsplit(request.url).query)
        return answer.status, {"Content-Type": "text/plain"}, body or answer.text

    responses.add_callback(responses.GET, M16C_BASE, callback=callback)


# -- access ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method, path",
    [("get", "/admin/archives"), ("post", "/admin/archives"), ("get", f"/admin/archives/{SERVICE_IBI}"),
     ("post", f"/admin/archives/{SERVICE_IBI}/confirm"), ("get", f"/admin/archives/{SERVICE_IBI}/remove"),
     ("post", f"/admin/archives/{SERVICE_IBI}/remove"), ("get", "/admin/conformance"), ("post", "/admin/conformance")],
)
def test_anonymous_users_are_sent_to_the_login_page(app, client, method, path):
    register(app)
    response = getattr(client, method)(path)
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/admin/login?next=")
    assert store(app).find_archive(SERVICE_IBI) is not None  # nothing was removed


def test_posts_without_the_csrf_token_are_refused(tmp_path):
    app = create_app({"DATABASE": fresh_sqlite(tmp_path / "csrf.sqlite"), "SECRET_KEY": "k", "SESSION_COOKIE_SECURE": False})
    register(app)
    client = app.test_client()
    log_in(client)
    for path, data in [("/admin/archives", {"service_ibi": "8JMKD3MGP8W/35MMLL8"}),
                       (f"/admin/archives/{SERVICE_IBI}/remove", {}),
                       (f"/admin/archives/{SERVICE_IBI}/confirm", {}),
                       (f"/admin/archives/{SERVICE_IBI}/exclude", {}),
                       (f"/admin/archives/{SERVICE_IBI}/include", {}),
                       ("/admin/conformance", {"address": M16C_BASE})]:
        response = client.post(path, data=data)
        assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True), path
    assert [archive.service_ibi for archive in store(app).archives()] == [SERVICE_IBI]
    assert store(app).find_archive(SERVICE_IBI).included
    page = client.get("/admin/archives").get_data(as_text=True)
    assert 'name="csrf_token"' in page


def test_navigation_links_to_the_archives_page_for_administrators_only(client):
    assert 'href="/admin/archives"' not in client.get("/").get_data(as_text=True)
    log_in(client)
    assert 'href="/admin/archives"' in client.get("/").get_data(as_text=True)


# -- the list and registration ------------------------------------------------------------------------


def test_archives_table_shows_state_and_badges(app, admin):
    register(app)
    page = admin.get("/admin/archives").get_data(as_text=True)
    row = re.search(r"<tbody>(.*?)</tbody>", page, re.S).group(1)
    assert f'href="/admin/archives/{SERVICE_IBI}"' in row
    for shown in ('<span class="badge good">included</span>', ADDRESS, "2014:11.09.02.16.15", "banon@dpi.inpe.br",
                  '<span class="badge good">successful</span>', 'title="1 May 2024, 12:00:00 UTC"', 'title="1 May 2024, 12:05:00 UTC"'):
        assert shown in row


def test_empty_registry_says_so(admin):
    assert "No Archive is registered yet" in admin.get("/admin/archives").get_data(as_text=True)


def test_register_shows_a_generated_key_once_and_stores_only_its_hash(app, admin, caplog):
    caplog.set_level(logging.DEBUG)
    response = admin.post("/admin/archives", data={"service_ibi": " sid.inpe.br/mtc-m21/2012/06.05.15.34.39 "})
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    page = response.get_data(as_text=True)
    key = re.search(r'<code id="registration-key">(\d{15}-\d{15})</code>', page).group(1)
    assert f'data-copy="{key}"' in page and "will not be shown again" in page
    archive = store(app).find_archive(SERVICE_IBI)
    assert archive.key_hash.matches(RegistrationKey(key))
    with closing(sqlite3.connect(app.config["DATABASE"])) as connection:
        connection.row_factory = sqlite3.Row
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        row = dict(connection.execute("SELECT * FROM archive").fetchone())
    assert row["key_hash"].startswith("scrypt$") and all(key not in str(value) for value in row.values())
    files = b"".join(path.read_bytes() for path in Path(app.config["DATABASE"]).parent.glob("test.sqlite*"))
    assert key.encode() not in files and key[:15].encode() not in files
    assert key not in caplog.text and "registered by ada (key generated)" in caplog.text
    for path in ("/admin/archives", f"/admin/archives/{SERVICE_IBI}"):
        assert key not in admin.get(path).get_data(as_text=True)


def test_register_with_the_key_the_archive_chose_never_echoes_it(app, admin):
    posted = admin.post("/admin/archives", data={"service_ibi": "8jmkd3mgp8w/35mmll8", "registration_key": KEY})
    assert posted.status_code == 303 and posted.headers["Location"] == "/admin/archives/8JMKD3MGP8W/35MMLL8/registered"
    page = admin.get(posted.headers["Location"])
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and KEY not in text
    assert "the one the Archive's administrator chose" in html.unescape(text)
    assert store(app).find_archive("8JMKD3MGP8W/35MMLL8").key_hash.matches(RegistrationKey(KEY))


@pytest.mark.parametrize(
    "data, field, message",
    [
        ({"service_ibi": ""}, "service_ibi", "Give the IBI of the Archive's service"),
        ({"service_ibi": "sid.inpe.br/mtc-m21/2012/13.05.15.34.39"}, "service_ibi", "month 13 out of range 01-12 (at character 26)"),
        ({"service_ibi": "sid.inpe.br/mtc-m21"}, "service_ibi", "a repository name has 4 '/'-separated parts"),
        ({"service_ibi": SERVICE_IBI, "registration_key": "12345abcde9"}, "registration_key",
         "the registration key has a character that is not a digit (Table 7.1: 10 or more digits, optionally '-' and 10 or more digits) (at character 6)"),
    ],
)
def test_register_errors_are_next_to_their_field(app, admin, data, field, message):
    response = admin.post("/admin/archives", data=data)
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert message in error_next_to(page, field)
    assert "archiveserviceibi" not in error_next_to(page, field) and "registrationkey" not in error_next_to(page, field)
    assert "12345abcde9" not in page
    assert store(app).archives() == []


@pytest.mark.parametrize(("pasted", "expected"), [
    (f"http://127.0.0.1:8741/{SERVICE_IBI}", SERVICE_IBI),  # as the Archive prints its service URL
    (f"127.0.0.1:8741/{SERVICE_IBI}", SERVICE_IBI),
    (f" HTTPS://mtc-m21.sid.inpe.br/{SERVICE_IBI}/ ", SERVICE_IBI),
    (f"http://[::1]:8741/{SERVICE_IBI}?servicesubject=inclusionConfirmationRequest", SERVICE_IBI),
    ("http://150.163.34.243/sid.inpe.br/mtc-m18%4080/2008/03.17.15.17", "sid.inpe.br/mtc-m18@80/2008/03.17.15.17"),
])
def test_a_pasted_service_url_registers_its_service_ibi(app, admin, pasted, expected):
    posted = admin.post("/admin/archives", data={"service_ibi": pasted, "registration_key": KEY})
    assert posted.status_code == 303
    assert [archive.service_ibi for archive in store(app).archives()] == [expected]


def test_a_url_without_a_service_ibi_is_refused_next_to_the_field(app, admin):
    page = admin.post("/admin/archives", data={"service_ibi": "http://127.0.0.1:8741/"}).get_data(as_text=True)
    assert "service_ibi-error" in page and store(app).archives() == []


def test_the_key_field_is_masked_with_a_show_button_added_by_a_static_script(admin):
    page = admin.get("/admin/archives").get_data(as_text=True)
    assert re.search(r'<input[^>]*data-reveal[^>]*type="password"|<input[^>]*type="password"[^>]*data-reveal', page)
    assert '<script src="/static/js/reveal.js" defer></script>' in page


def test_registering_twice_is_an_error_next_to_the_ibi(app, admin):
    register(app)
    page = admin.post("/admin/archives", data={"service_ibi": SERVICE_IBI}).get_data(as_text=True)
    assert "is already registered; remove it first" in error_next_to(page, "service_ibi")


# -- one Archive ----------------------------------------------------------------------------------------


def test_archive_page_shows_state_history_and_actions(app, admin):
    register(app)
    page = admin.get(f"/admin/archives/{SERVICE_IBI}").get_data(as_text=True)
    assert f"<code class=\"url\">http://{ADDRESS}/{SERVICE_IBI}</code>" in page
    history = re.search(r'<table class="data history">(.*?)</table>', page, re.S).group(1)
    assert re.findall(r'class="badge event-(\w+)"', history) == ["included", "registered"]  # newest first
    assert "Send a confirmation request" in page and "Run the conformance check" in page
    assert f'name="address" value="http://{ADDRESS}/{SERVICE_IBI}"' in page


def test_archive_not_yet_included_has_no_address_to_send_to(app, admin):
    register(app, included=False)
    page = admin.get(f"/admin/archives/{SERVICE_IBI}").get_data(as_text=True)
    assert "not yet included" in page and "Send a confirmation request" not in page


def test_unknown_archive_is_404(admin):
    assert admin.get("/admin/archives/8JMKD3MGP8W/35MMLL8").status_code == 404
    assert admin.get("/admin/archives/not-an-ibi").status_code == 404


@responses.activate
def test_confirmation_request_shows_what_was_sent_and_what_came_back(app, admin):
    register(app)
    confirm = responses.get(CONFIRM_URL.partition("?")[0], body="confirmation yes\r\n", content_type="text/plain")
    page = admin.post(f"/admin/archives/{SERVICE_IBI}/confirm").get_data(as_text=True)
    assert [call.request.url for call in confirm.calls] == [CONFIRM_URL]  # Example 7.4
    outcome = re.search(r'<section class="outcome success".*?</section>', page, re.S).group(0)
    assert f"GET {CONFIRM_URL}" in outcome and "HTTP 200" in outcome
    assert '<pre class="answer">confirmation yes\n</pre>' in outcome
    events = store(app).archive_events(SERVICE_IBI)
    assert (events[-1].kind, events[-1].detail) == (
        "confirmation", "confirmation request by an administrator: successful — 'confirmation yes'.")


@responses.activate
def test_failed_confirmation_request_is_recorded_unsuccessful(app, admin):
    register(app)
    responses.get(CONFIRM_URL.partition("?")[0], status=503, body="<b>busy</b>", content_type="text/html")
    page = admin.post(f"/admin/archives/{SERVICE_IBI}/confirm").get_data(as_text=True)
    assert '<section class="outcome failure"' in page and "HTTP status 503" in page
    assert "&lt;b&gt;busy&lt;/b&gt;" in page and "<b>busy</b>" not in page
    assert store(app).find_archive(SERVICE_IBI).last_confirmation == "unsuccessful"


def test_remove_asks_first_then_removes(app, admin):
    register(app)
    confirm_step = admin.get(f"/admin/archives/{SERVICE_IBI}/remove").get_data(as_text=True)
    assert "Remove this Archive?" in confirm_step and store(app).find_archive(SERVICE_IBI) is not None
    response = admin.post(f"/admin/archives/{SERVICE_IBI}/remove")
    assert response.status_code == 302 and response.headers["Location"] == "/admin/archives"
    assert store(app).find_archive(SERVICE_IBI) is None and store(app).archive_events(SERVICE_IBI) == []
    assert f"Removed {SERVICE_IBI} and its history" in admin.get("/admin/archives").get_data(as_text=True)


def test_exclude_then_include_again_keeps_the_registration_and_the_history(app, admin):
    register(app)
    page = admin.get(f"/admin/archives/{SERVICE_IBI}").get_data(as_text=True)
    assert "Exclude this Archive" in page and "Include again" not in page
    response = admin.post(f"/admin/archives/{SERVICE_IBI}/exclude")
    assert response.status_code == 303 and response.headers["Location"] == f"/admin/archives/{SERVICE_IBI}"
    excluded = store(app).find_archive(SERVICE_IBI)
    assert not excluded.included and excluded.address == ADDRESS  # the address is kept
    assert store(app).included_archives() == []
    page = admin.get(response.headers["Location"]).get_data(as_text=True)
    assert f"Excluded {SERVICE_IBI}: the resolver no longer asks it." in page
    assert f"Include again at {ADDRESS}" in page and "Exclude this Archive" not in page
    assert "excluded by the administrator ada" in page

    response = admin.post(f"/admin/archives/{SERVICE_IBI}/include")
    assert response.status_code == 303
    included = store(app).find_archive(SERVICE_IBI)
    assert included.included and included.address == ADDRESS and included.key_hash == excluded.key_hash
    assert [archive.service_ibi for archive in store(app).included_archives()] == [SERVICE_IBI]
    assert f"Included {SERVICE_IBI} again at {ADDRESS}" in admin.get(response.headers["Location"]).get_data(as_text=True)
    events = [(event.kind, event.detail) for event in store(app).archive_events(SERVICE_IBI)]
    assert [kind for kind, _ in events] == ["registered", "included", "excluded", "included"]
    assert events[2][1] == "excluded by the administrator ada"
    assert events[3][1] == f"again at {ADDRESS} by the administrator ada"


def test_an_archive_never_included_cannot_be_included_again(app, admin):
    register(app, included=False)
    assert "Include again" not in admin.get(f"/admin/archives/{SERVICE_IBI}").get_data(as_text=True)
    response = admin.post(f"/admin/archives/{SERVICE_IBI}/include", follow_redirects=True)
    assert "has never been included, so its address is not known" in response.get_data(as_text=True)
    assert not store(app).find_archive(SERVICE_IBI).included
    assert [event.kind for event in store(app).archive_events(SERVICE_IBI)] == ["registered"]


def test_excluding_twice_changes_nothing_the_second_time(app, admin):
    register(app)
    admin.post(f"/admin/archives/{SERVICE_IBI}/exclude")
    page = admin.post(f"/admin/archives/{SERVICE_IBI}/exclude", follow_redirects=True).get_data(as_text=True)
    assert "was already excluded: nothing changed" in page
    assert [event.kind for event in store(app).archive_events(SERVICE_IBI)].count("excluded") == 1


# -- the conformance check page ----------------------------------------------------------------------------


@responses.activate
def test_conformance_report_of_a_good_archive(admin):
    mock_m16c()
    response = admin.post("/admin/conformance", data={"address": M16C_BASE, "known_ibi": "8JMKD3MGP8W/35MMLL8"})
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "No rule failed" in page and "10 passed, 0 failed, 0 skipped" in page
    assert len(re.findall(r'<li class="rule rule-passed"', page)) == 10
    assert 'file 003 §6.2, Table 6.2, rule <q lang="pt-BR">lista-de-pares</q> <span class="translation">(“pair list”)</span>' in page
    portuguese = admin.post("/admin/conformance?lang=pt-BR", data={"address": M16C_BASE}).get_data(as_text=True)
    assert "<q lang=\"pt-BR\">lista-de-pares</q>." in portuguese and "(“pair list”)" not in portuguese  # the words alone
    assert page.count('<pre class="answer">') >= 5


@responses.activate
def test_conformance_page_streams_each_rule_as_soon_as_it_is_decided(admin):
    mock_m16c()
    response = admin.post("/admin/conformance", data={"address": M16C_BASE, "known_ibi": "8JMKD3MGP8W/35MMLL8"},
                          buffered=False)
    sent_when_shown, page = {}, ""
    for chunk in response.response:
        page += chunk.decode()
        for rule_id in re.findall(r'<li class="rule rule-\w+" id="rule-([\w-]+)">', page):
            sent_when_shown.setdefault(rule_id, len(responses.calls))
    response.close()
    # Each rule reached the browser before the next request went out: progress, rule by rule.
    assert list(sent_when_shown.items())[:4] == [("confirmation", 1), ("unknown-ibi", 2), ("known-ibi", 4),
                                                 ("acknowledgment", 5)]
    assert len(sent_when_shown) == 10


@responses.activate
def test_hostile_archive_content_is_shown_as_text(admin):
    mock_m16c(body='<script>alert("owned")</script> <img src=x onerror=alert(1)>\r\n')
    page = admin.post("/admin/conformance", data={"address": M16C_BASE}).get_data(as_text=True)
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt;" in page
    # Two pairs by Table 6.2's grammar (names and values are any printable ASCII), and nothing more:
    assert '<li class="rule rule-failed" id="rule-confirmation">' in page


def test_loopback_address_is_refused_with_a_clear_message(admin):
    page = admin.post("/admin/conformance", data={"address": "http://127.0.0.1:8000/8JMKD3MGP8W/35MMLL8"}).get_data(as_text=True)
    assert "No answer at all: refused to contact 127.0.0.1: 127.0.0.1 is a loopback address" in page
    assert "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1" in page


@pytest.mark.parametrize(
    "data, field, message",
    [
        ({"address": ""}, "address", "Give the Archive service address"),
        ({"address": "http://mtc-m16c.sid.inpe.br"}, "address", "no service IBI after the address"),
        ({"address": M16C_BASE, "known_ibi": "8JMKD3MGP8W/35MML01"}, "known_ibi", "known IBI: "),
    ],
)
def test_conformance_form_errors_are_next_to_their_field(admin, data, field, message):
    response = admin.post("/admin/conformance", data=data)
    assert response.status_code == 400
    assert message in error_next_to(response.get_data(as_text=True), field)


def test_conformance_form_is_shown_to_administrators(admin):
    page = admin.get("/admin/conformance").get_data(as_text=True)
    assert 'name="address"' in page and 'name="known_ibi"' in page and "Report for" not in page


def test_after_registering_the_page_gives_the_resolver_service_url_and_the_inclusion_request(app, admin):
    admin.post("/admin/archives", data={"service_ibi": "8JMKD3MGP8W/35MMLL8", "registration_key": KEY})
    text = html.unescape(admin.get("/admin/archives/8JMKD3MGP8W/35MMLL8/registered").get_data(as_text=True))
    service_url = f"http://localhost/{app.config['RESOLVER_SERVICE_IBI']}"
    assert f'<code id="resolver-service-url">{service_url}</code>' in text
    script = re.search(r'<pre class="curl" id="inclusion-curl">([^<]+)</pre>', text)[1]
    assert f"curl --get '{service_url}'" in script
    names = re.findall(r"--data-urlencode ['\"](\w+)=", script)
    assert names == ["servicesubject", "archiveaddress", "archiveserviceibi", "archiveip", "archiveprotocol",
                     "archiveplatformversion", "archiveadmemailaddress", "registrationkey"]  # Table 7.2, all eight
    assert "'archiveserviceibi=8JMKD3MGP8W/35MMLL8'" in script and '"registrationkey=$REGISTRATION_KEY"' in script
    assert KEY not in text


def test_a_refused_address_is_not_checked_rather_than_failed(admin):
    response = admin.post("/admin/conformance", data={"address": "http://127.0.0.1:8080/8JMKD3MGP8W/35MMLL8"})
    text = response.get_data(as_text=True)
    assert "Not checked (refused to contact 127.0.0.1:8080)" in text
    assert "0 failed" in text and "1 not checked" in text
    assert "rule(s) failed" not in text


@pytest.mark.parametrize("typed", ["http://127.0.0.1:8741", "127.0.0.1:8741", "http://mtc-m21.sid.inpe.br/"])
def test_an_address_alone_is_refused_with_what_to_type_instead(admin, typed):
    response = admin.post("/admin/archives", data={"service_ibi": typed})
    assert response.status_code == 400
    message = error_next_to(response.get_data(as_text=True), "service_ibi")
    assert message.startswith(f"{typed} is an address, not the Archive's service IBI")
    assert f"{typed.rstrip('/')}/<service IBI>" in message


def test_the_key_check_messages_are_on_the_page_for_the_script(admin):
    page = html.unescape(admin.get("/admin/archives").get_data(as_text=True))
    assert 'data-key-check="{' in page and "the first number needs 10 or more" in page


@pytest.mark.parametrize(("lang", "texts"), [
    ("en", {"/admin/conformance": "http://&lt;archive address&gt;/&lt;archive service IBI&gt; (file 003 §6.1)",
            "/admin/archives": "http://host:port/&lt;service IBI&gt;",
            "/admin/resolvers": "http://&lt;resolver address&gt;/&lt;resolver service IBI&gt; (file 003 §6.1)"}),
    ("pt-BR", {"/admin/conformance": "http://&lt;endereço do arquivo&gt;/&lt;IBI do serviço do arquivo&gt; (arquivo 003 §6.1)",
               "/admin/archives": "http://host:porta/&lt;IBI do serviço&gt;",
               "/admin/resolvers": "(arquivo 003 §6.1)"}),
])
def test_help_texts_keep_their_placeholders(admin, lang, texts):
    """A help text's ``<…>`` is a placeholder the reader types over, written as text, not a tag."""
    for path, text in texts.items():
        page = admin.get(path, query_string={"lang": lang}).get_data(as_text=True)
        assert text in page, path
        help_texts = re.findall(r'<p class="help"[^>]*>(.*?)</p>', page, re.S)
        assert help_texts and all(not re.search(r"<(?!/?(code|var)\b)", text) for text in help_texts), help_texts
    refused = admin.post("/admin/conformance", data={"address": ""}, query_string={"lang": lang}).get_data(as_text=True)
    assert "/&lt;" in error_next_to_raw(refused, "address")


def error_next_to_raw(page: str, field: str) -> str:
    found = re.search(rf'<div class="error" id="{field}-error">(.*?)</div>', page, re.S)
    assert found, f"no error next to {field}"
    return found.group(1)
