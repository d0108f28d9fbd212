"""The production run command: ``gunicorn -c gunicorn.conf.py``. Its values and their
IBIPORTAL_* overrides, gunicorn's own reading of the file, and one real start on loopback."""
from __future__ import annotations

import gc
import os
import re
import runpy
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from ibiportal import create_app
from ibiportal.config import MAX_DEFAULT_WORKERS
from ibiportal.resolver.engine import ResolverSettings
from ibiportal.web.context import APPLICATION
from tests.servers import fresh_sqlite

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "gunicorn.conf.py"
SERVER_VARIABLES = ("IBIPORTAL_WORKERS", "IBIPORTAL_THREADS", "IBIPORTAL_BIND", "IBIPORTAL_TRUSTED_PROXIES")


@pytest.fixture
def environment(monkeypatch, tmp_path):
    for name in SERVER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    # gunicorn.conf.py sets it for its workers: given here, this test process's own is restored after
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "metrics"))
    return monkeypatch


def load(environment, **variables) -> dict:
    for name, value in variables.items():
        environment.setenv(name, value)
    return runpy.run_path(str(CONFIG))


def test_defaults(environment):
    config = load(environment)
    assert config["wsgi_app"] == "app:app"
    assert config["bind"] == ["127.0.0.1:8000"]
    assert config["workers"] == min(2 * (os.cpu_count() or 1) + 1, MAX_DEFAULT_WORKERS)
    assert (config["worker_class"], config["threads"]) == ("gthread", 8)
    deadline = ResolverSettings().deadline
    assert config["timeout"] > deadline and config["graceful_timeout"] > deadline
    assert config["max_requests"] > 0 and 0 < config["max_requests_jitter"] < config["max_requests"]
    assert config["preload_app"] is False and config["control_socket_disable"] is True
    assert config["forwarded_allow_ips"] == ""  # no proxy trusted unless configured


def test_the_environment_overrides(environment):
    config = load(
        environment,
        IBIPORTAL_WORKERS="3",
        IBIPORTAL_THREADS="4",
        IBIPORTAL_BIND="127.0.0.1:9000, [::1]:9000",
        IBIPORTAL_TRUSTED_PROXIES="203.0.113.7, 198.51.100.0/24",
    )
    assert (config["workers"], config["threads"]) == (3, 4)
    assert config["bind"] == ["127.0.0.1:9000", "[::1]:9000"]
    assert config["forwarded_allow_ips"] == "203.0.113.7,198.51.100.0/24"  # the resolver's trusted proxies


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("IBIPORTAL_WORKERS", "0", "IBIPORTAL_WORKERS must be a whole number of at least 1, not '0'"),
        ("IBIPORTAL_WORKERS", "two", "IBIPORTAL_WORKERS must be a whole number of at least 1, not 'two'"),
        ("IBIPORTAL_THREADS", "many", "IBIPORTAL_THREADS must be a whole number"),
    ],
)
def test_a_bad_value_stops_the_start_naming_the_variable(environment, name, value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        load(environment, **{name: value})


def test_the_access_log_never_shows_a_query_or_referer(environment):
    line_format = load(environment)["access_log_format"]
    for atom in ("%(r)s", "%(q)s", "%(f)s", "{raw_uri}"):  # registration keys travel in queries (§7.2)
        assert atom not in line_format
    assert "%(U)s" in line_format and "%({x-ibi-cache}o)s" in line_format
    assert load(environment)["logger_class"] == "ibiportal.web.log_redaction.RedactingGunicornLogger"


def test_gunicorn_reads_the_file(environment):
    printed = subprocess.run(
        [sys.executable, "-m", "gunicorn", "-c", str(CONFIG), "--print-config"],
        cwd=ROOT, env={**os.environ, "IBIPORTAL_THREADS": "3"}, capture_output=True, text=True, timeout=60,
    )
    assert printed.returncode == 0, printed.stderr
    values = dict(re.findall(r"^(\w+)\s+= (.*)$", printed.stdout, re.MULTILINE))
    assert values["worker_class"] == "gthread" and values["threads"] == "3"
    assert values["timeout"] == "30" and values["forwarded_allow_ips"] == "[]"
    assert values["logger_class"] == "ibiportal.web.log_redaction.RedactingGunicornLogger"


def test_the_resolver_pool_follows_the_threads(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "t.sqlite"), "SECRET_KEY": "t", "THREADS": 2})
    assert app.extensions[APPLICATION].executor._max_workers == 32  # 16 Archives at once for each request thread


