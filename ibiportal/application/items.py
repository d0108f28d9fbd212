"""The own Archive's items after minting: read, changed, deleted (file 003 §9.2, Table 9.3).

One use case for the JSON API (``/api/v1/items/<ibi>``) and the administrator's pages. A change
rewrites what was given at minting (target URL, bibliographic fields, language) and the
item's links (the previous edition whose ``ibi.nextedition`` it is, the original whose
``ibi.translation(<language>)`` it is); a deletion leaves the tombstone Algorithm 2 answers
(``ibi``, ``state Deleted``, ``timestamp``); a release (``application.releasing``) hands the item to
its successor Archive, after which the own Archive answers it nothing. Every change happens in one write transaction that
drops the cached resolutions of the IBI, and of every item linked to it (whose answers may give
its URL without a hop to it: ``X+(pt)``), on every node (``storage.signal.ibis_changed``), so the
resolver answers the new state at once. A change's fields are read exactly as a mint request's
are (:meth:`~ibiportal.ibi.mint_request.MintRequest.with_fields`: only the fields it changes, the
others kept as stored), so nothing can be changed into something that could not have been minted.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from sqlalchemy import ColumnElement

from ..archive.model import ItemState
from ..errors import Gone, NotFound, ParseError
from ..i18n import N_
from ..ibi.identifier import Identifier, parse_ibi
from .item_links import link, linked_item, linked_items
from ..ibi.minted import NEXT_EDITION, TRANSLATION, ItemLink, MintedItem
from ..ibi.mint_request import BIBLIOGRAPHIC_LIMITS, MintRequest
from ..ibi.history import DELETED, EDITED, RELEASED, UNLINKED, Actor, Change, HistoryEntry
from ..storage.history import HistoryStore, record_change
from ..storage.identifiers import IdentifierStore

#: What a change may set, under the names of a mint request (null clears a field).
EDITABLE_FIELDS = (
    "target_url", "title", "creators", "date", "language", "item_type", *BIBLIOGRAPHIC_LIMITS,
    "previous_edition", "translation_of",
)


class ItemNotFound(NotFound):
    """No item of the own Archive has this IBI."""

    field = "ibi"


class ItemDeleted(Gone):
    """The item was deleted: its tombstone can be read, not changed."""

    field = "ibi"


class ItemReleased(ItemDeleted):
    """The item moved to another Archive: what is kept of it here can be read, not changed (410,
    refused wherever a tombstone's change is)."""


#: What an item released to another Archive is called where the own Archive's items are listed
#: (not a Table 9.3 state: the own Archive answers it nothing).
RELEASED_STATE = "Released"


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
    def changeable(self) -> bool:
        """Whether anything about it can still change here: not deleted, not released."""
        return not (self.minted.deleted or self.minted.released)

    @property
    def state(self) -> str:
        """``Original`` or ``Deleted`` (Table 9.3), or :data:`RELEASED_STATE`."""
        if self.minted.released:
            return RELEASED_STATE
        return ItemState.DELETED if self.minted.deleted else ItemState.ORIGINAL


class ItemService:
    """Read, change and delete the own Archive's items over one :class:`IdentifierStore`, each
    change recorded in the item's history (:class:`HistoryStore`, read by :meth:`history`)."""

    def __init__(self, store: IdentifierStore, history: HistoryStore) -> None:
        self.store = store
        self.recorded = history

    def find(self, ibi: str) -> ItemRecord:
        """The item ``ibi`` (either form, any case) names, deleted ones included.

        Raises :class:`ParseError` when ``ibi`` is not an IBI, :class:`ItemNotFound` when this
        Archive has no such item.
        """
        minted = self._minted(ibi)
        return ItemRecord(minted, self._relations(minted))

    def history(self, ibi: str) -> tuple[ItemRecord, list[HistoryEntry]]:
        """The item ``ibi`` names and every change of it, oldest first (:meth:`find`'s refusals)."""
        found = self.find(ibi)
        return found, self.recorded.entries(found.minted.ibip)

    def search(self, text: str = "", limit: int = 50, offset: int = 0,
               only: ColumnElement[bool] | None = None) -> list[ItemRecord]:
        """Items whose IBI, title or creators contain ``text``, newest first (the admin list);
        ``only`` those of a filter (:meth:`~.targets.TargetChecks.in_state`)."""
        return [ItemRecord(minted, self._relations(minted))
                for minted in self.store.search_minted(text, limit, offset, only)]

    def change(self, ibi: str, fields: Mapping[str, object], *, actor: Actor) -> ItemRecord:
        """Set the given ``fields`` (:data:`EDITABLE_FIELDS`; null clears one), leave the others;
        the item's history records each field changed, old and new, as ``actor``'s.

        Raises :class:`ParseError` naming the field at fault (nothing is changed then),
        :class:`ItemNotFound`, or :class:`ItemDeleted`.
        """
        found, wanted = self._wanted(ibi, fields)
        after = self._after(found, wanted, fields)
        with self.store.storage.write_transaction() as conn:
            minted = self.store.lock_minted(conn, found.minted.ibip)
            assert minted is not None  # items are never removed, only marked deleted
            refuse_unchangeable(minted)
            relations = self._relations(minted)
            related = linked_items(self.store, minted.ibip)
            relinked = self._relink_edition(conn, minted, relations, wanted, fields, actor)
            relinked = self._relink_translation(conn, minted, relations, wanted, fields, actor) or relinked
            columns = _changed_columns(minted, wanted)
            if columns or relinked:
                related |= linked_items(self.store, minted.ibip) if relinked else set()
                self.store.change_minted(conn, minted, related, **columns)
                changes = _field_changes(_as_fields(ItemRecord(minted, relations)), after)
                record_change(conn, minted.ibip, Change(actor, EDITED, {"changes": changes}))
        return self.find(minted.ibip)

    def preview(self, ibi: str, fields: Mapping[str, object]) -> tuple[ItemRecord, list[dict[str, object]]]:
        """What :meth:`change` would do now, nothing written: the item and each field that would
        change (``{"field", "old", "new"}``, as the history records it); :meth:`change`'s
        refusals, but a link to another item is checked only when the change is made."""
        found, wanted = self._wanted(ibi, fields)
        return found, _field_changes(_as_fields(found), self._after(found, wanted, fields))

    def _wanted(self, ibi: str, fields: Mapping[str, object]) -> tuple[ItemRecord, MintRequest]:
        """The item and what it would be with ``fields`` set: only those read, as a mint request
        reads them (every field's error at once), the others kept as stored; its links are in
        the request only when ``fields`` gives them."""
        unknown = sorted(set(fields) - set(EDITABLE_FIELDS))
        if unknown:
            raise ParseError(
                N_("%(field)s cannot be changed; an item's changeable fields are %(fields)s",
                   field=unknown[0], fields=", ".join(EDITABLE_FIELDS)),
                field=unknown[0],
            )
        found = self.find(ibi)
        refuse_unchangeable(found.minted)
        held = _as_request(found.minted)
        return found, held.with_fields(fields, translated=found.relations.translation_of is not None)

    def _after(self, found: ItemRecord, wanted: MintRequest, fields: Mapping[str, object]) -> dict[str, object]:
        """A validated change as the fields :func:`_field_changes` compares, links as IBIps (those
        not given as they are)."""
        relations = found.relations
        return {
            **_request_fields(wanted),
            "previous_edition": (self._target(wanted.previous_edition) if "previous_edition" in fields
                                 else relations.previous_edition),
            "translation_of": (self._target(wanted.translation_of) if "translation_of" in fields
                               else relations.translation_of),
        }

    def delete(self, ibi: str, *, actor: Actor) -> ItemRecord:
        """Make the item Deleted: its metadata and links stay as the tombstone, dated now, and
        its IBI is never issued again; its history records it as ``actor``'s. Raises
        :class:`ItemNotFound` or :class:`ItemDeleted`."""
        found = self.find(ibi)
        with self.store.storage.write_transaction() as conn:
            minted = self.store.lock_minted(conn, found.minted.ibip)
            assert minted is not None
            refuse_unchangeable(minted)
            self.store.delete_minted(conn, minted, linked_items(self.store, minted.ibip))
            record_change(conn, minted.ibip, Change(actor, DELETED))
        return self.find(minted.ibip)

    def release(self, ibi: str, successor: str, url: str, *, actor: Actor) -> ItemRecord:
        """Stop holding the item: the Archive at ``successor`` (its service URL) answered it as
        its Original at ``url`` (``application.releasing`` asked). The row stays, so the IBI is
        never issued again; its history records where it went as ``actor``'s. Raises
        :class:`ItemNotFound`, :class:`ItemDeleted` or :class:`ItemReleased`."""
        found = self.find(ibi)
        with self.store.storage.write_transaction() as conn:
            minted = self.store.lock_minted(conn, found.minted.ibip)
            assert minted is not None
            refuse_unchangeable(minted)
            self.store.release_minted(conn, minted, successor, linked_items(self.store, minted.ibip))
            record_change(conn, minted.ibip, Change(actor, RELEASED, {"successor": successor, "url": url}))
        return self.find(minted.ibip)

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

    def _relink_edition(self, conn, minted: MintedItem, relations: ItemRelations, wanted: MintRequest,
                        fields: Mapping[str, object], actor: Actor) -> bool:
        """Make ``minted`` the next edition of ``wanted.previous_edition`` (or of nothing), when
        ``fields`` gives it."""
        if "previous_edition" not in fields:
            return False
        new = self._target(wanted.previous_edition)
        if new == relations.previous_edition:
            return False
        if relations.previous_edition is not None:
            self._unlink(conn, relations.previous_edition, ItemLink(NEXT_EDITION, minted.ibip), actor)
        if wanted.previous_edition is not None:
            earlier = linked_item(self.store, wanted.previous_edition, "previous_edition", minted.ibip)
            link(self.store, conn, earlier, ItemLink(NEXT_EDITION, minted.ibip), "previous_edition", actor)
        return True

    def _relink_translation(self, conn, minted: MintedItem, relations: ItemRelations, wanted: MintRequest,
                            fields: Mapping[str, object], actor: Actor) -> bool:
        """Make ``minted`` the translation into ``wanted.language`` of ``wanted.translation_of``
        (or of nothing) when ``fields`` gives it, else of the original it translates now; a new
        language of a translation moves its link too."""
        original_ibi = wanted.translation_of if "translation_of" in fields else relations.translation_of
        new = self._target(original_ibi)
        language = (wanted.language or "") if new is not None else None
        if (new, language) == (relations.translation_of, relations.translation_language):
            return False
        if relations.translation_of is not None:
            self._unlink(conn, relations.translation_of,
                         ItemLink(TRANSLATION, minted.ibip, relations.translation_language or ""), actor)
        if original_ibi is not None:
            original = linked_item(self.store, original_ibi, "translation_of", minted.ibip)
            link(self.store, conn, original, ItemLink(TRANSLATION, minted.ibip, wanted.language or ""), "translation_of",
                 actor)
        return True

    def _unlink(self, conn, ibip: str, old: ItemLink, actor: Actor) -> None:
        """Take ``old`` from the item ``ibip``, recorded in its history."""
        self.store.remove_item_link(conn, ibip, old.relation, old.language)
        record_change(conn, ibip, Change(actor, UNLINKED, {"relation": old.relation, "language": old.language, "item": old.target}))

    def _target(self, ibi: Identifier | str | None) -> str | None:
        """The IBIp of the own item ``ibi`` (parsed, or an IBIp as stored) names, ``ibi`` itself
        when there is none (refused later)."""
        if ibi is None:
            return None
        key = str(ibi)
        found = self.store.find_minted(rep=key, ibip=key)
        return key if found is None else found.ibip


def refuse_unchangeable(minted: MintedItem) -> None:
    """Refuse to change a tombstone, or an item another Archive holds now."""
    if minted.released:
        raise ItemReleased(N_("%(ibi)s was released to the Archive at %(successor)s on %(date)s: this Archive no "
                              "longer holds it, so it cannot be changed here", ibi=minted.ibip,
                              successor=minted.successor, date=minted.released_at))
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


def _as_request(minted: MintedItem) -> MintRequest:
    """What the item holds, as the (valid) mint request a change starts from; no links."""
    return MintRequest(title=minted.title, target_url=minted.target_url, creators=minted.creators,
                       item_date=minted.item_date, language=minted.language, bibliographic=minted.bibliographic)


def _request_fields(wanted: MintRequest) -> dict[str, object]:
    """A validated change as the fields of a mint request (:func:`_as_fields`' twin), links aside."""
    return {
        "target_url": wanted.target_url, "title": wanted.title, "creators": list(wanted.creators),
        "date": wanted.item_date, "language": wanted.language, **asdict(wanted.bibliographic),
    }


def _field_changes(before: Mapping[str, object], after: Mapping[str, object]) -> list[dict[str, object]]:
    """Each field that differs: ``{"field", "old", "new"}``, under the names the API and the edit
    form use, in :data:`EDITABLE_FIELDS` order."""
    return [{"field": name, "old": before[name], "new": after[name]}
            for name in EDITABLE_FIELDS if before[name] != after[name]]


def _changed_columns(minted: MintedItem, wanted: MintRequest) -> dict[str, object]:
    """The ``minted_item`` columns whose value ``wanted`` changes."""
    now = {"target_url": minted.target_url, "title": minted.title, "creators": minted.creators,
           "item_date": minted.item_date, "language": minted.language, **asdict(minted.bibliographic)}
    new = {"target_url": wanted.target_url, "title": wanted.title, "creators": wanted.creators,
           "item_date": wanted.item_date, "language": wanted.language, **asdict(wanted.bibliographic)}
    return {name: value for name, value in new.items() if now[name] != value}
