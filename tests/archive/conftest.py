"""Fixtures of the Archive tests: the demo Archives with a fixed clock and a chosen urlkey."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ibiportal.archive.demo import DemoArchive, load_demo_archives

#: A moment after every timestamp of the demo data.
NOW = datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
PORTAL = "http://portal.test"


class FixedUrlKey:
    """A urlkey generator answering ``value`` (to compare answers with the standard byte for byte)."""

    def __init__(self, value: str = "1426387214-9164566186556927") -> None:
        self.value = value

    def __call__(self) -> str:
        return self.value


@pytest.fixture
def urlkey() -> FixedUrlKey:
    return FixedUrlKey()


@pytest.fixture
def archives(urlkey: FixedUrlKey) -> dict[str, DemoArchive]:
    """The demo Archives; their urlkey is ``urlkey.value`` (set it to the standard's)."""
    return load_demo_archives(portal_url=PORTAL, clock=lambda: NOW, urlkey=urlkey)


@pytest.fixture
def live_archives() -> dict[str, DemoArchive]:
    """The demo Archives with the default (random) urlkey generator."""
    return load_demo_archives(portal_url=PORTAL, clock=lambda: NOW)
