"""Forms of the Check references page."""
from __future__ import annotations

from flask_babel import format_number, lazy_gettext
from flask_babel.speaklater import LazyString
from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import HiddenField, TextAreaField

from ..i18n import gettext
from ...ibi.batch import MAX_ROWS


def _limits() -> str:
    return gettext("At most 1 MB of text and %(rows)s IBIs; a PDF may be larger than 1 MB, its text may not.",
                   rows=format_number(MAX_ROWS))


class ReferencesForm(FlaskForm):
    """POST form (CSRF): a pasted reference list, or a file to read it from."""

    text = TextAreaField(
        lazy_gettext("References"),
        description=LazyString(lambda: gettext("Paste a reference list, BibTeX, RIS or any text.") + " " + _limits()),
    )
    file = FileField(
        lazy_gettext("Or a file"),
        description=LazyString(lambda: gettext(".txt, .bib, .ris, .pdf, .docx or .odt.") + " " + _limits()),
    )


class ReferencesDownloadForm(FlaskForm):
    """POST form (CSRF) behind the CSV and JSON downloads: the text the page read, posted again,
    and the resolutions the page's check received (JSON, one per entry; empty without a check)."""

    text = HiddenField()
    resolutions = HiddenField()
