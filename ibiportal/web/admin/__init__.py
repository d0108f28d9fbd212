"""Administrator pages: registered Archives, the conformance check, and the outside resolvers the own Archive joins.

``views.py`` makes the blueprint; ``resolvers.py`` adds its routes to it, imported here so that
``ibiportal.web.admin.bp`` has them all, as does ``usage.py`` (/admin/usage). ``moving.py`` adds the Move page's routes to the items'
blueprint (``items.py``), imported here too.
"""
from __future__ import annotations

from . import moving, resolvers, usage  # noqa: F401  their routes (/admin/items/<ibi>/move, /admin/resolvers, /admin/usage)
from .views import bp

__all__ = ["bp"]
