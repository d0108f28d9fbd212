"""A record's date and language as the reader's language writes them (the ``record_date`` and
``language_name`` filters of the Cite and item pages), and its language as a ``lang`` attribute
(``language_tag``) for the record's own words, such as its title.

A record's values come from an Archive and are not trusted to be well formed: a full ISO 8601
date (``2015-03-10``) or a year and month (``2015-03``) is written as the page's language
writes dates (``10/03/2015``, ``03/2015``); anything else (``2019``, ``c. 1990``, a date that does
not exist) is shown as the record has it. A language tag (``pt``, ``en-US``) is named in the
page's language (``português``, ``inglês (Estados Unidos)``), the tag kept when it names none.
"""
from __future__ import annotations

import re
from datetime import date

from babel import Locale, UnknownLocaleError
from flask_babel import format_date, get_locale

from ..i18n import DATE_PATTERNS

#: How a year and month are written in each language the portal speaks.
MONTH_PATTERNS = {"en": "MMM yyyy", "pt_BR": "MM/yyyy"}
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")


def record_date(text: str | None) -> str:
    """``text`` as a date of the page's language when it is an ISO 8601 date or year-month."""
    if not text:
        return ""
    match = _ISO_DATE.fullmatch(text.strip())
    if match is None:
        return text
    year, month, day = (int(part) if part else None for part in match.groups())
    try:
        moment = date(year, month, day or 1)
    except ValueError:
        return text
    patterns = DATE_PATTERNS if day else MONTH_PATTERNS
    return format_date(moment, patterns[str(get_locale())])


def language_tag(tag: str | None) -> str:
    """``tag`` when it is a language tag (``pt``, ``en-US``), for a ``lang`` attribute; else empty
    (a record's language written as a name, ``Portuguese``, says nothing a browser reads)."""
    try:
        Locale.parse((tag or "").strip().replace("-", "_"))
    except (ValueError, TypeError, UnknownLocaleError):
        return ""
    return tag.strip()


def language_name(tag: str | None) -> str:
    """The language ``tag`` names, in the page's language; the tag itself when it names none."""
    if not tag:
        return ""
    try:
        name = Locale.parse(tag.strip().replace("-", "_")).get_display_name(get_locale())
    except (ValueError, TypeError, UnknownLocaleError):
        return tag
    return name or tag
