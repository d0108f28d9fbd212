"""Minting: the portal's identification subsystem, Algorithms 1-7 over persisted state.

The pure algorithms live in ``ibiportal.ibi``; this module adds what they leave to the
implementer: the GLOBAL ``last-date-for-suffix`` of Algorithm 4, persisted per subsystem and
advanced in one write transaction, so two workers, a restart or a clock stepping backwards
can never issue the same or an earlier date (STANDARD.md §1.3 decision).

The slot is *reserved* under the database lock (on PostgreSQL in a short transaction of its own),
then the item is stored in it; the WAIT(delay) of Algorithm 4 (line 7) happens after that commit,
before the identifier is handed out. So the lock is held briefly, every identifier handed to a
user is already in the database, and nobody receives an identifier before its date. Requests
that arrive together queue up: each reserves the next slot and waits for it.
"""
from __future__ import annotations

import re
import time
from datetime import date
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from .errors import ParseError
from .i18n import N_, Recorded
from .ibi.distributor import DistributorStep, next_date, validate_granularity
from .ibi.ibip import ibip_prefix, ibip_suffix
from .ibi.identifier import parse_ibi
from .ibi.languages import country_problem, language_problem
from .ibi.dates import split_date, utc_iso
from .ibi.repository import rep_prefix, rep_suffix
from .citation.types import ItemType
from .minted import NEXT_EDITION, TRANSLATION, Bibliographic, ItemLink, MintedItem, SubsystemClock
from .item_links import link, linked_item
from .archive.history import MINTED, Actor, Change
from .storage.history import record_change
from .storage.identifiers import IdentifierStore, SubsystemRaced

#: Identifiers per API or page request; the CLI, run by an operator, allows more.
MAX_COUNT = 100
MAX_CLI_COUNT = 10_000
MAX_TITLE_LENGTH = 500
MAX_URL_LENGTH = 2000
MAX_CREATORS = 50
MAX_NAME_LENGTH = 200
#: Longest publisher, place, extent, degree and report number a mint request may give.
BIBLIOGRAPHIC_LIMITS = {"publisher": 300, "place": 200, "extent": 50, "degree": 200, "report_number": 100}


def system_clock() -> Decimal:
    """Now, as an exact decimal Unix time (nanosecond integer, so no binary float error)."""
    return Decimal(time.time_ns()) / Decimal(10**9)


@dataclass(frozen=True)
class Subsystem:
    """The portal's identification subsystem: the server named by both prefixes, and r."""

    host: str
    port: int
    ip: str
    ibip_port: int
    granularity: Decimal

    # Computed once per subsystem, not per mint: Algorithm 5 costs a fifth of a millisecond, and
    # every mint asks for the key while it holds the lock other mints queue for.

    @cached_property
    def rep_prefix(self) -> str:
        """Algorithm 1."""
        return rep_prefix(self.host, self.port)

    @cached_property
    def ibip_prefix(self) -> str:
        """Algorithm 5."""
        return ibip_prefix(self.ip, self.ibip_port)

    @cached_property
    def key(self) -> str:
        """Which subsystem's clock to advance: both prefixes, since both are issued together."""
        return f"{self.rep_prefix} {self.ibip_prefix}"

    @classmethod
    def from_config(cls, config: Mapping) -> Subsystem:
        """Build (and so validate) the subsystem from the portal's ``MINT_*`` settings."""
        granularity = validate_granularity(Decimal(str(config["GRANULARITY"])))
        subsystem = cls(
            host=str(config["MINT_HOST"]).lower(),
            port=int(config["MINT_PORT"]),
            ip=str(config["MINT_IP"]),
            ibip_port=int(config["MINT_IBIP_PORT"]),
            granularity=granularity,
        )
        _ = subsystem.key  # builds both prefixes: a bad host, IP or port fails at start-up
        return subsystem


@dataclass(frozen=True)
class MintRequest:
    """What a user may give with an identifier (all optional)."""

    title: str | None = None
    target_url: str | None = None
    creators: tuple[str, ...] = ()
    item_date: str | None = None
    language: str | None = None
    previous_edition: str | None = None
    translation_of: str | None = None
    bibliographic: Bibliographic = Bibliographic()

    @classmethod
    def parse(cls, fields: Mapping) -> MintRequest:
        """Validate user input; a ParseError names the field and the character at fault."""
        title = _optional_text(fields, "title", MAX_TITLE_LENGTH)
        target_url = _optional_text(fields, "target_url", MAX_URL_LENGTH)
        if target_url is not None:
            _check_http_url(target_url)
        creators_value = fields.get("creators")
        if creators_value is None:
            creators_value = ()
        if isinstance(creators_value, str):
            creators_value = [line for line in creators_value.splitlines()]
        if not isinstance(creators_value, (list, tuple)):
            raise ParseError(N_("creators must be a list of names"), field="creators")
        for number, name in enumerate(creators_value, start=1):
            if not isinstance(name, str):
                raise ParseError(N_("creator %(number)s is not a name (text)", number=number), position=number, field="creators")
        creators = tuple(name.strip() for name in creators_value if name.strip())
        if len(creators) > MAX_CREATORS:
            raise ParseError(N_("at most %(max_creators)s creators", max_creators=MAX_CREATORS), field="creators")
        for name in creators:
            _check_text(name, "creators", MAX_NAME_LENGTH)
        item_date = _optional_text(fields, "date", 10)
        if item_date is not None:
            item_date = normalize_item_date(item_date)
        language = _optional_text(fields, "language", 35)
        if language is not None:
            _check_language(language)
        previous_edition = _optional_ibi(fields, "previous_edition")
        translation_of = _optional_ibi(fields, "translation_of")
        if translation_of is not None and language is None:
            raise ParseError(N_("a translation needs its language (e.g. pt or pt-BR)"), field="language")
        bibliographic = _parse_bibliographic(fields)
        return cls(title, target_url, creators, item_date, language, previous_edition, translation_of, bibliographic)


