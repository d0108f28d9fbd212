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
from ibiportal.ibi.history import Actor

TESTER = Actor("command", "tests")

DATA = bytes(range(256)) * 3 + b"tail"  # 772 bytes


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 100 bytes, so that ranges cross chunk boundaries."""
    monkeypatch.setattr(files_module, "CHUNK_BYTES", 100)


def store(storage: Storage, path: str = "a/b.bin", data: bytes = DATA, replaces: bool = False):
    stored, replaced = FileStore(storage).put("IBIP/1", path, "application/octet-stream", io.BytesIO(data), len(data),
                                              hashlib.sha256(data).hexdigest(), actor=TESTER)
    assert replaced is replaces
    return stored


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
    new = store(storage, data=b"short", replaces=True)
    assert [f.sha256 for f in FileStore(storage).files("IBIP/1")] == [new.sha256]
    assert FileStore(storage).chunk(old.id, 0) is None
    with pytest.raises(FileChanged, match="replaced or deleted"):
        list(read_chunks(lambda: Storage(database_setting), old, 0, old.size))


def test_a_file_removed_takes_its_chunks_with_it(database_setting, small_chunks):
    storage = Storage(database_setting)
    stored = store(storage)
    store(storage, path="other")
    assert FileStore(storage).delete("IBIP/1", "a/b.bin", actor=TESTER) is True
    assert FileStore(storage).delete("IBIP/1", "a/b.bin", actor=TESTER) is False
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
        FileStore(storage).put("IBIP/1", "a/b.bin", "text/plain", Failing(DATA), len(DATA), "x", actor=TESTER)
    (kept,) = FileStore(storage).files("IBIP/1")
    assert kept.size == len(b"the old file")
    assert b"".join(read_chunks(lambda: Storage(database_setting), kept, 0, kept.size)) == b"the old file"


def test_two_uploads_of_one_path_at_once_both_succeed_and_the_later_replaces_the_earlier(postgres_server, small_chunks):
    """On PostgreSQL, which the nodes share, no upload holds a lock while its bytes are written:
    the first, whose body is still being read, does not hold up the second, which stores its
    file; the first then replaces it and says so. (The second used to find no file to drop, the
    first not being committed, and fail on the unique (ibi, path): a 500.) SQLite lets one writer
    in at a time, whole: there the second waits (test_a_file_put_again_replaces_the_old_one…)."""
    database_setting = postgres_server.new_database()
    second_done = threading.Event()
    released: list[bool] = []
    results: dict[str, object] = {}

    class HeldBody(io.BytesIO):
        """The first upload's body: its bytes come only once the second upload is stored."""

        def read(self, size=-1):
            if self.tell() == 0 and not released:
                released.append(second_done.wait(20))
            return super().read(size)

    def upload(name: str, body: io.BytesIO, data: bytes) -> None:
        storage = Storage(database_setting)
        try:
            results[name] = FileStore(storage).put("IBIP/1", "a/b.bin", "application/octet-stream", body,
                                                   len(data), hashlib.sha256(data).hexdigest(), actor=TESTER)
        except Exception as error:  # the assertion below names it
            results[name] = error
        finally:
            storage.close()

    first = threading.Thread(target=upload, args=("first", HeldBody(DATA), DATA))
    first.start()
    threading.Event().wait(0.3)  # the first is inside its transaction, reading its body
    upload("second", io.BytesIO(b"second"), b"second")
    second_done.set()
    first.join(30)
    assert released == [True], "the second upload waited for the first's body"
    assert not isinstance(results["second"], Exception), results["second"]
    assert not isinstance(results["first"], Exception), results["first"]
    (second, second_replaced), (first_stored, first_replaced) = results["second"], results["first"]
    assert (second_replaced, first_replaced) == (False, True)
    storage = Storage(database_setting)
    stored = FileStore(storage).files("IBIP/1")
    assert [(each.path, each.sha256) for each in stored] == [("a/b.bin", hashlib.sha256(DATA).hexdigest())]
    assert b"".join(read_chunks(lambda: Storage(database_setting), stored[0], 0, stored[0].size)) == DATA
    assert FileStore(storage).chunk(second.id, 0) is None  # the replaced file's chunks went with it
    storage.close()
