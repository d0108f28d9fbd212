"""What minting produces and keeps: the identifiers the portal issued (the items of its own
Archive), their links to other IBIs, and Algorithm 4's persisted state per subsystem.

Minting makes these values, storage keeps them and the own Archive serves them; none of the
three owns them, so each imports them from here.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal


@dataclass(frozen=True)
class SubsystemClock:
    """A subsystem's persisted Algorithm 4 state: the last ``date_for_suffix`` issued, the
    clock reading of that request and the offset that keeps the clock monotonic (a reading
    earlier than the last one means the system clock stepped back; the step joins the offset)."""

    last_date: Decimal
    last_reading: Decimal
    offset: Decimal


#: The relations of an :class:`ItemLink`: ``ibi.nextedition`` and ``ibi.translation(<language>)``
#: of Algorithm 2 (file 003 §9).
NEXT_EDITION = "nextedition"
TRANSLATION = "translation"


@dataclass(frozen=True)
class ItemLink:
    """A minted item's link to another IBI: ``nextedition``, or ``translation`` into ``language``."""

    relation: str
    target: str
    language: str = ""


@dataclass(frozen=True)
class Bibliographic:
    """What a reference needs beyond title, creators and date: the kind of item (an
    ``ibiportal.citation.ItemType`` slug such as ``doctoral thesis``), who published it where,
    its extent in pages, a thesis's degree and a report's number. All optional."""

    item_type: str | None = None
    publisher: str | None = None
    place: str | None = None
    extent: str | None = None
    degree: str | None = None
    report_number: str | None = None


@dataclass(frozen=True)
class MintedItem:
    """An identifier the portal issued, in both forms, and what was given with it.

    ``updated_at`` is when it last changed after minting (``None``: never), ``deleted_at`` when
    it was deleted (its tombstone: the row stays, so the IBI is never issued again). Both are
    ISO 8601 UTC texts. ``released_at`` is when it moved to the Archive at ``successor`` (its
    service URL): the row stays, so the IBI is never issued again, but the own Archive no longer
    holds the item.
    """

    rep: str
    ibip: str
    date: Decimal
    utc: str
    subsystem: str
    title: str | None = None
    target_url: str | None = None
    creators: tuple[str, ...] = ()
    item_date: str | None = None
    language: str | None = None
    bibliographic: Bibliographic = Bibliographic()
    updated_at: str | None = None
    deleted_at: str | None = None
    released_at: str | None = None
    successor: str | None = None

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def released(self) -> bool:
        return self.released_at is not None

    @property
    def timestamp(self) -> datetime:
        """Table 9.3 ``timestamp``: "data e hora da última atualização ou remoção" – the last
        change or the deletion, else the identification date (whole seconds)."""
        if self.updated_at is not None:
            return datetime.fromisoformat(self.updated_at).replace(microsecond=0)
        return datetime.fromtimestamp(int(self.date), tz=timezone.utc)
