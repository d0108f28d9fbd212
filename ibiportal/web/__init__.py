"""Thin Flask layer over the core: blueprints, error handlers, CLI commands."""
from __future__ import annotations

from flask import Flask


def register(app: Flask) -> None:
    """Attach every blueprint, error handler and command to ``app``."""
