"""The storage of one unit of work: a request, a command, a job on a pool thread.

A use case reaches the database through :class:`StorageScope`: the first call in a unit of work
opens a connection (from the pool the database URL's engine keeps), the next calls of the same
unit share it, and whoever ran the unit closes it when it ends (the web layer at the end of the
request, a pool thread at the end of its job: :class:`UnitExecutor`). The unit is the
:mod:`contextvars` context of the caller, so every thread has its own and nothing here knows
of Flask.
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from contextvars import ContextVar

from ..storage.database import Storage


class StorageScope:
    """``scope()``: the storage of the calling unit of work, opened on first use; ``close()`` ends it."""

    def __init__(self, open_storage: Callable[[], Storage]) -> None:
        self._open = open_storage
        self._current: ContextVar[Storage | None] = ContextVar("ibiportal.storage", default=None)

    def __call__(self) -> Storage:
        storage = self._current.get()
        if storage is None:
            storage = self._open()
            self._current.set(storage)
        return storage

    def close(self) -> None:
        """Close what the calling unit of work opened, if anything; the next call opens anew."""
        storage = self._current.get()
        if storage is not None:
            self._current.set(None)
            storage.close()


class UnitExecutor(Executor):
    """Runs each call on ``executor`` as a unit of work of its own: whatever storage it opened
    through ``scope`` is closed when it returns, so a pool thread keeps no connection between jobs."""

    def __init__(self, executor: Executor, scope: StorageScope) -> None:
        self.executor = executor
        self.scope = scope

    def submit(self, fn, /, *args, **kwargs) -> Future:  # type: ignore[no-untyped-def, override]
        return self.executor.submit(self._run, fn, args, kwargs)

    def _run(self, fn, args, kwargs):  # type: ignore[no-untyped-def]
        try:
            return fn(*args, **kwargs)
        finally:
            self.scope.close()
