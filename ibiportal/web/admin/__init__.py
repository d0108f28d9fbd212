"""Administrator pages: registered Archives, the conformance check, and the outside resolvers the own Archive joins.

``views.py`` makes the blueprint; ``resolvers.py`` adds its routes to it, imported here so that
``ibiportal.web.admin.bp`` has them all.
"""
from __future__ import annotations

from . import resolvers  # noqa: F401  its routes (/admin/resolvers)
from .views import bp

__all__ = ["bp"]
