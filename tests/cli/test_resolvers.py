"""``flask resolvers join|leave|list``: the portal's own Archive and an outside resolver (file 003 §7.2).

The resolver is ``tests/archive/independent_resolver.py``, written from the standard alone. The
end-to-end test runs the real portal under gunicorn at ``IBIPORTAL_PORTAL_URL`` and the CLI's join and
leave as processes of their own, so the inclusion request, the resolver's confirmation request to the
portal's real Archive service route (Example 7.4) and both answers cross loopback sockets.
"""
from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ibiportal import create_app
from tests.archive.independent_resolver import IndependentResolver
from tests.reliability.processes import start_gunicorn
from tests.servers import free_port, fresh_sqlite

ROOT = Path(__file__).resolve().parents[2]
SERVICE_IBI = "32G4GKPW/4GR3P92"  # the portal's default archive service IBI
KEY = "1234567890-0987654321"
ADMIN_EMAIL = "archive-admin@example.org"


@pytest.fixture
def resolver():
    resolver = IndependentResolver(registered={SERVICE_IBI: KEY}, callback_timeout=10.0).start()
    yield resolver
    resolver.stop()


def make_runner(tmp_path, **config):
    settings = {"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "cli.sqlite"), "SECRET_KEY": "test",
                "ALLOW_PRIVATE_ARCHIVES": True, "ADMIN_EMAIL": ADMIN_EMAIL,
                "PORTAL_URL": f"http://127.0.0.1:{free_port()}"}  # nothing listens there
    return create_app({**settings, **config}).test_cli_runner()


