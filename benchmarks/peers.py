"""The peers and floors the portal is measured against, each under gunicorn on a loopback port:

* **arklet** (the Internet Archive's ARK resolver, Django; one database read a request), from
  PyPI into a virtual environment of its own under ``benchmarks/.peers/`` (ignored by git, never
  a dependency of the portal), on SQLite as the portal is, with or without persistent database
  connections (Django's ``CONN_MAX_AGE``);
* **the bare Flask app** (``benchmarks/bare_flask.py``), under the portal's own ``gunicorn.conf.py``.

Every server gets the same gunicorn: its version (the portal's, pinned in requirements.txt, is
installed beside arklet too), gthread workers, :data:`WORKERS` of them × 8 threads, access log on.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.serving import BENCHMARKS, LOOPBACK, ROOT, Portal, portal

PEERS = BENCHMARKS / ".peers"
ARKLET = "arklet==0.2.3"
WORKERS = 2
THREADS = 8
#: The NAAN and shoulder of the ARKs the benchmark binds (99999 is the NAAN for examples).
NAAN, SHOULDER = 99999, "/fk4"

_SETTINGS = '''"""arklet's settings for the benchmark: SQLite, persistent connections or not, loopback."""
import os
from arklet.entrypoints.settings import *  # noqa: F401,F403

DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["ARKLET_BENCH_DATABASE"],
                         "CONN_MAX_AGE": None if os.environ.get("ARKLET_BENCH_PERSISTENT") == "1" else 0}}
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
'''

_FILL = '''
import django, sys
django.setup()
from arklet.ark.models import Ark, Naan
naan = Naan.objects.create(naan={naan}, name="bench", description="bench", url="https://example.org")
count = int(sys.argv[1])
Ark.objects.bulk_create((Ark(ark=f"{naan}{shoulder}{{n}}", naan=naan, shoulder="{shoulder}", assigned_name=f"fk4{{n}}",
                             url=f"https://repository.example.org/items/{{n}}/report.pdf") for n in range(count)),
                        batch_size=5000)
'''


def arklet_python() -> Path:
    """The Python of arklet's own environment, made (and arklet installed) on first use."""
    venv = PEERS / "arklet-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        PEERS.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        gunicorn = next(line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
                        if line.lower().startswith("gunicorn=="))
        subprocess.run([str(python), "-m", "pip", "install", "-q", ARKLET, gunicorn], check=True)
    (PEERS / "arklet_bench_settings.py").write_text(_SETTINGS)
    return python


def arklet_paths(count: int) -> list[str]:
    return [f"/ark:/{NAAN}{SHOULDER}{n}" for n in range(count)]


def arklet_database(folder: Path, count: int) -> Path:
    """A SQLite database of arklet's with ``count`` ARKs bound to URLs."""
    python, database = arklet_python(), folder / "arklet.sqlite"
    environment = _arklet_environment(database, persistent=False)
    # arklet's migration 0003 is PostgreSQL's SQL (ALTER COLUMN … SET DEFAULT: defaults in the
    # database, which Django's models give anyway): marked as applied on SQLite, the rest run.
    for arguments in (("ark", "0002"), ("ark", "0003", "--fake"), ()):
        subprocess.run([str(python), "-m", "django", "migrate", *arguments, "-v", "0"], check=True, env=environment,
                       cwd=PEERS)
    subprocess.run([str(python), "-c", _FILL.format(naan=NAAN, shoulder=SHOULDER), str(count)], check=True,
                   env=environment, cwd=PEERS)
    return database


def _arklet_environment(database: Path, persistent: bool) -> dict[str, str]:
    return {**{name: value for name, value in os.environ.items() if not name.startswith("IBIPORTAL_")},
            "DJANGO_SETTINGS_MODULE": "arklet_bench_settings", "PYTHONPATH": str(PEERS),
            "ARKLET_BENCH_DATABASE": str(database), "ARKLET_BENCH_PERSISTENT": "1" if persistent else "0"}


@contextmanager
def arklet(database: Path, *, persistent: bool) -> Iterator[Portal]:
    """arklet under gunicorn (:data:`WORKERS` × :data:`THREADS` gthread, access log on)."""
    log = database.parent / f"arklet-{'persistent' if persistent else 'plain'}.log"
    command = [str(arklet_python()), "-m", "gunicorn", "-k", "gthread", "-w", str(WORKERS), "--threads", str(THREADS),
               "--keep-alive", "5", "--no-control-socket", "-b", f"{LOOPBACK}:0", "--access-logfile", "-", "arklet.entrypoints.wsgi:application"]
    with log.open("w") as output:
        process = subprocess.Popen(command, cwd=PEERS, env=_arklet_environment(database, persistent),
                                   stdout=output, stderr=subprocess.STDOUT)
    try:
        yield Portal(_wait_listening(process, log), process, log)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


def _wait_listening(process: subprocess.Popen, log: Path) -> str:
    deadline = time.monotonic() + 60
    while True:
        text = log.read_text(errors="replace")
        port = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", text)
        if port and len(re.findall(r"Booting worker with pid", text)) >= WORKERS:
            return f"http://{LOOPBACK}:{port[1]}"
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"gunicorn did not start:\n{text}")
        time.sleep(0.1)


def bare_flask(folder: Path) -> Iterator[Portal]:
    """The bare Flask app under the portal's gunicorn.conf.py, :data:`WORKERS` workers."""
    return portal("benchmarks.bare_flask:app", folder, workers=WORKERS)
