"""The files of the own Archive's items: upload, list, remove, and find one to serve.

An upload is read from a stream (the request's raw body) into a temporary spool file of this
process, counted and hashed while it is read, and refused as soon as it passes
``IBIPORTAL_MAX_FILE_BYTES`` (a declared ``Content-Length`` over the cap is refused before a
byte is read). Only a complete, valid body reaches the database, in one transaction
(``ibiportal.storage.files``): a refused, cut or failed upload leaves nothing half-written, and
the file it would have replaced stays as it was. The spool is deleted when the upload ends
either way; the file itself lives only in the database, which every node shares.
"""
from __future__ import annotations

import hashlib
import mimetypes
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, Protocol

from ..archive.file_path import parse_file_path
from ..archive.store import ibi_key
from ..errors import IbiError, Invalid, NotFound, Refused
from ..i18n import N_, number
from .items import ItemDeleted, ItemNotFound, ItemReleased
from ..ibi.media_types import DEFAULT_CONTENT_TYPE, TOKEN, bare_media_type
from ..ibi.minted import MintedItem
from ..storage.files import StoredFile
from ..storage.files import FileChanged  # noqa: F401 - a download cut short by a replaced file, for the web layer
from ..ibi.history import Actor

#: Bytes read from the request at once while spooling.
READ_BYTES = 64 * 1024

#: A media type as RFC 9110 §8.3.1 writes it: ``type/subtype`` and optional parameters.
_MEDIA_TYPE = re.compile(rf"{TOKEN}/{TOKEN}(\s*;\s*{TOKEN}=(?:{TOKEN}|\"[^\"\r\n]*\"))*")
MAX_CONTENT_TYPE_LENGTH = 255


class FileNotHeld(NotFound):
    """The item has no file at this path."""

    def __init__(self, ibi: str, path: str):
        super().__init__(N_("the item %(ibi)s has no file %(path)s", ibi=ibi, path=path))
        self.ibi, self.path = ibi, path


class FileTooLarge(Refused):
    """The upload is larger than ``IBIPORTAL_MAX_FILE_BYTES``: 413 (Content Too Large)."""

    status = 413

    def __init__(self, limit: int, size: int | None = None):
        if size is None:
            message = N_("the file goes on past the limit; this portal keeps files of at most %(limit)s bytes "
                         "(IBIPORTAL_MAX_FILE_BYTES)", limit=number(limit))
        else:
            message = N_("the file is %(size)s bytes; this portal keeps files of at most %(limit)s bytes "
                         "(IBIPORTAL_MAX_FILE_BYTES)", size=number(size), limit=number(limit))
        super().__init__(message)
        self.limit = limit


class UploadRefused(Invalid):
    """An upload that cannot be a file: a form instead of the raw body, a malformed type, a body
    shorter than its ``Content-Length``."""


class MintedItems(Protocol):
    """What the use case needs of the minted items (``storage.identifiers.IdentifierStore``)."""

    def find_minted(self, rep: str | None = None, ibip: str | None = None) -> MintedItem | None: ...


class ItemFileStore(Protocol):
    """What the use case needs of the file storage (``storage.files.FileStore``)."""

    def files(self, ibi: str) -> list[StoredFile]: ...

    def find(self, ibi: str, path: str) -> StoredFile | None: ...

    def put(self, ibi: str, path: str, content_type: str, body: BinaryIO, size: int,
            sha256: str, *, actor: Actor) -> tuple[StoredFile, bool]: ...

    def delete(self, ibi: str, path: str, *, actor: Actor) -> bool: ...


@dataclass(frozen=True)
class Upload:
    """A file as it arrives: its raw body as a stream, the ``Content-Type`` and
    ``Content-Length`` the request declared (``None`` when absent)."""

    body: BinaryIO
    content_type: str | None = None
    length: int | None = None


@dataclass(frozen=True)
class HeldFiles:
    """An own item and its files, by path."""

    item: MintedItem
    files: tuple[StoredFile, ...]


@dataclass(frozen=True)
class Kept:
    """A file just stored: its item, the file, and whether it replaced one at the same path."""

    item: MintedItem
    file: StoredFile
    replaced: bool


