"""Forms of the Parse and Compose pages: GET forms (shareable URLs, no state changes, so no CSRF)."""
from __future__ import annotations

from flask_babel import lazy_gettext
from flask_wtf import FlaskForm
from wtforms import BooleanField, Form, FormField, SelectChoice, SelectField, StringField, TextAreaField
from wtforms.fields import Field
from wtforms.validators import Optional, ValidationError

from ...errors import ParseError
from ...ibi.languages import country_problem, language_problem
from ...ibi.modifiers import (
    COMPOSITIONS,
    GET_FILE_LIST,
    GET_LAST_EDITION,
    GET_METADATA,
    GET_TRANSLATION,
    METADATA_FORMATS,
    Verb,
    order_reason,
)
from ...ibi.url import PersistentUrl
from ..form_errors import add_error, show_error
from ..i18n import gettext, translate

STEP_VERBS = (GET_LAST_EDITION, GET_TRANSLATION, GET_METADATA)
"""The verbs that compose a modifier (Table 8.5: those with a symbol), in the order the steps offer them."""


class ParseForm(FlaskForm):
    """A persistent URL to read."""

    class Meta:
        csrf = False

    url = StringField(
        lazy_gettext("Persistent URL"),
        description=lazy_gettext("A full URL on any resolver, a path such as /LK47B6W/362SFKH+, "
                                 "or an IBI with its modifier (Table 8.1)."),
    )


class VerbForm(Form):
    """One step of the verb sequence: a verb, with a language for a translation or a format for metadata."""

    verb = SelectField(
        lazy_gettext("Verb"),
        choices=[
            SelectChoice("", lazy_gettext("(none)")),
            SelectChoice(GET_LAST_EDITION, "GetLastEdition (!)"),
            SelectChoice(GET_TRANSLATION, "GetTranslation (+)"),
            SelectChoice(GET_METADATA, "GetMetadata (:)"),
        ],
        default="",
    )
    language = StringField(
        lazy_gettext("Language"),
        validators=[Optional()],
        description=lazy_gettext("pt, or pt-BR with a country (Table 8.1, Appendix B). Empty: the reader's own language."),
    )
    format = SelectField(
        lazy_gettext("Metadata format"),
        choices=[SelectChoice("", lazy_gettext("(free format)")), *map(SelectChoice, sorted(METADATA_FORMATS))],
        default="",
        description=lazy_gettext("oai_dc, or the Archive's free format (Table 8.1)."),
    )

    def validate_language(self, field: Field) -> None:
        """A language only for GetTranslation, from Appendix B, with an optional ``-COUNTRY``."""
        if self.verb.data != GET_TRANSLATION:
            raise ValidationError(gettext("only GetTranslation takes a language (Table 8.4)"))
        language, dash, country = field.data.strip().partition("-")
        problem = language_problem(language) or (country_problem(country) if dash else None)
        if problem:
            raise ValidationError(translate(problem))

    def validate_format(self, field: Field) -> None:
        """A format only for GetMetadata."""
        if field.data and self.verb.data != GET_METADATA:
            raise ValidationError(gettext("only GetMetadata takes a format (Table 8.4)"))

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

    ibi = StringField(
        "IBI",
        description=lazy_gettext("An IBIp such as 8JMKD3MGP8W/35MMLL8, or a repository name such as "
                                 "sid.inpe.br/mtc-m18@80/2009/02.16.17.46 (file 004)."),
    )
    # Four steps: the longest modifiers of Table 8.2 (`!+:+`, `+!:+`) have four verbs.
    step1 = FormField(VerbForm, lazy_gettext("Step %(number)s", number=1))
    step2 = FormField(VerbForm, lazy_gettext("Step %(number)s", number=2))
    step3 = FormField(VerbForm, lazy_gettext("Step %(number)s", number=3))
    step4 = FormField(VerbForm, lazy_gettext("Step %(number)s", number=4))
    filelist = BooleanField(
        lazy_gettext("GetFileList: the list of files"),
        description=lazy_gettext("The files of what the steps designate. GetFileList has no symbol, so it is written "
                                 "in ibiurl.verblist, and its place among the verbs does not matter (Tables 8.4 and 8.5)."),
    )
    filepath = StringField(
        lazy_gettext("File path"),
        validators=[Optional()],
        description=lazy_gettext("One file inside the item, such as /reference.bib (Table 8.1, path-absolute). "
                                 "Not used when verbs are chosen (§9.2)."),
    )
    original = BooleanField(
        lazy_gettext("Require the original"),
        description=lazy_gettext("Adds ibiurl.requireditemstatus=Original: the answer must come from the Archive "
                                 "holding the original, not from a copy (Table 8.3)."),
    )
    query = TextAreaField(
        lazy_gettext("Query pairs for the item"),
        validators=[Optional()],
        description=lazy_gettext("One name=value per line, passed on to the item; the resolver does not read them "
                                 "(Table 8.1). Names beginning ibiurl. are the resolver's own (Table 8.3)."),
    )
    base = StringField(
        lazy_gettext("Resolver base"),
        validators=[Optional()],
        description=lazy_gettext("Where the URL is resolved, such as http://urlib.net/ (Table 8.1). Empty: this portal."),
    )

    @property
    def steps(self) -> tuple[VerbForm, ...]:
        """The verb steps, in order."""
        return (self.step1.form, self.step2.form, self.step3.form, self.step4.form)

    def chosen_verbs(self) -> list[Verb]:
        """The verbs of the steps that have one, in order, then GetFileList when asked for."""
        verbs = [verb for step in self.steps if (verb := step.to_verb()) is not None]
        return verbs + [Verb(GET_FILE_LIST)] if self.filelist.data else verbs

    def query_lines(self) -> list[str]:
        """The lines of the query box, spaces around each and blank lines left out."""
        return [line.strip() for line in (self.query.data or "").splitlines() if line.strip()]

    def show(self, exc: ParseError) -> None:
        """Show a :func:`~ibiportal.ibi.compose.compose` error next to its field: a verb's next to its step
        (or the GetFileList box), a pair's with its number, the others with the character position."""
        if exc.field == "verbs":
            chosen = [step.verb for step in self.steps if step.verb.data]
            add_error((chosen + [self.filelist])[exc.position - 1], translate(exc.message))
        elif exc.field == "query":
            add_error(self.query, gettext("pair %(number)s: %(problem)s", number=exc.position, problem=translate(exc.message)))
        else:
            show_error(self, exc, default_field="ibi")


