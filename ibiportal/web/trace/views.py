"""Routes of this page (issue 5)."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("trace", __name__)
