"""The Cite page's form. Its field name matches the API's query parameter (``ibi``)."""
from __future__ import annotations

from flask_babel import lazy_gettext
from flask_wtf import FlaskForm
from wtforms import StringField


class CiteForm(FlaskForm):
    """GET form: nothing changes, so no CSRF token (the URL of a result is shareable)."""

    class Meta:
        csrf = False

    ibi = StringField(
        lazy_gettext("IBI or persistent URL"),
        description=lazy_gettext(
            "Either form of the IBI, or a persistent URL. Modifiers are kept: "
            "D7N2U8HW/39G4TD2! cites the last edition."
        ),
    )
    style = StringField(
        lazy_gettext("Another style (optional)"),
        description=lazy_gettext(
            "Any CSL style by its name, besides the six this page shows: chicago-author-date, nature, "
            "modern-language-association, elsevier-vancouver…"
        ),
    )
    locale = StringField(
        lazy_gettext("Its language (optional)"),
        description=lazy_gettext("A language tag such as pt-BR, en-US, es, fr; without one, the language of this page."),
    )
