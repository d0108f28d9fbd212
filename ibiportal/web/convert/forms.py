"""Forms of the Convert page. Field names of the single form match the API's query parameters."""
from __future__ import annotations

from flask_babel import format_decimal, lazy_gettext
from flask_babel.speaklater import LazyString
from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import HiddenField, StringField, SubmitField, TextAreaField
from wtforms.validators import AnyOf, DataRequired, Optional

from ...ibi.batch import MAX_ROWS

ROWS = LazyString(format_decimal, MAX_ROWS)
"""The batch limit as the reader's language writes numbers (5,000; 5.000), when shown."""


class ConvertForm(FlaskForm):
    """GET form: no state changes, so no CSRF token (the URL is shareable)."""

    class Meta:
        csrf = False

    ibi = StringField(lazy_gettext("IBI (either form)"))
    host = StringField(lazy_gettext("Host of the subsystem (optional)"), validators=[Optional()])
    ip = StringField(lazy_gettext("IP of the subsystem (optional)"), validators=[Optional()])
    port = StringField(lazy_gettext("Port (optional)"), validators=[Optional()])


class BatchForm(FlaskForm):
    """POST form (CSRF): many identifiers, pasted or in a CSV file (ibiportal.ibi.batch)."""

    identifiers = TextAreaField(
        lazy_gettext("Identifiers, one per line"),
        description=lazy_gettext("Either form, mixed. Blank lines are skipped. At most %(rows)s identifiers and 1 MB.",
                                 rows=ROWS),
    )
    csv_file = FileField(
        lazy_gettext("Or a CSV file"),
        description=lazy_gettext(
            "UTF-8 (with or without BOM), separated by commas, semicolons or tabs. The identifier is the first "
            "column, or the column named ibi or identifier in a header row. At most %(rows)s identifiers and 1 MB.",
            rows=ROWS),
    )


class BatchDownloadForm(FlaskForm):
    """POST form (CSRF) behind "Download CSV": the batch's input once more, as the page read it."""

    kind = HiddenField(validators=[AnyOf(["lines", "csv"])])
    text = HiddenField()


class PrefixPairForm(FlaskForm):
    """POST form (CSRF), administrators only: one subsystem's two prefixes, checked like the CLI's."""

    rep_prefix = StringField(
        lazy_gettext("Repository-name prefix"),
        validators=[DataRequired(lazy_gettext("Give the repository-name prefix, such as sid.inpe.br/mtc-m18."))],
        description=lazy_gettext("subdomain/word, with .port when it is not 80: sid.inpe.br/mtc-m18"),
    )
    ibip_prefix = StringField(
        lazy_gettext("IBIp prefix"),
        validators=[DataRequired(lazy_gettext("Give the IBIp prefix, such as 8JMKD3MGP8W."))],
        description=lazy_gettext("coded IP, W or X, coded port when it is not 800: 8JMKD3MGP8W"),
    )


class PairDecisionForm(FlaskForm):
    """POST form (CSRF), administrators only: confirm or reject a pair an Archive reported."""

    rep_prefix = HiddenField(validators=[DataRequired()])
    ibip_prefix = HiddenField(validators=[DataRequired()])
    confirm = SubmitField(lazy_gettext("Confirm"))
    reject = SubmitField(lazy_gettext("Reject"))
