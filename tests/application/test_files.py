"""The file use case: what reaches storage (all of an upload or nothing), and the spool it
leaves behind (nothing, whatever happened)."""
from __future__ import annotations

import hashlib
import io
from decimal import Decimal

import pytest

from ibiportal.ibi.history import Actor
from ibiportal.application.files import FileNotHeld, FileTooLarge, ItemFiles, Upload, UploadRefused
from ibiportal.application.items import ItemDeleted, ItemNotFound
from ibiportal.errors import ParseError
from ibiportal.ibi.minted import MintedItem
from ibiportal.storage.files import StoredFile

ITEM = MintedItem(rep="sid.inpe.br/mtc-m18/2009/02.16.17.46", ibip="8JMKD3MGP8W/34PGRBS",
                  date=Decimal(1234806360), utc="2009-02-16T17:46:00Z", subsystem="s")
GONE = MintedItem(rep="sid.inpe.br/mtc-m18/2009/02.16.17.47", ibip="8JMKD3MGP8W/34PGRE5",
                  date=Decimal(1234806420), utc="2009-02-16T17:47:00Z", subsystem="s",
                  deleted_at="2026-01-01T00:00:00.000000Z")


ARCHIVIST = Actor("token", "archivist")


class Items:
    def find_minted(self, rep=None, ibip=None):
        return next((item for item in (ITEM, GONE) if item.rep == rep or item.ibip == ibip), None)


class Files:
    """Files in a dict, as storage keeps them."""

    def __init__(self):
        self.kept: dict[tuple[str, str], tuple[StoredFile, bytes]] = {}

    def files(self, ibi):
        return [stored for (owner, _), (stored, _) in sorted(self.kept.items()) if owner == ibi]

    def find(self, ibi, path):
        found = self.kept.get((ibi, path))
        return found[0] if found else None

    def put(self, ibi, path, content_type, body, size, sha256, *, actor):
        assert actor == ARCHIVIST  # the use case hands storage who made the change
        stored = StoredFile(len(self.kept) + 1, ibi, path, content_type, size, sha256, 100, "2026-01-01T00:00:00.000000Z")
        replaced = (ibi, path) in self.kept
        self.kept[(ibi, path)] = (stored, body.read())
        return stored, replaced

    def delete(self, ibi, path, *, actor):
        assert actor == ARCHIVIST
        return self.kept.pop((ibi, path), None) is not None


@pytest.fixture
def spool(tmp_path):
    return tmp_path


@pytest.fixture
def files():
    return Files()


@pytest.fixture
def use_case(files, spool):
    return ItemFiles(Items(), files, max_bytes=1000, spool_dir=str(spool))


def test_a_whole_upload_is_stored_with_its_hash_and_the_spool_is_gone(use_case, files, spool):
    kept = use_case.put(ITEM.rep, "cafe\u0301.pdf", Upload(io.BytesIO(b"%PDF" * 10), "application/pdf", 40), actor=ARCHIVIST)
    assert kept.item == ITEM and kept.replaced is False
    assert kept.file.path == "café.pdf" and kept.file.size == 40
    assert kept.file.sha256 == hashlib.sha256(b"%PDF" * 10).hexdigest()
    assert files.kept[(ITEM.ibip, "café.pdf")][1] == b"%PDF" * 10
    assert use_case.put(ITEM.ibip, "café.pdf", Upload(io.BytesIO(b"new")), actor=ARCHIVIST).replaced is True
    assert list(spool.iterdir()) == []


@pytest.mark.parametrize("upload, refusal", [
    (Upload(io.BytesIO(b"x" * 1001)), FileTooLarge),
    (Upload(io.BytesIO(b"x"), length=5000), FileTooLarge),
    (Upload(io.BytesIO(b"x" * 10), length=20), UploadRefused),
    (Upload(io.BytesIO(b"x"), "multipart/form-data; boundary=abc"), UploadRefused),
    (Upload(io.BytesIO(b"x"), "not a type"), UploadRefused),
    (Upload(io.BytesIO(b"x"), "text/plain\r\nX-Evil: 1"), UploadRefused),
])
def test_a_refused_upload_stores_nothing_and_leaves_no_spool(use_case, files, spool, upload, refusal):
    with pytest.raises(refusal):
        use_case.put(ITEM.ibip, "a.pdf", upload, actor=ARCHIVIST)
    assert files.kept == {} and list(spool.iterdir()) == []


def test_types_kept_bare_as_given_or_guessed_from_the_name(use_case):
    assert use_case.put(ITEM.ibip, "a", Upload(io.BytesIO(b"x"), 'Text/Plain; charset="utf-8"'), actor=ARCHIVIST).file.content_type \
        == "text/plain"
    assert use_case.put(ITEM.ibip, "b.svg", Upload(io.BytesIO(b"x")), actor=ARCHIVIST).file.content_type == "image/svg+xml"
    assert use_case.put(ITEM.ibip, "c", Upload(io.BytesIO(b"x"), " "), actor=ARCHIVIST).file.content_type == "application/octet-stream"


def test_items_and_files_not_held(use_case):
    with pytest.raises(ItemNotFound, match="8JMKD3MGP8W/3C9EP6P is not an item of this portal"):
        use_case.listing("8JMKD3MGP8W/3C9EP6P")
    with pytest.raises(ParseError):
        use_case.listing("not an ibi")
    with pytest.raises(FileNotHeld, match="has no file a.pdf"):
        use_case.delete(ITEM.ibip, "a.pdf", actor=ARCHIVIST)
    assert use_case.find("not an ibi", "a.pdf") is None
    assert use_case.find(ITEM.ibip, "../a.pdf") is None


def test_a_deleted_items_files_no_longer_change_nor_are_found(use_case, files):
    files.put(GONE.ibip, "a.pdf", "application/pdf", io.BytesIO(b"x"), 1, "h", actor=ARCHIVIST)
    with pytest.raises(ItemDeleted):
        use_case.put(GONE.rep, "b.pdf", Upload(io.BytesIO(b"x")), actor=ARCHIVIST)
    with pytest.raises(ItemDeleted):
        use_case.delete(GONE.rep, "a.pdf", actor=ARCHIVIST)
    assert use_case.find(GONE.rep, "a.pdf") is None
    assert [stored.path for stored in use_case.listing(GONE.rep).files] == ["a.pdf"]
