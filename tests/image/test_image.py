"""The container image as an operator runs it: ``bash bin/image`` builds the image, loads it back
from its archive and runs this file on it (``IMAGE_UNDER_TEST``); the suite skips it, since a
build takes minutes. One container serves, with podman, on a volume of its own and SQLite: not
ready before the migration, which runs as a command of its own; then ready, resolving a demo
item, healthy by its own HEALTHCHECK, run by the portal's user, answering /healthz while slow
clients trickle (nginx in front of gunicorn, as ``bin/run`` runs it) and stopping gracefully."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import requests

from tests.reliability.test_slow_clients import ANSWER_WITHIN, healthz_while_trickling
from tests.servers import free_port

IMAGE = os.environ.get("IMAGE_UNDER_TEST", "")
if not IMAGE:
    pytest.skip("bin/image runs this on the image it built (IMAGE_UNDER_TEST)", allow_module_level=True)

pytestmark = pytest.mark.slow

#: The OCI runtime bin/image built with (runc: see bin/image).
RUNTIME = os.environ.get("IMAGE_RUNTIME", "runc")
#: How every container here runs: podman 4.3 raises the limits of open files and processes to
#: defaults of its own, beyond what these machines allow a container, so these stay within the
#: host's; and its root file system is read-only but for /tmp, as under deploy/kubernetes/ (an
#: emptyDir there), so nothing the portal needs may write anywhere else.
CONTAINER = [f"--runtime={RUNTIME}", f"--ulimit=nofile={resource.getrlimit(resource.RLIMIT_NOFILE)[0]}",
             "--ulimit=nproc=4096", "--read-only", "--read-only-tmpfs=false", "--tmpfs=/tmp"]
PORTAL_USER = "ibiportal"
READY_WITHIN = 120


def podman(*arguments: str, check: bool = True) -> subprocess.CompletedProcess:
    """``podman ARGUMENTS``; its output as text. podman without systemd says on stderr that it
    cannot set a timer for the health check: the check itself is run by the test."""
    done = subprocess.run(["podman", *arguments], capture_output=True, text=True, timeout=180)
    if check and done.returncode:
        pytest.fail(f"podman {' '.join(arguments)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def in_image(volume: str, *command: str) -> str:
    """A command run in a container of its own on the portal's volume (as a migration is)."""
    return podman("run", *CONTAINER, "--rm", "-v", f"{volume}:/var/lib/ibiportal",
                  IMAGE, *command).stdout


@dataclass
class Served:
    name: str
    url: str
    volume: str


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    """The image's own command on a new volume, published on a free loopback port."""
    name = f"ibiportal-smoke-{uuid.uuid4().hex[:8]}"
    podman("volume", "create", name)
    port = free_port()
    try:
        podman("run", *CONTAINER, "--detach", "--name", name, "-p", f"127.0.0.1:{port}:8000",
               "-v", f"{name}:/var/lib/ibiportal", IMAGE)
        served = Served(name, f"http://127.0.0.1:{port}", name)
        deadline = time.monotonic() + READY_WITHIN
        while not answers(served.url + "/healthz"):
            if time.monotonic() > deadline or running(name) is False:
                pytest.fail("the portal did not start:\n" + podman("logs", name, check=False).stdout)
            time.sleep(0.5)
        yield served
    finally:
        podman("rm", "--force", "--time", "0", name, check=False)
        podman("volume", "rm", "--force", name, check=False)


def answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=5).status_code == 200
    except requests.RequestException:
        return False


def running(name: str) -> bool:
    return podman("inspect", "--format", "{{.State.Running}}", name).stdout.strip() == "true"


def test_the_image_is_configured_as_documented():
    inspected = json.loads(podman("image", "inspect", IMAGE).stdout)[0]
    config = inspected["Config"]
    assert config["User"] == "10001:10001"
    assert sorted(variable.partition("=")[0] for variable in config["Env"]) == [
        "IBIPORTAL_BIND", "IBIPORTAL_INSTANCE", "PATH"]
    assert config["Entrypoint"] == ["/usr/bin/tini", "--"]
    assert "http://127.0.0.1:8000/readyz" in " ".join(inspected["Healthcheck"]["Test"])
    assert list(config["ExposedPorts"]) == ["8000/tcp"]


def test_the_portal_is_ready_once_a_separate_command_migrated_its_database(served):
    waiting = requests.get(served.url + "/readyz", timeout=10)
    assert waiting.status_code == 503, waiting.text
    assert "db upgrade" in waiting.json()["checks"]["database"]["error"]

    assert "at the current schema" in in_image(served.volume, "flask", "--app", "app", "db", "upgrade")
    ready = requests.get(served.url + "/readyz", timeout=10)
    assert ready.status_code == 200 and ready.json()["checks"]["database"]["ok"], ready.text
    assert podman("healthcheck", "run", served.name, check=False).returncode == 0


def test_a_demo_item_resolves_to_its_page_and_its_file(served):
    seeded = in_image(served.volume, "flask", "--app", "app", "demo-archive", "seed")
    ibip = seeded.split("Demo items minted: ", 1)[1].split(" ", 1)[0]

    page = requests.get(f"{served.url}/{ibip}", allow_redirects=False, timeout=30)
    assert page.status_code == 302 and page.headers["Location"] == f"{served.url}/archive/items/{ibip}"
    file = requests.get(f"{served.url}/{ibip}/report.pdf", allow_redirects=False, timeout=30)
    assert file.status_code == 302
    pdf = requests.get(file.headers["Location"], timeout=30)
    assert pdf.status_code == 200 and pdf.headers["Content-Type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-")


def test_nginx_and_gunicorn_run_as_the_portal_user(served):
    processes = [line.split(None, 1) for line in podman("top", served.name, "user", "args").stdout.splitlines()[1:]]
    commands = " ".join(command for _, command in processes)
    assert "nginx: master process" in commands and "gunicorn --config gunicorn.conf.py" in commands
    assert {user for user, _ in processes} == {PORTAL_USER}


def test_fifty_slow_clients_leave_healthz_answering_within_a_second(served):
    timings = healthz_while_trickling(served.url)
    assert all(status == 200 and seconds < ANSWER_WITHIN for status, seconds in timings), timings


def test_a_stop_is_graceful(served):
    """podman stop sends TERM (to tini, which hands it to bin/run): nginx and gunicorn finish and
    bin/run exits 143 before the grace period ends; 137 would mean podman had to kill it."""
    started = time.monotonic()
    podman("stop", "--time", "30", served.name)
    took = time.monotonic() - started
    assert podman("inspect", "--format", "{{.State.ExitCode}}", served.name).stdout.strip() == "143"
    assert took < 30, took
