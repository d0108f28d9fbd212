"""The portal as a real server process (gunicorn) for the reliability and security tests."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Portal:
    """A running gunicorn: its process, where it listens, and every line it wrote to stderr."""

    process: subprocess.Popen
    url: str
    lines: list[str] = field(default_factory=list)
    collector: threading.Thread | None = None
    terminated: bool = False

    def worker_pids(self) -> list[int]:
        """The worker processes (children of the master), from /proc."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()] if children.exists() else []

    def wait_for_lines(self, text: str, count: int, timeout: float) -> int:
        """Wait until ``count`` lines of stderr contain ``text`` (or ``timeout`` seconds pass,
        or the process ends); how many do."""
        deadline = time.monotonic() + timeout
        while (seen := sum(text in line for line in list(self.lines))) < count:
            if time.monotonic() > deadline or self.process.poll() is not None:
                break
            time.sleep(0.05)
        return seen

    def terminate(self) -> None:
        """Ask it to stop gracefully (SIGTERM), without waiting: :meth:`stop` then waits."""
        if self.process.poll() is None and not self.terminated:
            self.process.terminate()
            self.terminated = True

    def stop(self) -> str:
        """Stop gracefully; return everything written to stderr."""
        self.terminate()
        if self.process.poll() is None:
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.collector is not None:
            self.collector.join(timeout=10)
        self.process.stderr.close()
        return "".join(self.lines)


def stop_gunicorns(portals: list[Portal]) -> list[str]:
    """Stop several portals at once; what each wrote to stderr. A worker takes seconds to exit
    after its last request (its interpreter's exit, mostly garbage collection: 10 s at load 20), and stopped one after the other two nodes took twice as long."""
    for portal in portals:
        portal.terminate()
    return [portal.stop() for portal in portals]


def start_gunicorns(envs: list[dict[str, str]]) -> list[Portal]:
    """Several portals (nodes) started at once, each with its ``env``: a node's start is mostly
    its workers importing the application, which one after the other took twice as long."""
    with ThreadPoolExecutor(len(envs)) as pool:
        starting = [pool.submit(start_gunicorn, env) for env in envs]
    failed = [future.exception() for future in starting if future.exception() is not None]
    if failed:
        for future in starting:
            if future.exception() is None:
                future.result().stop()
        raise failed[0]
    return [future.result() for future in starting]


def start_gunicorn(env: dict[str, str], *options: str, timeout: float = 60, bind: str = "127.0.0.1:0") -> Portal:
    """Start ``gunicorn -c gunicorn.conf.py`` on a free loopback port (or ``bind``, when the
    portal must know its address beforehand: ``IBIPORTAL_PORTAL_URL``) with ``options`` added.

    ``env`` is added to the environment (``IBIPORTAL_*``). Returns once it listens; stderr
    keeps being collected in ``Portal.lines`` by a thread until the process ends.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "--bind", bind, *options],
        cwd=ROOT, env={**os.environ, **env}, stderr=subprocess.PIPE, text=True,
    )
    portal = Portal(process, "")
    ready = threading.Event()

    def collect() -> None:
        for line in process.stderr:
            portal.lines.append(line)
            match = re.search(r"Listening at: (http://127\.0\.0\.1:\d+)", line)
            if match:
                portal.url = match.group(1)
            if re.search(r"Booting worker with pid", line) and portal.url:
                ready.set()
        ready.set()

    portal.collector = threading.Thread(target=collect, daemon=True)
    portal.collector.start()
    if not ready.wait(timeout) or process.poll() is not None or not portal.url:
        portal.stop()
        pytest.fail("gunicorn did not start:\n" + "".join(portal.lines[-20:]))
    deadline = time.monotonic() + timeout  # the worker imports the app after its "Booting" line
    while True:
        try:
            requests.get(portal.url + "/static/style.css", timeout=5).close()
            return portal
        except requests.RequestException:
            if time.monotonic() > deadline or process.poll() is not None:
                portal.stop()
                pytest.fail("gunicorn does not answer:\n" + "".join(portal.lines[-20:]))
            time.sleep(0.1)
