"""The Cite page's form. Its field name matches the API's query parameter (``ibi``)."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import StringField


class CiteForm(FlaskForm):
    """GET form: nothing changes, so no CSRF token (the URL of a result is shareable)."""

    class Meta:
        csrf = False

    ibi = StringField(
        "IBI or persistent URL",
        description=(
            "Either form of the IBI, or a persistent URL. Modifiers are kept: "
            "D7N2U8HW/39G4TD2! cites the last edition."
        ),
    )
    style = StringField(
        "Another style (optional)",
        description=(
            "Any CSL style by its name, besides the six above: chicago-author-date, nature, "
            "modern-language-association, elsevier-vancouver…"
        ),
    )
    locale = StringField("Its language (optional)", description="A language tag: en-US (the default), pt-BR, de, fr…")
