"""The own Archive's files, in the database: every node serves every file, none lives on one
node's disk (with PostgreSQL the database is the storage the nodes share).

A file is a row of ``item_file`` (path, type, size, SHA-256, when it was uploaded) and its bytes
in chunks of :data:`CHUNK_BYTES` in ``item_file_chunk``: PostgreSQL's ``bytea`` and SQLite's
BLOB hold a chunk comfortably, and neither an upload nor a download ever has more than one
chunk in memory. A download reads each chunk on a pooled connection of its own
(:func:`read_chunks`), so a slow reader of a 100 MB file holds no connection between chunks.

An upload is stored whole or not at all: the caller has the complete body first (spooled and
counted, ``ibiportal.application.files``), and :meth:`FileStore.put` writes its row and chunks
in one transaction that also drops the file it replaces. A reader in the middle of a file that
is replaced or deleted meanwhile finds a chunk gone: :class:`FileChanged` ends its download
(a client sees an incomplete body, never a mix of two files).
"""
from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from sqlalchemy import Connection, Row, delete, insert, select, text, update

from ..errors import IbiError
from .database import Storage
from ..ibi.history import FILE_ADDED, FILE_REMOVED, FILE_REPLACED, Actor, Change
from .history import record_change
from .schema import item_file, item_file_chunk
from .signal import ibis_changed

#: Bytes per stored chunk: what a download holds in memory at once.
CHUNK_BYTES = 1024 * 1024


@dataclass(frozen=True)
class StoredFile:
    """A file of an own item (``ibi``: its IBIp), as stored."""

    id: int
    ibi: str
    path: str
    content_type: str
    size: int
    sha256: str
    chunk_bytes: int
    uploaded_at: str  # ISO 8601 UTC (storage.database.iso)


class FileChanged(IbiError):
    """A chunk of a file being read is gone: the file was replaced or deleted meanwhile."""


