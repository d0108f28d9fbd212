"""Forms of the Convert page. Field names match the API's query parameters."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import StringField
from wtforms.validators import Optional


class ConvertForm(FlaskForm):
    """GET form: no state changes, so no CSRF token (the URL is shareable)."""

    class Meta:
        csrf = False

    ibi = StringField("IBI (either form)")
    host = StringField("Host of the subsystem (optional)", validators=[Optional()])
    ip = StringField("IP of the subsystem (optional)", validators=[Optional()])
    port = StringField("Port (optional)", validators=[Optional()])