class ItemFiles:
    """Upload, list, remove and find the files of the own Archive's items (module docstring).

    ``max_bytes`` is ``IBIPORTAL_MAX_FILE_BYTES``; ``spool_dir`` where uploads are spooled
    (``None``: the system's temporary folder).
    """

    def __init__(self, items: MintedItems, files: ItemFileStore, max_bytes: int, spool_dir: str | None = None):
        self.items = items
        self.files = files
        self.max_bytes = max_bytes
        self.spool_dir = spool_dir

    def item(self, ibi: str) -> MintedItem:
        """The own item ``ibi`` names (either form), deleted ones included. Raises
        :class:`~ibiportal.errors.ParseError` when ``ibi`` is not an IBI, :class:`ItemNotFound`
        when no such item was minted here."""
        key = ibi_key(ibi)
        minted = self.items.find_minted(rep=key, ibip=key)
        if minted is None:
            raise ItemNotFound(N_("%(ibi)s is not an item of this portal's Archive: files belong to items minted here",
                                  ibi=ibi))
        return minted

    def _changeable(self, ibi: str) -> MintedItem:
        """The own item; :class:`ItemDeleted` when it is a tombstone, :class:`ItemReleased` when another
        Archive holds it now (its files can no longer change here)."""
        item = self.item(ibi)
        if item.released:
            raise ItemReleased(N_("%(ibi)s was released to the Archive at %(successor)s: its files change there",
                                  ibi=ibi, successor=item.successor))
        if item.deleted:
            raise ItemDeleted(N_("%(ibi)s was deleted at %(date)s: its files can no longer change", ibi=ibi,
                                 date=item.deleted_at))
        return item

    def listing(self, ibi: str) -> HeldFiles:
        """The item and its files."""
        item = self.item(ibi)
        return HeldFiles(item, tuple(self.files.files(item.ibip)))

    def put(self, ibi: str, path: str, upload: Upload, *, actor: Actor) -> Kept:
        """Store ``upload`` as the file at ``path`` of the item, replacing any file there; all of
        it or nothing (module docstring), recorded in the item's history as ``actor``'s."""
        item = self._changeable(ibi)
        path = parse_file_path(path)
        content_type = self._content_type(upload.content_type, path)
        if upload.length is not None and upload.length > self.max_bytes:
            raise FileTooLarge(self.max_bytes, upload.length)
        with tempfile.TemporaryFile(dir=self.spool_dir) as spool:
            size, sha256 = self._spool(upload, spool)
            spool.seek(0)
            stored, replaced = self.files.put(item.ibip, path, content_type, spool, size, sha256, actor=actor)
            return Kept(item, stored, replaced)

    def file(self, ibi: str, path: str) -> StoredFile:
        """The file at ``path`` of the item; :class:`FileNotHeld` when there is none."""
        item = self.item(ibi)
        path = parse_file_path(path)
        stored = self.files.find(item.ibip, path)
        if stored is None:
            raise FileNotHeld(item.ibip, path)
        return stored

    def delete(self, ibi: str, path: str, *, actor: Actor) -> StoredFile:
        """Remove the file at ``path`` of the item, recorded in its history as ``actor``'s;
        :class:`FileNotHeld` when there is none."""
        item = self._changeable(ibi)
        stored = self.file(item.ibip, path)
        if not self.files.delete(item.ibip, stored.path, actor=actor):
            raise FileNotHeld(item.ibip, stored.path)
        return stored

    def find(self, ibi: str, path: str) -> StoredFile | None:
        """The file at ``path`` of the own item ``ibi``, ``None`` when the own Archive holds no
        such item or file, or the item was deleted (then another Archive may hold it: the caller
        hands over). Never raises for what a link says."""
        try:
            item = self.item(ibi)
            path = parse_file_path(path)
        except IbiError:
            return None
        return None if item.deleted or item.released else self.files.find(item.ibip, path)

    def _spool(self, upload: Upload, spool: BinaryIO) -> tuple[int, str]:
        """Copy the body into ``spool``; its size and SHA-256. Refused past ``max_bytes`` or when
        it ends before its declared length."""
        digest = hashlib.sha256()
        size = 0
        for piece in _pieces(upload.body):
            size += len(piece)
            if size > self.max_bytes:
                raise FileTooLarge(self.max_bytes)
            digest.update(piece)
            spool.write(piece)
        if upload.length is not None and size != upload.length:
            raise UploadRefused(N_("the body ended after %(size)s of the %(length)s bytes its Content-Length "
                                   "announced: nothing was stored, send it again",
                                   size=number(size), length=number(upload.length)))
        return size, digest.hexdigest()

    @staticmethod
    def _content_type(given: str | None, path: str) -> str:
        """The type to serve the file as: the one the upload declared, else one its name
        suggests, else :data:`DEFAULT_CONTENT_TYPE`; always bare (:func:`bare_media_type`)."""
        if not given or not given.strip():
            guessed, _ = mimetypes.guess_type(path, strict=False)
            return guessed or DEFAULT_CONTENT_TYPE
        given = given.strip()
        if given.lower().startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
            raise UploadRefused(N_("the body is a form (%(type)s): send the file's own bytes as the body, with the "
                                   "file's type as Content-Type (curl --data-binary @FILE)", type=given.split(";")[0]))
        if len(given) > MAX_CONTENT_TYPE_LENGTH or not _MEDIA_TYPE.fullmatch(given):
            raise UploadRefused(N_("the Content-Type %(type)s is not a media type such as application/pdf",
                                   type=repr(given[:80])))
        return bare_media_type(given)


def _pieces(body: BinaryIO) -> Iterator[bytes]:
    while piece := body.read(READ_BYTES):
        yield piece
