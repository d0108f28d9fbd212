"""What the HTTP benchmarks share: the portal under gunicorn with ``gunicorn.conf.py`` on a
loopback port, wrk runs against it (bounded in time, loopback only), worker memory from /proc,
and the results file.

wrk is Debian's package: ``apt-get install -y wrk``.
"""
from __future__ import annotations

import json
import os
import re
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"
LOOPBACK = "127.0.0.1"

sys.path.insert(0, str(ROOT))
from ibiportal.storage.migrations import upgrade  # noqa: E402


def require_wrk() -> str:
    """The wrk executable, or exit saying how to install it."""
    found = shutil.which("wrk")
    if found is None:
        sys.exit("wrk is not installed: apt-get install -y wrk (Debian/Ubuntu), then run this again")
    return found


@dataclass
class Portal:
    """A running gunicorn: its address, master process and log (access log included)."""

    base_url: str
    process: subprocess.Popen
    log: Path

    def worker_pids(self) -> list[int]:
        """The master's children, from /proc."""
        children = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == self.process.pid:
                    children.append(int(entry.name))
        return sorted(children)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def portal(app: str, workdir: Path, *, workers: int | None = None, extra_args: tuple[str, ...] = (),
           environment: dict[str, str] | None = None) -> Iterator[Portal]:
    """gunicorn ``-c gunicorn.conf.py`` serving ``app`` on a free loopback port, a fresh database
    in ``workdir`` (brought to the current schema, as ``bin/serve`` does) unless ``environment``
    names one; stopped (SIGTERM, then waited for) at the end."""
    log = workdir / "gunicorn.log"
    if "IBIPORTAL_DATABASE" not in (environment or {}):
        upgrade(str(workdir / "portal.sqlite"))
    env = {
        **os.environ,
        "IBIPORTAL_BIND": f"{LOOPBACK}:0",
        "IBIPORTAL_DATABASE": str(workdir / "portal.sqlite"),
        **(environment or {}),
    }
    if workers is not None:
        env["IBIPORTAL_WORKERS"] = str(workers)
    expected = workers or runpy.run_path(str(ROOT / "gunicorn.conf.py"))["workers"]
    command = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), *extra_args, app]
    with log.open("w") as output:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            text = log.read_text(errors="replace")
            port = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", text)
            booted = len(re.findall(r"Booting worker with pid", text))
            if port and booted >= expected:
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not start:\n{text}")
            time.sleep(0.1)
        yield Portal(f"http://{LOOPBACK}:{port[1]}", process, log)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


def wrk(url: str, seconds: float, connections: int, *, threads: int = 1, script: str = "wrk_summary.lua",
        args: tuple[str, ...] = (), timeout_seconds: int = 10) -> dict:
    """One wrk run against a loopback URL, bounded by ``seconds``; its JSON summary."""
    if not url.startswith(f"http://{LOOPBACK}:"):
        raise ValueError(f"benchmarks load loopback only, not {url}")
    command = [
        require_wrk(), f"-t{threads}", f"-c{connections}", f"-d{seconds}s", f"--timeout={timeout_seconds}s",
        "-s", str(BENCHMARKS / script), url, *(("--", *args) if args else ()),
    ]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=seconds + timeout_seconds + 30, check=True)
    line = next(line for line in finished.stdout.splitlines() if line.startswith("{"))
    return json.loads(line)


def per_second(run: dict) -> float:
    """A wrk run's requests per second of its own duration."""
    return run["requests"] / (run["duration_us"] / 1e6)


def errors(run: dict) -> int:
    """A wrk run's failed requests: socket errors, timeouts and statuses other than 2xx/3xx."""
    return sum(run[name] for name in ("connect_errors", "read_errors", "write_errors", "status_errors", "timeouts"))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def first_answer(url: str) -> tuple[int, str | None]:
    """Status and X-IBI-Cache of one GET, without following the redirect."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        response = opener.open(url, timeout=30)
    except urllib.error.HTTPError as answer:
        return answer.code, answer.headers.get("X-IBI-Cache")
    return response.status, response.headers.get("X-IBI-Cache")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time the processes have used, all their threads (/proc/<pid>/stat)."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))
    return ticks / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    """Resident memory of a process, kB (VmRSS of /proc/<pid>/status)."""
    return _status_field(pid, "VmRSS")


def thread_count(pid: int) -> int:
    """Threads of a process (Threads of /proc/<pid>/status)."""
    return _status_field(pid, "Threads")


def _status_field(pid: int, name: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{name}:"):
            return int(line.split()[1])
    raise RuntimeError(f"no {name} for process {pid}")


def workdir() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="ibiportal-bench-")


def write_results(name: str, text: str) -> Path:
    """Append a run to ``benchmarks/results/<name>-<date>.txt``: the runs of a day side by side
    show how much the shared machine moved them."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}-{date.today().isoformat()}.txt"
    with path.open("a", encoding="utf-8") as results:
        results.write(f"=== run of {datetime.now().isoformat(timespec='seconds')}\n{text}\n")
    return path
