"""Slow clients (issue 39, finding 2): the portal as ``bin/serve`` runs it (``bin/run``, the same
script) keeps answering ``/healthz`` within 1 s while 50 connections from one address trickle
their request headers or POST bodies a byte at a time; stopping ``bin/run`` leaves no process.
Before, 20 such connections held every thread of two gthread workers and ``/healthz`` timed out.

Also through the same front: the client address and scheme the portal believes (rate limits,
``clientinformation.ipaddress``, HSTS, the access log) and uploads past nginx's default body size."""
from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from ibiportal.storage.database import Storage
from ibiportal.storage.tokens import TokenStore
from tests.servers import free_port, fresh_sqlite

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "bin" / "run"

TRICKLERS = 50
#: Seconds between two bytes of one trickling connection (the finding's pace).
PACE = 2.0
#: How long the connections trickle while /healthz is asked, and how often it is asked.
TRICKLE_SECONDS = 12
PROBES = 6
#: The goal: /healthz answers within this many seconds meanwhile.
ANSWER_WITHIN = 1.0
MB = 1024 * 1024


@dataclass
class Running:
    """``bin/run`` started in a session of its own: its process, the address users connect to,
    and the file its output (nginx's and gunicorn's) goes to."""

    process: subprocess.Popen
    url: str
    log: Path
    database: str

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def log_lines(self, containing: str, count: int, within: float = 10.0) -> list[str]:
        """The output's lines ``containing`` a text, once ``count`` of them are written (or
        ``within`` seconds have passed): gunicorn writes a request's access line after its answer
        went out, so the line can come after the client read the answer."""
        deadline = time.monotonic() + within
        while True:
            lines = [line for line in self.log.read_text(errors="replace").splitlines() if containing in line]
            if len(lines) >= count or time.monotonic() > deadline:
                return lines
            time.sleep(0.05)


