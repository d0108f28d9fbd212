"""Forms of the Check references page."""
from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import HiddenField, TextAreaField

from ...ibi.batch import MAX_ROWS

LIMITS = f"At most 1 MB of text and {MAX_ROWS:,} IBIs; a PDF may be larger than 1 MB, its text may not."


class ReferencesForm(FlaskForm):
    """POST form (CSRF): a pasted reference list, or a file to read it from."""

    text = TextAreaField(
        "References",
        description=f"Paste a reference list, BibTeX, RIS or any text. {LIMITS}",
    )
    file = FileField(
        "Or a file",
        description=f".txt, .bib, .ris, .pdf, .docx or .odt. {LIMITS}",
    )


class ReferencesDownloadForm(FlaskForm):
    """POST form (CSRF) behind the CSV and JSON downloads: the text the page read, posted again,
    and the resolutions the page's check received (JSON, one per entry; empty without a check)."""

    text = HiddenField()
    resolutions = HiddenField()
