"""What the portal keeps about its own work, read and written for the web layer and the CLI: the
traces of resolutions (§8.4's record of every message), the API's tokens and the administrators'
accounts and sessions. Each use case takes the storage of the calling unit of work
(:class:`~.units.StorageScope`), so a view or a command names what it wants, never a table.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from ..storage.accounts import AccountStore
from ..storage.database import Storage
from ..storage.import_runs import ImportRun, ImportRunStore
from ..storage.tokens import TokenRecord, TokenStore
from ..storage.traces import HistoryPage, HistoryQuery, TraceStore


class Traces:
    """The stored traces: one by its id (the trace page and ``GET /api/v1/traces/<id>``), a page
    of the history, and the latest ones (the health page counts each Archive's answers in them)."""

    def __init__(self, storage: Callable[[], Storage]) -> None:
        self.storage = storage

    def load(self, trace_id: str) -> dict | None:
        return TraceStore(self.storage()).load_trace(trace_id)

    def history(self, query: HistoryQuery) -> HistoryPage:
        return TraceStore(self.storage()).history(query)

    def recent(self, limit: int) -> list[tuple[str, str, dict]]:
        return TraceStore(self.storage()).recent_traces(limit)


class Tokens:
    """The API's bearer tokens: made by ``flask api-token`` (shown once, only the hash kept), and
    the name of who holds the one a request sent."""

    def __init__(self, storage: Callable[[], Storage]) -> None:
        self.storage = storage

    def create(self, name: str) -> str:
        return TokenStore(self.storage()).create(name)

    def records(self) -> list[TokenRecord]:
        return TokenStore(self.storage()).records()

    def revoke(self, name: str) -> bool:
        return TokenStore(self.storage()).revoke(name)

    def holder(self, token: str) -> str | None:
        return TokenStore(self.storage()).holder(token)


class Accounts:
    """The administrators: their password hashes (set by ``flask admin set-password``) and their
    sessions, which a login opens and a logout (or their lifetime) ends."""

    def __init__(self, storage: Callable[[], Storage]) -> None:
        self.storage = storage

    def set_password_hash(self, username: str, password_hash: str) -> None:
        AccountStore(self.storage()).set_admin_password_hash(username, password_hash)

    def password_hash(self, username: str) -> str | None:
        return AccountStore(self.storage()).admin_password_hash(username)

    def open_session(self, username: str, lifetime: timedelta) -> str:
        return AccountStore(self.storage()).open_session(username, lifetime)

    def session_holder(self, session_id: str, lifetime: timedelta) -> str | None:
        return AccountStore(self.storage()).session_holder(session_id, lifetime)

    def end_session(self, session_id: str) -> None:
        AccountStore(self.storage()).end_session(session_id)


class ImportRunRecords:
    """The imports the Import page started, as kept: one, the latest, a run's outcomes and the
    file a preview read (to import it as previewed)."""

    def __init__(self, storage: Callable[[], Storage]) -> None:
        self.storage = storage

    def find(self, run_id: str) -> ImportRun | None:
        return ImportRunStore(self.storage()).find(run_id)

    def recent(self) -> list[ImportRun]:
        return ImportRunStore(self.storage()).recent()

    def outcomes(self, run_id: str, after: int = -1) -> list[dict]:
        return ImportRunStore(self.storage()).outcomes(run_id, after)

    def source_data(self, run_id: str) -> bytes | None:
        return ImportRunStore(self.storage()).source_data(run_id)
