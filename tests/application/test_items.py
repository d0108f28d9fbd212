"""The items use case without Flask: search, and changes that change nothing."""
from __future__ import annotations

from decimal import Decimal
from itertools import count

import pytest

from ibiportal.application.items import ItemNotFound, ItemService
from ibiportal.application.minting import Minter
from ibiportal.ibi.mint_request import MintRequest
from ibiportal.ibi.subsystem import Subsystem
from ibiportal.storage.database import Storage
from ibiportal.storage.history import HistoryStore
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.ibi.history import Actor

TESTER = Actor("command", "tests")


@pytest.fixture
def minter(database_setting):
    subsystem = Subsystem(host="mtc-m18.sid.inpe.br", port=80, ip="150.163.34.243", ibip_port=800, granularity=Decimal(1))
    seconds = count(1234806360, 60)
    return Minter(IdentifierStore(Storage(database_setting)), subsystem, clock=lambda: Decimal(next(seconds)), sleep=lambda _: None)


def test_search_finds_ibis_titles_and_creators_newest_first(minter):
    first = minter.mint(MintRequest(title="Relatório 100% novo", creators=("Gonçalves, João",)), actor=TESTER)
    second = minter.mint(MintRequest(title="Imagens de satélite"), actor=TESTER)
    items = ItemService(minter.store, HistoryStore(minter.store.storage))
    assert [r.minted.ibip for r in items.search()] == [second.ibip, first.ibip]
    assert [r.minted.ibip for r in items.search("gonçalves")] == [first.ibip]
    assert [r.minted.ibip for r in items.search("100%")] == [first.ibip]
    assert [r.minted.ibip for r in items.search("ns_de")] == []  # _ is a character, not a wildcard
    assert [r.minted.ibip for r in items.search(second.rep[-5:])] == [second.ibip]
    assert items.search("relatório", limit=1, offset=1) == []


def test_a_change_to_the_same_values_changes_nothing(minter):
    item = minter.mint(MintRequest(title="T", target_url="https://example.org/t"), actor=TESTER)
    items = ItemService(minter.store, HistoryStore(minter.store.storage))
    record = items.change(item.rep, {"title": "T", "target_url": "https://example.org/t"}, actor=TESTER)
    assert record.minted.updated_at is None
    assert items.change(item.ibip, {"title": "U"}, actor=TESTER).minted.updated_at is not None


def test_an_unknown_item_is_not_found(minter):
    with pytest.raises(ItemNotFound, match="not an item of this portal"):
        ItemService(minter.store, HistoryStore(minter.store.storage)).find("8JMKD3MGP8W/34PGRBS")
