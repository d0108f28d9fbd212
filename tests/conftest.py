"""Shared fixtures (flaskr style): an app with a temp database per test, its client and CLI runner,
and the standards' own figures from ``../shared/vectors/seed_vectors.json``."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import settings

from ibiportal import create_app

# Hypothesis' per-example deadline is a timing assertion: on a shared, loaded 2-core machine it
# fails examples that are merely slow. Properties are about results, so no deadline.
settings.register_profile("ibiportal", deadline=None)
settings.load_profile("ibiportal")

VECTORS_PATH = Path(__file__).resolve().parent.parent.parent / "shared" / "vectors" / "seed_vectors.json"


@pytest.fixture(scope="session")
def vectors() -> dict:
    """The seed vectors: every entry must be reproduced by some test."""
    return json.loads(VECTORS_PATH.read_text(encoding="utf-8"))


@pytest.fixture
def app(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "test.sqlite"),
            "SECRET_KEY": "test",
            "WTF_CSRF_ENABLED": False,
        }
    )
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()
