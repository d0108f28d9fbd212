"""The login form (POST, CSRF-protected like every state-changing form)."""
from __future__ import annotations

from flask_babel import lazy_gettext
from flask_wtf import FlaskForm
from wtforms import HiddenField, PasswordField, StringField
from wtforms.validators import DataRequired, Length


class LoginForm(FlaskForm):
    username = StringField(lazy_gettext("Username"), validators=[DataRequired(message=lazy_gettext("Give your username.")),
                                                                Length(max=100)])
    password = PasswordField(lazy_gettext("Password"), validators=[DataRequired(message=lazy_gettext("Give your password.")),
                                                                    Length(max=1000)])
    next = HiddenField()
