"""The own Archive's items after minting: read, changed, deleted (file 003 §9.2, Table 9.3).

One use case for the JSON API (``/api/v1/items/<ibi>``) and the administrator's pages. A change
rewrites what was given at minting (target URL, bibliographic fields, language) and the
item's links (the previous edition whose ``ibi.nextedition`` it is, the original whose
``ibi.translation(<language>)`` it is); a deletion leaves the tombstone Algorithm 2 answers
(``ibi``, ``state Deleted``, ``timestamp``). Every change happens in one write transaction that
drops the cached resolutions of the IBI, and of every item linked to it (whose answers may give
its URL without a hop to it: ``X+(pt)``), on every node (``storage.signal.ibis_changed``), so the
resolver answers the new state at once. A change is validated exactly as a mint request is
(:class:`~ibiportal.minting.MintRequest`), so nothing can be changed into something that could
not have been minted.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from ..archive.model import ItemState
from ..errors import IbiError, ParseError
from ..i18n import N_
from ..ibi.identifier import parse_ibi
from ..item_links import link, linked_item, linked_items
from ..minted import NEXT_EDITION, TRANSLATION, ItemLink, MintedItem
from ..minting import BIBLIOGRAPHIC_LIMITS, MintRequest
from ..storage.identifiers import IdentifierStore

#: What a change may set, under the names of a mint request (null clears a field).
EDITABLE_FIELDS = (
    "target_url", "title", "creators", "date", "language", "item_type", *BIBLIOGRAPHIC_LIMITS,
    "previous_edition", "translation_of",
)


class ItemNotFound(IbiError):
    """No item of the own Archive has this IBI (404)."""


class ItemDeleted(IbiError):
    """The item was deleted: its tombstone can be read, not changed (410)."""


@dataclass(frozen=True)
class ItemRelations:
    """An item's links, each way, as IBIps of own items: ``previous_edition`` is the item whose
    next edition it is, ``translation_of`` (with ``translation_language``) the original it
    translates; ``translations`` are ``(language, IBIp)`` of its own translations."""

    previous_edition: str | None = None
    next_edition: str | None = None
    translation_of: str | None = None
    translation_language: str | None = None
    translations: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ItemRecord:
    """An own item as its administrator sees it: what was minted and changed, and its links."""

    minted: MintedItem
    relations: ItemRelations

    @property
    def state(self) -> ItemState:
        return ItemState.DELETED if self.minted.deleted else ItemState.ORIGINAL


class ItemService:
    """Read, change and delete the own Archive's items over one :class:`IdentifierStore`."""

    def __init__(self, store: IdentifierStore) -> None:
        self.store = store

    def find(self, ibi: str) -> ItemRecord:
        """The item ``ibi`` (either form, any case) names, deleted ones included.

        Raises :class:`ParseError` when ``ibi`` is not an IBI, :class:`ItemNotFound` when this
        Archive has no such item.
        """
        minted = self._minted(ibi)
        return ItemRecord(minted, self._relations(minted))

    def search(self, text: str = "", limit: int = 50, offset: int = 0) -> list[ItemRecord]:
        """Items whose IBI, title or creators contain ``text``, newest first (the admin list)."""
        return [ItemRecord(minted, self._relations(minted)) for minted in self.store.search_minted(text, limit, offset)]

    def change(self, ibi: str, fields: Mapping[str, object]) -> ItemRecord:
        """Set the given ``fields`` (:data:`EDITABLE_FIELDS`; null clears one), leave the others.

        Raises :class:`ParseError` naming the field at fault (nothing is changed then),
        :class:`ItemNotFound`, or :class:`ItemDeleted`.
        """
        unknown = sorted(set(fields) - set(EDITABLE_FIELDS))
        if unknown:
            raise ParseError(
                N_("%(field)s cannot be changed; an item's changeable fields are %(fields)s",
                   field=unknown[0], fields=", ".join(EDITABLE_FIELDS)),
                field=unknown[0],
            )
        record = self.find(ibi)
        _refuse_deleted(record.minted)
        wanted = MintRequest.parse({**_as_fields(record), **fields})
        with self.store.storage.write_transaction() as conn:
            minted = self.store.lock_minted(conn, record.minted.ibip)
            assert minted is not None  # items are never removed, only marked deleted
            _refuse_deleted(minted)
            relations = self._relations(minted)
            related = linked_items(self.store, minted.ibip)
            relinked = self._relink_edition(conn, minted, relations, wanted)
            relinked = self._relink_translation(conn, minted, relations, wanted) or relinked
            columns = _changed_columns(minted, wanted)
            if columns or relinked:
                related |= linked_items(self.store, minted.ibip) if relinked else set()
                self.store.change_minted(conn, minted, related, **columns)
        return self.find(record.minted.ibip)

    def delete(self, ibi: str) -> ItemRecord:
        """Make the item Deleted: its metadata and links stay as the tombstone, dated now, and
        its IBI is never issued again. Raises :class:`ItemNotFound` or :class:`ItemDeleted`."""
        record = self.find(ibi)
        with self.store.storage.write_transaction() as conn:
            minted = self.store.lock_minted(conn, record.minted.ibip)
            assert minted is not None
            _refuse_deleted(minted)
            self.store.delete_minted(conn, minted, linked_items(self.store, minted.ibip))
        return self.find(record.minted.ibip)

    def _minted(self, ibi: str) -> MintedItem:
        key = str(parse_ibi(ibi))
        minted = self.store.find_minted(rep=key, ibip=key)
        if minted is None:
            raise ItemNotFound(N_("%(ibi)s is not an item of this portal's Archive", ibi=ibi))
        return minted

    def _relations(self, minted: MintedItem) -> ItemRelations:
        own = self.store.item_links(minted.ibip)
        toward = self.store.links_to(minted.ibip)
        translated = next(((ibi, link.language) for ibi, link in toward if link.relation == TRANSLATION), (None, None))
        return ItemRelations(
            previous_edition=next((ibi for ibi, link in toward if link.relation == NEXT_EDITION), None),
            next_edition=next((link.target for link in own if link.relation == NEXT_EDITION), None),
            translation_of=translated[0],
            translation_language=translated[1],
            translations=tuple((link.language, link.target) for link in own if link.relation == TRANSLATION),
        )

    def _relink_edition(self, conn, minted: MintedItem, relations: ItemRelations, wanted: MintRequest) -> bool:
        """Make ``minted`` the next edition of ``wanted.previous_edition`` (or of nothing)."""
        new = self._target(wanted.previous_edition)
        if new == relations.previous_edition:
            return False
        if relations.previous_edition is not None:
            self.store.remove_item_link(conn, relations.previous_edition, NEXT_EDITION)
        if wanted.previous_edition is not None:
            earlier = linked_item(self.store, wanted.previous_edition, "previous_edition", minted.ibip)
            link(self.store, conn, earlier, ItemLink(NEXT_EDITION, minted.ibip), "previous_edition")
        return True

    def _relink_translation(self, conn, minted: MintedItem, relations: ItemRelations, wanted: MintRequest) -> bool:
        """Make ``minted`` the translation into ``wanted.language`` of ``wanted.translation_of``
        (or of nothing); a new language of a translation moves its link too."""
        new = self._target(wanted.translation_of)
        language = (wanted.language or "") if new is not None else None
        if (new, language) == (relations.translation_of, relations.translation_language):
            return False
        if relations.translation_of is not None:
            self.store.remove_item_link(conn, relations.translation_of, TRANSLATION, relations.translation_language or "")
        if wanted.translation_of is not None:
            original = linked_item(self.store, wanted.translation_of, "translation_of", minted.ibip)
            link(self.store, conn, original, ItemLink(TRANSLATION, minted.ibip, wanted.language or ""), "translation_of")
        return True

    def _target(self, ibi: str | None) -> str | None:
        """The IBIp of the own item ``ibi`` names, ``ibi`` itself when there is none (refused later)."""
        if ibi is None:
            return None
        found = self.store.find_minted(rep=ibi, ibip=ibi)
        return ibi if found is None else found.ibip


