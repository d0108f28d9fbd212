"""The framework's floor: a bare Flask app whose one route answers a redirect, nothing else (no
hooks, no database). Served by the same gunicorn as the portal (``gunicorn.conf.py``), it is what
a cached hit is compared with (``benchmarks/uncached.py``). Not part of the product."""
from __future__ import annotations

from flask import Flask, redirect

#: Where it redirects: a URL as long as an own item's target.
TARGET = "https://repository.example.org/col/sid.inpe.br/mtc-m21c/2019/01.01.00.00.00/doc/report-0.pdf"

app = Flask(__name__)


@app.get("/<path:path>")
def redirect_anything(path: str):
    """The least a Flask route that redirects does."""
    return redirect(TARGET, code=302)
