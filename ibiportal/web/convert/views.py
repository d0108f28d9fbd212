"""The Convert page (file 001 §4, Algorithms 5-6 and their inverses)."""
from __future__ import annotations

from flask import Blueprint, render_template, request

from ...errors import ParseError
from ...ibi.conversion import convert
from ..context import known_prefix_pairs
from ..form_errors import show_error
from ..inputs import optional_port
from .forms import ConvertForm

bp = Blueprint("convert", __name__)


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
    return render_template("convert/convert.html", form=form, result=result), status