class FileStore:
    """The files of the own Archive's items over one :class:`Storage`."""

    def __init__(self, storage: Storage):
        self.storage = storage

    def files(self, ibi: str) -> list[StoredFile]:
        """The files of one item (its IBIp), by path."""
        rows = self.storage.read(
            select(item_file).where(item_file.c.ibi == ibi).order_by(item_file.c.path)
        )
        return [_stored(row) for row in rows]

    def find(self, ibi: str, path: str) -> StoredFile | None:
        """One file of an item, ``None`` if it has none at ``path``."""
        row = self.storage.read(
            select(item_file).where(item_file.c.ibi == ibi, item_file.c.path == path)
        ).first()
        return _stored(row) if row else None

    def put(self, ibi: str, path: str, content_type: str, body: BinaryIO, size: int,
            sha256: str, *, actor: Actor) -> tuple[StoredFile, bool]:
        """Store ``body`` (``size`` bytes, read from its start) as the file at ``path`` of the item,
        replacing the file there, all in one transaction with its entry in the item's history
        (``actor``'s); whether it replaced one. Cached resolutions of the item are dropped
        (``<ibi>/<path>`` found nothing before, or another file).

        The row and the chunks go in first, under a name no file path can have (``/…``; not
        committed, so nobody else sees it); only then does the upload wait for its turn at the path
        (:meth:`_lock`), drop the file there and take the path. So no upload holds a lock while its
        bytes are written, and of two uploads of one path at once, the later to finish replaces
        the earlier (both succeed, the later says it replaced a file).
        """
        with self.storage.write_transaction() as conn:
            return self.put_in(conn, ibi, path, content_type, body, size, sha256, actor=actor)

    def put_in(self, conn: Connection, ibi: str, path: str, content_type: str, body: BinaryIO, size: int,
               sha256: str, *, actor: Actor) -> tuple[StoredFile, bool]:
        """:meth:`put` inside the caller's write transaction: an import stores an item and its
        files in one transaction, all of them or none."""
        uploaded_at = self.storage.now_iso()
        file_id = conn.execute(
            insert(item_file).values(
                ibi=ibi, path=f"/uploading/{uuid.uuid4()}", content_type=content_type, size=size, sha256=sha256,
                chunk_bytes=CHUNK_BYTES, uploaded_at=uploaded_at,
            )
        ).inserted_primary_key[0]
        seq = 0
        while chunk := body.read(CHUNK_BYTES):
            conn.execute(insert(item_file_chunk).values(file_id=file_id, seq=seq, data=chunk))
            seq += 1
        self._lock(conn, ibi, path)
        replaced = _drop(conn, ibi, path)
        conn.execute(update(item_file).where(item_file.c.id == file_id).values(path=path))
        ibis_changed(self.storage, conn, [ibi])
        details = {"path": path, "content_type": content_type, "size": size, "sha256": sha256}
        record_change(conn, ibi, Change(actor, FILE_REPLACED if replaced else FILE_ADDED, details))
        return StoredFile(file_id, ibi, path, content_type, size, sha256, CHUNK_BYTES, uploaded_at), replaced

    def delete(self, ibi: str, path: str, *, actor: Actor) -> bool:
        """Remove one file of an item, recorded in its history as ``actor``'s; ``False`` when there
        was none at ``path``."""
        with self.storage.write_transaction() as conn:
            self._lock(conn, ibi, path)
            removed = _drop(conn, ibi, path)
            if removed:
                ibis_changed(self.storage, conn, [ibi])
                record_change(conn, ibi, Change(actor, FILE_REMOVED, {"path": path}))
        return removed

    def _lock(self, conn: Connection, ibi: str, path: str) -> None:
        """Writers of one path take turns from here until their commit. Under PostgreSQL's READ
        COMMITTED, two uploads of the same path would each find no file to drop (the other's row
        is not yet committed) and the second would fail on the unique (ibi, path); a
        transaction-scoped advisory lock makes it wait and then replace the first. SQLite's
        ``BEGIN IMMEDIATE`` already lets one writer in at a time."""
        if not self.storage.database.is_sqlite:
            conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": f"item_file {ibi} {path}"})

    def chunk(self, file_id: int, seq: int) -> bytes | None:
        """Chunk ``seq`` of a file, ``None`` when it is gone."""
        data = self.storage.read(
            select(item_file_chunk.c.data).where(item_file_chunk.c.file_id == file_id, item_file_chunk.c.seq == seq)
        ).scalar()
        return None if data is None else bytes(data)


def read_chunks(open_storage: Callable[[], Storage], stored: StoredFile, start: int, stop: int) -> Iterator[bytes]:
    """Bytes ``start`` to ``stop`` (exclusive) of a file, one chunk at a time, each chunk read on
    a connection of its own (module docstring). Raises :class:`FileChanged` when a chunk is gone."""
    position = start
    while position < stop:
        seq, offset = divmod(position, stored.chunk_bytes)
        storage = open_storage()
        try:
            data = FileStore(storage).chunk(stored.id, seq)
        finally:
            storage.close()
        if data is None:
            raise FileChanged(f"{stored.path} of {stored.ibi} was replaced or deleted while it was read")
        piece = data[offset: offset + stop - position]
        if not piece:  # shorter than its row says: the file changed under the reader
            raise FileChanged(f"{stored.path} of {stored.ibi} was replaced while it was read")
        position += len(piece)
        yield piece


def _drop(conn: Connection, ibi: str, path: str) -> bool:
    """Delete the file at ``path`` of the item and its chunks; whether there was one."""
    file_id = conn.execute(select(item_file.c.id).where(item_file.c.ibi == ibi, item_file.c.path == path)).scalar()
    if file_id is None:
        return False
    conn.execute(delete(item_file_chunk).where(item_file_chunk.c.file_id == file_id))
    conn.execute(delete(item_file).where(item_file.c.id == file_id))
    return True


def _stored(row: Row) -> StoredFile:
    return StoredFile(row.id, row.ibi, row.path, row.content_type, row.size, row.sha256, row.chunk_bytes,
                      row.uploaded_at)
