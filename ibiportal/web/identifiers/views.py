"""The home page and minting identifiers (issues 2 and 5)."""
from __future__ import annotations

from flask import Blueprint, current_app, render_template

from ...config import DEMO_MINT_HOST
from ...errors import ParseError
from ...minting import MintRequest
from ..form_errors import show_error
from ..context import get_minter, resolver_base
from ..results import minted_to_dict
from .forms import MintForm

bp = Blueprint("identifiers", __name__)


@bp.get("/")
def home():
    """Landing page with the features."""
    return render_template("identifiers/home.html")


@bp.route("/mint", methods=["GET", "POST"])
def mint():
    """Mint identifiers of the portal's subsystem."""
    form = MintForm()
    results: list[dict] = []
    if form.validate_on_submit():
        try:
            mint_request = MintRequest.parse(form.data)
        except ParseError as exc:
            show_error(form, exc)
        else:
            items = get_minter().mint_many(form.count.data or 1, mint_request)
            results = [minted_to_dict(item, resolver_base()) for item in items]
    status = 400 if form.errors else 200
    return render_template("identifiers/mint.html", form=form, results=results, demo=_is_demo()), status


def _is_demo() -> bool:
    return current_app.config["MINT_HOST"] == DEMO_MINT_HOST
