"""What minting keeps: each subsystem's Algorithm 4 state, the minted items and their links,
and the prefix pairs added by administrators.

The state is read under a row lock and advanced in a transaction of its own
(:meth:`IdentifierStore.lock_subsystem_clock`), so no two nodes, workers or restarts issue the
same date; the item is stored after it, before its identifier is handed out.
"""
from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields
from decimal import Decimal
from typing import TypeVar

from sqlalchemy import ColumnElement, Connection, Row, bindparam, delete, insert, literal, null, or_, select, union_all, update
from sqlalchemy.exc import IntegrityError

from ..errors import IbiError
from ..i18n import N_, Message
from ..ibi.minted import Bibliographic, ItemLink, MintedItem, SubsystemClock
from .database import Storage
from .copies import CopyRecord, CopyStore
from .schema import item_file, item_link, minted_item, prefix_pair, subsystem_clock
from .signal import ibis_changed

Reserved = TypeVar("Reserved")
Kept = TypeVar("Kept")

#: The own Archive asks this of every IBI the resolver is asked (a reference check: thousands), so
#: the statement is built once; only its values change.
_FIND_MINTED = select(minted_item).where((minted_item.c.rep == bindparam("rep")) | (minted_item.c.ibip == bindparam("ibip")))
#: :meth:`IdentifierStore.find_minted_many`: the items of a batch of imported records, in one read.
_FIND_MINTED_MANY = select(minted_item).where(minted_item.c.rep.in_(bindparam("reps", expanding=True))
                                              | minted_item.c.ibip.in_(bindparam("ibips", expanding=True)))
#: The own Archive reads an item's links both ways on every resolution of it: built once, as
#: _FIND_MINTED (a statement built per call cost more to key than to run: benchmarks/uncached.py).
_ITEM_LINKS = (select(item_link.c.relation, item_link.c.target, item_link.c.language)
               .where(item_link.c.ibi == bindparam("ibi")).order_by(item_link.c.relation, item_link.c.language))
_LINKS_TO = (select(item_link.c.ibi, item_link.c.relation, item_link.c.target, item_link.c.language)
             .where(item_link.c.target == bindparam("target")).order_by(item_link.c.relation, item_link.c.ibi))
#: :meth:`IdentifierStore.item_reads`: an item's links, the links to it and its file paths, in one
#: statement (three rows' shapes told apart by ``kind``), for the own Archive's answer.
_ITEM_READS = union_all(
    select(literal("from").label("kind"), item_link.c.ibi, item_link.c.relation, item_link.c.target,
           item_link.c.language).where(item_link.c.ibi == bindparam("ibip")),
    select(literal("to"), item_link.c.ibi, item_link.c.relation, item_link.c.target,
           item_link.c.language).where(item_link.c.target == bindparam("ibip")),
    select(literal("file"), item_file.c.ibi, item_file.c.path, null(), null()).where(item_file.c.ibi == bindparam("ibip")),
)

#: Every mint runs these, the first under the lock every mint queues for: built once, so that
#: SQLAlchemy finds them compiled instead of building and keying them again (benchmarks/minting.py).
_LOCK_CLOCK = (select(subsystem_clock.c.last_date, subsystem_clock.c.last_reading, subsystem_clock.c.clock_offset)
               .where(subsystem_clock.c.subsystem == bindparam("subsystem")).with_for_update())
_INSERT_ITEM = insert(minted_item)


#: The standing of a stored prefix pair. A pair an administrator (or an import's operator) gave is
#: a fact; one learnt from an Archive's answer is only that Archive's claim, a suggestion until an
#: administrator confirms or rejects it (a rejected pair is kept, so it is not learnt again).
PAIR_CONFIRMED, PAIR_SUGGESTED, PAIR_REJECTED = "confirmed", "suggested", "rejected"


