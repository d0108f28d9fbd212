"""What an import writes, on SQLite and PostgreSQL: an item with its files in one transaction
(``FileStore.put_in``) and the own subsystem's clock moved past an imported date
(``IdentifierStore.move_clock_past``) in that same transaction."""
from __future__ import annotations

import hashlib
import io
from decimal import Decimal

import pytest

from ibiportal.archive.history import Actor
from ibiportal.minted import MintedItem
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
