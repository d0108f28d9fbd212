"""Moving another Archive's collection into the own one, keeping every IBI.

Each record of a source (``archive.import_formats``: a CSV, RIS or BibTeX file, or an OAI-PMH
``ListRecords`` harvest) becomes one outcome:

* ``created``: the own Archive did not hold its IBI; the item is stored with both forms of the
  IBI it was published with (never minted anew), its files, and ``imported`` in its history;
* ``unchanged``: the own Archive holds it with the same fields and files (a second run of a
  source changes nothing);
* ``conflict``: the own Archive holds it with other data, and it is left as it is;
* ``updated``: the same, with ``update``: the fields given are written, the files added or
  replaced, the change recorded (``edited``) field by field;
* ``skipped``: no IBI can be read from it, its other prefix is unknown, or the source gave it twice;
* ``failed``: a field, a file or the database refused it.

Every item is written with its files and its history, or not at all, so a failure loses nothing
already imported and stops nothing after it: records are written a batch at a time
(:data:`BATCH_RECORDS`) in one transaction; if any of them fails, nothing of the batch is kept and
its records are written again one by one, each in its own transaction, so only the records that
fail fail, each with its own reason, and the others are kept. An outcome is given once its record
is committed. An imported IBI of this portal's own identification
subsystem moves its Algorithm 4 state past its date in the same transaction: no mint on any node
can issue it again (``IdentifierStore.move_clock_past``).
"""
from __future__ import annotations

import hashlib
import mimetypes
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path

import requests
from sqlalchemy import Connection

from ..ibi.history import DELETED, EDITED, IMPORTED, Actor, Change
from ..archive.file_path import parse_file_path
from ..archive.import_formats import read_oai_page
from ..archive.import_records import ImportedIbi, NoIbi, SourceRecord, read_ibi
from ..errors import IbiError, ParseError
from ..i18n import N_, Recorded
from ..ibi.identifier import parse_ibi
from ..ibi.prefixes import equivalent_rep_prefixes
from ..ibi.minted import MintedItem
from ..ibi.mint_request import MintRequest
from ..ibi.subsystem import Subsystem
from ..storage.files import FileStore
from ..storage.history import record_change, record_changes
from ..storage.identifiers import IdentifierStore

CREATED, UPDATED, UNCHANGED, CONFLICT, SKIPPED, FAILED = "created", "updated", "unchanged", "conflict", "skipped", "failed"
OUTCOMES = (CREATED, UPDATED, UNCHANGED, CONFLICT, SKIPPED, FAILED)

#: The folder of an item's own files in a URLib Archive's ``col/<repository name>/``: URLib serves
#: ``/col/<rep>/doc/<path>`` as ``<ibi>/<path>`` (file 003 Table 8.9), so the path below it is the
#: file's path in the own Archive. The item's other folders (``service``, ``agreement``) are the
#: old Archive's bookkeeping, not the item's files.
DOC_FOLDER = "doc"

#: The fields an import compares and writes, as a mint request names them, with their columns.
_COLUMNS = {"title": "title", "creators": "creators", "date": "item_date", "language": "language",
            "target_url": "target_url"}


@dataclass(frozen=True)
class RecordOutcome:
    """What became of one record (one JSON Lines row of ``--report``)."""

    where: str
    outcome: str
    reason: str
    rep: str | None = None
    ibip: str | None = None
    published: str | None = None
    files: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"record": self.where, "outcome": self.outcome, "reason": self.reason, "rep": self.rep,
                "ibip": self.ibip, "published": self.published, "files": list(self.files)}


