"""Request ids and JSON log lines (issue 37 point 3): ``X-Request-ID`` kept when sane, else made,
and always sent back; with ``IBIPORTAL_LOG_FORMAT=json`` the app's lines and gunicorn's are JSON
objects with their request's fields, no query string, and registration keys still blanked."""
from __future__ import annotations

import io
import json
import logging
from datetime import timedelta
from types import SimpleNamespace

import pytest
import requests

from ibiportal import create_app
from ibiportal.web.log_format import JSON_HANDLER, MAX_REQUEST_ID, access_fields, request_id
from ibiportal.web.log_redaction import REDACTED
from tests.reliability.processes import start_gunicorn
from tests.servers import fresh_sqlite

KEY = "5550001112-9998887776"
ITEM = "/8JMKD3MGP8W/35MMLL8"  # a demo item (§10.1)
USER = {"REMOTE_ADDR": "172.16.44.200"}


@pytest.mark.parametrize("given", ["abc", "0f3e-11", "Root=1-5759e988-bd862e3fe1be46a994272793",
                                   "a" * MAX_REQUEST_ID, "uuid:9b2c/x+y=z_."])
def test_a_sane_request_id_is_kept(given):
    assert request_id(given) == given


@pytest.mark.parametrize("given", [None, "", "a" * (MAX_REQUEST_ID + 1), "two words", "a\r\nSet-Cookie: x",
                                   "ç", '{"json":1}'])
def test_any_other_is_replaced_by_a_new_one(given):
    made = request_id(given)
    assert made != given and request_id(made) == made  # what is made is sane itself
    assert request_id(given) != made  # and new each time


def test_the_request_id_comes_back_on_every_answer(client):
    echoed = client.get(ITEM, headers={"X-Request-ID": "from-nginx-42"}, environ_base=USER)
    assert echoed.status_code == 302 and echoed.headers["X-Request-ID"] == "from-nginx-42"
    made = client.get("/no such page", headers={"X-Request-ID": "bad id\t"})
    assert made.status_code == 404 and made.headers["X-Request-ID"] not in ("", "bad id\t")
    assert client.get("/").headers["X-Request-ID"] != client.get("/").headers["X-Request-ID"]


@pytest.fixture
def json_lines(new_database):
    """An app logging JSON, and what its handler wrote (one string per line)."""
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "LOG_FORMAT": "json"})
    written = io.StringIO()
    stream = JSON_HANDLER.setStream(written)
    yield app, lambda: written.getvalue().splitlines()
    JSON_HANDLER.setStream(stream)
    create_app({"TESTING": True, "DATABASE": new_database("text.sqlite"), "SECRET_KEY": "test"})  # text again


def test_the_apps_lines_are_json_with_the_request_and_no_key(json_lines):
    app, lines = json_lines

    @app.get("/_test/log")
    def log_something():
        logging.getLogger("ibiportal.application.resolving").warning("asked with registrationkey=%s", KEY)
        return "logged"

    answer = app.test_client().get(f"/_test/log?registrationkey={KEY}&b=2", headers={"X-Request-ID": "r-1"})
    assert answer.status_code == 200
    (line,) = [json.loads(text) for text in lines()]  # every line parses
    assert line["level"] == "WARNING" and line["logger"] == "ibiportal.application.resolving"
    assert line["time"].endswith("Z") and line["time"][:4].isdigit()
    assert (line["request_id"], line["method"], line["path"]) == ("r-1", "GET", "/_test/log")
    assert line["message"] == f"asked with registrationkey={REDACTED}"
    assert KEY not in "\n".join(lines())


def test_a_line_outside_a_request_has_no_request_fields_and_a_traceback_is_kept_redacted(json_lines):
    app, lines = json_lines
    try:
        raise ValueError(f"?registrationkey={KEY}")
    except ValueError:
        app.logger.exception("failed")
    app.logger.warning("retrying ?registrationkey=%s&x=1", KEY)  # the app's logger filters, and the handler again
    failed, retried = [json.loads(text) for text in lines()]
    assert "request_id" not in failed and failed["message"] == "failed"
    assert "ValueError" in failed["exception"] and KEY not in failed["exception"]
    assert f"ValueError: ?registrationkey={REDACTED}\n" in failed["exception"] + "\n"
    assert retried["message"] == f"retrying ?registrationkey={REDACTED}&x=1"


def test_gunicorn_writes_json_access_lines_with_the_trace_and_the_cache_state(tmp_path):
    access_log = tmp_path / "access.log"
    database = fresh_sqlite(tmp_path / "portal.sqlite")
    portal = start_gunicorn({"IBIPORTAL_DATABASE": database, "IBIPORTAL_WORKERS": "1", "IBIPORTAL_LOG_FORMAT": "json"},
                            "--access-logfile", str(access_log))
    try:
        first = requests.get(f"{portal.url}{ITEM}?lang=pt&registrationkey={KEY}", allow_redirects=False, timeout=30,
                             headers={"X-Request-ID": "client-chose-this"})
        second = requests.get(f"{portal.url}{ITEM}?lang=pt&registrationkey={KEY}", allow_redirects=False, timeout=30)
        missing = requests.get(f"{portal.url}/no-such-page", timeout=30)
    finally:
        errors = portal.stop()
    assert (first.status_code, second.status_code, missing.status_code) == (302, 302, 404)
    assert first.headers["X-Request-ID"] == "client-chose-this"
    lines = [json.loads(text) for text in access_log.read_text().splitlines()]
    by_id = {line["request_id"]: line for line in lines}
    hit = by_id[second.headers["X-Request-ID"]]
    miss = by_id["client-chose-this"]
    for line, cache in ((miss, "miss"), (hit, "hit")):
        assert (line["method"], line["path"], line["status"], line["cache"]) == ("GET", ITEM, 302, cache)
        assert line["level"] == "INFO" and line["time"].endswith("Z") and line["duration_ms"] >= 0
        assert line["trace"] == first.headers["X-IBI-Trace"].rsplit("/", 1)[-1]  # the hit's trace is the miss's
    other = by_id[missing.headers["X-Request-ID"]]
    assert (other["path"], other["status"], other["cache"], other["trace"]) == ("/no-such-page", 404, None, None)
    assert KEY not in access_log.read_text() and "lang=pt" not in access_log.read_text()
    error_lines = [line for line in errors.splitlines() if line.strip()]
    assert error_lines and all(json.loads(line)["level"] for line in error_lines)  # gunicorn's own lines too


def test_a_json_access_line_blanks_keys_in_every_field_a_client_writes():
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/archive;registrationkey=secret", "REMOTE_ADDR": "127.0.0.1",
               "HTTP_X_FORWARDED_FOR": "203.0.113.9, key=secret", "HTTP_USER_AGENT": "x registration%6Bey=secret y"}
    fields = access_fields(SimpleNamespace(status="302 FOUND", headers=[], sent=0), environ, timedelta(milliseconds=2))
    assert (fields["path"], fields["forwarded_for"], fields["user_agent"]) == (
        f"/archive;registrationkey={REDACTED}", f"203.0.113.9, key={REDACTED}", f"x registration%6Bey={REDACTED} y")
    assert "secret" not in json.dumps(fields)
