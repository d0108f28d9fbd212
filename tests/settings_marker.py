"""``@pytest.mark.settings(NAME=value, …)``: the settings a test's app is built with.

The application reads its settings once, when ``create_app`` builds it, so a test that needs
another setting than its module's app builds its app with it, never by changing the
configuration of an app already built. Every ``app`` fixture adds :func:`marked_settings`.
"""
from __future__ import annotations

import pytest


def marked_settings(request: pytest.FixtureRequest) -> dict:
    """The test's marked settings, by their configuration keys (none when it has no mark)."""
    marker = request.node.get_closest_marker("settings")
    return dict(marker.kwargs) if marker else {}
