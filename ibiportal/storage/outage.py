"""Telling an unreachable database from a wrong statement.

During an outage or a restart the driver cannot connect, or loses the connection mid-request:
those requests get a 503 with ``Retry-After`` (and cached redirects keep being served, see
``signal.GenerationSignal``), never the 500 of a bug.
"""
from __future__ import annotations

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, PendingRollbackError

#: Seconds a client is asked to wait (``Retry-After``) while the database does not answer:
#: a restart takes about one.
RETRY_AFTER_SECONDS = 5


def unreachable(error: BaseException) -> bool:
    """``error`` says the database could not be reached or the connection was lost, not that a
    statement was wrong: worth a 503 and a retry."""
    if isinstance(error, (OperationalError, InterfaceError, PendingRollbackError)):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated
