"""Forms of the Parse and Compose pages: GET forms (shareable URLs, no state changes, so no CSRF)."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import BooleanField, Form, FormField, SelectChoice, SelectField, StringField, TextAreaField
from wtforms.fields import Field
from wtforms.validators import Optional, ValidationError

from ...errors import ParseError
from ...ibi.languages import country_problem, language_problem
from ...ibi.modifiers import GET_FILE_LIST, GET_LAST_EDITION, GET_METADATA, GET_TRANSLATION, METADATA_FORMATS, Verb
from ..form_errors import add_error, show_error

class ParseForm(FlaskForm):
    """A persistent URL to read."""

    class Meta:
        csrf = False

    url = StringField("Persistent URL")


class VerbForm(Form):
    """One step of the verb sequence: a verb, with a language for a translation or a format for metadata."""

    verb = SelectField(
        "Verb",
        choices=[
            SelectChoice("", "(none)"),
            SelectChoice(GET_LAST_EDITION, "GetLastEdition (!)"),
            SelectChoice(GET_TRANSLATION, "GetTranslation (+)"),
            SelectChoice(GET_METADATA, "GetMetadata (:)"),
            SelectChoice(GET_FILE_LIST),
        ],
        default="",
    )
    language = StringField("Language[-COUNTRY] (translation only)", validators=[Optional()])
    format = SelectField(
        "Format (metadata only)", choices=[SelectChoice("", "(any)"), *map(SelectChoice, sorted(METADATA_FORMATS))], default=""
    )

    def validate_language(self, field: Field) -> None:
        """A language only for GetTranslation, from Appendix B, with an optional ``-COUNTRY``."""
        if self.verb.data != GET_TRANSLATION:
            raise ValidationError("only GetTranslation takes a language (Table 8.4)")
        language, dash, country = field.data.strip().partition("-")
        problem = language_problem(language) or (country_problem(country) if dash else None)
        if problem:
            raise ValidationError(problem)

    def validate_format(self, field: Field) -> None:
        """A format only for GetMetadata."""
        if field.data and self.verb.data != GET_METADATA:
            raise ValidationError("only GetMetadata takes a format (Table 8.4)")

    def to_verb(self) -> Verb | None:
        """This step as a :class:`Verb` (the form being valid), or None for (none)."""
        if not self.verb.data:
            return None
        language, dash, country = (self.language.data or "").strip().partition("-")
        return Verb(self.verb.data, language or None, country if dash else None, self.format.data or None)


class ComposeForm(FlaskForm):
    """What a persistent URL asks for; field names match the API's parameters where they can."""

    class Meta:
        csrf = False

    ibi = StringField("IBI (either form)")
    # Four steps, as a modifier of Table 8.2 has at most four verbs; `+!:+` plus GetFileList (five) is left to the API.
    step1 = FormField(VerbForm, "Step 1")
    step2 = FormField(VerbForm, "Step 2")
    step3 = FormField(VerbForm, "Step 3")
    step4 = FormField(VerbForm, "Step 4")
    filepath = StringField("File path (optional)", validators=[Optional()])
    original = BooleanField("Original required (ibiurl.requireditemstatus=Original)")
    query = TextAreaField("Query pairs for the item (one name=value per line)", validators=[Optional()])
    base = StringField("Resolver base (optional)", validators=[Optional()])

    @property
    def steps(self) -> tuple[VerbForm, ...]:
        """The verb steps, in order."""
        return (self.step1.form, self.step2.form, self.step3.form, self.step4.form)

    def chosen_verbs(self) -> list[Verb]:
        """The verbs of the steps that have one, in order."""
        return [verb for step in self.steps if (verb := step.to_verb()) is not None]

    def query_lines(self) -> list[str]:
        """The lines of the query box, spaces around each and blank lines left out."""
        return [line.strip() for line in (self.query.data or "").splitlines() if line.strip()]

    def show(self, exc: ParseError) -> None:
        """Show a :func:`~ibiportal.ibi.compose.compose` error next to its field: a verb's next to its step,
        a pair's with its number, the others with the character position."""
        if exc.field == "verbs":
            chosen = [step for step in self.steps if step.verb.data]
            add_error(chosen[exc.position - 1].verb, exc.message)
        elif exc.field == "query":
            add_error(self.query, f"pair {exc.position}: {exc.message}")
        else:
            show_error(self, exc, default_field="ibi")
