"""Registration keys never leak: not in access logs (gunicorn, werkzeug), app logs,
answers, error pages, the database (rows, history events, traces) or the administrator's pages –
whatever the Archive sends: the right key, a wrong one, a malformed one, a duplicated one."""
from __future__ import annotations

import logging
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest
import requests

from ibiportal import create_app
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.protocol.registry import KeyHash
from ibiportal.storage.database import Storage
from ibiportal.storage.registry import ArchiveStore
from ibiportal.web.log_redaction import REDACTED, RedactKeys, redact
from tests import standard_examples as standard
from tests.reliability.faulty_archives import SERVICE_IBI, RawArchive, answers
from tests.reliability.processes import start_gunicorn
from tests.standard_examples import query_of
from tests.servers import fresh_sqlite, loopback_server, sqlite_dump
from tests.admin_session import log_in_as

KEY = "5550001112-9998887776"
#: Pieces of the key that must not show up either (a key cut in two is still half a key).
PIECES = (KEY, KEY[:10], KEY[11:])
RESOLVER_SERVICE = "/J8LNKB5R7W/3FUQHC5"


def requests_with_key(address: str) -> list[str]:
    """The query strings an Archive (or someone guessing) might send, each carrying the key."""
    inclusion = query_of(standard.EXAMPLE_7_2).replace("archiveaddress=mtc-m21.sid.inpe.br", f"archiveaddress={address}")
    exclusion = query_of(standard.EXAMPLE_7_3)
    right = inclusion.replace("registrationkey=1234567890", f"registrationkey={KEY}")
    return [
        right,  # included, after a confirmation request to the Archive
        inclusion.replace("registrationkey=1234567890", f"registrationkey={KEY[:-1]}5"),  # wrong
        inclusion.replace("registrationkey=1234567890", f"registrationkey={KEY}x"),  # malformed
        inclusion.replace("registrationkey=1234567890", f"registrationkey={KEY}&registrationkey={KEY}"),  # twice
        inclusion.replace("registrationkey=1234567890", f"Registration%4Bey={KEY}"),  # an encoded name
        right.replace("servicesubject=inclusionRequest", "servicesubject=inclusionRequest&=x"),  # unreadable: an empty name
        exclusion.replace("registrationkey=1234567890", f"registrationkey={KEY}"),  # excluded
    ]


def assert_no_key(*texts: str | bytes) -> None:
    for text in texts:
        for piece in PIECES:
            assert (piece.encode() if isinstance(text, bytes) else piece) not in text


def register(database: str) -> None:
    """Register (§7.1) the Archive with KEY, not yet included."""
    storage = Storage(database)
    ArchiveStore(storage).register_archive(SERVICE_IBI, KeyHash.of(RegistrationKey(KEY)), datetime.now(timezone.utc))
    storage.close()


def database_bytes(path: str) -> bytes:
    dump = sqlite_dump(path).encode()
    return dump + b"".join(file.read_bytes() for file in Path(path).parent.glob(Path(path).name + "*"))


# -- the filter ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    (f"GET /J8LNKB5R7W/3FUQHC5?servicesubject=exclusionRequest&registrationkey={KEY} HTTP/1.1",
     f"GET /J8LNKB5R7W/3FUQHC5?servicesubject=exclusionRequest&registrationkey={REDACTED} HTTP/1.1"),
    (f"?registrationkey={KEY}&archiveip=1.2.3.4", f"?registrationkey={REDACTED}&archiveip=1.2.3.4"),
    (f"?RegistrationKey={KEY}", f"?RegistrationKey={REDACTED}"),
    (f"?registration%6Bey={KEY}", f"?registration%6Bey={REDACTED}"),
    (f'"GET /x?a=1&registrationkey={KEY}"', f'"GET /x?a=1&registrationkey={REDACTED}"'),
    (f"registrationkey={KEY}", f"registrationkey={REDACTED}"),
    (f"a=1 registrationkey={KEY}&registrationkey={KEY}", f"a=1 registrationkey={REDACTED}&registrationkey={REDACTED}"),
    ("?servicesubject=urlRequest&parsedibiurl.ibi=8JMKD3MGP8W/35MMLL8", None),  # nothing secret
    ("the key= is missing", None),
])
def test_redact(text, expected):
    assert redact(text) == (text if expected is None else expected)


