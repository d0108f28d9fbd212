"""Forms of the Home and Mint pages. The Mint form's field names match the API's JSON keys."""
from __future__ import annotations

import uuid

from flask_babel import lazy_gettext
from flask_wtf import FlaskForm
from wtforms import HiddenField, IntegerField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.fields import Field
from wtforms.validators import Length, NumberRange, Optional, ValidationError

from ...citation.types import ItemType
from ...ibi.mint_request import MAX_COUNT
from ..i18n import gettext

#: Longest text the home page's box reads (a persistent URL with a long query still fits).
MAX_LOOKUP_LENGTH = 2000


class LookupForm(FlaskForm):
    """The home page's one box: GET, so the URL of a result can be shared; no state changes, no CSRF."""

    class Meta:
        csrf = False

    q = StringField(
        lazy_gettext("IBI or persistent URL"),
        validators=[Length(max=MAX_LOOKUP_LENGTH)],
        description=lazy_gettext("Either form of an IBI, or a persistent URL on any resolver, with or without modifiers."),
    )


def new_idempotency_key() -> str:
    return uuid.uuid4().hex


class MintForm(FlaskForm):
    """POST form (CSRF-protected): what a researcher may give with a new identifier. Each form
    shown carries its own idempotency key: pressing Mint twice, or posting the form again after a
    lost answer, shows the items of the first press instead of minting new ones.

    The fields have no rules of their own: the view reads them once with
    :meth:`~ibiportal.ibi.mint_request.MintRequest.parse`, which answers every field's error at once,
    and shows each next to its field. Only what the core does not read is checked here: the count,
    and that a linked item is minted alone."""

    idempotency_key = HiddenField(default=new_idempotency_key)

    title = StringField(lazy_gettext("Title"))
    creators = TextAreaField(
        lazy_gettext("Creators (one per line)"),
        description=lazy_gettext("Family name, given names — as they should appear in citations."),
    )
    date = StringField(lazy_gettext("Date of the item"),
                       description=lazy_gettext("YYYY, YYYY-MM or YYYY-MM-DD; 30/11/2023 and 11/2023 are read as "
                                                "2023-11-30 and 2023-11."))
    language = StringField(
        lazy_gettext("Language"), description=lazy_gettext("ISO 639-1, with an optional country: en, pt-BR.")
    )
    target_url = StringField(
        lazy_gettext("Target URL"),
        description=lazy_gettext("Where the item is now (http:// or https://); the persistent URL leads there."),
    )
    item_type = SelectField(
        lazy_gettext("Kind of item"),
        choices=[SelectChoice("", lazy_gettext("(not said)"))] + [SelectChoice(kind.slug, lazy_gettext(kind.names.label)) for kind in ItemType],
        validate_choice=False,  # the core reads the kind of item, and says what is wrong in its words
        description=lazy_gettext("Chooses the BibTeX, RIS and CSL type and each style's wording (a thesis's degree note, "
                                 "a report's number)."),
    )
    publisher = StringField(
        lazy_gettext("Publisher or institution"), description=lazy_gettext("e.g. INPE, or the university of a thesis.")
    )
    place = StringField(lazy_gettext("Place of publication"),
                        description=lazy_gettext("e.g. São José dos Campos."))
    extent = StringField(lazy_gettext("Pages"),
                         description=lazy_gettext("The number of pages: 39."))
    degree = StringField(
        lazy_gettext("Degree (theses)"), description=lazy_gettext("e.g. Doutorado em Computação Aplicada.")
    )
    report_number = StringField(
        lazy_gettext("Report number"),
        description=lazy_gettext("As printed, or INPE's document-type code (NTC, RPQ, TDI) after the repository name."),
    )
    count = IntegerField(
        lazy_gettext("How many identifiers"),
        default=1,
        validators=[Optional(), NumberRange(min=1, max=MAX_COUNT)],
        description=lazy_gettext("1 to %(max)s; each gets its own date, the same title and links.", max=MAX_COUNT),
    )
    previous_edition = StringField(
        lazy_gettext("Next edition of"),
        description=lazy_gettext("An identifier minted here earlier (either form): the new one becomes its next edition."),
    )
    translation_of = StringField(
        lazy_gettext("Translation of"),
        description=lazy_gettext("An identifier minted here earlier: the new one is its translation into the language above."),
    )

    def validate_count(self, field: Field) -> None:
        """A link names one new item: several would all claim to be the same next edition or translation."""
        linked = (self.previous_edition.data or "").strip() or (self.translation_of.data or "").strip()
        if linked and (field.data or 1) > 1:
            raise ValidationError(gettext("mint one identifier at a time when it is a next edition or a translation"))