def _parse_bibliographic(fields: Mapping) -> Bibliographic:
    """``item_type`` (one of :class:`ItemType`'s slugs) and the optional publisher, place,
    extent, degree and report number; a degree only for a thesis, whose note it is."""
    item_type = _optional_text(fields, "item_type", 40)
    if item_type is not None:
        try:
            item_type = ItemType.from_slug(item_type).slug
        except ValueError as exc:
            raise ParseError(exc.args[0], field="item_type") from None
    values = {name: _optional_text(fields, name, limit) for name, limit in BIBLIOGRAPHIC_LIMITS.items()}
    if values["degree"] and item_type not in (ItemType.MASTERS_THESIS.slug, ItemType.DOCTORAL_THESIS.slug):
        raise ParseError(
            N_("a degree belongs to a master's or doctoral thesis: choose that item type, or leave the degree empty"),
            field="degree",
        )
    return Bibliographic(item_type=item_type, **values)


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


AlsoStored = Callable[[Any, MintedItem], None]
"""What else a mint stores in its transaction, given the transaction's connection and the item."""


class Minter:
    """Issues identifiers of one subsystem; the clock and the sleep are injectable for tests."""

    def __init__(
        self,
        store: IdentifierStore,
        subsystem: Subsystem,
        clock: Callable[[], Decimal] = system_clock,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.store = store
        self.subsystem = subsystem
        self.clock = clock
        self.sleep = sleep

    def mint(self, request: MintRequest = MintRequest(), also: AlsoStored | None = None, *, actor: Actor) -> MintedItem:
        """One identifier, both forms from the same date, stored before it is returned, its
        minting recorded in its history as ``actor``'s.

        The subsystem's state is read under a row lock and advanced (the slot reserved), and the
        item is stored with its links; ``also`` (an idempotency key recording it) runs in the
        item's transaction with the new item: if it raises, nothing was minted. Only a subsystem's
        very first mint has no row to lock; when two nodes make it at once, one of them finds the
        other's row on its second attempt.
        """
        try:
            item, step, offset = self._mint_once(request, also, actor)
        except SubsystemRaced:
            item, step, offset = self._mint_once(request, also, actor)
        # Algorithm 4 line 7, after the commit (no lock is held): what is left of the delay once the
        # item is stored, never more than the delay (a clock stepping back meanwhile adds nothing)
        delay = min(step.delay, item.date - (self.clock() + offset))
        if delay > 0:
            self.sleep(float(delay))
        return item

    def _mint_once(self, request: MintRequest, also: AlsoStored | None, actor: Actor) -> tuple[MintedItem, DistributorStep, Decimal]:
        """The slot reserved and the item stored: Algorithm 4's step and the clock's offset.

        On PostgreSQL the slot is reserved in a transaction of its own, which does not wait for the
        disk (the item's commit carries it there: ``Storage.write_transaction``): the lock every
        mint of every node queues for is held for two statements, and no other write (an edit, an
        upload, the item's own rows) waits inside it. If the item's transaction fails, its slot
        stays unused: a date is never issued twice, and may be skipped. SQLite has one write lock
        for the whole database, so there both are one transaction (a second would only add a
        commit).
        """
        storage = self.store.storage
        if storage.database.is_sqlite:
            with storage.write_transaction() as conn:
                step, offset = self._advance_clock(conn)
                item = self._item(step.date_for_suffix, request)
                self._store(conn, item, request, also, actor)
            return item, step, offset
        with storage.write_transaction(durable=False) as conn:
            step, offset = self._advance_clock(conn)
        item = self._item(step.date_for_suffix, request)
        with storage.write_transaction() as conn:
            self._store(conn, item, request, also, actor)
        return item, step, offset

    def _advance_clock(self, conn) -> tuple[DistributorStep, Decimal]:
        """Inside a write transaction: the next slot, the subsystem's state locked and advanced."""
        state = self.store.lock_subsystem_clock(conn, self.subsystem.key)
        now, offset = self._monotonic_now(state)
        step = _ibip_safe_step(now, state.last_date if state else None, self.subsystem.granularity)
        clock = SubsystemClock(step.date_for_suffix, now, offset)
        self.store.advance_subsystem_clock(conn, self.subsystem.key, clock, first=state is None)
        return step, offset

    def _item(self, suffix_date: Decimal, request: MintRequest) -> MintedItem:
        return MintedItem(
            rep=f"{self.subsystem.rep_prefix}/{rep_suffix(suffix_date)}",
            ibip=f"{self.subsystem.ibip_prefix}/{ibip_suffix(suffix_date)}",
            date=suffix_date,
            utc=utc_iso(suffix_date),
            subsystem=self.subsystem.key,
            title=request.title,
            target_url=request.target_url,
            creators=request.creators,
            item_date=request.item_date,
            language=request.language,
            bibliographic=request.bibliographic,
        )

    def _store(self, conn, item: MintedItem, request: MintRequest, also: AlsoStored | None, actor: Actor) -> None:
        """Inside a write transaction: the item of a reserved slot, its history, its links, and ``also``."""
        self.store.record_minted(conn, item)
        record_change(conn, item.ibip, Change(actor, MINTED, {"rep": item.rep, "ibip": item.ibip}))
        self._link(conn, item, request, actor)
        if also is not None:
            also(conn, item)

    def _link(self, conn, item: MintedItem, request: MintRequest, actor: Actor) -> None:
        """Make the new item the next edition or a translation of an earlier own item.

        Inside the minting transaction: a bad link rolls the whole mint back (nothing is
        half-written), and the earlier item then answers ``ibi.nextedition`` /
        ``ibi.translation(xx)`` (Algorithm 2 of §9).
        """
        if request.previous_edition:
            earlier = linked_item(self.store, request.previous_edition, "previous_edition", item.ibip)
            link(self.store, conn, earlier, ItemLink(NEXT_EDITION, item.ibip), "previous_edition", actor)
        if request.translation_of:
            original = linked_item(self.store, request.translation_of, "translation_of", item.ibip)
            link(self.store, conn, original, ItemLink(TRANSLATION, item.ibip, request.language or ""), "translation_of", actor)

    def _monotonic_now(self, state: SubsystemClock | None) -> tuple[Decimal, Decimal]:
        """The current-date input of Algorithm 4, never earlier than the previous request's.

        When the system clock reads earlier than the last request did, it stepped back: the
        step joins the persisted offset, so dates keep advancing with real elapsed time and a
        request never WAITs out the step (an hour back must not mean an hour's wait).
        """
        reading = self.clock()
        if state is None:
            return reading, Decimal(0)
        now = reading + state.offset
        if now < state.last_reading:
            return state.last_reading, state.offset + (state.last_reading - now)
        return now, state.offset

    def mint_many(self, count: int, request: MintRequest = MintRequest(), also: AlsoStored | None = None, *,
                  actor: Actor) -> list[MintedItem]:
        """``count`` identifiers, each committed on its own so other workers interleave."""
        return [self.mint(request, also, actor=actor) for _ in range(count)]


def _ibip_safe_step(now: Decimal, last: Decimal | None, r: Decimal) -> DistributorStep:
    """Algorithm 4, skipping the slots whose IBIp would repeat an earlier one's.

    Algorithm 6 writes a fraction of a second as an integer numeral, so ``S.01`` and ``S.1``
    get the same IBIp suffix (STANDARD.md §1.4 warns of it). With r <= 0.01 the distributor
    would issue both; the portal instead treats ``S.0…`` as taken and moves to ``S.1``, so
    both forms stay unique and reversible (about 9% of the slots at r = 0.01).
    """
    step = next_date(now, last, r)
    seconds, fraction = split_date(step.date_for_suffix)
    if fraction.startswith("0"):
        step = next_date(now, Decimal(seconds) + Decimal("0.1") - r, r)
    return step


def _optional_text(fields: Mapping, name: str, max_length: int) -> str | None:
    value = fields.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ParseError(N_("%(name)s must be text", name=name), field=name)
    value = value.strip()
    if not value:
        return None
    _check_text(value, name, max_length)
    return value


def _optional_ibi(fields: Mapping, name: str) -> str | None:
    """An IBI given with a mint request, in its normalized form."""
    value = _optional_text(fields, name, 255)
    if value is None:
        return None
    try:
        return str(parse_ibi(value))
    except ParseError as exc:
        raise ParseError(exc.message, exc.position, name) from exc


def _check_language(value: str) -> None:
    """``xx`` or ``xx-YY`` (Appendix B of file 003: ISO 639-1, ISO 3166-1)."""
    language, _, country = value.partition("-")
    problem = language_problem(language) or (country_problem(country) if country else None)
    if problem:
        raise ParseError(problem, field="language")


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


def _check_http_url(url: str) -> None:
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