def session_members(session: int) -> list[int]:
    """Processes whose session is ``session`` (``bin/run`` starts nginx and gunicorn in it)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[3]) == session:
            members.append(int(stat.parent.name))
    return members


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Running]:
    """``bash bin/run PYTHON`` (what ``bin/serve`` ends with) on a free loopback port, two workers
    as in the finding, started once for this file (a start is most of a test's time); stopped
    with SIGTERM at the end, then nothing of it may be left. API requests: 2 a minute per address;
    files of at most 4 MB."""
    with running(tmp_path_factory.mktemp("slow-clients"), IBIPORTAL_RATELIMIT_API="2/minute",
                 IBIPORTAL_MAX_FILE_BYTES=str(4 * MB)) as portal:
        yield portal


@contextmanager
def running(tmp_path: Path, **variables: str) -> Iterator[Running]:
    port = free_port()
    env = {
        **os.environ,
        "IBIPORTAL_BIND": f"127.0.0.1:{port}", "IBIPORTAL_WORKERS": "2", "IBIPORTAL_THREADS": "8",
        "IBIPORTAL_INSTANCE": str(tmp_path / "instance"), "IBIPORTAL_SECRET_KEY": "slow",
        "IBIPORTAL_DATABASE": fresh_sqlite(tmp_path / "portal.sqlite"), **variables,
    }
    log = tmp_path / "run.log"
    with log.open("w") as output:
        process = subprocess.Popen(["bash", str(RUN), sys.executable], cwd=ROOT, env=env, stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    served = Running(process, f"http://127.0.0.1:{port}", log, env["IBIPORTAL_DATABASE"])
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(served.url + "/healthz", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                pytest.fail("bin/run did not start:\n" + served.output())
            time.sleep(0.2)
        yield served
    finally:
        stop(served)


def stop(served: Running) -> None:
    """SIGTERM to ``bin/run`` (what a service manager sends; Ctrl-C is SIGINT to all of it) must
    stop nginx and gunicorn with it. Whatever is left is killed, then the test fails."""
    if served.process.poll() is None:
        served.process.terminate()
        try:
            served.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
    deadline = time.monotonic() + 5
    while (left := session_members(served.process.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    if left or served.process.poll() is None:
        os.killpg(served.process.pid, signal.SIGKILL)
        served.process.wait()
        pytest.fail(f"bin/run left processes {left} running after SIGTERM:\n" + served.output())


def trickle(address: tuple[str, int], host: str, stop_at: float) -> dict[str, int]:
    """Open :data:`TRICKLERS` connections: half send a request's header lines, half a POST's
    body, one byte every :data:`PACE` seconds, until ``stop_at``. How many connections the
    server closed meanwhile (a slow header is cut at nginx's client_header_timeout)."""
    header = (f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n" + "X-Slow: " + "a" * 64).encode()
    body_head = (f"POST /api/v1/extract HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                 f"Content-Length: 4096\r\n\r\n").encode()
    connections = []
    for number in range(TRICKLERS):
        connection = socket.create_connection(address, timeout=5)
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if number % 2:
            connection.sendall(body_head)
            connections.append([connection, b"x" * 4096])
        else:
            connections.append([connection, header])
    closed = 0
    try:
        sent = 0
        while time.monotonic() < stop_at:
            for entry in connections:
                connection, rest = entry
                if connection is None:
                    continue
                try:
                    connection.send(rest[sent:sent + 1])
                except OSError:
                    connection.close()
                    entry[0] = None
                    closed += 1
            sent += 1
            time.sleep(PACE)
    finally:
        for connection, _ in connections:
            if connection is not None:
                connection.close()
    return {"closed": closed}


def test_fifty_slow_clients_leave_healthz_answering_within_a_second(served):
    timings = healthz_while_trickling(served.url)
    assert all(status == 200 and seconds < ANSWER_WITHIN for status, seconds in timings), timings


def healthz_while_trickling(url: str) -> list[tuple[int | str, float]]:
    """:data:`PROBES` requests for ``/healthz`` at ``url`` (``http://127.0.0.1:PORT``) while
    :func:`trickle` holds its connections to the same port: each one's status (or error) and seconds."""
    port = int(url.rpartition(":")[2])
    outcome: dict[str, int] = {}
    stop_at = time.monotonic() + TRICKLE_SECONDS
    trickler = threading.Thread(
        target=lambda: outcome.update(trickle(("127.0.0.1", port), f"127.0.0.1:{port}", stop_at)), daemon=True)
    trickler.start()
    time.sleep(PACE * 1.5)  # every connection is open and has sent a byte or two
    timings = []
    for _ in range(PROBES):
        started = time.monotonic()
        try:
            status = requests.get(url + "/healthz", timeout=5).status_code
        except requests.RequestException as error:
            status = type(error).__name__
        timings.append((status, round(time.monotonic() - started, 3)))
        time.sleep(max(0.0, (TRICKLE_SECONDS - PACE * 2) / PROBES - (time.monotonic() - started)))
    trickler.join(TRICKLE_SECONDS + 10)
    assert not trickler.is_alive() and outcome, "the trickling connections did not end"
    return timings


def ask(served: Running, method: str, path: str, source: str, body: bytes | None = None,
        headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request to the front from the loopback address ``source`` (127.0.0.0/8 is all
    loopback): the status, the headers (lower-case names) and the body."""
    host, port = served.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, {name.lower(): value for name, value in answer.getheaders()}, answer.read()
    finally:
        connection.close()


CONVERT = "/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS"


def test_through_nginx_the_portal_knows_who_asked_and_takes_files_as_large_as_its_limit(served):
    # The rate limit counts the address nginx saw: a forged X-Forwarded-For from one address
    # does not reset its count (nginx writes the header anew for a client that is not a
    # trusted proxy), and another address has its own count (nginx on loopback is trusted).
    forged = [ask(served, "GET", CONVERT, "127.0.0.7", headers={"X-Forwarded-For": f"192.0.2.{n}"})[0]
              for n in range(3)]
    assert forged == [200, 200, 429]
    assert ask(served, "GET", CONVERT, "127.0.0.8")[0] == 200
    access = served.log_lines('"GET /api/v1/convert ', 4)
    assert [line.rpartition(" for=")[2] for line in access] == ["127.0.0.7"] * 3 + ["127.0.0.8"]

    # Neither can a client say it came over HTTPS (gunicorn believes the scheme from nginx).
    status, headers, _ = ask(served, "GET", "/healthz", "127.0.0.3", headers={
        "X-Forwarded-Proto": "https", "X-Forwarded-Ssl": "on", "X-Forwarded-Protocol": "ssl"})
    assert status == 200 and "strict-transport-security" not in headers

    # A file of 3 MB (nginx's default limit is 1 MB) is stored whole and comes back whole.
    storage = Storage(served.database)
    token = TokenStore(storage).create("slow clients")
    storage.close()
    status, _, minted = ask(served, "POST", "/api/v1/mint", "127.0.0.4", json.dumps({"title": "Big"}).encode(),
                            {"Content-Type": "application/json"})
    assert status in (200, 201), minted
    content = os.urandom(3 * MB)
    files = f"/api/v1/items/{json.loads(minted)['ibip']}/files"
    status, _, stored = ask(served, "PUT", f"{files}/big.bin", "127.0.0.4",
                            content, {"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"})
    assert status == 201, stored
    assert json.loads(stored)["size"] == len(content)
    assert requests.get(json.loads(stored)["url"], timeout=30).content == content

    # Beyond the route's limit (a file: 4 MB here) nginx refuses the body, sent or only declared,
    # in the API's shape and the reader's language, naming that limit.
    status, headers, refused = ask(served, "PUT", f"{files}/huge.bin", "127.0.0.5", b"x" * (5 * MB),
                                   {"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"})
    assert status == 413 and headers["content-type"] == "application/json"
    assert json.loads(refused) == {"error": {"message": "The request is too large: the portal reads at most 4 MB.",
                                             "position": None}}
    status, headers, refused = ask(served, "PUT", f"{files}/huge.bin", "127.0.0.6", b"",
                                   {"Content-Length": str(20 * MB), "Accept-Language": "pt-BR"})
    assert status == 413 and headers["content-type"] == "application/json"
    assert json.loads(refused) == {"error": {"message": "A requisição é grande demais: o portal lê no máximo 4 MB.",
                                             "position": None}}


def test_a_body_refused_unread_leaves_no_502_for_the_next_request(served):
    """A request refused before its body is read (a 429, a 401): gunicorn drains at most 64 KiB of
    what is left, then closes the connection it had announced kept alive, and the next request
    nginx sent on it – anyone's – got nginx's 502 (6 of 40 such refusals on a bin/serve portal).
    From an address of its own, alternating with small requests that must all be answered."""
    body = json.dumps({"text": "x" * 990_000}).encode()
    statuses = []
    for _ in range(20):
        statuses.append(ask(served, "POST", "/api/v1/extract", "127.0.0.9", body, {"Content-Type": "application/json"})[0])
        statuses.append(ask(served, "PUT", "/api/v1/items/8JMKD3MGP8W/34PGRBS/files/a.pdf", "127.0.0.9", body,
                            {"Content-Type": "application/pdf"})[0])
    assert 502 not in statuses, statuses
    assert set(statuses) <= {200, 401, 429}, statuses


def test_a_body_beyond_its_routes_limit_is_refused_by_nginx_and_leaves_no_502(served):
    """A body larger than its route reads was refused by the portal unread (it cannot wait for
    bytes a client may not send), and the connection gunicorn then closed took the next request
    nginx sent on it (1 in 15 of a 9 MB form, when nginx's one limit was the largest file's). Each
    route's limit is now nginx's: a form of 8.5 MB anywhere, a 5 MB file where files are 4 MB, never
    reach the portal; each answer is the 413, and every small request after it is answered."""
    form = b"q=" + b"x" * (8 * MB + MB // 2)
    statuses = []
    for _ in range(8):
        statuses.append(ask(served, "POST", "/convert", "127.0.0.10", form,
                            {"Content-Type": "application/x-www-form-urlencoded"})[0])
        statuses.append(ask(served, "GET", "/healthz", "127.0.0.10")[0])
        statuses.append(ask(served, "PUT", "/admin/items/8JMKD3MGP8W/34PGRBS/files/a.pdf", "127.0.0.10",
                            b"x" * (5 * MB), {"Content-Type": "application/pdf"})[0])
        statuses.append(ask(served, "GET", "/healthz", "127.0.0.10")[0])
    assert statuses == [413, 200] * 16, statuses
