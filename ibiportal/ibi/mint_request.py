"""What a user may give with a new identifier, read once: every field parsed, every error collected.

Pure: :class:`MintRequest` is the one reading of a mint request's fields (the Mint page, the JSON
API, the CLI, an import and an item's change all read them here), so all of them accept and refuse
the same things. A request with several mistakes is answered with all of them at once
(:class:`~ibiportal.errors.FieldErrors`), each naming its field and the character at fault, so a
person fixes the whole form in one go. The IBIs a request links to stay parsed values
(:data:`~ibiportal.ibi.identifier.Identifier`) from here to storage.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from ibiportal.citation.types import ItemType
from ibiportal.errors import FieldErrors, ParseError
from ibiportal.i18n import N_, Recorded
from ibiportal.ibi.identifier import Identifier, parse_ibi
from ibiportal.ibi.languages import country_problem, language_problem
from ibiportal.ibi.minted import Bibliographic

#: Identifiers per API or page request; the CLI, run by an operator, allows more.
MAX_COUNT = 100
MAX_CLI_COUNT = 10_000
MAX_TITLE_LENGTH = 500
MAX_URL_LENGTH = 2000
MAX_CREATORS = 50
MAX_NAME_LENGTH = 200
#: Longest publisher, place, extent, degree and report number a mint request may give.
BIBLIOGRAPHIC_LIMITS = {"publisher": 300, "place": 200, "extent": 50, "degree": 200, "report_number": 100}
#: The item types whose note a degree is.
_THESES = (ItemType.MASTERS_THESIS.slug, ItemType.DOCTORAL_THESIS.slug)


@dataclass(frozen=True)
class MintRequest:
    """What a user may give with an identifier (all optional)."""

    title: str | None = None
    target_url: str | None = None
    creators: tuple[str, ...] = ()
    item_date: str | None = None
    language: str | None = None
    previous_edition: Identifier | None = None
    translation_of: Identifier | None = None
    bibliographic: Bibliographic = Bibliographic()

    @classmethod
    def parse(cls, fields: Mapping) -> MintRequest:
        """Validate user input: a :class:`FieldErrors` lists every field at fault, each error
        naming its field and the character at fault."""
        return cls().with_fields(fields)

    def with_fields(self, fields: Mapping, translated: bool = False) -> MintRequest:
        """This request with each field ``fields`` gives parsed and set, the others kept as they
        are (already valid): a change of an item reads only what it changes. ``translated``: the
        item is a translation already, its link kept when ``translation_of`` is not given.

        Fields are read in the form's order and each error kept, so :class:`FieldErrors`'s first
        error is the first field at fault; the rules between two fields (a translation's
        language, a degree's item type) are checked where both could be read.
        """
        errors: list[ParseError] = []
        values: dict[str, Any] = {}
        described: dict[str, Any] = {}

        def read(name: str, parse: Callable[[object], Any], into: dict[str, Any], key: str | None = None) -> None:
            if name in fields:
                try:
                    into[key or name] = parse(fields[name])
                except ParseError as exc:
                    errors.append(exc)

        def failed(name: str) -> bool:
            return any(error.field == name for error in errors)

        read("title", lambda value: optional_text(value, "title", MAX_TITLE_LENGTH), values)
        read("target_url", parse_target_url, values)
        read("creators", _creators, values)
        read("date", _item_date, values, "item_date")
        read("language", _language, values)
        read("previous_edition", lambda value: _optional_ibi(value, "previous_edition"), values)
        read("translation_of", lambda value: _optional_ibi(value, "translation_of"), values)
        request = replace(self, **values)
        translation = request.translation_of is not None or (translated and "translation_of" not in fields)
        if translation and request.language is None and not failed("language") and not failed("translation_of"):
            errors.append(ParseError(N_("a translation needs its language (e.g. pt or pt-BR)"), field="language"))
        read("item_type", _item_type, described)
        for name, limit in BIBLIOGRAPHIC_LIMITS.items():
            read(name, lambda value, name=name, limit=limit: optional_text(value, name, limit), described)
        bibliographic = replace(request.bibliographic, **described)
        if bibliographic.degree and bibliographic.item_type not in _THESES and not failed("item_type"):
            errors.append(ParseError(
                N_("a degree belongs to a master's or doctoral thesis: choose that item type, or leave the degree empty"),
                field="degree",
            ))
        if errors:
            raise FieldErrors(errors)
        return replace(request, bibliographic=bibliographic)


def parse_count(value: object, maximum: int = MAX_COUNT) -> int:
    """``count`` of a mint request: a whole number from 1 to ``maximum``."""
    if value is None or value == "":
        return 1
    text = str(value).strip()
    # ASCII digits only: str.isdigit also takes '²' and other digits int() cannot read.
    if isinstance(value, bool) or not (text.isascii() and text.isdigit()):
        raise ParseError(N_("`count` must be a whole number from 1 to %(maximum)s", maximum=maximum), field="count")
    if len(text.lstrip("0")) > len(str(maximum)):  # never int() of thousands of digits
        raise ParseError(N_("`count` must be from 1 to %(maximum)s, not a number of %(length)s digits", maximum=maximum, length=len(text)), field="count")
    count = int(text)
    if not 1 <= count <= maximum:
        raise ParseError(N_("`count` must be from 1 to %(maximum)s, not %(count)s", maximum=maximum, count=count), field="count")
    return count


def parse_mint(fields: Mapping, maximum: int = MAX_COUNT) -> tuple[int, MintRequest]:
    """How many identifiers (``count``) and the request each is minted with: the count's error
    and every field's in one :class:`FieldErrors` (the JSON API's and the CLI's reading)."""
    errors: list[ParseError] = []
    count, request = 1, MintRequest()
    try:
        count = parse_count(fields.get("count"), maximum)
    except ParseError as exc:
        errors.append(exc)
    try:
        request = MintRequest.parse(fields)
    except FieldErrors as exc:
        errors += exc.errors
    if errors:
        raise FieldErrors(errors)
    return count, request


def parse_target_url(value: object) -> str | None:
    """A ``target_url``: absolute ``http://`` or ``https://``, no spaces; ``None`` when not given."""
    url = optional_text(value, "target_url", MAX_URL_LENGTH)
    if url is None:
        return None
    try:
        parts = urlsplit(url)
    except ValueError as error:  # "http://[abc": a bracket that opens no IPv6 address
        raise ParseError(N_("target_url is not a URL: %(error)s", error=Recorded(error)), position=1, field="target_url") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ParseError(
            N_("target_url must be an absolute http:// or https:// URL"), position=1, field="target_url"
        )
    if " " in url:
        raise ParseError(
            N_("target_url contains a space; write it as %20"), position=url.index(" ") + 1, field="target_url"
        )
    return url


def optional_text(value: object, name: str, max_length: int) -> str | None:
    """Text of at most ``max_length`` characters, without control characters; ``None`` when
    not given or blank."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ParseError(N_("%(name)s must be text", name=name), field=name)
    value = value.strip()
    if not value:
        return None
    _check_text(value, name, max_length)
    return value


def _creators(value: object) -> tuple[str, ...]:
    """Names, one per line of a text or as a list; blank ones left out."""
    if value is None:
        value = ()
    if isinstance(value, str):
        value = value.splitlines()
    if not isinstance(value, (list, tuple)):
        raise ParseError(N_("creators must be a list of names"), field="creators")
    for number, name in enumerate(value, start=1):
        if not isinstance(name, str):
            raise ParseError(N_("creator %(number)s is not a name (text)", number=number), position=number, field="creators")
    creators = tuple(name.strip() for name in value if name.strip())
    if len(creators) > MAX_CREATORS:
        raise ParseError(N_("at most %(max_creators)s creators", max_creators=MAX_CREATORS), field="creators")
    for name in creators:
        _check_text(name, "creators", MAX_NAME_LENGTH)
    return creators


def _item_date(value: object) -> str | None:
    text = optional_text(value, "date", 10)
    return None if text is None else normalize_item_date(text)


def _language(value: object) -> str | None:
    """``xx`` or ``xx-YY`` (Appendix B of file 003: ISO 639-1, ISO 3166-1)."""
    text = optional_text(value, "language", 35)
    if text is None:
        return None
    language, _, country = text.partition("-")
    problem = language_problem(language) or (country_problem(country) if country else None)
    if problem:
        raise ParseError(problem, field="language")
    return text


def _item_type(value: object) -> str | None:
    """One of :class:`ItemType`'s slugs."""
    text = optional_text(value, "item_type", 40)
    if text is None:
        return None
    try:
        return ItemType.from_slug(text).slug
    except ValueError as exc:
        raise ParseError(exc.args[0], field="item_type") from None


def _optional_ibi(value: object, name: str) -> Identifier | None:
    """An IBI given with a mint request, parsed: it travels as this value from here on."""
    text = optional_text(value, name, 255)
    if text is None:
        return None
    try:
        return parse_ibi(text)
    except ParseError as exc:
        raise ParseError(exc.message, exc.position, name) from exc


def _check_text(value: str, name: str, max_length: int) -> None:
    if len(value) > max_length:
        raise ParseError(
            N_("%(name)s is too long: %(length)s characters, at most %(max_length)s", name=name, length=len(value), max_length=max_length),
            position=max_length + 1,
            field=name,
        )
    for index, char in enumerate(value):
        if ord(char) < 32 or ord(char) == 127:
            raise ParseError(
                N_("%(name)s contains a control character (U+%(value)04X)", name=name, value=ord(char)),
                position=index + 1,
                field=name,
            )


#: The ways people write an item's date: ISO 8601 (YYYY, YYYY-MM, YYYY-MM-DD) and the Brazilian
#: day-first forms (DD/MM/YYYY, MM/YYYY; a one-digit day or month too).
_DAY_FIRST = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_MONTH_YEAR = re.compile(r"(\d{1,2})/(\d{4})")
_ISO = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")


def normalize_item_date(value: str) -> str:
    """The item's own date (not the identifier's) in ISO 8601: ``YYYY``, ``YYYY-MM`` or
    ``YYYY-MM-DD``, from those or from ``DD/MM/YYYY`` and ``MM/YYYY`` (``30/11/2023`` →
    ``2023-11-30``). A date that is not on the calendar is an error saying why."""
    if match := _DAY_FIRST.fullmatch(value):
        day, month, year = (int(part) for part in match.groups())
    elif match := _MONTH_YEAR.fullmatch(value):
        day, (month, year) = None, (int(part) for part in match.groups())
    elif match := _ISO.fullmatch(value):
        year = int(match[1])
        month = None if match[2] is None else int(match[2])
        day = None if match[3] is None else int(match[3])
    else:
        raise ParseError(N_("date %(value)r must be YYYY, YYYY-MM, YYYY-MM-DD, DD/MM/YYYY or MM/YYYY", value=value), field="date")
    if not 1 <= year <= 9999:
        raise ParseError(N_("date %(value)r is not a calendar date: there is no year %(year)s", value=value, year=year),
                         field="date")
    if month is not None and not 1 <= month <= 12:
        raise ParseError(N_("date %(value)r is not a calendar date: there is no month %(month)s", value=value,
                            month=month), field="date")
    try:
        date(year, month or 1, day or 1)
    except ValueError as exc:  # the day: the year and the month are in range
        raise ParseError(N_("date %(value)r is not a calendar date: that month has no day %(day)s", value=value,
                            day=day), field="date") from exc
    return f"{year:04d}" + (f"-{month:02d}" if month else "") + (f"-{day:02d}" if day else "")


