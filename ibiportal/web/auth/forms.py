"""The login form (POST, CSRF-protected like every state-changing form)."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import HiddenField, PasswordField, StringField
from wtforms.validators import DataRequired, Length


class LoginForm(FlaskForm):
    username = StringField("Username", validators=[DataRequired(message="Give your username."), Length(max=100)])
    password = PasswordField("Password", validators=[DataRequired(message="Give your password."), Length(max=1000)])
    next = HiddenField()
