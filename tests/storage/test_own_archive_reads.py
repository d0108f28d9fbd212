"""The own Archive's reads (``FreshConnections``) on the connection a unit of work lends them
(``reads_on``), on SQLite and PostgreSQL: no connection taken for a lookup on the lending thread,
the latest mints seen all the same, and a read on another thread on a connection of its own."""
from __future__ import annotations

import threading
from decimal import Decimal

from ibiportal.ibi.minted import MintedItem
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import FreshConnections, IdentifierStore, reads_on

ITEM = MintedItem("sid.inpe.br/mtc-m18@80/2009/07.21.13.23", "8JMKD3MGP8W/35MME4E", Decimal("1248182580"),
                  "2009-07-21T13:23:00Z", "sid.inpe.br/mtc-m18@80 8JMKD3MGP8W")


def test_the_own_archives_reads_run_on_the_lent_connection_and_see_the_latest_mints(database_setting, monkeypatch):
    lent, writer = Storage(database_setting), Storage(database_setting)
    reads = FreshConnections(database_setting)
    opened: list[int] = []
    made = Storage.__init__
    monkeypatch.setattr(Storage, "__init__", lambda self, *args, **kwargs: opened.append(1) or made(self, *args, **kwargs))
    try:
        with reads_on(lent):
            assert reads.find_minted(ibip=ITEM.ibip) is None
            with writer.write_transaction() as conn:  # minted meanwhile, on another connection
                IdentifierStore(writer).record_minted(conn, ITEM)
            with reads.together():
                assert reads.find_minted(rep=ITEM.rep, ibip=ITEM.rep).ibip == ITEM.ibip
                assert reads.item_reads(ITEM.ibip).file_paths == []
            assert opened == [], "every read ran on the lent connection"
            elsewhere: list[MintedItem | None] = []
            thread = threading.Thread(target=lambda: elsewhere.append(reads.find_minted(ibip=ITEM.ibip)))
            thread.start()
            thread.join()
            assert elsewhere[0].rep == ITEM.rep and opened == [1], "another thread took a connection of its own"
        assert reads.find_minted(ibip=ITEM.ibip).rep == ITEM.rep and opened == [1, 1], "outside the block: its own"
    finally:
        lent.close()
        writer.close()
