"""1000 identifiers from 4 processes at once at r = 0.01 against one SQLite database (on PostgreSQL,
tests/reliability/test_multi_node.py mints from two nodes of two workers each)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ibiportal.ibi.identifier import parse_ibi
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore

ROOT = Path(__file__).resolve().parents[3]


def mint_in_process(database: str, count: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "IBIPORTAL_DATABASE": database,
        "IBIPORTAL_GRANULARITY": "0.01",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "app", "ibi", "mint", "--count", str(count), "--json"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def collect(process: subprocess.Popen) -> list[dict]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.slow
def test_four_processes_mint_1000_distinct_increasing_identifiers(new_database):
    database = new_database()
    processes = [mint_in_process(database, 250) for _ in range(4)]
    results = [collect(p) for p in processes]
    handed_out = [item for batch in results for item in batch]
    assert len(handed_out) == 1000

    # Within each process the dates it received are strictly increasing.
    for batch in results:
        dates = [parse_ibi(item["ibip"]).date for item in batch]
        assert dates == sorted(set(dates))
    # All distinct, in both forms, and every identifier handed out is in the database,
    # stored in strictly increasing date order.
    assert len({item["rep"] for item in handed_out}) == 1000
    assert len({item["ibip"] for item in handed_out}) == 1000
    stored = IdentifierStore(Storage(database)).minted_items()
    assert {s.ibip for s in stored} == {item["ibip"] for item in handed_out}
    stored_dates = [s.date for s in stored]
    assert stored_dates == sorted(set(stored_dates))

    # A restart (a new process) continues later.
    after_restart = collect(mint_in_process(database, 1))[0]
    assert parse_ibi(after_restart["ibip"]).date > stored_dates[-1]
