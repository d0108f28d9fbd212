"""The access log's line, written field by field: the same line gunicorn's own writer gives for
the configured format, registration keys blanked wherever a client could put one."""
from __future__ import annotations

import logging
from datetime import timedelta
from types import SimpleNamespace

import pytest
from gunicorn.config import Config
from gunicorn.glogging import Logger as GunicornLogger
from gunicorn.glogging import SafeAtoms

from ibiportal.config import ACCESS_LOG_FORMAT
from ibiportal.web import access_log
from ibiportal.web.access_log import access_line
from ibiportal.web.log_redaction import REDACTED, RedactingGunicornLogger, redact

NOW = "[28/Nov/2026:07:16:23 +0000]"


def exchange(path="/8JMKD3MGP8W/35MMLL8", agent="curl/8.0", forwarded=("203.0.113.9",), cache="hit", sent=0):
    environ = {"REMOTE_ADDR": "127.0.0.1", "REQUEST_METHOD": "GET", "PATH_INFO": path, "SERVER_PROTOCOL": "HTTP/1.1",
               "RAW_URI": path + "?registrationkey=secret", "QUERY_STRING": "registrationkey=secret"}
    headers = [("HOST", "urlib.net")] + [("X-FORWARDED-FOR", value) for value in forwarded]
    if agent is not None:
        environ["HTTP_USER_AGENT"] = agent
        headers.append(("USER-AGENT", agent))
    response_headers = [("Location", "https://example.org/x")] + ([("X-IBI-Cache", cache)] if cache else [])
    resp = SimpleNamespace(status="302 FOUND", sent=sent, headers=response_headers)
    return resp, SimpleNamespace(headers=headers), environ, timedelta(microseconds=2_345)


def gunicorns_line(resp, req, environ, request_time) -> str:
    """What gunicorn's generic writer gives for the format, then the key filter over the whole line."""
    logger = GunicornLogger.__new__(GunicornLogger)
    logger.now = lambda: NOW
    return redact(ACCESS_LOG_FORMAT % SafeAtoms(GunicornLogger.atoms(logger, resp, req, environ, request_time)))


@pytest.mark.parametrize("fields", [
    {},
    {"agent": 'Mozilla/5.0 "quoted"'},
    {"agent": None, "forwarded": (), "cache": None, "sent": None},
    {"forwarded": ("198.51.100.1", "203.0.113.9")},  # the last header, as gunicorn reads them
    {"path": "/a=b", "agent": "k=v", "cache": "miss", "sent": 1234},
])
def test_the_line_is_gunicorns_own_for_the_format_keys_blanked(monkeypatch, fields):
    monkeypatch.setattr(access_log._CLOCK, "now", lambda: NOW)
    made = exchange(**fields)
    line = access_line(*made)
    assert line == gunicorns_line(*made)


def test_a_key_is_blanked_in_every_field_a_client_writes(monkeypatch):
    monkeypatch.setattr(access_log._CLOCK, "now", lambda: NOW)
    line = access_line(*exchange(path="/archive;registrationkey=secret", agent="x registration%6Bey=secret y",
                                 forwarded=("key=secret",)))
    # (the whole line filtered read X-Forwarded-For as the value of "for=", and kept its key)
    assert line == (f'127.0.0.1 {NOW} "GET /archive;registrationkey={REDACTED} HTTP/1.1" 302 0 2ms cache=hit '
                    f'"x registration%6Bey={REDACTED} y" for=key={REDACTED}')


def test_the_logger_writes_the_line_once_and_keeps_the_filter_for_any_other_format(monkeypatch, capsys):
    monkeypatch.setattr(access_log._CLOCK, "now", lambda: NOW)
    config = Config()
    config.set("accesslog", "-")
    config.set("access_log_format", ACCESS_LOG_FORMAT)
    logger = RedactingGunicornLogger(config)
    written: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = written.append
    logger.access_log.addHandler(handler)
    made = exchange(path="/x;registrationkey=secret")
    logger.access(*made)
    assert [record.getMessage() for record in written] == [access_line(*made)]
    assert f"registrationkey={REDACTED}" in written[0].getMessage()
    config.set("access_log_format", '%(h)s "%(r)s" %(q)s')  # an operator's own format: gunicorn's writer, filtered
    logger.access(*made)
    assert written[1].getMessage() == f'127.0.0.1 "GET /x;registrationkey={REDACTED} HTTP/1.1" registrationkey={REDACTED}'
