"""The JSON API under ``/api/v1/``: the same operations as the pages and the CLI.

The blueprint is made in ``views.py``; each other module of the package adds its routes to it.
They are imported here, so that ``ibiportal.web.api.bp`` is the whole API wherever it is used.
"""
from __future__ import annotations

from . import cite, classify, convert_batch, copies, extract, files, health, importing, items, trace, urls  # noqa: F401  their routes
from .views import bp

__all__ = ["bp"]
