"""The own Archive's items as an OAI-PMH data provider lists them: in order of their last change.

An item's OAI datestamp is its Table 9.3 timestamp (:attr:`~ibiportal.minted.MintedItem.timestamp`:
its last change or deletion, else its identification date), to the second. Lists are ordered by
a finer key, the *change key*: ``updated_at`` as stored (microseconds), else the identification
date written the same way (``…T10:11:12.250000Z``). Every key is ISO 8601 UTC text of one
width, so text order is time order, and its first 19 characters are the datestamp.

Why finer than the datestamp: a resumption token holds the last ``(change key, id)`` a harvest
saw (ibiportal.archive.oai_pmh), and the next page starts after it. An item changed once a page
is out gets a key later than any on it, so it moves past the end of the list and the harvest
meets it there, as it meets an item minted meanwhile. With whole seconds, an item changed or
minted within the second of the page's last item would, with a smaller id, have come before the
mark, and been skipped.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, func, or_, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import Text

from ..minted import MintedItem
from .database import Storage
from .identifiers import _minted_item
from .schema import minted_item

#: ``YYYY-MM-DDThh:mm:ss``: how much of a change key a datestamp (and a from/until bound) is.
SECOND_CHARS = 19


class _DateKey(FunctionElement):
    """A decimal Unix time kept as text (``1234806360.25``), as a change key:
    ``2009-02-16T17:46:00.250000Z``. The second is ``int(date)``'s, as MintedItem.timestamp
    takes it; the fraction is the text's own digits (no float rounds them into the next second)."""

    type = Text()
    inherit_cache = True


_POINT = "'.'"


def _fraction(date: str, position: str) -> str:
    """The six digits after the point of ``date`` (``000000`` without one), ``position`` being
    the dialect's expression of where the point is."""
    return f"substr(CASE WHEN {position} > 0 THEN substr({date}, {position} + 1) ELSE '' END || '000000', 1, 6)"


@compiles(_DateKey, "sqlite")
def _date_key_sqlite(element: _DateKey, compiler, **kw) -> str:
    date = compiler.process(element.clauses, **kw)
    second = f"strftime('%Y-%m-%dT%H:%M:%S', CAST({date} AS INTEGER), 'unixepoch')"
    return f"{second} || '.' || {_fraction(date, f'instr({date}, {_POINT})')} || 'Z'"


@compiles(_DateKey, "postgresql")
def _date_key_postgresql(element: _DateKey, compiler, **kw) -> str:
    date = compiler.process(element.clauses, **kw)
    moment = f"to_timestamp(trunc(CAST({date} AS numeric)))"
    second = f"""to_char({moment} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')"""
    return f"{second} || '.' || {_fraction(date, f'strpos({date}, {_POINT})')} || 'Z'"


#: The change key of a ``minted_item`` row (module docstring).
CHANGE_KEY: ColumnElement[str] = func.coalesce(minted_item.c.updated_at, _DateKey(minted_item.c.date))


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

