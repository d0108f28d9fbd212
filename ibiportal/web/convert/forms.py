"""Forms of the Convert page. Field names of the single form match the API's query parameters."""
from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import HiddenField, StringField, TextAreaField
from wtforms.validators import AnyOf, DataRequired, Optional

from ...ibi.batch import MAX_ROWS

LIMITS = f"At most {MAX_ROWS:,} identifiers and 1 MB."


class ConvertForm(FlaskForm):
    """GET form: no state changes, so no CSRF token (the URL is shareable)."""

    class Meta:
        csrf = False

    ibi = StringField("IBI (either form)")
    host = StringField("Host of the subsystem (optional)", validators=[Optional()])
    ip = StringField("IP of the subsystem (optional)", validators=[Optional()])
    port = StringField("Port (optional)", validators=[Optional()])


class BatchForm(FlaskForm):
    """POST form (CSRF): many identifiers, pasted or in a CSV file (ibiportal.ibi.batch)."""

    identifiers = TextAreaField(
        "Identifiers, one per line",
        description=f"Either form, mixed. Blank lines are skipped. {LIMITS}",
    )
    csv_file = FileField(
        "Or a CSV file",
        description=(
            "UTF-8 (with or without BOM), separated by commas, semicolons or tabs. The identifier is "
            f"the first column, or the column named ibi or identifier in a header row. {LIMITS}"
        ),
    )


class BatchDownloadForm(FlaskForm):
    """POST form (CSRF) behind "Download CSV": the batch's input once more, as the page read it."""

    kind = HiddenField(validators=[AnyOf(["lines", "csv"])])
    text = HiddenField()


class PrefixPairForm(FlaskForm):
    """POST form (CSRF), administrators only: one subsystem's two prefixes, checked like the CLI's."""

    rep_prefix = StringField(
        "Repository-name prefix",
        validators=[DataRequired("Give the repository-name prefix, such as sid.inpe.br/mtc-m18.")],
        description="subdomain/word, with .port when it is not 80: sid.inpe.br/mtc-m18",
    )
    ibip_prefix = StringField(
        "IBIp prefix",
        validators=[DataRequired("Give the IBIp prefix, such as 8JMKD3MGP8W.")],
        description="coded IP, W or X, coded port when it is not 800: 8JMKD3MGP8W",
    )
