"""The rules of an own item's links to other own items: its previous edition (whose
``ibi.nextedition`` it becomes) and the original it translates (whose
``ibi.translation(<language>)`` it becomes), Algorithm 2 of file 003 §9.

Minting and changing an item both link through here, inside their write transaction, so a bad
link rolls the whole change back and both say the same thing about it.
"""
from __future__ import annotations

from sqlalchemy import Connection

from ..errors import ParseError
from ..i18n import N_
from ..ibi.identifier import Identifier
from ..ibi.minted import NEXT_EDITION, ItemLink, MintedItem
from ..ibi.history import LINKED, Actor, Change
from ..storage.history import record_change
from ..storage.identifiers import IdentifierStore


def linked_item(store: IdentifierStore, ibi: Identifier | str, field: str, item: str) -> MintedItem:
    """The own item ``ibi`` (parsed in either form, or an own item's IBIp as stored) names (``field`` is ``previous_edition`` or
    ``translation_of``), for item ``item`` (its IBIp) to link to: it must exist, be held here (not
    deleted, not released to another Archive), and not be ``item``."""
    key = str(ibi)
    other = store.find_minted(rep=key, ibip=key)
    if other is None:
        raise ParseError(N_("%(field)s %(ibi)s is not an item of this portal's Archive", field=field, ibi=key), field=field)
    if other.released:
        raise ParseError(N_("%(field)s %(ibi)s was released to the Archive at %(successor)s: link to an item held here",
                            field=field, ibi=key, successor=other.successor), field=field)
    if other.deleted:
        raise ParseError(N_("%(field)s %(ibi)s was deleted on %(deleted_at)s: link to an item that is not", field=field, ibi=key, deleted_at=other.deleted_at), field=field)
    if other.ibip == item:
        raise ParseError(N_("%(field)s %(ibi)s is this item itself", field=field, ibi=key), field=field)
    return other


def link(store: IdentifierStore, conn: Connection, earlier: MintedItem, new: ItemLink, field: str, actor: Actor) -> None:
    """Give ``earlier`` the link ``new`` (its next edition, or its translation into a language),
    unless it has it already, and record it in ``earlier``'s history as ``actor``'s. Refused:
    ``earlier`` already has another next edition or translation into that language, or a next
    edition that would close a circle of editions."""
    for old in store.item_links(earlier.ibip):
        if (old.relation, old.language) == (new.relation, new.language):
            if old.target == new.target:
                return
            if new.language:
                message = N_("%(ibip)s already has a translation into %(language)s: %(target)s", ibip=earlier.ibip,
                             language=new.language, target=old.target)
            else:
                message = N_("%(ibip)s already has a next edition: %(target)s", ibip=earlier.ibip, target=old.target)
            raise ParseError(message, field=field)
    if new.relation == NEXT_EDITION:
        _refuse_circle(store, earlier.ibip, new.target, field)
    store.add_item_link(conn, earlier.ibip, new)
    record_change(conn, earlier.ibip, Change(actor, LINKED, {"relation": new.relation, "language": new.language, "item": new.target}))


def _refuse_circle(store: IdentifierStore, earlier: str, item: str, field: str) -> None:
    """Following ``item``'s next editions must never reach ``earlier`` (the resolver would loop)."""
    seen, current = set(), item
    while current is not None and current not in seen:
        if current == earlier:
            raise ParseError(N_("%(earlier)s is a later edition of %(item)s: it cannot also be its previous edition", earlier=earlier, item=item), field=field)
        seen.add(current)
        current = next((link.target for link in store.item_links(current) if link.relation == NEXT_EDITION), None)


def linked_items(store: IdentifierStore, ibip: str) -> set[str]:
    """Every own item (IBIp) joined to ``ibip`` through links either way: its edition chain, its
    translations, their editions… A change of ``ibip`` can make the cached resolutions of any
    of them wrong, because an answer gives the URL of a related item without a hop to it
    (``X+(pt)`` is answered by X with T's URL; ``T+(en)`` by T with X's)."""
    seen: set[str] = set()
    waiting = [ibip]
    while waiting:
        current = waiting.pop()
        if current not in seen:
            seen.add(current)
            waiting += [link.target for link in store.item_links(current)]
            waiting += [source for source, _ in store.links_to(current)]
    return seen
