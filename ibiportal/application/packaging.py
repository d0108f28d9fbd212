"""An own item as one zip, and that zip imported into another portal.

With :mod:`.releasing` it moves an item with no gap: package it here, import the package into the
successor (which then answers the IBI as its Original), release it here. The package holds

* ``package.json``: the IBI's two forms, its identification date and subsystem (what the
  successor needs to record the same IBI, never a new one);
* ``item.json``: the item as ``GET /api/v1/items/<ibi>`` gives it; ``relations.json`` its relations;
* ``files/<path>``: its files;
* ``history.jsonl``: its history, one entry a line, oldest first.

An import writes the item (state Original), its history entries as they were, an ``imported``
entry, its files and the prefix pair of its two forms in one transaction, or nothing. A second
import of the same package is ``unchanged``. A zip whose paths leave it (``..``, absolute) or
whose unpacked size exceeds ``IBIPORTAL_MAX_FILE_BYTES`` is refused before anything is written.
"""
from __future__ import annotations

import hashlib
import json
import mimetypes
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict
from decimal import Decimal
from pathlib import PurePosixPath
from typing import IO, Any

from ..archive.file_path import parse_file_path
from ..ibi.history import IMPORTED, Actor, Change, HistoryEntry
from ..errors import ParseError, TooLarge
from ..i18n import N_, Recorded
from ..ibi.identifier import parse_ibi
from ..ibi.prefixes import equivalent_rep_prefixes
from ..ibi.minted import Bibliographic, MintedItem
from ..ibi.subsystem import Subsystem
from ..storage.files import FileStore, StoredFile
from ..storage.history import copy_entry, record_change
from ..storage.identifiers import IdentifierStore, import_source
from .importing import CREATED, UNCHANGED, CONFLICT, RecordOutcome

FORMAT = "ibiportal-package/1"
MANIFEST, ITEM, RELATIONS, HISTORY, FILES = "package.json", "item.json", "relations.json", "history.jsonl", "files/"


