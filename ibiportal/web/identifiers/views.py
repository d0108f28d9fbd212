"""Pages for minting and converting identifiers (issue 2); the full design comes in issue 5."""
from __future__ import annotations

from flask import Blueprint, current_app, render_template, request

from ...config import DEMO_MINT_HOST
from ...errors import ParseError
from ...ibi.conversion import convert
from ...minting import MintRequest
from ..form_errors import show_error
from ..inputs import optional_port
from ..context import get_minter, known_prefix_pairs, resolver_base
from ..results import minted_to_dict
from .forms import ConvertForm, MintForm

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


@bp.get("/convert")
def convert_page():
    """Convert an identifier, showing its anatomy and warnings."""
    form = ConvertForm(request.args)
    result = None
    if form.ibi.data:
        try:
            result = convert(
                form.ibi.data,
                known_prefix_pairs(),
                host=form.host.data or None,
                ip=form.ip.data or None,
                port=optional_port(form.port.data),
            ).to_dict()
        except ParseError as exc:
            show_error(form, exc, default_field="ibi")
    status = 400 if form.errors else 200
    return render_template("identifiers/convert.html", form=form, result=result), status


def _is_demo() -> bool:
    return current_app.config["MINT_HOST"] == DEMO_MINT_HOST
