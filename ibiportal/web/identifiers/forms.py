"""The Mint page's form. Field names match the API's JSON keys."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import IntegerField, StringField, TextAreaField
from wtforms.validators import NumberRange, Optional


class MintForm(FlaskForm):
    """POST form (CSRF-protected): what a researcher may give with a new identifier."""

    title = StringField("Title", validators=[Optional()])
    creators = TextAreaField("Creators (one per line)", validators=[Optional()])
    date = StringField("Date of the item (YYYY[-MM[-DD]])", validators=[Optional()])
    language = StringField("Language (e.g. en, pt-BR)", validators=[Optional()])
    target_url = StringField("Target URL", validators=[Optional()])
    count = IntegerField(
        "How many identifiers", default=1, validators=[Optional(), NumberRange(min=1, max=100)]
    )