@dataclass
class Totals:
    """How many records had each outcome."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))

    def add(self, outcome: RecordOutcome) -> None:
        self.counts[outcome.outcome] += 1

    @property
    def records(self) -> int:
        return sum(self.counts.values())

    def to_dict(self) -> dict[str, int]:
        """``{"records": 12, "created": 10, …}`` (the API's totals)."""
        return {"records": self.records, **self.counts}

    def line(self, dry_run: bool = False) -> str:
        """``totals: 12 records: 10 created, 0 updated, …`` (the import's last line)."""
        counts = ", ".join(f"{self.counts[name]} {name}" for name in OUTCOMES)
        return f"totals{' (dry run, nothing written)' if dry_run else ''}: {self.records} records: {counts}"


@dataclass(frozen=True)
class _File:
    path: str
    disk: Path
    size: int
    sha256: str
    content_type: str


class SourceUnreachable(IbiError):
    """The source could not be read (an unreachable OAI-PMH server, an answer that is not
    OAI-PMH): the records read before it are imported, the import then stops with this reason."""


Fetch = Callable[[str, dict], bytes]
"""GET a URL with query parameters, its body (``SourceUnreachable`` on any failure)."""

#: Records an import writes in one transaction at most (a batch that fails is written again one
#: record a transaction, :meth:`Importer._write`). A transaction a record paid a commit (and its
#: wait for the disk), a lookup, the change signal and two statements for every item
#: (docs/performance.md); a batch holds SQLite's write lock, which every other writer waits for,
#: for tens of milliseconds, not seconds.
BATCH_RECORDS = 100
#: Bytes of files one batch stores at most (a record with more is a batch of its own): files are
#: kept in the database, all of a batch's in its transaction.
BATCH_FILE_BYTES = 16 * 1024 * 1024

#: Seconds to connect to an OAI-PMH source, and to wait for each page of its answer.
OAI_TIMEOUT = (10, 300)


def is_oai_source(source: str) -> bool:
    """An OAI-PMH base URL (``http://…``, ``https://…``) rather than a file."""
    return source.strip().lower().startswith(("http://", "https://"))


def http_fetch(url: str, parameters: dict) -> bytes:
    """GET one page of an OAI-PMH answer. Any http(s) address the administrator names is asked,
    loopback and private ones included: an import is run by the administrator (docs/archives.md)."""
    try:
        response = requests.get(url, params=parameters, timeout=OAI_TIMEOUT, headers={"User-Agent": "IBI Portal import"})
    except requests.RequestException as error:
        raise SourceUnreachable(N_("the OAI-PMH source %(url)s could not be reached: %(reason)s",
                                   url=url, reason=Recorded(error))) from None
    if response.status_code != 200:
        raise SourceUnreachable(N_("the OAI-PMH source %(url)s answered HTTP %(status)s to %(request)s",
                                   url=url, status=response.status_code, request=response.url))
    return response.content


class Harvest:
    """The records of an OAI-PMH data provider: ``ListRecords`` in ``oai_dc`` (OAI-PMH 2.0 §4.5),
    then each resumption token until the list ends (§3.5), one page at a time. ``total``: how many
    records the list has, once a page's token said so (``completeListSize``, optional in §3.5)."""

    def __init__(self, base_url: str, fetch: Fetch) -> None:
        self.base_url = base_url
        self.fetch = fetch
        self.total: int | None = None

    def __iter__(self) -> Iterator[SourceRecord]:
        for page in self.pages():
            yield from page

    def pages(self) -> Iterator[list[SourceRecord]]:
        """The records a page at a time, as each page comes."""
        parameters: dict = {"verb": "ListRecords", "metadataPrefix": "oai_dc"}
        page_number = 1
        while True:
            where = f"page {page_number} of {self.base_url}"
            try:
                page = read_oai_page(self.fetch(self.base_url, parameters), where)
            except ParseError as error:
                raise SourceUnreachable(error.message) from None
            if page.complete_list_size is not None:
                self.total = page.complete_list_size
            yield list(page.records)
            if page.token is None:
                return
            parameters = {"verb": "ListRecords", "resumptionToken": page.token}
            page_number += 1


class Importer:
    """Imports records into the own Archive over one storage (module docstring).

    ``pairs``: the prefix pairs that give a record's other form; ``subsystem``: the portal's own,
    whose clock an imported IBI of it moves; ``max_file_bytes``: ``IBIPORTAL_MAX_FILE_BYTES``;
    ``clock``: the application's one clock as a decimal Unix time (:meth:`Application.unix_clock`).
    """

    def __init__(self, store: IdentifierStore, files: FileStore, subsystem: Subsystem, pairs: Sequence[Sequence[str]],
                 max_file_bytes: int, clock: Callable[[], Decimal]):
        self.store = store
        self.files = files
        self.subsystem = subsystem
        self.pairs = [tuple(pair) for pair in pairs]
        self.max_file_bytes = max_file_bytes
        self.clock = clock

    def run(self, records: Iterable[SourceRecord], actor: Actor, *, dry_run: bool = False, update: bool = False,
            files_dir: Path | None = None) -> Iterator[RecordOutcome]:
        """One outcome per record, in the source's order, each once its record is committed (a
        batch at a time: :data:`BATCH_RECORDS`), so a caller shows progress; ``actor``: who the
        history says imported (``import`` and the source)."""
        seen: dict[str, str] = {}
        for batch in _batches(records):
            read = [self._read(record, seen, files_dir) for record in batch]
            written = self._write_all([entry for entry in read if isinstance(entry, _Record)], actor, dry_run, update)
            for entry in read:
                yield written[entry] if isinstance(entry, _Record) else entry

    def _read(self, record: SourceRecord, seen: dict[str, str], files_dir: Path | None) -> RecordOutcome | _Record:
        """The record's IBI, fields and files, checked without the database; its outcome when a
        check refuses it. ``seen``: the IBIps read so far, with the record that gave each."""
        if record.problem:
            return RecordOutcome(record.where, FAILED, record.problem)
        try:
            ibi = read_ibi(record, self.pairs)
        except NoIbi as error:
            found = error.found and parse_ibi(error.found).form
            return RecordOutcome(record.where, SKIPPED, error.args[0], rep=error.found if found == "rep" else None,
                           ibip=error.found if found == "ibip" else None, published=error.found)
        named = dict(rep=ibi.rep, ibip=ibi.ibip, published=ibi.published)
        if ibi.ibip in seen:
            return RecordOutcome(record.where, SKIPPED, N_("the source gave this IBI already, in %(where)s",
                                                       where=seen[ibi.ibip]), **named)
        seen[ibi.ibip] = record.where
        try:
            wanted = MintRequest.parse(record.fields)
            files = self._files(record, ibi, files_dir)
        except ParseError as error:  # its message names the field (a mint's own refusal)
            return RecordOutcome(record.where, FAILED, error.message, **named)
        return _Record(record, ibi, wanted, files)

    def _write_all(self, records: list[_Record], actor: Actor, dry_run: bool, update: bool) -> dict[_Record, RecordOutcome]:
        outcomes: dict[_Record, RecordOutcome] = {}
        for group in _by_file_bytes(records):
            outcomes.update(self._write(group, actor, dry_run, update))
        return outcomes

    def _write(self, group: list[_Record], actor: Actor, dry_run: bool, update: bool) -> dict[_Record, RecordOutcome]:
        """The records' outcomes, written in one transaction (:meth:`_write_together`). If
        anything of it fails (a record the database or a file refuses, the commit), none of it is
        kept and each record is written again alone, as its own transaction, so that only the
        records that fail fail, each with its own reason."""
        if dry_run:
            return self._dry_run(group, actor, update)
        try:
            return self._write_together(group, actor, update)
        except Exception as error:  # noqa: BLE001 - a field, a file or the database refused an item; the others go on
            if len(group) > 1:
                return {record: outcome for one in group for record, outcome in self._write([one], actor, dry_run, update).items()}
            return {group[0]: _failed(group[0], error)}

    def _write_together(self, group: list[_Record], actor: Actor, update: bool) -> dict[_Record, RecordOutcome]:
        """The records written in one transaction; new items without files go in together
        (:class:`_NewRows`), and, once for the batch, the change signal of the items created and
        the own clock moved past the latest own IBI created."""
        with self.store.storage.write_transaction() as conn:
            held, rows = _HeldItems(self.store, group), _NewRows(self.store)
            outcomes = {record: self._decide(conn, record, held, rows, actor, False, update) for record in group}
            rows.write(conn)
            created = [record for record in group if outcomes[record].outcome == CREATED]
            if created:
                self.store.minted_changed(conn, [record.created for record in created])
            own = [record.ibi.date for record in created
                   if record.ibi.is_of(self.subsystem.rep_prefix, self.subsystem.ibip_prefix)]
            if own:  # last: on PostgreSQL the clock's update goes with the COMMIT
                self.store.move_clock_past(conn, self.subsystem.key, max(own), self.clock())
        return outcomes

    def _dry_run(self, group: list[_Record], actor: Actor, update: bool) -> dict[_Record, RecordOutcome]:
        held, outcomes = _HeldItems(self.store, group), {}
        for record in group:
            try:
                outcomes[record] = self._decide(None, record, held, None, actor, True, update)
            except Exception as error:  # noqa: BLE001 - as a record written alone
                outcomes[record] = _failed(record, error)
        return outcomes

    def _decide(self, conn: Connection | None, record: _Record, held: _HeldItems, rows: _NewRows | None, actor: Actor,
                dry_run: bool, update: bool) -> RecordOutcome:
        """What becomes of one record, written (unless ``dry_run``) inside the batch's transaction."""
        if rows is not None and held.needs_lookup(record):
            rows.write(conn)  # the lookup sees the items of the batch written so far
        item = held.of(record)
        if item is None:
            if not dry_run:
                self._create(conn, record, rows, actor)
            reason = N_("deleted in the source: kept as its tombstone") if record.source.deleted else N_("new here")
            return RecordOutcome(record.source.where, CREATED, reason, files=record.paths, **record.named)
        if rows is not None:
            rows.write(conn)  # an update's rows after the new items' before it
        return self._compare(conn, record.source, record.ibi, record.wanted, record.files, item, actor, dry_run, update)

    def _compare(self, conn: Connection | None, record: SourceRecord, ibi: ImportedIbi, wanted: MintRequest,
                 files: list[_File], held: MintedItem, actor: Actor, dry_run: bool, update: bool) -> RecordOutcome:
        named = dict(rep=ibi.rep, ibip=ibi.ibip, published=ibi.published, files=tuple(file.path for file in files))
        if not _same_forms(held, ibi):
            return RecordOutcome(record.where, CONFLICT, N_(
                "this portal holds the item as %(rep)s = %(ibip)s: an IBI's forms are never changed",
                rep=held.rep, ibip=held.ibip), **named)
        if held.deleted:
            if record.deleted:
                return RecordOutcome(record.where, UNCHANGED, N_("deleted here and in the source"), **named)
            return RecordOutcome(record.where, CONFLICT, N_("deleted here on %(date)s: a tombstone is never changed",
                                                      date=held.deleted_at), **named)
        if record.deleted:
            if not update:
                return RecordOutcome(record.where, CONFLICT, N_("deleted in the source, held here: --update deletes it"),
                               **named)
            if not dry_run:
                self._delete(conn, held, actor)
            return RecordOutcome(record.where, UPDATED, N_("deleted, as in the source"), **named)
        changes = self._changes(held, record, wanted)
        changed_files = [file for file in files if (held_file := self.files.find(held.ibip, file.path)) is None
                         or held_file.sha256 != file.sha256]
        if not changes and not changed_files:
            return RecordOutcome(record.where, UNCHANGED, N_("held here with the same fields and files"), **named)
        differing = ", ".join([change["field"] for change in changes] + [file.path for file in changed_files])
        if not update:
            return RecordOutcome(record.where, CONFLICT, N_("held here with other data (%(fields)s): left as it is; "
                                                      "--update replaces it", fields=differing), **named)
        if not dry_run:
            self._update(conn, held, changes, changed_files, actor)
        return RecordOutcome(record.where, UPDATED, N_("changed: %(fields)s", fields=differing), **named)

    # -- reading -----------------------------------------------------------------------------

    def _files(self, record: SourceRecord, ibi: ImportedIbi, files_dir: Path | None) -> list[_File]:
        """The files to attach: those the record names, else all, below ``<dir>/<rep>/doc/``."""
        if files_dir is None:
            if record.files:
                raise ParseError(N_("the record names files (%(files)s): give the folder that holds them with --files",
                                    files=", ".join(record.files)), field="files")
            return []
        folder = _item_folder(files_dir, ibi)
        if folder is None:
            if record.files:
                raise ParseError(N_("no folder %(folder)s for the files the record names",
                                    folder=files_dir / ibi.rep / DOC_FOLDER), field="files")
            return []
        if record.files:
            disks = [(name, folder / name) for name in record.files]
            missing = [name for name, disk in disks if not disk.is_file()]
            if missing:
                raise ParseError(N_("no file %(file)s in %(folder)s", file=missing[0], folder=folder), field="files")
        else:
            disks = [(disk.relative_to(folder).as_posix(), disk) for disk in sorted(folder.rglob("*")) if disk.is_file()]
        return [self._file(parse_file_path(unicodedata.normalize("NFC", name)), disk) for name, disk in disks]

    def _file(self, path: str, disk: Path) -> _File:
        size = disk.stat().st_size
        if size > self.max_file_bytes:
            raise ParseError(N_("%(path)s is %(size)s bytes, more than the %(limit)s a file may have "
                                "(IBIPORTAL_MAX_FILE_BYTES)", path=path, size=size, limit=self.max_file_bytes),
                             field="files")
        digest = hashlib.sha256()
        with disk.open("rb") as body:
            while piece := body.read(1024 * 1024):
                digest.update(piece)
        content_type, _ = mimetypes.guess_type(path, strict=False)
        return _File(path, disk, size, digest.hexdigest(), content_type or "application/octet-stream")

    @staticmethod
    def _changes(held: MintedItem, record: SourceRecord, wanted: MintRequest) -> list[dict[str, object]]:
        """The fields the record gives whose value differs from the item's: ``{"field", "old", "new"}``."""
        now = {"title": held.title, "creators": list(held.creators), "date": held.item_date,
               "language": held.language, "target_url": held.target_url, **asdict(held.bibliographic)}
        new = {"title": wanted.title, "creators": list(wanted.creators), "date": wanted.item_date,
               "language": wanted.language, "target_url": wanted.target_url, **asdict(wanted.bibliographic)}
        given = {name for name, value in record.fields.items() if value not in (None, "", (), [])}
        return [{"field": name, "old": now[name], "new": new[name]} for name in new
                if name in given and now[name] != new[name]]

    # -- writing -----------------------------------------------------------------------------

    def _create(self, conn: Connection, record: _Record, rows: _NewRows, actor: Actor) -> None:
        """The item, its files and its history, inside the batch's transaction (:meth:`_write_together`
        then tells the resolution caches and moves the own clock, in the same transaction). An item
        without files, not deleted, is two rows, written with the batch's others."""
        ibi, wanted = record.ibi, record.wanted
        item = MintedItem(
            rep=ibi.rep, ibip=ibi.ibip, date=ibi.date, utc=ibi.utc, subsystem=ibi.subsystem, title=wanted.title,
            target_url=wanted.target_url, creators=wanted.creators, item_date=wanted.item_date,
            language=wanted.language, bibliographic=wanted.bibliographic,
        )
        record.created = item
        imported = Change(actor, IMPORTED, {"rep": item.rep, "ibip": item.ibip, "published": ibi.published,
                                            "record": record.source.where})
        rows.add(item, imported)
        if not record.files and not record.source.deleted:
            return
        rows.write(conn)  # its files' and its deletion's rows after its own, as they happen
        for file in record.files:
            self._put(conn, item.ibip, file, actor)
        if record.source.deleted:
            self.store.delete_minted(conn, item)
            record_change(conn, item.ibip, Change(actor, DELETED))

    def _update(self, conn: Connection, held: MintedItem, changes: list[dict[str, object]], files: list[_File],
                actor: Actor) -> None:
        locked = self.store.lock_minted(conn, held.ibip)
        if locked is None or locked.deleted:
            raise IbiError(N_("%(ibi)s was deleted while it was imported", ibi=held.ibip))
        columns = {_COLUMNS.get(str(change["field"]), str(change["field"])): change["new"] for change in changes}
        if "creators" in columns:
            columns["creators"] = tuple(columns["creators"])  # type: ignore[arg-type]
        if columns:
            self.store.change_minted(conn, locked, **columns)
            record_change(conn, locked.ibip, Change(actor, EDITED, {"changes": changes}))
        for file in files:
            self._put(conn, locked.ibip, file, actor)

    def _delete(self, conn: Connection, held: MintedItem, actor: Actor) -> None:
        locked = self.store.lock_minted(conn, held.ibip)
        if locked is None or locked.deleted:
            return
        self.store.delete_minted(conn, locked)
        record_change(conn, locked.ibip, Change(actor, DELETED))

    def _put(self, conn, ibip: str, file: _File, actor: Actor) -> None:
        with file.disk.open("rb") as body:
            self.files.put_in(conn, ibip, file.path, file.content_type, body, file.size, file.sha256, actor=actor)


def _same_forms(held: MintedItem, ibi: ImportedIbi) -> bool:
    """Whether the item held has the record's IBI in both forms: the same IBIp, and a repository
    name of the same date whose prefix names the same server (``mtc-m18@80`` is ``mtc-m18``)."""
    if held.ibip != ibi.ibip:
        return False
    held_rep, record_rep = parse_ibi(held.rep), parse_ibi(ibi.rep)
    return held_rep.suffix == record_rep.suffix and equivalent_rep_prefixes(held_rep.prefix, record_rep.prefix)


def _item_folder(files_dir: Path, ibi: ImportedIbi) -> Path | None:
    """``<dir>/<repository name>/doc`` as the collection spells the name on disk: its case and its
    port spelling (``mtc-m18@80``, ``mtc-m18.80`` or ``mtc-m18`` name one server); ``None`` when
    the item has no folder there."""
    host, word, year, time = ibi.rep.split("/")
    for first in _entries(files_dir):
        if first.name.lower() != host:
            continue
        for second in _entries(first):
            try:
                same = equivalent_rep_prefixes(f"{host}/{second.name}", f"{host}/{word}")
            except ParseError:
                continue
            folder = second / year / time / DOC_FOLDER
            if same and folder.is_dir():
                return folder
    return None


def _entries(folder: Path) -> list[Path]:
    return sorted(entry for entry in folder.iterdir() if entry.is_dir()) if folder.is_dir() else []


@dataclass(eq=False)
class _Record:
    """A record read and checked (:meth:`Importer._read`), to be written: its IBI, its fields as a
    mint request, its files."""

    source: SourceRecord
    ibi: ImportedIbi
    wanted: MintRequest
    files: list[_File]
    created: MintedItem | None = None  # the item stored for it, in the batch's transaction

    @property
    def named(self) -> dict[str, str]:
        return dict(rep=self.ibi.rep, ibip=self.ibi.ibip, published=self.ibi.published)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(file.path for file in self.files)

    @property
    def file_bytes(self) -> int:
        return sum(file.size for file in self.files)


class _HeldItems:
    """The items the own Archive holds for a batch of records, read at once
    (``IdentifierStore.find_minted_many``) in the batch's transaction. A record whose item an
    earlier record of the batch may have written (the same repository name under another IBIp),
    or whose two forms name two items, is looked up alone, as it was written so far."""

    def __init__(self, store: IdentifierStore, records: list[_Record]) -> None:
        self.store = store
        items = store.find_minted_many({record.ibi.rep for record in records}, {record.ibi.ibip for record in records})
        self.by_rep = {item.rep: item for item in items}
        self.by_ibip = {item.ibip: item for item in items}
        reps = Counter(record.ibi.rep for record in records)
        self.shared = {rep for rep, count in reps.items() if count > 1}

    def needs_lookup(self, record: _Record) -> bool:
        """Whether :meth:`of` reads the database for this record rather than what was read."""
        by_rep, by_ibip = self.by_rep.get(record.ibi.rep), self.by_ibip.get(record.ibi.ibip)
        return record.ibi.rep in self.shared or (by_rep is not None and by_ibip is not None and by_rep is not by_ibip)

    def of(self, record: _Record) -> MintedItem | None:
        """What ``IdentifierStore.find_minted`` answers for the record's IBI now."""
        if self.needs_lookup(record):
            return self.store.find_minted(rep=record.ibi.rep, ibip=record.ibi.ibip)
        return self.by_rep.get(record.ibi.rep) or self.by_ibip.get(record.ibi.ibip)


class _NewRows:
    """New items and their ``imported`` entries, written together: one statement a table for
    the batch (``IdentifierStore.insert_minted``, ``record_changes``), not two a record. Written
    in the records' order, and before any other write of the batch (a file, an update, a lookup
    that must see them), so every row lands as if each record were written in turn."""

    def __init__(self, store: IdentifierStore) -> None:
        self.store = store
        self.items: list[MintedItem] = []
        self.entries: list[tuple[str, Change]] = []

    def add(self, item: MintedItem, imported: Change) -> None:
        self.items.append(item)
        self.entries.append((item.ibip, imported))

    def write(self, conn: Connection) -> None:
        if self.items:
            self.store.insert_minted(conn, self.items)
            record_changes(conn, self.entries)
            self.items, self.entries = [], []


def _failed(record: _Record, error: Exception) -> RecordOutcome:
    """A record refused by a field (an ``IbiError`` naming it), a file or the database."""
    named = record.named
    if isinstance(error, IbiError):
        return RecordOutcome(record.source.where, FAILED, error.args[0] if error.args else type(error).__name__, **named)
    if isinstance(error, OSError):
        return RecordOutcome(record.source.where, FAILED, Recorded(f"{error.filename or ''}: {error.strerror}"), **named)
    return RecordOutcome(record.source.where, FAILED, N_("the database refused the item: %(reason)s",
                                                         reason=Recorded(str(error).splitlines()[0])), **named)


def _batches(records: Iterable[SourceRecord]) -> Iterator[list[SourceRecord]]:
    """The records in batches of :data:`BATCH_RECORDS` at most, a harvest's never across two of
    its pages (the next page may be minutes away: the records at hand are written first). If the
    source fails, the records read before are a batch, then the failure is raised."""
    pages: Iterable[Iterable[SourceRecord]] = records.pages() if isinstance(records, Harvest) else (records,)
    for page in pages:
        batch: list[SourceRecord] = []
        try:
            for record in page:
                batch.append(record)
                if len(batch) == BATCH_RECORDS:
                    yield batch
                    batch = []
        except Exception:
            if batch:
                yield batch
            raise
        if batch:
            yield batch


def _by_file_bytes(records: list[_Record]) -> Iterator[list[_Record]]:
    """``records`` in runs of at most :data:`BATCH_FILE_BYTES` of files (a record with more alone)."""
    group: list[_Record] = []
    size = 0
    for record in records:
        if group and size + record.file_bytes > BATCH_FILE_BYTES:
            yield group
            group, size = [], 0
        group.append(record)
        size += record.file_bytes
    if group:
        yield group
