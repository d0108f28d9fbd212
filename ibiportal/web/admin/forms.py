"""Forms of the administrator's Archives pages: every one POST with a CSRF token, since each
changes the registry or sends requests from the portal to an address an administrator gave."""
from __future__ import annotations

import re
from urllib.parse import unquote

from flask_babel import lazy_gettext
from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import BooleanField, HiddenField, PasswordField, StringField, SubmitField
from wtforms.validators import DataRequired, Length, Optional, ValidationError

from ..i18n import gettext
from ..identifiers.forms import MintForm


def _strip(value: str | None) -> str | None:
    return value.strip() if isinstance(value, str) else value


#: An Archive service URL as an Archive prints it (file 003 §6.1): ``http://<hostport>/<service IBI>``,
#: or without the scheme, where the port tells a host from an IBI's first part (``sid.inpe.br/…``).
_SERVICE_URL = re.compile(r"(?:https?://[^/?#\s]+|[^/:?#\s]+:\d+)/(?P<ibi>[^?#]+)[?#]?.*", re.IGNORECASE | re.DOTALL)


#: An Archive's address alone, without the service IBI: ``http://127.0.0.1:8741``, ``host:8741/``.
_ADDRESS_ONLY = re.compile(r"(?:https?://)?[^/?#\s]+:\d+/?|https?://[^/?#\s]+/?", re.IGNORECASE)


def service_ibi_of(value: str | None) -> str | None:
    """The service IBI of a pasted service URL (``http://host:port/<IBI>`` or ``host:port/<IBI>``),
    percent-decoded; anything else unchanged. The address part is not kept: the Archive gives its
    address itself when it sends ``inclusionRequest`` (§7.2)."""
    value = _strip(value)
    match = _SERVICE_URL.fullmatch(value) if value else None
    return unquote(match["ibi"]).strip("/") if match else value


class RegisterForm(FlaskForm):
    """§7.1: the Archive's service IBI, and its key when the Archive's administrator chose one."""

    service_ibi = StringField(
        lazy_gettext("Archive service IBI"),
        filters=[service_ibi_of],
        validators=[DataRequired(message=lazy_gettext("Give the IBI of the Archive's service (file 003, Example 7.1).")),
                    Length(max=300)],
        description=lazy_gettext("The IBI of the Archive's service, either form (file 003 §7.1, Example 7.1), or its "
                                 "service URL as the Archive prints it, http://host:port/<service IBI>: the IBI is "
                                 "taken from it."),
    )
    registration_key = PasswordField(
        lazy_gettext("Registration key (optional)"),
        filters=[_strip],
        validators=[Optional(), Length(max=200)],
        description=lazy_gettext("The key the Archive's administrator chose (Table 7.1: 10 or more digits, optionally "
                                 "'-' and 10 or more digits). Leave empty to generate one, shown once."),
    )


    def validate_service_ibi(self, field: StringField) -> None:
        """An address alone is the commonest slip (the Archive prints its service URL): say so."""
        if field.data and _ADDRESS_ONLY.fullmatch(field.data):
            raise ValidationError(gettext(
                "%(value)s is an address, not the Archive's service IBI: give the IBI (as in "
                "sid.inpe.br/mtc-m21/2012/06.05.15.34.39), or paste the whole service URL, "
                "%(url)s. The Archive sends its address itself, in its inclusionRequest.",
                value=field.data, url=field.data.rstrip("/") + "/<service IBI>"))


class ActionForm(FlaskForm):
    """A button that changes something (confirmation request, removal): only the CSRF token."""


class ConformanceForm(FlaskForm):
    """The Archive service to check, and optionally an IBI it holds."""

    address = StringField(
        lazy_gettext("Archive service address"),
        filters=[_strip],
        validators=[DataRequired(message=lazy_gettext("Give the Archive service address, "
                                                      "http://<archive address>/<service IBI>.")),
                    Length(max=500)],
        description=lazy_gettext("Its base URL, http://<archive address>/<archive service IBI> (file 003 §6.1), "
                                 "as in http://mtc-m21.sid.inpe.br/sid.inpe.br/mtc-m21/2012/06.05.15.34.39"),
    )
    known_ibi = StringField(
        lazy_gettext("Known IBI (optional)"),
        filters=[_strip],
        validators=[Optional(), Length(max=300)],
        description=lazy_gettext("An IBI of an item this Archive holds: checks its URL list, urlkey and acknowledgment "
                                 "too (an acknowledgment is sent as the resolver sends one; the Archive may count it "
                                 "as an access)."),
    )