@pytest.mark.slow
def test_serves_with_the_config_file(tmp_path):
    log = tmp_path / "gunicorn.log"
    env = {
        **os.environ, "IBIPORTAL_BIND": "127.0.0.1:0", "IBIPORTAL_WORKERS": "2", "IBIPORTAL_THREADS": "2",
        "IBIPORTAL_DATABASE": fresh_sqlite(tmp_path / "portal.sqlite"),
    }
    with log.open("w") as output:
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(CONFIG)], cwd=ROOT, env=env,
                                  stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not (port := re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", log.read_text())):
            assert time.monotonic() < deadline and server.poll() is None, log.read_text()
            time.sleep(0.1)
        base = f"http://127.0.0.1:{port[1]}"
        with requests.Session() as session:  # one keep-alive connection: one worker, one cache
            answers = [session.get(f"{base}/8JMKD3MGP8W/35MMLL8", allow_redirects=False, timeout=20) for _ in range(2)]
            refused = session.get(f"{base}/J8LNKB5R7W/3FUQHC5?servicesubject=exclusionRequest&registrationkey=5550001112", timeout=20)
        assert [(a.status_code, a.headers["X-IBI-Cache"]) for a in answers] == [(302, "miss"), (302, "hit")]
        assert refused.status_code == 400
    finally:
        server.terminate()
        server.wait(timeout=30)
    text = log.read_text()
    assert "Using worker: gthread" in text and len(re.findall(r"Booting worker with pid", text)) == 2
    assert '"GET /8JMKD3MGP8W/35MMLL8 HTTP/1.1" 302' in text and "cache=hit" in text
    assert '"GET /J8LNKB5R7W/3FUQHC5 HTTP/1.1" 400' in text and "5550001112" not in text  # no key in the log


def test_what_a_process_made_at_start_is_frozen_and_alembic_waits_for_a_migration(environment, tmp_path):
    """A worker or a command (``app.py``) and the arbiter (``when_ready``) freeze what start-up made,
    so that neither a collection nor the exit walks it again; Alembic is not loaded to serve."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import gc, sys, app; print(gc.get_freeze_count() > 1000, 'alembic' in sys.modules)"],
        cwd=ROOT, env={**os.environ, "IBIPORTAL_INSTANCE": str(tmp_path)}, capture_output=True, text=True, check=True,
    )
    assert loaded.stdout.split() == ["True", "False"]
    config = load(environment)
    before = gc.get_freeze_count()
    config["when_ready"](None)  # this test process's objects stay frozen, as the session's are (tests/conftest.py)
    assert gc.get_freeze_count() > before


def test_the_metrics_folder_starts_empty_and_a_dead_worker_is_marked(environment, tmp_path):
    folder = tmp_path / "given"
    folder.mkdir()
    (folder / "counter_4242.db").write_bytes(b"a dead run's")
    environment.setenv("PROMETHEUS_MULTIPROC_DIR", str(folder))
    config = load(environment)
    config["on_starting"](None)
    assert list(folder.iterdir()) == []  # nothing of an earlier run is summed in
    (folder / "gauge_livesum_4243.db").write_bytes(b"")
    config["child_exit"](None, type("Worker", (), {"pid": 4243})())
    assert list(folder.iterdir()) == []  # its live gauges go with it
    config["on_exit"](None)
    assert folder.is_dir()  # the operator's folder (bin/run's) is theirs to remove


def test_without_a_folder_one_is_made_and_removed_at_exit(environment):
    environment.delenv("PROMETHEUS_MULTIPROC_DIR")
    config = load(environment)
    folder = config["METRICS_FOLDER"]
    assert folder.is_dir() and os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(folder)
    config["on_exit"](None)
    assert not folder.exists()
