"""The HTTP transport of the administrator's checks (confirmation request, conformance check).

A fresh :class:`~ibiportal.resolver.http_transport.HttpTransport` per check, with the resolver's
address policy (``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES``): an
address typed into an admin form is refused exactly where the resolver would refuse it,
since such a form could otherwise be used to probe the portal's own network (SSRF).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ...resolver.http_transport import HttpTransport
from ..context import settings


@contextmanager
def check_transport() -> Iterator[HttpTransport]:
    """An :class:`HttpTransport` for one check, closed afterwards."""
    transport = HttpTransport(allow_private=settings().allow_private_archives, user_agent="IBI-Portal-check")
    try:
        yield transport
    finally:
        transport.close()
