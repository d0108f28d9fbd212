"""The own Archive's files in the database, on SQLite and on PostgreSQL: stored whole in chunks,
read back one chunk at a time for any range, replaced and removed with their chunks."""
from __future__ import annotations

import hashlib
import io
import threading

import pytest

from ibiportal.storage import files as files_module
from ibiportal.storage.database import Storage
from ibiportal.storage.files import FileChanged, FileStore, read_chunks

DATA = bytes(range(256)) * 3 + b"tail"  # 772 bytes


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 100 bytes, so that ranges cross chunk boundaries."""
    monkeypatch.setattr(files_module, "CHUNK_BYTES", 100)


def store(storage: Storage, path: str = "a/b.bin", data: bytes = DATA):
    return FileStore(storage).put("IBIP/1", path, "application/octet-stream", io.BytesIO(data), len(data),
                                  hashlib.sha256(data).hexdigest())


def test_a_file_is_kept_in_chunks_and_read_back_in_any_range(database_setting, small_chunks):
    storage = Storage(database_setting)
    stored = store(storage)
    assert stored.chunk_bytes == 100
    found = FileStore(storage).find("IBIP/1", "a/b.bin")
    assert found == stored
    opened = []

    def open_storage() -> Storage:
        opened.append(Storage(database_setting))
        return opened[-1]

    assert b"".join(read_chunks(open_storage, found, 0, len(DATA))) == DATA
    assert len(opened) == 8  # one connection per chunk, each given back
    for start, stop, chunks in ((0, 1, 1), (99, 101, 2), (150, 450, 4), (700, 772, 1), (771, 772, 1), (250, 260, 1)):
        opened.clear()
        pieces = list(read_chunks(open_storage, found, start, stop))
        assert b"".join(pieces) == DATA[start:stop]
        assert max(len(piece) for piece in pieces) <= 100
        assert len(opened) == chunks  # a range reads the chunks it covers, no others


def test_a_file_put_again_replaces_the_old_one_and_its_chunks(database_setting, small_chunks):
    storage = Storage(database_setting)
    old = store(storage)
    new = store(storage, data=b"short")
    assert [f.sha256 for f in FileStore(storage).files("IBIP/1")] == [new.sha256]
    assert FileStore(storage).chunk(old.id, 0) is None
    with pytest.raises(FileChanged, match="replaced or deleted"):
        list(read_chunks(lambda: Storage(database_setting), old, 0, old.size))


def test_a_file_removed_takes_its_chunks_with_it(database_setting, small_chunks):
    storage = Storage(database_setting)
    stored = store(storage)
    store(storage, path="other")
    assert FileStore(storage).delete("IBIP/1", "a/b.bin") is True
    assert FileStore(storage).delete("IBIP/1", "a/b.bin") is False
    assert [f.path for f in FileStore(storage).files("IBIP/1")] == ["other"]
    assert all(FileStore(storage).chunk(stored.id, seq) is None for seq in range(8))


def test_an_upload_that_fails_while_stored_leaves_nothing(database_setting, small_chunks):
    storage = Storage(database_setting)
    store(storage, data=b"the old file")

    class Failing(io.BytesIO):
        def read(self, size=-1):
            if self.tell() >= 300:
                raise OSError("disk gone")
            return super().read(size)

    with pytest.raises(OSError):
        FileStore(storage).put("IBIP/1", "a/b.bin", "text/plain", Failing(DATA), len(DATA), "x")
    (kept,) = FileStore(storage).files("IBIP/1")
    assert kept.size == len(b"the old file")
    assert b"".join(read_chunks(lambda: Storage(database_setting), kept, 0, kept.size)) == b"the old file"


def test_two_uploads_of_one_path_at_once_leave_the_later_file_and_no_error(database_setting, small_chunks):
    """The second upload waits for the first to commit and replaces it: on PostgreSQL it used to
    find no file to drop (the first was not committed) and fail on the unique (ibi, path)."""
    second_started = threading.Event()
    results: dict[str, object] = {}

    class HeldBody(io.BytesIO):
        """The first upload's body: held open until the second upload has begun."""

        def read(self, size=-1):
            if self.tell() == 0:
                second_started.wait(10)
                threading.Event().wait(0.3)  # the second reaches its drop and insert meanwhile
            return super().read(size)

    def upload(name: str, body: io.BytesIO, data: bytes) -> None:
        storage = Storage(database_setting)
        try:
            results[name] = FileStore(storage).put("IBIP/1", "a/b.bin", "application/octet-stream", body,
                                                   len(data), hashlib.sha256(data).hexdigest())
        except Exception as error:  # the assertion below names it
            results[name] = error
        finally:
            storage.close()

    first = threading.Thread(target=upload, args=("first", HeldBody(DATA), DATA))
    first.start()
    second_started.set()
    upload("second", io.BytesIO(b"second"), b"second")
    first.join(20)
    assert not isinstance(results["first"], Exception), results["first"]
    assert not isinstance(results["second"], Exception), results["second"]
    stored = FileStore(Storage(database_setting)).files("IBIP/1")
    assert len(stored) == 1 and stored[0].sha256 in {results["first"].sha256, results["second"].sha256}
