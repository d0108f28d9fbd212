"""The SQLite files hold the administrator's password hash, token hashes and traces: only the
portal's user reads them (0600), the write-ahead log and its index included, and the instance
folder the portal creates is its user's alone (0700) (finding 6 of issue 39)."""
from __future__ import annotations

import logging
import os
import sqlite3
import stat
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from sqlalchemy import update

from ibiportal import ROOT, create_app
from ibiportal.storage.database import Storage, private_sqlite_file
from ibiportal.storage.schema import resolution_generation

SUFFIXES = ("", "-wal", "-shm")


def mode(path: Path | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def written_while_open(setting: str) -> dict[str, int]:
    """Write through the portal's own connection and, while it is open (SQLite removes the
    write-ahead log and its index when the last connection closes), the modes of all three files."""
    storage = Storage(setting)
    try:
        with storage.write_transaction() as connection:
            connection.execute(update(resolution_generation).values(value=resolution_generation.c.value + 1))
        return {suffix: mode(setting + suffix) for suffix in SUFFIXES}
    finally:
        storage.close()


def test_flask_db_upgrade_as_bin_serve_runs_it_makes_private_files(tmp_path, monkeypatch):
    instance = tmp_path / "instance"
    environment = {name: value for name, value in os.environ.items() if not name.startswith("IBIPORTAL_")}
    environment["IBIPORTAL_INSTANCE"] = str(instance)
    upgraded = subprocess.run([sys.executable, "-m", "flask", "--app", "app", "db", "upgrade"], cwd=ROOT,
                              env=environment, capture_output=True, text=True, timeout=120,
                              preexec_fn=lambda: os.umask(0o022))  # the usual umask, which made them 0644
    assert upgraded.returncode == 0, upgraded.stderr
    assert mode(instance) == 0o700
    database = instance / "ibiportal.sqlite"
    assert mode(database) == 0o600
    for name in [name for name in os.environ if name.startswith("IBIPORTAL_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("IBIPORTAL_INSTANCE", str(instance))
    app = create_app()  # as gunicorn's workers do: configured from the environment
    assert app.config["DATABASE"] == str(database)
    assert written_while_open(app.config["DATABASE"]) == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
    assert mode(instance / "secret_key") == 0o600


def test_a_database_upgraded_through_create_app_is_private(tmp_path):
    old = os.umask(0o022)
    try:
        app = create_app({"INSTANCE_PATH": str(tmp_path / "instance"), "SECRET_KEY": "t"})
        result = app.test_cli_runner().invoke(args=["db", "upgrade"])
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    assert mode(app.instance_path) == 0o700
    assert written_while_open(app.config["DATABASE"]) == {"": 0o600, "-wal": 0o600, "-shm": 0o600}


def test_an_existing_instance_folder_is_left_as_its_operator_made_it(tmp_path):
    instance = tmp_path / "instance"
    instance.mkdir(mode=0o750)
    os.chmod(instance, 0o750)
    create_app({"INSTANCE_PATH": str(instance), "SECRET_KEY": "t"})
    assert mode(instance) == 0o750


def test_a_readable_database_of_an_earlier_version_is_made_private_saying_so(new_database, caplog):
    """Files an earlier version left 0644 – the log and its index too, written by another
    process still holding them open – are made 0600 when the portal opens the database."""
    setting = new_database("earlier.sqlite")
    with closing(sqlite3.connect(setting)) as other:
        other.execute("PRAGMA journal_mode=WAL")
        other.execute("UPDATE resolution_generation SET value = value + 1")
        other.commit()
        for suffix in SUFFIXES:
            os.chmod(setting + suffix, 0o644)
        with caplog.at_level(logging.WARNING, logger="ibiportal.storage.private_files"):
            modes = written_while_open(setting)
    assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
    warned = [record.getMessage() for record in caplog.records]
    assert any(f"{setting} was open to other users (mode 644): made 600" in line for line in warned), warned


def test_a_readable_database_the_portal_may_not_change_is_warned_about(tmp_path, monkeypatch, caplog):
    """A file of another user: chmod refused (made so here, since the tests may run as root)."""
    setting = str(tmp_path / "theirs.sqlite")
    sqlite3.connect(setting).close()
    os.chmod(setting, 0o640)

    def refused(path, mode):
        raise PermissionError(1, "Operation not permitted", path)

    monkeypatch.setattr(os, "chmod", refused)
    with caplog.at_level(logging.WARNING, logger="ibiportal.storage.private_files"):
        private_sqlite_file(f"sqlite:///{setting}")
    assert mode(setting) == 0o640
    assert [record.getMessage() for record in caplog.records] == [
        f"{setting} is open to other users (mode 640) and could not be made 600 "
        f"([Errno 1] Operation not permitted: '{setting}'): chmod go= it as its owner"]


def test_files_an_earlier_version_left_0644_are_private_after_the_upgrade_and_start(tmp_path):
    """As ``bin/serve`` runs it (``flask db upgrade``, then the workers) on an instance folder an
    earlier version left 0755 with everything in it 0644: the secret key (which signs sessions)
    and the change signal file stayed 0644 after the database was made 0600."""
    instance = tmp_path / "instance"
    environment = {name: value for name, value in os.environ.items() if not name.startswith("IBIPORTAL_")}
    environment["IBIPORTAL_INSTANCE"] = str(instance)
    started = """
from ibiportal import create_app
from sqlalchemy import update
from ibiportal.storage.database import Storage
from ibiportal.storage.schema import resolution_generation
app = create_app()
app.test_client().get("/X")  # a resolution: the worker opens the change signal file
"""
    for step in (["-m", "flask", "--app", "app", "db", "upgrade"], ["-c", started]):
        done = subprocess.run([sys.executable, *step], cwd=ROOT, env=environment, capture_output=True, text=True,
                              timeout=120, preexec_fn=lambda: os.umask(0o022))
        assert done.returncode == 0, done.stderr
        if step[0] == "-m":  # the first start made them private: open them as an earlier version left them
            instance.chmod(0o755)
            for path in instance.iterdir():
                path.chmod(0o644)
    assert mode(instance) == 0o750
    assert {path.name: mode(path) for path in instance.iterdir()} == {
        name: 0o600 for name in ("ibiportal.sqlite", "ibiportal.sqlite-generation", "secret_key")}