@pytest.mark.slow
def test_joining_and_leaving_with_the_real_portal_answering_the_confirmation(tmp_path, resolver, capfd):
    port = free_port()
    env = {
        "IBIPORTAL_DATABASE": fresh_sqlite(tmp_path / "portal.sqlite"),
        "IBIPORTAL_INSTANCE": str(tmp_path / "instance"),
        "IBIPORTAL_PORTAL_URL": f"http://127.0.0.1:{port}",
        "IBIPORTAL_ADMIN_EMAIL": ADMIN_EMAIL,
        "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "1",
        "IBIPORTAL_DEMO_ARCHIVES": "0",
    }
    portal = start_gunicorn(env, "--workers", "1", bind=f"127.0.0.1:{port}")
    try:
        def flask(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run([sys.executable, "-m", "flask", "--app", "app", "resolvers", *args], cwd=ROOT,
                                  env={**os.environ, **env}, capture_output=True, text=True, timeout=120)

        # join and leave cross the sockets; list only reads the database: in this process (a CLI
        # process imports the portal first, 3 s of CPU)
        lister = create_app({"TESTING": True, "DATABASE": env["IBIPORTAL_DATABASE"], "SECRET_KEY": "test"}).test_cli_runner()
        joined = flask("join", resolver.url, "--key", KEY)
        listed = lister.invoke(args=["resolvers", "list"])
        left = flask("leave", resolver.url, "--key", KEY)
        listed_after = lister.invoke(args=["resolvers", "list"])
    finally:
        portal_log = portal.stop()
    access_log = capfd.readouterr().out  # gunicorn writes its access log to standard output

    assert joined.returncode == 0, joined.stderr
    assert joined.stdout.splitlines() == [
        f"Sending inclusionRequest to {resolver.url} as the Archive at 127.0.0.1:{port} (archive service "
        f"{SERVICE_IBI}, IP 127.0.0.1, administrator {ADMIN_EMAIL})…",
        "status.archive included status.confirmation successful",
        "Included: the resolver asked this Archive for its confirmation and received it; it will ask this Archive "
        "when resolving.",
    ]
    inclusion, exclusion = resolver.received
    # The resolver's confirmation request reached the portal's own Archive service route (Example 7.4).
    assert inclusion.confirmation_url == (
        f"http://127.0.0.1:{port}/{SERVICE_IBI}?servicesubject=inclusionConfirmationRequest")
    assert inclusion.confirmation_answer == "confirmation yes"  # Table 6.2: nothing after the last pair
    assert f'"GET /{SERVICE_IBI} HTTP/1.1" 200 16 ' in access_log  # len("confirmation yes")
    assert "included" in listed.stdout.splitlines()[1] and resolver.url in listed.stdout

    assert left.returncode == 0, left.stderr
    assert left.stdout.splitlines()[1:] == [
        "status.archive excluded", "Excluded: the resolver no longer asks this Archive."]
    assert dict(exclusion.pairs)["servicesubject"] == "exclusionRequest" and resolver.included == {}
    row = listed_after.stdout.splitlines()[1]
    assert row.split()[:3] == [resolver.url, "exclusionRequest", "excluded"] and row.endswith("status.archive excluded")

    # The key was typed on the command line and nowhere else.
    for text in (joined.stdout, joined.stderr, left.stdout, left.stderr, listed_after.stdout, portal_log, access_log):
        assert KEY not in text


def test_without_key_it_is_asked_for_without_echo_and_a_wrong_key_says_why(tmp_path, resolver):
    runner = make_runner(tmp_path)
    result = runner.invoke(args=["resolvers", "join", resolver.url], input="5555555555\n")
    assert result.exit_code == 1
    assert result.stdout.startswith("Registration key: \nSending inclusionRequest to ")
    assert "5555555555" not in result.output
    assert result.stdout.splitlines()[-1] == "status.archive refused status.reason {wrong registration key}"
    assert result.stderr == (f"error: {resolver.url}: Refused by the resolver: wrong registration key (HTTP 403).\n")


def test_included_without_confirmation_exits_1_and_says_where_the_resolver_called(tmp_path, resolver):
    runner = make_runner(tmp_path)
    portal_url = runner.app.config["PORTAL_URL"]
    result = runner.invoke(args=["resolvers", "join", resolver.url], input=KEY + "\n")
    assert result.exit_code == 1 and KEY not in result.output
    assert result.stdout.splitlines()[-1] == "status.archive included status.confirmation unsuccessful"
    assert result.stderr == (
        f"error: {resolver.url}: Included, but the resolver could not get this Archive's confirmation from "
        f"{portal_url}/{SERVICE_IBI}?servicesubject=inclusionConfirmationRequest (Example 7.4): make sure the portal "
        "runs and is reachable from the resolver at that address (IBIPORTAL_PORTAL_URL), then join again.\n")


def test_an_unreachable_resolver_and_a_garbled_answer_exit_1_without_the_key(tmp_path, resolver, caplog):
    runner = make_runner(tmp_path)
    caplog.set_level(logging.DEBUG)
    closed = f"http://127.0.0.1:{free_port()}/J8LNKB5R7W/3FUQHC5"
    result = runner.invoke(args=["resolvers", "leave", closed, "--key", KEY])
    assert result.exit_code == 1
    assert result.stderr == f"error: {closed}: Failed: could not reach the resolver: Connection refused.\n"

    resolver.answer_override = b"<!DOCTYPE html>\n<title>502 Bad Gateway</title>\n"
    result = runner.invoke(args=["resolvers", "join", resolver.url, "--key", KEY])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {resolver.url}: Failed: HTTP 200 is not a pair list (§6.2: ")
    assert result.stderr.endswith("it begins: <!DOCTYPE html> <title>502 Bad Gateway</title>.\n")
    # urllib3 logs each request URL at DEBUG: the request went out, its key did not reach the log.
    assert "servicesubject=inclusionRequest" in caplog.text
    assert KEY not in caplog.text and KEY not in result.output

    listed = runner.invoke(args=["resolvers", "list"])
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["resolver", "last", "request", "outcome", "date", "(UTC)", "status", "or", "reason"]
    rows = {line.split()[0]: line for line in lines[1:]}  # by service URL
    assert rows.keys() == {closed, resolver.url}
    assert rows[closed].split()[1:3] == ["exclusionRequest", "failed"]
    assert rows[closed].endswith("could not reach the resolver: Connection refused")
    assert rows[resolver.url].split()[1:3] == ["inclusionRequest", "failed"]


def test_bad_input_and_missing_settings_exit_2_before_the_key_is_asked(tmp_path, resolver):
    runner = make_runner(tmp_path)
    result = runner.invoke(args=["resolvers", "join", "urlib.net/J8LNKB5R7W/3FUQHC5"])
    assert result.exit_code == 2 and "Registration key" not in result.output
    assert result.stderr == ("error: resolver URL: a resolver service URL starts with http:// or https:// (§6.1) "
                             "(at character 1)\n")
    result = make_runner(tmp_path, PORTAL_URL="").invoke(args=["resolvers", "join", resolver.url])
    assert result.exit_code == 2 and "Registration key" not in result.output
    assert result.stderr.startswith("error: configuration: IBIPORTAL_PORTAL_URL is not set")
    result = make_runner(tmp_path, ADMIN_EMAIL="").invoke(args=["resolvers", "leave", resolver.url])
    assert result.exit_code == 2 and result.stderr.startswith("error: configuration: IBIPORTAL_ADMIN_EMAIL is not set")
    result = runner.invoke(args=["resolvers", "join", resolver.url, "--key", "12345"])
    assert result.exit_code == 2 and "12345" not in result.output
    assert result.stderr.startswith("error: the registration key: the first number has 5 digits (Table 7.1")
    assert resolver.received == []
    assert runner.invoke(args=["resolvers", "list"]).stdout == (
        "No resolver has been asked yet: flask --app app resolvers join RESOLVER_SERVICE_URL.\n")