def test_the_filter_cleans_arguments_and_tracebacks():
    record = logging.LogRecord("t", logging.ERROR, __file__, 1, "request %s from %s", (f"/x?registrationkey={KEY}", "h"), None)
    try:
        raise ValueError(f"bad URL /x?registrationkey={KEY}")
    except ValueError:
        record.exc_info = sys.exc_info()
    assert RedactKeys().filter(record)
    assert record.getMessage() == f"request /x?registrationkey={REDACTED} from h"
    assert KEY not in record.exc_text and f"registrationkey={REDACTED}" in record.exc_text


# -- the portal in process: logs, answers, database, CLI and admin pages ----------------------------


def test_no_key_anywhere_after_every_kind_of_request(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    with RawArchive(answers(b"confirmation yes\r\n")) as archive:
        app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "keys.sqlite"), "SECRET_KEY": "test",
                          "WTF_CSRF_ENABLED": False, "ALLOW_PRIVATE_ARCHIVES": True})
        register(app.config["DATABASE"])
        client = app.test_client()
        replies = [client.get(f"{RESOLVER_SERVICE}?{query}") for query in requests_with_key(archive.address)]
        confirmations = len(archive.requests)
    assert [reply.status_code for reply in replies] == [200, 403, 400, 400, 400, 400, 200]
    assert confirmations == 1 and KEY.encode() not in archive.requests[0]  # §7.2 message (3) has no key
    resolution = client.get("/8JMKD3MGP8W/35MMLL8", environ_base={"REMOTE_ADDR": "172.16.44.200"})
    log_in_as(client, "ada")
    pages = [client.get("/admin/archives"), client.get(f"/admin/archives/{SERVICE_IBI}")]
    assert all(page.status_code == 200 for page in pages)
    cli = app.test_cli_runner()
    outputs = [cli.invoke(args=["archives", "list"]).output, cli.invoke(args=["archives", "history", SERVICE_IBI]).output]
    assert "refused" in outputs[1] and "included" in outputs[1]  # the history is there, without the key
    assert_no_key(
        caplog.text, *(reply.get_data(as_text=True) for reply in replies), resolution.get_data(as_text=True),
        *(page.get_data(as_text=True) for page in pages), *outputs, database_bytes(app.config["DATABASE"]),
    )


def test_werkzeug_request_lines_are_redacted(tmp_path, caplog):
    """The development server logs every request line (with its query) through ``werkzeug``."""
    caplog.set_level(logging.INFO)
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "w.sqlite"), "SECRET_KEY": "test"})
    server = loopback_server(app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        query = query_of(standard.EXAMPLE_7_3).replace("registrationkey=1234567890", f"registrationkey={KEY}")
        answer = requests.get(f"http://127.0.0.1:{server.server_port}{RESOLVER_SERVICE}?{query}", timeout=10)
    finally:
        server.shutdown()
        thread.join()
    assert answer.status_code == 404  # not registered: the key is never even checked
    lines = [record.getMessage() for record in caplog.records if record.name == "werkzeug"]
    assert any(f"registrationkey={REDACTED}" in line for line in lines)
    assert_no_key(caplog.text, answer.text)


# -- gunicorn -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_gunicorn_logs_never_hold_a_key(tmp_path):
    """The portal's gunicorn.conf.py with the redacting logger class, and an access log format
    that DOES log the full request line with its query (%(r)s): still no key."""
    access_log = tmp_path / "access.log"
    database = fresh_sqlite(tmp_path / "g.sqlite")
    register(database)
    with RawArchive(answers(b"confirmation yes\r\n")) as archive:
        portal = start_gunicorn(
            {"IBIPORTAL_DATABASE": database, "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "1", "IBIPORTAL_DEMO_ARCHIVES": "0",
             "IBIPORTAL_WORKERS": "1"},
            "--logger-class", "ibiportal.web.log_redaction.RedactingGunicornLogger",
            "--access-logfile", str(access_log), "--access-logformat", '%(h)s "%(r)s" %(s)s q=%(q)s',
            "--log-level", "debug",
        )
        try:
            replies = [requests.get(f"{portal.url}{RESOLVER_SERVICE}?{query}", timeout=20)
                       for query in requests_with_key(archive.address)]
        finally:
            errors = portal.stop()
    assert [reply.status_code for reply in replies] == [200, 403, 400, 400, 400, 400, 200]
    logged = access_log.read_text()
    assert logged.count(f"registrationkey={REDACTED}") >= 5  # the request lines were logged, redacted
    assert_no_key(logged, errors, *(reply.text for reply in replies), database_bytes(database))
