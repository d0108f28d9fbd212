"""Telling an unreachable database from a wrong statement, and how long an outage is bridged.

During an outage or a restart the driver cannot connect, or loses the connection mid-request:
those requests get a 503 with ``Retry-After`` (and cached redirects keep being served, see
``signal.GenerationSignal``), never the 500 of a bug. A restart shorter than
:data:`READ_RETRY_PAUSE_SECONDS` costs a reader nothing: ``database.Storage`` connects, or runs a
read, once more after that pause.
"""
from __future__ import annotations

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, PendingRollbackError

#: Seconds a client is asked to wait (``Retry-After``) while the database does not answer:
#: a restart takes about one (IBIPORTAL_OUTAGE_RETRY_AFTER).
RETRY_AFTER_SECONDS = 5

#: Seconds cached resolutions are still served, as they stood, while the database does not
#: answer the read that would revalidate them (IBIPORTAL_OUTAGE_STALE_SECONDS); past this, 503.
STALE_SECONDS = 60

#: Seconds a request waits before its one retry of a connection or a read the database did not
#: answer: a fast shutdown and start of PostgreSQL took 0.2 to 0.4 s on a loaded 2-core machine
#: (``tests/servers.py`` halt and resume), so such a restart in flight is bridged with room to
#: spare, while a request in a long outage is held at most this much longer before its 503.
READ_RETRY_PAUSE_SECONDS = 1.0


def unreachable(error: BaseException) -> bool:
    """``error`` says the database could not be reached or the connection was lost, not that a
    statement was wrong: worth a 503 and a retry."""
    if isinstance(error, (OperationalError, InterfaceError, PendingRollbackError)):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated
