"""The prefix pairs administrators keep (file 002's pairs of repository and IBIP prefixes beyond
the standard's): added by hand or by an import, and the pairs Archives reported, confirmed or
rejected. Convert's prefix table and ``flask ibi prefix-pair`` share it; conversion reads them
through :meth:`~ibiportal.application.Application.known_prefix_pairs`."""
from __future__ import annotations

from ..storage.identifiers import (PAIR_CONFIRMED, PAIR_REJECTED, IdentifierStore, PrefixPairRecord, admin_source,
                                   decision_source, import_source)

__all__ = ["PAIR_CONFIRMED", "PAIR_REJECTED", "PrefixPairRecord", "PrefixPairs"]


class PrefixPairs:
    """The stored pairs, each with its source; ``admin``: the administrator's name on the page,
    ``None`` from the command line (the source then says so)."""

    def __init__(self, store: IdentifierStore) -> None:
        self.store = store

    def records(self) -> list[PrefixPairRecord]:
        """Every stored pair, oldest first."""
        return self.store.prefix_pair_records()

    def add(self, rep: str, ibip: str, admin: str | None = None) -> bool:
        """Add a confirmed pair; ``False`` when it was rejected before (it stays rejected)."""
        return self.store.add_prefix_pair(rep, ibip, admin_source(admin))

    def add_for_import(self, rep: str, ibip: str, source: str) -> bool:
        """A pair given to the import of ``source`` (``flask items import --prefix-pair``)."""
        return self.store.add_prefix_pair(rep, ibip, import_source(source))

    def decide(self, rep: str, ibip: str, status: str, admin: str | None = None) -> bool:
        """Confirm or reject (``status``) a pair an Archive reported; ``False`` when none awaits."""
        return self.store.decide_prefix_pair(rep, ibip, status, decision_source(status, admin))
