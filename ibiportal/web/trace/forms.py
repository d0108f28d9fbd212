"""The Trace form. Its field names are a contract: Home, Compose and Parse post a one-click
"Trace this" form with ``csrf_token``, ``url`` and optionally the others (same names as the
``POST /api/v1/trace`` body)."""
from __future__ import annotations

import re

from flask_wtf import FlaskForm
from wtforms import BooleanField, HiddenField, SelectChoice, SelectField, StringField
from flask_babel import lazy_gettext
from wtforms.validators import Optional, ValidationError
from ..i18n import gettext

#: One element of an ``Accept-Language`` header (RFC 9110 §12.4.2 and §12.5.4): a language
#: range (``pt-BR``, ``fr``, ``*``) with an optional q-value from 0 to 1 (three decimals at most).
LANGUAGE_ELEMENT = re.compile(
    r"\s*(?:[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*[qQ]\s*=\s*(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*)?"
)

#: Trace ids are ``secrets.token_urlsafe`` strings.
TRACE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")

ARCHIVE_CHOICES = [
    SelectChoice("all", lazy_gettext("All Archives (demo and live)")),
    SelectChoice("demo", lazy_gettext("Demo Archives only")),
    SelectChoice("live", lazy_gettext("Live Archives only (registered ones and this portal's own)")),
]


def accept_language_problem(text: str) -> tuple[str, int] | None:
    """What is wrong with an ``Accept-Language`` value, and the 1-based position of the bad element."""
    position = 0
    for element in text.split(","):
        if not LANGUAGE_ELEMENT.fullmatch(element):
            offset = len(element) - len(element.lstrip())
            shown = repr(element.strip()) if element.strip() else gettext("(nothing)")
            return (
                gettext("%(element)s is not a language range with an optional q-value, such as pt-BR or en;q=0.5",
                        element=shown),
                position + offset + 1,
            )
        position += len(element) + 1
    return None


class TraceForm(FlaskForm):
    """POST form (CSRF): running a trace sends messages to every Archive chosen."""

    url = StringField(
        lazy_gettext("Persistent URL"),
        description=lazy_gettext("Such as http://urlib.net/8JMKD3MGP8W/35MMLL8 or 8JMKD3MGP8W/35MMLL8!:(oai_dc)."),
    )
    archives = SelectField(
        lazy_gettext("Archives to ask"), choices=ARCHIVE_CHOICES, default="all",
        description=lazy_gettext("Demo: the standard's Archives and the scenario ones, answered inside the portal. "
                       "Live: the registered Archives, over HTTP, and this portal's own."),
    )
    accept_language = StringField(
        lazy_gettext("Accept-Language"), validators=[Optional()],
        description=lazy_gettext("The user's language preference, e.g. pt-BR,fr;q=0.8,en;q=0.5. "
                       "Empty: your browser's. It chooses among translations (+) and is never sent to Archives."),
    )
    client_ip = StringField(
        lazy_gettext("Client IP"), validators=[Optional()],
        description=lazy_gettext("The user's IP, then its proxies' (Table 8.10), e.g. 172.16.44.200 150.163.68.1. "
                       "Empty: your own address. Archives receive it as clientinformation.ipaddress."),
    )
    include_faulty = BooleanField(
        lazy_gettext("Include the faulty demo Archives"),
        description=lazy_gettext("slow (never answers in time) and garbled (answers a malformed pair list): "
                       "they show what a timeout or garbage looks like, and are never asked when a reader follows a link."),
    )
    require_original = BooleanField(lazy_gettext("Require the original (ibiurl.requireditemstatus=Original)"))
    previous = HiddenField()

    def validate_url(self, field: StringField) -> None:
        if not (field.data or "").strip():
            raise ValidationError(gettext("Enter the persistent URL to trace."))

    def validate_accept_language(self, field: StringField) -> None:
        problem = accept_language_problem(field.data or "")
        if problem is not None:
            message, position = problem
            raise ValidationError(gettext("%(message)s (at character %(position)s)", message=message, position=position))

    def validate_previous(self, field: HiddenField) -> None:
        if field.data and not TRACE_ID.fullmatch(field.data):
            field.data = ""  # only ever a link to an earlier trace: a bad one is dropped, not an error