@dataclass(frozen=True)
class PrefixPairRecord:
    """A stored prefix pair, with where it came from, when it was added and its standing; for a
    pair an Archive reported, that Archive and the answer's pair (``evidence``)."""

    rep_prefix: str
    ibip_prefix: str
    source: str
    added_at: str
    status: str = PAIR_CONFIRMED
    archive: str | None = None
    evidence: str | None = None


#: The columns of ``minted_item`` holding an item's :class:`~ibiportal.ibi.minted.Bibliographic`.
BIBLIOGRAPHIC_COLUMNS = tuple(field.name for field in fields(Bibliographic))


class SubsystemRaced(IbiError):
    """Another node stored a subsystem's very first state while this transaction computed its
    own: the transaction is rolled back and minting starts again (it then finds the row)."""


class IdentifierStore:
    """Minting state, minted items, item links and prefix pairs over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    # -- minting -------------------------------------------------------------------------

    def lock_subsystem_clock(self, conn: Connection, subsystem: str) -> SubsystemClock | None:
        """Inside a write transaction: the subsystem's state, locked until the transaction ends
        (``SELECT … FOR UPDATE``; SQLite's ``BEGIN IMMEDIATE`` already holds the write lock).
        ``None`` before the subsystem's first mint."""
        row = conn.execute(_LOCK_CLOCK, {"subsystem": subsystem}).first()
        if row is None:
            return None
        return SubsystemClock(Decimal(row.last_date), Decimal(row.last_reading), Decimal(row.clock_offset))

    def advance_subsystem_clock(self, conn: Connection, subsystem: str, clock: SubsystemClock, first: bool) -> None:
        """Store the subsystem's new state, inside the caller's transaction that locked it, as its
        last statement (on PostgreSQL it goes with the COMMIT: ``Storage.execute_with_commit``).

        ``first``: :meth:`lock_subsystem_clock` found no state, so there was no row to lock; if
        another transaction inserted it meanwhile, :class:`SubsystemRaced` is raised.
        """
        values = {
            "last_date": str(clock.last_date), "last_reading": str(clock.last_reading),
            "clock_offset": str(clock.offset),
        }
        if first:
            try:
                conn.execute(insert(subsystem_clock).values(subsystem=subsystem, **values))
            except IntegrityError as error:
                raise SubsystemRaced(subsystem) from error
        else:  # the row locked until the commit: sent with it
            self.storage.execute_with_commit(
                update(subsystem_clock).where(subsystem_clock.c.subsystem == subsystem).values(**values))

    def reserve_then_store(self, reserve: Callable[[Connection], Reserved], store: Callable[[Connection, Reserved], Kept]) -> Kept:
        """A mint's two steps: ``reserve`` the subsystem's next slot under its lock
        (:meth:`lock_subsystem_clock`, :meth:`advance_subsystem_clock`), then ``store`` the item in it.

        On PostgreSQL the slot is reserved in a transaction of its own, which does not wait for the
        disk (the item's commit carries it there: ``Storage.write_transaction``): the lock every
        mint of every node queues for is held for two statements, and no other write (an edit, an
        upload, the item's own rows) waits inside it. If the item's transaction fails, its slot
        stays unused: a date is never issued twice, and may be skipped. SQLite has one write lock
        for the whole database, so there both are one transaction (a second would only add a
        commit).
        """
        if self.storage.database.is_sqlite:
            with self.storage.write_transaction() as conn:
                return store(conn, reserve(conn))
        with self.storage.write_transaction(durable=False) as conn:
            reserved = reserve(conn)
        with self.storage.write_transaction() as conn:
            return store(conn, reserved)

    def move_clock_past(self, conn: Connection, subsystem: str, date: Decimal, reading: Decimal) -> bool:
        """Inside a write transaction, as its last statement: the subsystem's state moved to
        ``date`` unless it is past it already, so that Algorithm 4 never issues ``date`` or an
        earlier one again (an imported IBI of this subsystem). ``reading`` is the clock now, kept
        as the state's last reading when the subsystem has never minted. Whether it moved."""
        state = self.lock_subsystem_clock(conn, subsystem)
        if state is not None and state.last_date >= date:
            return False
        clock = (SubsystemClock(date, reading, Decimal(0)) if state is None
                 else SubsystemClock(date, state.last_reading, state.offset))
        self.advance_subsystem_clock(conn, subsystem, clock, first=state is None)
        return True

    def record_minted(self, conn: Connection, item: MintedItem) -> None:
        """Store the item of a reserved slot, inside the caller's transaction; resolution caches
        drop what they hold of it (a "not found" kept for it is now wrong)."""
        self.insert_minted(conn, [item])
        ibis_changed(self.storage, conn, (item.rep, item.ibip), both_forms=True)

    def insert_minted(self, conn: Connection, items: Sequence[MintedItem]) -> None:
        """:meth:`record_minted` for several items, in one statement, without telling the
        resolution caches: the caller calls :meth:`minted_changed` for them before its transaction
        commits (an import, once for a batch of items, not three statements an item)."""
        now = self.storage.now_iso()
        conn.execute(_INSERT_ITEM, [{
            "rep": item.rep, "ibip": item.ibip, "date": str(item.date), "utc": item.utc, "subsystem": item.subsystem,
            "title": item.title, "target_url": item.target_url, "creators": json.dumps(list(item.creators)),
            "item_date": item.item_date, "language": item.language, "created_at": now,
            **asdict(item.bibliographic),
        } for item in items])

    def minted_changed(self, conn: Connection, items: Iterable[MintedItem]) -> None:
        """Resolution caches drop what they hold of the items :meth:`insert_minted` stored, in
        both forms, inside the transaction that stored them (last in it: ``ibis_changed``)."""
        ibis_changed(self.storage, conn, [form for item in items for form in (item.rep, item.ibip)], both_forms=True)

    def add_item_link(self, conn: Connection, ibi: str, link: ItemLink) -> None:
        """Link a minted item (its IBIp) to another IBI, inside the caller's transaction; what
        ``X!`` or ``X+(lang)`` resolves to changes, so its cached resolutions are dropped."""
        conn.execute(insert(item_link).values(ibi=ibi, relation=link.relation, language=link.language, target=link.target))
        ibis_changed(self.storage, conn, (ibi,))

    def remove_item_link(self, conn: Connection, ibi: str, relation: str, language: str = "") -> None:
        """Unlink a minted item (its IBIp) from its next edition or its translation into
        ``language``, inside the caller's transaction; its cached resolutions are dropped."""
        conn.execute(delete(item_link).where(
            (item_link.c.ibi == ibi) & (item_link.c.relation == relation) & (item_link.c.language == language)
        ))
        ibis_changed(self.storage, conn, (ibi,))

    def links_to(self, target: str) -> list[tuple[str, ItemLink]]:
        """The links whose target is ``target`` (an IBIp): ``(linking item's IBIp, link)``, e.g.
        the previous edition of an item, or the original it translates."""
        rows = self.storage.read(_LINKS_TO, {"target": target})
        return [(row.ibi, ItemLink(row.relation, row.target, row.language)) for row in rows]

    def lock_minted(self, conn: Connection, ibip: str) -> MintedItem | None:
        """Inside a write transaction: the minted item as it is now, locked until the
        transaction ends, so that two changes to it never interleave."""
        row = conn.execute(select(minted_item).where(minted_item.c.ibip == ibip).with_for_update()).first()
        return _minted_item(row) if row else None

    def change_minted(self, conn: Connection, item: MintedItem, related: Iterable[str] = (), **values: object) -> None:
        """Set columns of a minted item (``title``, ``target_url``, ``creators`` as a tuple,
        ``item_date``, ``language``, the bibliographic ones) and its ``updated_at``, inside the
        caller's transaction; its cached resolutions are dropped, and those of the ``related``
        IBIs (whose answers name it)."""
        if "creators" in values:
            values["creators"] = json.dumps(list(values["creators"]))  # type: ignore[arg-type]
        conn.execute(update(minted_item).where(minted_item.c.ibip == item.ibip).values(updated_at=self.storage.now_iso(), **values))
        ibis_changed(self.storage, conn, (item.rep, item.ibip, *related))

    def delete_minted(self, conn: Connection, item: MintedItem, related: Iterable[str] = ()) -> None:
        """Make a minted item Deleted (Algorithm 2 lines 11-15), inside the caller's
        transaction: its row and metadata stay as the tombstone, dated now; its cached
        resolutions are dropped, and those of the ``related`` IBIs."""
        moment = self.storage.now_iso()
        conn.execute(update(minted_item).where(minted_item.c.ibip == item.ibip).values(updated_at=moment, deleted_at=moment))
        ibis_changed(self.storage, conn, (item.rep, item.ibip, *related))

    def release_minted(self, conn: Connection, item: MintedItem, successor: str, related: Iterable[str] = ()) -> None:
        """Mark a minted item moved to the Archive at ``successor`` (its service URL), inside the
        caller's transaction: its row stays (the IBI is never issued again) and the own Archive
        answers nothing for it from now on; its cached resolutions are dropped, and those of the
        ``related`` IBIs (whose answers name it)."""
        conn.execute(update(minted_item).where(minted_item.c.ibip == item.ibip).values(
            released_at=self.storage.now_iso(), successor=successor))
        ibis_changed(self.storage, conn, (item.rep, item.ibip, *related))

    def search_minted(self, text: str = "", limit: int = 50, offset: int = 0,
                      only: ColumnElement[bool] | None = None) -> list[MintedItem]:
        """Minted items, newest first, whose IBI (either form), title or creators contain
        ``text`` (any case); all of them for an empty text; only those ``only`` holds for (a
        condition on ``minted_item``, such as ``targets.state_condition``)."""
        query = select(minted_item).order_by(minted_item.c.id.desc()).limit(limit).offset(offset)
        if only is not None:
            query = query.where(only)
        text = text.strip()
        if text:
            columns = (minted_item.c.rep, minted_item.c.ibip, minted_item.c.title, minted_item.c.creators)
            conditions = [column.ilike(_contains(text), escape="\\") for column in columns]
            # creators are kept as JSON, where "ç" is written \u00e7
            conditions.append(minted_item.c.creators.ilike(_contains(json.dumps(text)[1:-1]), escape="\\"))
            query = query.where(or_(*conditions))
        return [_minted_item(row) for row in self.storage.read(query)]

    def item_reads(self, ibip: str) -> ItemReads:
        """What the own Archive reads of a minted item besides its row, in one statement: the
        same as :meth:`item_links`, :meth:`links_to` and ``FileStore.files``' paths, in their orders."""
        links, incoming, paths = [], [], []
        for row in self.storage.read(_ITEM_READS, {"ibip": ibip}):
            if row.kind == "file":
                paths.append(row.relation)  # the path, in the relation's place
            elif row.kind == "from":
                links.append(ItemLink(row.relation, row.target, row.language))
            else:
                incoming.append((row.ibi, ItemLink(row.relation, row.target, row.language)))
        links.sort(key=lambda link: (link.relation, link.language))
        incoming.sort(key=lambda found: (found[1].relation, found[0]))
        return ItemReads(links, incoming, sorted(paths))

    def item_links(self, ibi: str) -> list[ItemLink]:
        """The links of a minted item (its IBIp)."""
        rows = self.storage.read(_ITEM_LINKS, {"ibi": ibi})
        return [ItemLink(row.relation, row.target, row.language) for row in rows]

    def minted_items(self) -> list[MintedItem]:
        """Every minted item, oldest first."""
        rows = self.storage.read(select(minted_item).order_by(minted_item.c.id))
        return [_minted_item(row) for row in rows]

    def find_minted(self, rep: str | None = None, ibip: str | None = None) -> MintedItem | None:
        """The minted item with this identifier (normalized form), in either form."""
        row = self.storage.read(_FIND_MINTED, {"rep": rep, "ibip": ibip}).first()
        return _minted_item(row) if row else None

    def find_minted_many(self, reps: Iterable[str], ibips: Iterable[str]) -> list[MintedItem]:
        """The minted items with any of these repository names or IBIps (normalized forms), in no
        order: an import reads those of a batch of records at once, not one read a record."""
        rows = self.storage.read(_FIND_MINTED_MANY, {"reps": list(reps), "ibips": list(ibips)})
        return [_minted_item(row) for row in rows]

    # -- prefix pairs --------------------------------------------------------------------

    def minting_pairs(self) -> list[tuple[str, str]]:
        """The prefix pair of every subsystem that has minted here (its clock's key is both
        prefixes), so that what the portal minted converts both ways after a change of settings."""
        rows = self.storage.read(select(subsystem_clock.c.subsystem).order_by(subsystem_clock.c.subsystem))
        return [tuple(row.subsystem.split(" ", 1)) for row in rows if " " in row.subsystem]

    def prefix_pairs(self) -> list[tuple[str, str]]:
        """Confirmed stored (repository-name prefix, IBIp prefix) pairs, oldest first: the facts
        (a pair an Archive merely reported is not one)."""
        return [(record.rep_prefix, record.ibip_prefix) for record in self.prefix_pair_records(PAIR_CONFIRMED)]

    def prefix_pair_records(self, status: str | None = None) -> list[PrefixPairRecord]:
        """Stored pairs with their source and time of adding, oldest first (the prefix table page);
        only those of one standing when ``status`` is given."""
        query = select(prefix_pair).order_by(prefix_pair.c.added_at)
        if status is not None:
            query = query.where(prefix_pair.c.status == status)
        return [PrefixPairRecord(row.rep_prefix, row.ibip_prefix, source_message(row.source), row.added_at, row.status, row.archive,
                                 row.evidence) for row in self.storage.read(query)]

    def learn_prefix_pair(self, rep_prefix: str, ibip_prefix: str, archive: str, evidence: str) -> bool:
        """Keep a pair an Archive's answer claims (``evidence``, its ``ibi {rep … ibip …}`` pair) as a
        suggestion, with the Archive and today's date as its source; False when the pair was stored
        already (confirmed, suggested or rejected: an Archive's claim never changes a decision)."""
        source = learnt_source(archive, self.storage.now_iso()[:10], evidence)
        return self._insert_pair(rep_prefix, ibip_prefix, source, PAIR_SUGGESTED, archive, evidence)

    def add_prefix_pair(self, rep_prefix: str, ibip_prefix: str, source: Message) -> bool:
        """Add a confirmed pair; a pair an Archive suggested becomes confirmed, with this source
        first; one already confirmed or rejected stays as it was: False then. ``source`` is one of
        :data:`PAIR_SOURCES`' messages, stored as its English text."""
        if self._insert_pair(rep_prefix, ibip_prefix, source, PAIR_CONFIRMED):
            return True
        return self.decide_prefix_pair(rep_prefix, ibip_prefix, PAIR_CONFIRMED, source)

    def decide_prefix_pair(self, rep_prefix: str, ibip_prefix: str, status: str, decided_by: Message) -> bool:
        """Confirm or reject a suggested pair; its source then starts with who decided, and keeps
        which Archive reported it. False when no such pair awaits a decision."""
        pending = (prefix_pair.c.rep_prefix == rep_prefix) & (prefix_pair.c.ibip_prefix == ibip_prefix) \
            & (prefix_pair.c.status == PAIR_SUGGESTED)
        with self.storage.write_transaction() as conn:
            result = conn.execute(update(prefix_pair).where(pending).values(
                status=status, source=str(decided_by) + "; " + prefix_pair.c.source))
        return result.rowcount == 1

    def _insert_pair(self, rep_prefix: str, ibip_prefix: str, source: str, status: str,
                     archive: str | None = None, evidence: str | None = None) -> bool:
        with self.storage.write_transaction() as conn:
            result = conn.execute(
                self.storage.insert(prefix_pair)
                .values(rep_prefix=rep_prefix, ibip_prefix=ibip_prefix, source=source, added_at=self.storage.now_iso(),
                        status=status, archive=archive, evidence=evidence)
                .on_conflict_do_nothing()
            )
        return result.rowcount == 1


def learnt_source(archive: str, date: str, evidence: str) -> Message:
    """The source of a pair an Archive's answer reported (``evidence``, on ``date``): its claim."""
    return N_("reported by the Archive %(archive)s on %(date)s: %(evidence)s",
              archive=archive, date=date, evidence=evidence)


def import_source(name: str) -> Message:
    """The source of a pair given to the import of ``name`` (a file, a package, an OAI-PMH URL)."""
    return N_("given to the import of %(name)s", name=name)


def admin_source(name: str | None = None) -> Message:
    """The source of a pair an administrator added (by name on the page; none from the command line)."""
    return N_("administrator %(name)s", name=name) if name else N_("administrator")


def decision_source(status: str, name: str | None = None) -> Message:
    """Who confirmed or rejected a pair an Archive reported (by name on the page; none from the
    command line): :meth:`IdentifierStore.decide_prefix_pair` writes it before the claim's source."""
    if status == PAIR_CONFIRMED:
        return N_("confirmed by administrator %(name)s", name=name) if name else N_("confirmed by administrator")
    return N_("rejected by administrator %(name)s", name=name) if name else N_("rejected by administrator")


def _source_form(template: str) -> tuple[str, re.Pattern[str]]:
    """A source's template and the pattern that reads its English text back into its values."""
    parts = re.split(r"%\((\w+)\)s", template)
    pattern = "".join(re.escape(part) if index % 2 == 0 else f"(?P<{part}>.+?)" for index, part in enumerate(parts))
    return template, re.compile(pattern)


#: Where a stored pair came from, as the portal words it (the functions above). The database keeps
#: the English text (as the prefix table showed it before it spoke other languages);
#: :func:`source_message` reads it back into its message, so that a page shows it in its reader's
#: language. The last form is how pairs learnt before they were claims (0019) were worded.
PAIR_SOURCES = tuple(_source_form(source.template) for source in (
    learnt_source("", "", ""), import_source(""), admin_source("name"), admin_source(),
    N_("learnt from the answer of the Archive %(archive)s on %(date)s: %(evidence)s", archive="", date="", evidence="")))

#: The decisions on a claim (``decision_source``), which its stored source starts with.
DECISION_SOURCES = tuple(_source_form(source.template) for source in (
    decision_source(PAIR_CONFIRMED, "name"), decision_source(PAIR_CONFIRMED),
    decision_source(PAIR_REJECTED, "name"), decision_source(PAIR_REJECTED), admin_source("name"), admin_source()))


def source_message(text: str) -> str:
    """A stored source as the message it was written from (a decision, then the claim it decided
    on: ``confirmed by administrator NAME; reported by the Archive …``); text the portal did not
    write (or wrote before these forms) as it is."""
    decision, separator, claim = text.partition("; ")
    if separator:
        decided = _read(decision, DECISION_SOURCES)
        if decided is not None:
            return N_("%(decision)s; %(source)s", decision=decided, source=source_message(claim))
    return _read(text, PAIR_SOURCES) or text


def _read(text: str, forms: tuple[tuple[str, re.Pattern[str]], ...]) -> Message | None:
    for template, pattern in forms:
        match = pattern.fullmatch(text)
        if match:
            return Message(template, match.groupdict())
    return None


def _contains(text: str) -> str:
    """A LIKE pattern matching ``text`` anywhere, its own ``%``, ``_`` and ``\\`` taken literally."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _minted_item(row: Row) -> MintedItem:
    return MintedItem(
        rep=row.rep,
        ibip=row.ibip,
        date=Decimal(row.date),
        utc=row.utc,
        subsystem=row.subsystem,
        title=row.title,
        target_url=row.target_url,
        creators=tuple(json.loads(row.creators or "[]")),
        item_date=row.item_date,
        language=row.language,
        bibliographic=Bibliographic(**{name: getattr(row, name) for name in BIBLIOGRAPHIC_COLUMNS}),
        updated_at=row.updated_at,
        deleted_at=row.deleted_at,
        released_at=row.released_at,
        successor=row.successor,
    )


@dataclass(frozen=True)
class ItemReads:
    """A minted item's links, the links to it (``(linking item's IBIp, link)``), its file paths."""

    links: list[ItemLink]
    links_to: list[tuple[str, ItemLink]]
    file_paths: list[str]


#: The storage a unit of work lends the own Archive's reads made on its thread (:func:`reads_on`).
_LENT: ContextVar[Storage | None] = ContextVar("ibiportal.own_archive_reads", default=None)


@contextmanager
def reads_on(storage: Storage) -> Iterator[None]:
    """The own Archive's reads this thread makes inside the block run on ``storage``, the calling
    unit of work's (whose end closes it), instead of on a pooled connection taken, pinged and
    given back for each lookup: a resolution asks the own Archive on its own thread, then stores
    its trace on the same unit's connection (``benchmarks/uncached.py``). A read on another
    thread (a pool thread's Archive, an acknowledgment sent later) is not lent it: a connection
    is one thread's."""
    token = _LENT.set(storage)
    try:
        yield
    finally:
        _LENT.reset(token)


class FreshConnections:
    """The own Archive's reads, each on a connection of its own, unless a unit of work lent this
    thread its own (:func:`reads_on`).

    The resolver asks Archives from worker threads, which share no request's connection: each
    read takes a pooled connection for its one query and gives it back, and always sees the
    latest mints. The reads of one lookup (an item's row, then its links) share one connection
    inside :meth:`together`. Reads run in autocommit, so a lent connection sees the latest mints too.
    """

    def __init__(self, setting: str) -> None:
        self.setting = setting
        self._shared = threading.local()

    def _kept(self) -> Storage | None:
        """The connection this thread's reads share now: :meth:`together`'s, or a unit's lent one."""
        return getattr(self._shared, "storage", None) or _LENT.get()

    @contextmanager
    def together(self) -> Iterator[None]:
        """The reads this thread makes inside the block on one pooled connection, taken once
        (reads run in autocommit: each still sees the latest mints)."""
        with self._storage() as storage:
            outer, self._shared.storage = getattr(self._shared, "storage", None), storage
            try:
                yield
            finally:
                self._shared.storage = outer

    @contextmanager
    def _storage(self) -> Iterator[Storage]:
        kept = self._kept()
        if kept is not None:
            yield kept
            return
        storage = Storage(self.setting)
        try:
            yield storage
        finally:
            storage.close()

    def find_minted(self, rep: str | None = None, ibip: str | None = None) -> MintedItem | None:
        with self._storage() as storage:
            return IdentifierStore(storage).find_minted(rep=rep, ibip=ibip)

    def minted_items(self) -> list[MintedItem]:
        with self._storage() as storage:
            return IdentifierStore(storage).minted_items()

    def item_links(self, ibi: str) -> list[ItemLink]:
        with self._storage() as storage:
            return IdentifierStore(storage).item_links(ibi)

    def item_reads(self, ibip: str) -> ItemReads:
        with self._storage() as storage:
            return IdentifierStore(storage).item_reads(ibip)

    def prefix_pairs(self) -> list[tuple[str, str]]:
        with self._storage() as storage:
            return IdentifierStore(storage).prefix_pairs()

    def copy_candidates(self, ibi: str, other_suffix: str) -> list[CopyRecord]:
        with self._storage() as storage:
            return CopyStore(storage).candidates(ibi, other_suffix)
