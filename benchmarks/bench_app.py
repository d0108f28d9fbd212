"""The app the benchmarks serve: the real portal (create_app, all its hooks) plus one trivial
redirect route, ``GET /_bench/redirect`` → 302, the yardstick of ``benchmarks/metrics.py``.

Not part of the product: only ``gunicorn … benchmarks.bench_app:app`` serves it.
"""
from __future__ import annotations

from flask import redirect

from ibiportal import create_app

#: Where the trivial route redirects: a URL as long as a demo item's.
TARGET = "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/CCSDS%20650.0-B-1.pdf"

app = create_app()


@app.get("/_bench/redirect")
def trivial_redirect():
    """The least a Flask route that redirects does."""
    return redirect(TARGET, code=302)
