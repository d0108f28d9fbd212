"""The own Archive's items in the order an OAI-PMH harvest lists them, on SQLite and PostgreSQL."""
from __future__ import annotations

import pytest
from sqlalchemy import insert, update

from ibiportal.storage.database import Storage
from ibiportal.storage.oai_items import OaiItems, Selection
from ibiportal.storage.schema import minted_item


@pytest.fixture
def storage(database_setting):
    storage = Storage(database_setting)
    yield storage
    storage.close()


def add(storage: Storage, rep: str, created_at: str, updated_at: str | None = None, deleted_at: str | None = None,
        item_type: str | None = None, date: str = "1234806360") -> None:
    with storage.write_transaction() as conn:
        conn.execute(insert(minted_item).values(
            rep=rep, ibip=rep.upper().replace("/", "-"), date=date, utc="", subsystem="s", title=rep,
            created_at=created_at, updated_at=updated_at, deleted_at=deleted_at, item_type=item_type))


@pytest.fixture
def items(storage) -> OaiItems:
    add(storage, "a/1", "2026-11-28T09:00:00.900000Z", item_type="report")
    add(storage, "b/2", "2026-11-28T09:00:00.100000Z", updated_at="2026-11-28T10:00:00.500000Z", item_type="article")
    add(storage, "c/3", "2026-11-28T09:00:01.000000Z", updated_at="2026-11-28T10:00:00.250000Z",
        deleted_at="2026-11-28T10:00:00.250000Z", item_type="report")
    # identified in 2009 (an item brought from another Archive keeps its date): stored now all the same
    add(storage, "d/4", "2026-11-28T09:00:00.000000Z", date="1234806360")
    return OaiItems(storage)


def test_items_are_listed_by_their_last_change_in_the_repository(items):
    listed = items.page(Selection(), None, 10)
    assert [entry.item.rep for entry in listed] == ["d/4", "a/1", "c/3", "b/2"]
    assert [entry.datestamp for entry in listed] == [
        "2026-11-28T09:00:00Z", "2026-11-28T09:00:00Z", "2026-11-28T10:00:00Z", "2026-11-28T10:00:00Z"]
    assert listed[2].item.deleted and not listed[3].item.deleted
    assert listed[0].item.timestamp.year == 2009  # its Table 9.3 timestamp, which no harvest since 2009 would see


def test_a_page_starts_after_its_mark_and_what_changes_or_comes_since_is_at_the_end(items, storage):
    first = items.page(Selection(), None, 2)
    assert [entry.item.rep for entry in first] == ["d/4", "a/1"]
    mark = (first[-1].change_key, first[-1].row_id)
    with storage.write_transaction() as conn:  # d/4, already given, changed within the second of b/2
        conn.execute(update(minted_item).where(minted_item.c.rep == "d/4").values(updated_at="2026-11-28T10:00:00.750000Z"))
    rest = items.page(Selection(), mark, 2)
    assert [entry.item.rep for entry in rest] == ["c/3", "b/2"]
    mark = (rest[-1].change_key, rest[-1].row_id)
    add(storage, "e/5", "2026-11-28T10:00:00.600000Z")  # stored after that page, within its last second
    assert [entry.item.rep for entry in items.page(Selection(), mark, 10)] == ["e/5", "d/4"]


def test_from_until_and_type_select_and_count(items):
    window = Selection(since="2026-11-28T10:00:00", until="2026-11-28T10:00:00")
    assert [entry.item.rep for entry in items.page(window, None, 10)] == ["c/3", "b/2"]
    assert items.count(window) == 2
    assert items.count(Selection(until="2026-11-28T08:59:59")) == 0
    assert items.count(Selection(since="2026-11-28T09:00:00", until="2026-11-28T09:00:00")) == 2
    reports = Selection(item_type="report")
    assert [entry.item.rep for entry in items.page(reports, None, 10)] == ["a/1", "c/3"] and items.count(reports) == 2


def test_earliest_and_find(items, storage):
    assert items.earliest() == "2026-11-28T09:00:00.000000Z"
    found = items.find("c/3")
    assert found is not None and found.item.deleted and found.datestamp == "2026-11-28T10:00:00Z"
    assert items.find("C/3") is None and items.find("z/9") is None
    assert OaiItems(storage).count(Selection(item_type="dataset")) == 0


def test_an_empty_archive_has_no_earliest(storage):
    assert OaiItems(storage).earliest() is None