class ResolverRequestForm(FlaskForm):
    """§7.2, the own Archive's side: a resolver service URL and this Archive's key there; the
    button pressed says whether to send ``inclusionRequest`` (join) or ``exclusionRequest`` (leave)."""

    resolver_url = StringField(
        lazy_gettext("Resolver service URL"),
        filters=[_strip],
        validators=[DataRequired(message=lazy_gettext("Give the resolver service URL, as in "
                                                      "http://urlib.net/J8LNKB5R7W/3FUQHC5.")),
                    Length(max=500)],
        description=lazy_gettext("http://<resolver address>/<resolver service IBI> (file 003 §6.1), "
                                 "as in http://urlib.net/J8LNKB5R7W/3FUQHC5"),
    )
    registration_key = PasswordField(
        lazy_gettext("Registration key"),
        filters=[_strip],
        validators=[DataRequired(message=lazy_gettext("Give the key this Archive was registered with at that resolver.")),
                    Length(max=200)],
        description=lazy_gettext("The key this Archive was registered with at that resolver (Table 7.1: 10 or more "
                                 "digits, optionally '-' and 10 or more digits). Sent with this request only, never stored."),
    )
    join = SubmitField("Join (inclusionRequest)")  # the buttons are written in the template
    leave = SubmitField("Leave (exclusionRequest)")


class ItemForm(MintForm):
    """An own item's fields, as the Mint form has them (one item: no count); each field's error
    next to it, by the core's rule (``application.items`` validates a change as a mint)."""

    count = None
    idempotency_key = None  # a change is not a mint


class FilePathForm(FlaskForm):
    """A file of an item, named by its path (its removal, after confirmation)."""

    path = HiddenField()


class UploadForm(FlaskForm):
    """A file to upload into an item: the file and the path to keep it at (its name by default)."""

    file = FileField(lazy_gettext("File"), description=lazy_gettext("Any file up to the portal's limit; it is served "
                                                                    "with the type your browser gives it."))
    path = StringField(lazy_gettext("Path in the item (optional)"), filters=[_strip],
                       validators=[Optional(), Length(max=4096)],
                       description=lazy_gettext("e.g. docs/report.pdf: relative, no . or .. segments. Empty: the file's "
                                                "own name."))


class ImportForm(FlaskForm):
    """A collection to import (``application.import_sources``): an uploaded ``.bib``, ``.ris`` or
    ``.csv`` file or item package ``.zip``, or an OAI-PMH base URL."""

    source_file = FileField(lazy_gettext("A .bib, .ris or .csv file, or an item package .zip"))
    source_url = StringField(
        lazy_gettext("or an OAI-PMH base URL"), filters=[_strip], validators=[Optional(), Length(max=2000)],
        description=lazy_gettext("Harvested with ListRecords in oai_dc, every resumption token followed, e.g. "
                                 "http://archive.example.org/oai"),
    )
    update = BooleanField(lazy_gettext("Write the source's data over items held here with other data (--update)"))


class MoveForm(FlaskForm):
    """The successor Archive an item moves to (``application.releasing.Successor``): its service
    URL, or its address with its service IBI, the two values its registration gives (Table 7.2)."""

    successor = StringField(
        lazy_gettext("Successor Archive"), filters=[_strip], validators=[Length(max=2000)],
        description=lazy_gettext("Its service URL, http://<address>/<archive service IBI>, as the Archive prints it; "
                                 "or its address, host[:port], with its service IBI below."),
    )
    successor_service_ibi = StringField(
        lazy_gettext("Its archive service IBI (with an address only)"), filters=[_strip],
        validators=[Optional(), Length(max=300)],
    )
