"""The own Archive's items as an OAI-PMH data provider lists them: in order of their last change.

An item's OAI datestamp is when its record last changed *in this repository*, to the second: its
last change or deletion (``updated_at``, also its Table 9.3 timestamp), else when it was stored
(``created_at``). Not its identification date, which is no time of storage: the temporal
distributor may date an item a little before or after it is stored (Algorithm 4), and an item
brought from another Archive keeps a date of long ago. A harvester asks for what changed since
its last harvest (``from``), and would never see an item dated before that.

Lists are ordered by the *change key*, that time as stored (ISO 8601 UTC to the microsecond, one
width for all, so text order is time order; its first 19 characters are the datestamp), then
the row id. A resumption token holds the last ``(change key, id)`` a harvest saw
(ibiportal.archive.oai_pmh) and the next page starts after it: an item changed or stored once a
page is out has a later key than any on it, so it comes after the mark, at the end of the list,
and the harvest meets it there.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, func, or_, select
from sqlalchemy.sql.elements import ColumnElement

from ..ibi.minted import MintedItem
from .database import Storage
from .identifiers import _minted_item
from .schema import minted_item

#: ``YYYY-MM-DDThh:mm:ss``: how much of a change key a datestamp (and a from/until bound) is.
SECOND_CHARS = 19

#: The change key of a ``minted_item`` row (module docstring).
CHANGE_KEY: ColumnElement[str] = func.coalesce(minted_item.c.updated_at, minted_item.c.created_at)


@dataclass(frozen=True)
class ListedItem:
    """A minted item with its place in the list: its change key and row id."""

    change_key: str
    row_id: int
    item: MintedItem

    @property
    def datestamp(self) -> str:
        """The OAI datestamp, ``YYYY-MM-DDThh:mm:ssZ``."""
        return self.change_key[:SECOND_CHARS] + "Z"


@dataclass(frozen=True)
class Selection:
    """Which items a list holds: changed within ``[since, until]`` (each ``YYYY-MM-DDThh:mm:ss``,
    both inclusive, either open) and of ``item_type`` (an ItemType slug) when given."""

    since: str | None = None
    until: str | None = None
    item_type: str | None = None

    def conditions(self) -> list[ColumnElement[bool]]:
        second = func.substr(CHANGE_KEY, 1, SECOND_CHARS)
        conditions = []
        if self.since is not None:
            conditions.append(second >= self.since)
        if self.until is not None:
            conditions.append(second <= self.until)
        if self.item_type is not None:
            conditions.append(minted_item.c.item_type == self.item_type)
        return conditions


class OaiItems:
    """The reads of the OAI-PMH data provider over one :class:`Storage`."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def page(self, selection: Selection, after: tuple[str, int] | None, limit: int) -> list[ListedItem]:
        """At most ``limit`` selected items after the ``(change key, id)`` mark, in that order."""
        key = CHANGE_KEY.label("change_key")
        query = select(minted_item, key).where(*selection.conditions()).order_by(key, minted_item.c.id).limit(limit)
        if after is not None:
            mark_key, mark_id = after
            query = query.where(or_(CHANGE_KEY > mark_key, and_(CHANGE_KEY == mark_key, minted_item.c.id > mark_id)))
        return [ListedItem(row.change_key, row.id, _minted_item(row)) for row in self.storage.read(query)]

    def count(self, selection: Selection) -> int:
        """How many items the selection holds (a list's ``completeListSize``)."""
        query = select(func.count()).select_from(minted_item).where(*selection.conditions())
        return self.storage.read(query).scalar_one()

    def earliest(self) -> str | None:
        """The smallest change key of all (Identify's ``earliestDatestamp``), ``None`` when empty."""
        return self.storage.read(select(func.min(CHANGE_KEY))).scalar_one()

    def find(self, rep: str) -> ListedItem | None:
        """The item of repository name ``rep`` (as stored), deleted or not."""
        key = CHANGE_KEY.label("change_key")
        row = self.storage.read(select(minted_item, key).where(minted_item.c.rep == rep)).first()
        return ListedItem(row.change_key, row.id, _minted_item(row)) if row else None