def write_package(out: IO[bytes], minted: MintedItem, item: Mapping[str, Any], entries: Iterable[HistoryEntry],
                  files: Iterable[StoredFile], chunks: Callable[[StoredFile], Iterator[bytes]]) -> None:
    """Write the package of ``minted`` to ``out``: ``item`` is its API JSON, ``chunks`` a file's bytes."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr(MANIFEST, _json({"format": FORMAT, "rep": minted.rep, "ibip": minted.ibip,
                                          "date": str(minted.date), "utc": minted.utc, "subsystem": minted.subsystem}))
        package.writestr(ITEM, _json(item))
        package.writestr(RELATIONS, _json(item.get("relations", {})))
        package.writestr(HISTORY, "".join(_json({"at": entry.at, "action": entry.action, "details": dict(entry.details),
                                                  "actor": {"kind": entry.actor.kind, "name": entry.actor.name}}) + "\n"
                                          for entry in entries))
        for stored in files:
            with package.open(FILES + stored.path, "w", force_zip64=True) as body:
                for chunk in chunks(stored):
                    body.write(chunk)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class PackageImporter:
    """Imports packages into the own Archive (``flask items import PACKAGE.zip``)."""

    def __init__(self, store: IdentifierStore, files: FileStore, subsystem: Subsystem, max_file_bytes: int,
                 clock: Callable[[], Decimal]):
        self.store = store
        self.files = files
        self.subsystem = subsystem
        self.max_file_bytes = max_file_bytes
        self.clock = clock

    def run(self, package: IO[bytes], name: str, *, dry_run: bool = False, actor: Actor | None = None) -> RecordOutcome:
        """Import the package ``name`` (read from ``package``); a :class:`ParseError` refuses it whole.
        ``dry_run``: check it and say what would happen, writing nothing; ``actor``: who the
        history says imported it (``import <name>`` by default)."""
        try:
            archive = zipfile.ZipFile(package)
        except zipfile.BadZipFile:
            raise ParseError(N_("%(package)s is not a zip file", package=name)) from None
        with archive:
            self._check(archive, name)
            manifest, item, history = self._read(archive, name)
            minted = _minted(manifest, item, name)
            files = {info.filename[len(FILES):]: info for info in archive.infolist()
                     if info.filename.startswith(FILES) and not info.is_dir()}
            named = dict(rep=minted.rep, ibip=minted.ibip, published=minted.ibip, files=tuple(sorted(files)))
            held = self.store.find_minted(ibip=minted.ibip)
            if held is not None:
                same = (held.rep == minted.rep and held.title == minted.title and held.target_url == minted.target_url
                        and {f.path: f.sha256 for f in self.files.files(held.ibip)}
                        == {path: hashlib.sha256(archive.read(info)).hexdigest() for path, info in files.items()})
                if same:
                    return RecordOutcome(name, UNCHANGED, N_("held here with the same fields and files"), **named)
                return RecordOutcome(name, CONFLICT, N_("this portal holds %(ibi)s with other data: left as it is",
                                                  ibi=minted.ibip), **named)
            if not dry_run:
                self._create(archive, minted, history, files, actor or Actor("import", name))
                self._add_pair(minted, name)
            return RecordOutcome(name, CREATED, N_("new here"), **named)

    def _check(self, archive: zipfile.ZipFile, name: str) -> None:
        total = 0
        for info in archive.infolist():
            path = PurePosixPath(info.filename.replace("\\", "/"))
            if path.is_absolute() or ".." in path.parts or ":" in info.filename.split("/")[0]:
                raise ParseError(N_("%(package)s is refused: its path %(path)s leaves the package",
                                    package=name, path=info.filename))
            total += info.file_size
        if total > self.max_file_bytes:
            raise TooLarge(N_("%(package)s is refused: it unpacks to %(size)s bytes, more than the %(limit)s a file "
                                "may have (IBIPORTAL_MAX_FILE_BYTES)", package=name, size=total,
                                limit=self.max_file_bytes))

    @staticmethod
    def _read(archive: zipfile.ZipFile, name: str) -> tuple[dict, dict, list[dict]]:
        try:
            manifest = json.loads(archive.read(MANIFEST))
            item = json.loads(archive.read(ITEM))
            history = [json.loads(line) for line in archive.read(HISTORY).decode("utf-8").splitlines() if line.strip()]
        except (KeyError, ValueError) as error:
            raise ParseError(N_("%(package)s is not an item package (%(problem)s)", package=name,
                                problem=Recorded(error))) from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or not isinstance(item, dict):
            raise ParseError(N_("%(package)s is not an item package (%(problem)s)", package=name,
                                problem=N_("the format of %(manifest)s is not %(format)s", manifest=MANIFEST,
                                           format=FORMAT)))
        return manifest, item, history

    def _create(self, archive: zipfile.ZipFile, minted: MintedItem, history: list[dict],
                files: dict[str, zipfile.ZipInfo], actor: Actor) -> None:
        with self.store.storage.write_transaction() as conn:
            self.store.record_minted(conn, minted)
            for entry in history:
                copy_entry(conn, minted.ibip, HistoryEntry(minted.ibip, str(entry["at"]), Actor(
                    str(entry["actor"]["kind"]), str(entry["actor"].get("name") or "")), str(entry["action"]),
                    dict(entry.get("details") or {})))
            record_change(conn, minted.ibip, Change(actor, IMPORTED, {"rep": minted.rep, "ibip": minted.ibip,
                                                                     "published": minted.ibip, "record": actor.name}))
            for path, info in sorted(files.items()):
                data = archive.read(info)
                content_type, _ = mimetypes.guess_type(path, strict=False)
                with archive.open(info) as body:
                    self.files.put_in(conn, minted.ibip, parse_file_path(path), content_type or "application/octet-stream",
                                      body, len(data), hashlib.sha256(data).hexdigest(), actor=actor)
            rep_prefix, ibip_prefix = parse_ibi(minted.rep).prefix, parse_ibi(minted.ibip).prefix
            if ibip_prefix == self.subsystem.ibip_prefix or equivalent_rep_prefixes(rep_prefix, self.subsystem.rep_prefix):
                # an item this portal's own subsystem issued comes back: Algorithm 4 never issues it
                # again (as ``Importer``); last, so on PostgreSQL the clock's update goes with the COMMIT
                self.store.move_clock_past(conn, self.subsystem.key, minted.date, self.clock())

    def _add_pair(self, minted: MintedItem, name: str) -> None:
        """The prefix pair the package's two forms show (kept as an import's ``--prefix-pair``)."""
        self.store.add_prefix_pair(parse_ibi(minted.rep).prefix, parse_ibi(minted.ibip).prefix,
                                   import_source(name))


def _minted(manifest: dict, item: dict, name: str) -> MintedItem:
    """The item to record, Original, with the package's IBI and fields."""
    metadata = item.get("metadata") or {}
    try:
        rep, ibip = parse_ibi(str(manifest["rep"])), parse_ibi(str(manifest["ibip"]))
        if rep.form != "rep" or ibip.form != "ibip":
            raise ParseError(N_("rep and ibip must be the two forms of the IBI"))
        known = {name for name in asdict(Bibliographic())}
        return MintedItem(
            rep=str(manifest["rep"]), ibip=str(manifest["ibip"]), date=Decimal(str(manifest["date"])),
            utc=str(manifest["utc"]), subsystem=str(manifest["subsystem"]), title=metadata.get("title"),
            target_url=item.get("target_url"), creators=tuple(metadata.get("creators") or ()),
            item_date=metadata.get("date"), language=metadata.get("language"),
            bibliographic=Bibliographic(**{key: value for key, value in metadata.items() if key in known}),
        )
    except (KeyError, ArithmeticError, ParseError) as error:
        problem = error.message if isinstance(error, ParseError) else str(error)
        raise ParseError(N_("%(package)s is not an item package (%(problem)s)", package=name,
                            problem=problem)) from None
