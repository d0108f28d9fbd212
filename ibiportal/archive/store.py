"""Where an Archive's items come from: the :class:`ItemStore` interface and an in-memory store.

The Archive service (:mod:`.service`) only ever asks a store for the item an IBI names; the
demo Archives use :class:`InMemoryItemStore` (loaded from JSON by :mod:`.demo`), the portal's
own Archive a database-backed store with the same two methods.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from ibiportal.archive.model import IbiForms, Item
from ibiportal.ibi.identifier import parse_ibi


def find_linked(store: ItemStore, forms: IbiForms) -> Item | None:
    """The item held in ``store`` that any of ``forms`` identifies (a link such as
    ``ibi.translation(pt)``), or ``None`` when it is held elsewhere."""
    return next((item for form in forms.forms() if (item := store.find(form)) is not None), None)


def ibi_key(text: str) -> str:
    """The lookup key of an IBI in either form: its normalized text (``ibiportal.ibi``).

    Raises :class:`~ibiportal.errors.ParseError` when ``text`` is not an IBI.
    """
    return str(parse_ibi(text))


class ItemStore(Protocol):
    """The items one Archive holds, each found by its IBI in either form (Table 9.4)."""

    def find(self, ibi: str) -> Item | None:
        """The item identified by ``ibi`` (repository name or IBIp, any case), or ``None``.

        Raises :class:`~ibiportal.errors.ParseError` when ``ibi`` is not an IBI.
        """
        ...

    def items(self) -> Iterator[Item]:
        """Every item held, deleted ones included."""
        ...


class InMemoryItemStore:
    """An :class:`ItemStore` over a fixed sequence of items (the demo Archives)."""

    def __init__(self, items: Iterable[Item]) -> None:
        self._items = tuple(items)
        self._index: dict[str, Item] = {}
        for item in self._items:
            for form in item.ibi.forms():
                key = ibi_key(form)
                if key in self._index:
                    raise ValueError(f"two items of one Archive are identified by {form}")
                self._index[key] = item

    def find(self, ibi: str) -> Item | None:
        return self._index.get(ibi_key(ibi))

    def items(self) -> Iterator[Item]:
        return iter(self._items)


class RememberingStore:
    """A store that asks the one it wraps once per IBI: for the span of one answer, whose
    relations (Table 9.5) name the same linked items many times (``.translation(pt)``,
    ``.translation(pt).metadata``, ``.lastedition.translation(pt)``, …)."""

    def __init__(self, store: ItemStore) -> None:
        self._store = store
        self._found: dict[str, Item | None] = {}

    def find(self, ibi: str) -> Item | None:
        if ibi not in self._found:
            self._found[ibi] = self._store.find(ibi)
        return self._found[ibi]

    def items(self) -> Iterator[Item]:
        return self._store.items()
