"""What an import reads, whoever starts it (``flask items import``, ``POST /api/v1/items/import``,
the Import page), and its outcomes one at a time.

A source is an OAI-PMH base URL (harvested, :class:`~.importing.Harvest`) or a file known by its
name's suffix: a ``.bib``, ``.ris`` or ``.csv`` of records (:class:`~.importing.Importer`), or a
``.zip`` item package (``GET /api/v1/items/<ibi>/package``, :class:`~.packaging.PackageImporter`),
which is one record: its item, with the same IBI, state Original. The three callers only name the
source and show the outcomes; what becomes of each record is decided here and in those classes.
"""
from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..ibi.history import Actor
from ..archive.import_formats import FILE_SUFFIXES, read_file
from ..errors import ParseError
from ..i18n import N_
from .importing import Fetch, Harvest, Importer, RecordOutcome, http_fetch, is_oai_source
from .packaging import PackageImporter

#: An item package's suffix.
PACKAGE_SUFFIX = ".zip"
#: The files an import reads.
SOURCE_SUFFIXES = (*FILE_SUFFIXES, PACKAGE_SUFFIX)


@dataclass(frozen=True)
class ImportSource:
    """A source: ``name`` is an OAI-PMH base URL (``data`` ``None``) or a file's name, with its bytes."""

    name: str
    data: bytes | None = None

    @classmethod
    def of_url(cls, url: str) -> ImportSource:
        """An OAI-PMH base URL; a :class:`ParseError` for anything else."""
        if not is_oai_source(url):
            raise ParseError(N_("an OAI-PMH base URL begins with http:// or https://"), field="source_url")
        return cls(url.strip())

    @classmethod
    def of_file(cls, name: str, data: bytes) -> ImportSource:
        """A file by its name's suffix; a :class:`ParseError` (field ``file``) for another kind."""
        if not name.lower().endswith(SOURCE_SUFFIXES):
            raise ParseError(N_("%(name)s is not a .bib, .ris, .csv or .zip file", name=name), field="file")
        return cls(name, data)

    @property
    def is_package(self) -> bool:
        return self.data is not None and self.name.lower().endswith(PACKAGE_SUFFIX)

    @property
    def file_name(self) -> str:
        """The name without its folders (what the history and a report say of a package)."""
        return self.name if self.data is None else Path(self.name).name


class Reading:
    """One import of ``source`` into the own Archive: iterate it for the outcomes, each as it is
    done; ``total`` is how many records the source has, once known (at once for a file, after the
    first page that says so for a harvest, never for a harvest that does not).

    Iterating raises :class:`ParseError` for a file that cannot be read at all (before any
    outcome: nothing was written) and ``SourceUnreachable`` for a harvest that stops (the records
    before it were imported, each whole). ``actor``: who the history says imported (``import
    <source>`` by default); ``fetch``: how a page of an OAI-PMH source is asked for.
    """

    def __init__(self, source: ImportSource, importer: Importer, *, dry_run: bool = False, update: bool = False,
                 files_dir: Path | None = None, actor: Actor | None = None, fetch: Fetch = http_fetch) -> None:
        self.source = source
        self.importer = importer
        self.dry_run, self.update, self.files_dir = dry_run, update, files_dir
        self.actor = actor or Actor("import", source.file_name)
        self.fetch = fetch
        self.total: int | None = None

    def __iter__(self) -> Iterator[RecordOutcome]:
        source, importer = self.source, self.importer
        if source.is_package:
            self.total = 1
            packages = PackageImporter(importer.store, importer.files, importer.subsystem, importer.max_file_bytes,
                                       importer.clock)
            try:
                outcome = packages.run(io.BytesIO(source.data or b""), source.file_name, dry_run=self.dry_run,
                                       actor=self.actor)
            except ParseError as error:  # the package is refused whole: the file is what is wrong
                error.field = error.field or "file"
                raise
            yield outcome
            return
        if source.data is None:
            harvest = Harvest(source.name, self.fetch)
            for outcome in importer.run(harvest, self.actor, dry_run=self.dry_run, update=self.update,
                                        files_dir=self.files_dir):
                self.total = harvest.total
                yield outcome
            return
        records = list(read_file(source.name, source.data))
        self.total = len(records)
        yield from importer.run(records, self.actor, dry_run=self.dry_run, update=self.update, files_dir=self.files_dir)
