"""What an import writes, on SQLite and PostgreSQL: an item with its files in one transaction
(``FileStore.put_in``) and the own subsystem's clock moved past an imported date
(``IdentifierStore.move_clock_past``) in that same transaction."""
from __future__ import annotations

import hashlib
import io
from decimal import Decimal

import pytest

from ibiportal.ibi.history import Actor
from ibiportal.ibi.minted import MintedItem
from ibiportal.storage.database import Storage
from ibiportal.storage.files import FileStore
from ibiportal.storage.identifiers import IdentifierStore

KEY = "demo.ibiportal.invalid/x 8JMKD3MGP8W"
ACTOR = Actor("import", "test")


def test_the_clock_moves_past_an_imported_date_and_never_back(database_setting):
    storage = Storage(database_setting)
    store = IdentifierStore(storage)
    with storage.write_transaction() as conn:
        assert store.move_clock_past(conn, KEY, Decimal(2000), Decimal(1000))  # first: no state yet
    with storage.write_transaction() as conn:
        state = store.lock_subsystem_clock(conn, KEY)
    assert (state.last_date, state.last_reading, state.offset) == (Decimal(2000), Decimal(1000), Decimal(0))
    with storage.write_transaction() as conn:
        assert not store.move_clock_past(conn, KEY, Decimal(1500), Decimal(1100))  # earlier: left as it is
    with storage.write_transaction() as conn:
        assert store.move_clock_past(conn, KEY, Decimal(3000), Decimal(1200))
    with storage.write_transaction() as conn:
        state = store.lock_subsystem_clock(conn, KEY)
    assert (state.last_date, state.last_reading) == (Decimal(3000), Decimal(1000))  # the reading stays the mint's
    storage.close()


def test_an_item_and_its_files_are_kept_together_or_not_at_all(database_setting):
    storage = Storage(database_setting)
    store, files = IdentifierStore(storage), FileStore(storage)
    item = MintedItem("sid.inpe.br/mtc-m18@80/2009/07.21.13.23", "8JMKD3MGP8W/35MME4E", Decimal("1248182580"),
                      "2009-07-21T13:23:00Z", "sid.inpe.br/mtc-m18@80 8JMKD3MGP8W")
    body = b"%PDF thesis"
    with pytest.raises(RuntimeError):
        with storage.write_transaction() as conn:
            store.record_minted(conn, item)
            files.put_in(conn, item.ibip, "a.pdf", "application/pdf", io.BytesIO(body), len(body),
                         hashlib.sha256(body).hexdigest(), actor=ACTOR)
            raise RuntimeError("the next file was over the limit")
    assert store.find_minted(ibip=item.ibip) is None and files.files(item.ibip) == []
    with storage.write_transaction() as conn:
        store.record_minted(conn, item)
        files.put_in(conn, item.ibip, "a.pdf", "application/pdf", io.BytesIO(body), len(body),
                     hashlib.sha256(body).hexdigest(), actor=ACTOR)
    assert store.find_minted(ibip=item.ibip).rep == item.rep
    assert [stored.path for stored in files.files(item.ibip)] == ["a.pdf"]
    storage.close()


def test_one_read_gives_an_items_links_both_ways_and_its_file_paths(database_setting):
    from sqlalchemy import insert

    from ibiportal.ibi.minted import ItemLink
    from ibiportal.storage.schema import item_file

    storage = Storage(database_setting)
    store = IdentifierStore(storage)
    with storage.write_transaction() as conn:
        store.add_item_link(conn, "X/1", ItemLink("translation", "T/2", "pt"))
        store.add_item_link(conn, "X/1", ItemLink("nextedition", "X/3"))
        store.add_item_link(conn, "X/1", ItemLink("translation", "T/4", "es"))
        store.add_item_link(conn, "O/5", ItemLink("translation", "X/1", "en"))
        store.add_item_link(conn, "P/6", ItemLink("nextedition", "X/1"))
        for path in ("b/z.pdf", "a.txt"):
            conn.execute(insert(item_file).values(ibi="X/1", path=path, content_type="text/plain", size=1, sha256="0",
                                                  chunk_bytes=1, uploaded_at="2026-01-01T00:00:00Z"))
    reads = store.item_reads("X/1")
    assert reads.links == store.item_links("X/1")
    assert [link.relation for link in reads.links] == ["nextedition", "translation", "translation"]
    assert reads.links_to == store.links_to("X/1") == [("P/6", ItemLink("nextedition", "X/1")),
                                                        ("O/5", ItemLink("translation", "X/1", "en"))]
    assert reads.file_paths == ["a.txt", "b/z.pdf"]
    assert store.item_reads("T/2").links_to == [("X/1", ItemLink("translation", "T/2", "pt"))]
    storage.close()
