"""Issue 4 over real sockets: two standalone demo Archive servers on loopback (the
``demo-archive serve`` command), a portal under gunicorn, registration with the CLI,
switching on with inclusionRequest, resolving §10.1 and §10.2 with ``GET /<persistent URL>``,
switching off with exclusionRequest."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from ibiportal.archive.demo import load_demo_archives
from ibiportal.protocol.messages import ExclusionRequest, InclusionRequest, request_url
from ibiportal.resolver.transport import ARCHIVE_TIMEOUTS
from tests.standard_examples import SECTION_10_1_URL, SECTION_10_2_URL
from tests.servers import fresh_sqlite

ROOT = Path(__file__).resolve().parents[2]
RESOLVER_SERVICE_IBI = "J8LNKB5R7W/3FUQHC5"
KEY = "1234567890-0987654321"


def launch(args: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen(args, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)


def listening(process: subprocess.Popen, args: list[str], ready: str) -> re.Match:
    """Wait for the line on ``process``'s stderr that says where it listens."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        match = re.search(ready, line)
        if match:
            return match
    process.kill()
    pytest.fail(f"{args[:6]} did not start: last line {line!r}")


@pytest.fixture
def live(tmp_path):
    env = {
        **os.environ,
        "IBIPORTAL_DATABASE": fresh_sqlite(tmp_path / "live.sqlite"),
        "IBIPORTAL_DEMO_ARCHIVES": "0",
        "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES": "1",
    }
    flask = [sys.executable, "-m", "flask", "--app", "app"]
    # The three start at once (each imports the portal first, seconds of CPU), and are stopped at
    # once: a gunicorn worker takes seconds to exit after its last request, and more than the 10 s
    # once waited for it, one process after the other, at load 17.
    commands = {name: flask + ["demo-archive", "serve", name, "--port", "0"] for name in ("mtc-m16c", "mtc-m16d")}
    commands["portal"] = [sys.executable, "-m", "gunicorn", "--bind", "127.0.0.1:0", "--workers", "2", "app:app"]
    processes = {}
    try:
        for name, args in commands.items():
            processes[name] = launch(args, env)
        listens = {name: listening(processes[name], commands[name], r"at http://([\d.]+):(\d+)/")
                   for name in ("mtc-m16c", "mtc-m16d")}
        portal = listening(processes["portal"], commands["portal"], r"Listening at: http://127.0.0.1:(\d+)")
        archives = {name: int(match.group(2)) for name, match in listens.items()}
        yield {"env": env, "flask": flask, "archives": archives, "portal": f"127.0.0.1:{portal.group(1)}"}
    finally:
        for process in processes.values():
            process.terminate()
        for process in processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stderr.close()


def switch(live: dict, name: str, message_cls) -> requests.Response:
    service_ibi = load_demo_archives()[name].service.identity.service_ibi.forms()[0]
    message = message_cls(
        archive_address=f"127.0.0.1:{live['archives'][name]}",
        archive_service_ibi=service_ibi,
        archive_ip="127.0.0.1",
        archive_platform_version="URLib 2.1",
        archive_adm_email_address="admin@example.org",
        registration_key=KEY,
    )
    return requests.get(request_url(live["portal"], RESOLVER_SERVICE_IBI, message), timeout=10)


def with_the_notice(trace_url: str) -> dict:
    """The stored trace once the Archive's notice (6) is in it: the redirect leaves as soon as the
    acknowledgment (5) is sent, and the notice is recorded when it comes, within the
    acknowledgment's exchange deadline (``ARCHIVE_TIMEOUTS.total``)."""
    deadline = time.monotonic() + ARCHIVE_TIMEOUTS.total
    while True:
        trace = requests.get(trace_url, timeout=10).json()
        (notice,) = [step for step in trace["trace"]["steps"] if step["number"] == 6]
        if notice["raw_answer"] is not None or time.monotonic() > deadline:
            return trace
        time.sleep(0.05)


@pytest.mark.slow
def test_register_include_resolve_exclude_over_real_sockets(live, vectors):
    registering = [  # both CLI processes at once
        subprocess.Popen(live["flask"] + ["archives", "register", load_demo_archives()[name].service.identity.service_ibi.forms()[0],
                                          "--key", KEY], cwd=ROOT, env=live["env"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for name in live["archives"]
    ]
    for process in registering:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert KEY not in out + err

    portal = f"http://{live['portal']}"
    # Not yet included: only the portal's own Archive is asked, and it does not hold the item.
    assert requests.get(f"{portal}/8JMKD3MGP8W/35MMLL8", allow_redirects=False, timeout=20).status_code == 404

    for name in live["archives"]:
        answer = switch(live, name, InclusionRequest)
        assert answer.status_code == 200
        assert answer.text.split() == vectors["status_messages"]["included_confirmed"].split()

    m16c = live["archives"]["mtc-m16c"]
    first = requests.get(f"{portal}/8JMKD3MGP8W/35MMLL8", allow_redirects=False, timeout=20)
    assert first.status_code == 302
    # The final URLs (7) as the standard prints them: the demo items keep their Archive's URLs.
    assert first.headers["Location"] == SECTION_10_1_URL
    trace = with_the_notice(first.headers["X-IBI-Trace"])
    ack = next(step for step in trace["trace"]["steps"] if step["number"] == 5)
    assert ack["request_url"].startswith(f"http://127.0.0.1:{m16c}/sid.inpe.br/mtc-m18@80/2008/03.17.15.17?")
    assert next(step for step in trace["trace"]["steps"] if step["number"] == 6)["raw_answer"].strip() == (
        vectors["status_messages"]["ack_notice"]
    )

    second = requests.get(f"{portal}/8JMKD3MGP8W/35MMLL8!:(oai_dc)", allow_redirects=False, timeout=20)
    assert second.status_code == 302
    assert second.headers["Location"] == SECTION_10_2_URL

    for name in live["archives"]:
        answer = switch(live, name, ExclusionRequest)
        assert answer.status_code == 200
        assert answer.text.split() == vectors["status_messages"]["excluded"].split()
    assert requests.get(f"{portal}/8JMKD3MGP8W/35MMLL8", allow_redirects=False, timeout=20).status_code == 404
