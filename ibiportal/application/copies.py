"""Copies the own Archive holds of other Archives' items (file 003 §5.2: an item may be held by
several Archives, each answering its own ``state``; a copy answers ``state Copy``).

Holding a copy is saying "this Archive serves item X at URL U": the resolver may then send a
user there when no original is required (§8.2). The copy is found in either form of its IBI
where the prefix table knows both (STANDARD.md §1.4), and every change drops the IBI's cached
resolutions on every node.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..archive.model import IbiForms
from ..archive.own import known_forms
from ..archive.store import ibi_key
from ..errors import Conflict, NotFound, ParseError
from ..i18n import N_
from ..ibi.mint_request import parse_target_url
from ..storage.copies import CopyRecord, CopyStore
from ..ibi.history import Actor
from ..storage.identifiers import IdentifierStore


class CopyConflict(Conflict):
    """The IBI is this Archive's own (an item it minted, or its archive service IBI)."""

    field = "ibi"


class CopyNotFound(NotFound):
    """The Archive holds no copy of that IBI."""

    field = "ibi"


@dataclass(frozen=True)
class HeldCopy:
    """A copy with the forms it is answered in (Table 9.4)."""

    record: CopyRecord
    forms: IbiForms


class CopyService:
    """Hold, list and end copies. ``prefix_pairs`` is the prefix table; ``service_ibi`` the own
    Archive's archive service IBI."""

    def __init__(self, copies: CopyStore, identifiers: IdentifierStore, prefix_pairs: Sequence[Sequence[str]],
                 service_ibi: str) -> None:
        self.copies = copies
        self.identifiers = identifiers
        self.prefix_pairs = prefix_pairs
        self.service_ibi = service_ibi

    def hold(self, ibi: object, target_url: object, *, actor: Actor) -> tuple[HeldCopy, bool]:
        """Hold a copy of ``ibi`` served at ``target_url`` (or move the one held there); whether
        it is new. Raises :class:`ParseError` naming ``ibi`` or ``target_url``, or
        :class:`CopyConflict`."""
        forms = self._forms(ibi)
        url = parse_target_url(target_url)
        if url is None:
            raise ParseError(N_("target_url is required: where this Archive serves its copy"), field="target_url")
        keys = [ibi_key(form) for form in forms.forms()]
        minted = next((item for key in keys if (item := self.identifiers.find_minted(rep=key, ibip=key))), None)
        if minted is not None:
            raise CopyConflict(N_("%(ibi)s is this Archive's own item %(own)s (state Original): change its target "
                                  "URL with PATCH /api/v1/items/<ibi> instead", ibi=ibi, own=minted.ibip))
        if ibi_key(self.service_ibi) in keys:
            raise CopyConflict(N_("%(ibi)s is this Archive's own archive service IBI", ibi=ibi))
        record, created = self.copies.put(ibi_key(str(ibi)), keys, url, actor=actor)
        return HeldCopy(record, forms), created

    def end(self, ibi: object, *, actor: Actor) -> HeldCopy:
        """Stop holding the copy of ``ibi``: the Archive no longer answers for it (an empty
        answer, Algorithm 2 lines 3-4). Raises :class:`CopyNotFound`."""
        forms = self._forms(ibi)
        record = self.copies.remove([ibi_key(form) for form in forms.forms()], actor=actor)
        if record is None:
            raise CopyNotFound(N_("this Archive holds no copy of %(ibi)s", ibi=ibi))
        return HeldCopy(record, forms)

    def held(self) -> list[HeldCopy]:
        """Every copy held, newest change first."""
        return [HeldCopy(record, known_forms(record.ibi, self.prefix_pairs)) for record in self.copies.records()]

    def _forms(self, ibi: object) -> IbiForms:
        if not isinstance(ibi, str) or not ibi.strip():
            raise ParseError(N_("ibi is required: the IBI of the item copied, in either form"), field="ibi")
        try:
            return known_forms(ibi_key(ibi.strip()), self.prefix_pairs)
        except ParseError as error:
            raise ParseError(error.message, error.position, "ibi") from error
