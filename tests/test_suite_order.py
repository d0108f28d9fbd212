"""The suite's own order: the files ``SLOW_FIRST`` names (tests/slow_first.py) exist, so that a file
moved or renamed does not silently drop back to the end of the queue."""
from __future__ import annotations

from pathlib import Path

from tests.slow_first import SLOW_FIRST

ROOT = Path(__file__).resolve().parent.parent


def test_every_slow_file_named_first_exists():
    assert [path for path in SLOW_FIRST if not (ROOT / path).is_file()] == []