def compose_args(url: PersistentUrl) -> dict[str, str]:
    """The Compose page's query parameters that rebuild ``url`` (the Parse page's "Compose from this")."""
    args = {"ibi": str(url.ibi)}
    for number, verb in enumerate((verb for verb in url.verbs if verb.bare), start=1):
        args[f"step{number}-verb"] = verb.name
        if verb.language:
            args[f"step{number}-language"] = "-".join(part for part in (verb.language, verb.country) if part)
        if verb.format:
            args[f"step{number}-format"] = verb.format
    if any(verb.name == GET_FILE_LIST for verb in url.verbs):
        args["filelist"] = "y"
    if url.filepath is not None:
        args["filepath"] = url.filepath
    if url.required_item_status:
        args["original"] = "y"
    if url.query:
        args["query"] = "\n".join(f"{name}={value}" for name, value in url.query)
    if url.resolver not in (None, "/"):
        args["base"] = url.resolver
    return args


def step_rules() -> dict:
    """What the Compose page's script needs to disable the verbs that cannot come next, and say why.

    ``symbols``: each step verb's symbol. For every bare modifier that can still grow into one of
    Table 8.2 (``""`` included): ``unavailable``, the verbs that may not follow it, and ``notes``, why,
    in the core's words (:func:`~ibiportal.ibi.modifiers.order_reason`), so that the page never
    states a grammar of its own.
    """
    symbols = {name: Verb(name).bare for name in STEP_VERBS}
    begun = sorted({word[:end] for word in COMPOSITIONS for end in range(len(word) + 1)}, key=lambda w: (len(w), w))
    unavailable: dict[str, list[str]] = {}
    notes: dict[str, str] = {}
    for shape in begun:
        reasons = {name: reason for name, symbol in symbols.items() if (reason := order_reason(shape, symbol))}
        unavailable[shape] = list(reasons)
        if len(reasons) == len(symbols):
            notes[shape] = gettext("No verb can follow `%(shape)s`: no modifier of Table 8.2 goes on from it.", shape=shape)
        elif reasons:
            listed = "; ".join(gettext("%(verb)s, as %(reason)s", verb=name, reason=translate(reason))
                               for name, reason in reasons.items())
            notes[shape] = gettext("Unavailable after `%(shape)s` (Table 8.2): %(reasons)s.", shape=shape, reasons=listed)
    return {"symbols": symbols, "unavailable": unavailable, "notes": notes}