def _refuse_deleted(minted: MintedItem) -> None:
    if minted.deleted:
        raise ItemDeleted(N_("%(ibi)s was deleted on %(date)s: its tombstone cannot be changed",
                             ibi=minted.ibip, date=minted.deleted_at))


def _as_fields(record: ItemRecord) -> dict[str, object]:
    """The item as the fields of a mint request, so a change is validated as a mint is."""
    minted = record.minted
    return {
        "target_url": minted.target_url, "title": minted.title, "creators": list(minted.creators),
        "date": minted.item_date, "language": minted.language, **asdict(minted.bibliographic),
        "previous_edition": record.relations.previous_edition, "translation_of": record.relations.translation_of,
    }


def _changed_columns(minted: MintedItem, wanted: MintRequest) -> dict[str, object]:
    """The ``minted_item`` columns whose value ``wanted`` changes."""
    now = {"target_url": minted.target_url, "title": minted.title, "creators": minted.creators,
           "item_date": minted.item_date, "language": minted.language, **asdict(minted.bibliographic)}
    new = {"target_url": wanted.target_url, "title": wanted.title, "creators": wanted.creators,
           "item_date": wanted.item_date, "language": wanted.language, **asdict(wanted.bibliographic)}
    return {name: value for name, value in new.items() if now[name] != value}
