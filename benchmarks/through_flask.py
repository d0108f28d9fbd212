"""The portal with its cached redirects answered through Flask's dispatch, as before
``ibiportal/web/cached_hits.py``: the yardstick ``benchmarks/cache.py`` serves beside the portal as
it is, in the same run. Not part of the product: only ``gunicorn … benchmarks.through_flask:app``
serves it."""
from __future__ import annotations

from flask import Flask

from ibiportal import create_app
from ibiportal.web.cached_hits import CachedHits


def through_flask(app: Flask) -> Flask:
    """``app`` with the cached-hit layer taken out of its WSGI chain (every request to Flask)."""
    layer = app.wsgi_app.app  # type: ignore[attr-defined] # the service paths' spelling is around it
    assert isinstance(layer, CachedHits), layer
    app.wsgi_app.app = layer.wsgi_app  # type: ignore[attr-defined]
    return app


app = through_flask(create_app())
