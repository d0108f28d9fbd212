"""The Archives this process answers for itself, reached without a network: :class:`LocalTransport`.

The portal's own Archive and the demo Archives, each an
:class:`~ibiportal.archive.service.ArchiveService`; a demo Archive may misbehave on purpose
(:class:`Misbehaving`: slow, or a garbled answer) to show it on the Trace page.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol, runtime_checkable
from urllib.parse import urlsplit

from ibiportal.i18n import N_, decimal
from ibiportal.resolver.transport import ArchiveEndpoint, Exchange, Failure, Route, Timeouts

if TYPE_CHECKING:
    from ibiportal.archive.model import Behaviour
    from ibiportal.archive.service import ArchiveService


class LocalArchive(Protocol):
    """An Archive this process answers for: its name and its service."""

    name: str
    service: ArchiveService


@runtime_checkable
class Misbehaving(LocalArchive, Protocol):
    """A demo Archive that misbehaves on purpose, as its ``behaviour`` says."""

    behaviour: Behaviour


#: Seconds a demo Archive answered in process may take (a misbehaving one is given up after it);
#: shorter than a registered Archive's IBIPORTAL_ARCHIVE_READ_TIMEOUT, so that a trace including the
#: slow demo Archive shows a timeout quickly. The health page and the timeout's words state it.
LOCAL_READ_TIMEOUT = 2.0


def local_endpoint(archive: LocalArchive, connect_timeout: float = 1.0, read_timeout: float = LOCAL_READ_TIMEOUT) -> ArchiveEndpoint:
    """The endpoint of a local Archive (:attr:`Route.LOCAL`), its service IBI in the first form (§10)."""
    return ArchiveEndpoint(
        address=archive.service.identity.address,
        service_ibi=archive.service.identity.service_ibi.forms()[0],
        name=archive.name,
        transport=Route.LOCAL,
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
    )


class LocalTransport:
    """The Archives this process answers for, reached without a network.

    ``archives`` are :class:`LocalArchive` objects: the portal's own Archive
    (:class:`~ibiportal.archive.own.OwnArchive`) and the demo Archives of
    :func:`~ibiportal.archive.demo.load_demo_archives`. A request URL
    ``http://<address>/<service IBI>?<query>`` goes to the Archive with that address and its
    :class:`~ibiportal.archive.service.ArchiveService` answers the query (Algorithm 1 of §9).
    A :class:`Misbehaving` Archive's ``behaviour`` is honoured: ``delay_seconds`` holds the answer back (by
    ``sleep``), and a delay beyond the read timeout or the exchange's total ends as a timeout
    AT that limit, not after the full delay; ``malformed`` replaces the answer's body.
    An answer comes with the pair list its body was written from (``Exchange.pairs``): the
    resolver reads it without parsing the text back, and the trace keeps the text as sent.
    """

    def __init__(self, archives: Iterable[LocalArchive], *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.archives = {archive.service.identity.address.lower(): archive for archive in archives}
        self.behaviours = {address: archive.behaviour for address, archive in self.archives.items()
                           if isinstance(archive, Misbehaving)}
        self._sleep = sleep

    def endpoints(self, connect_timeout: float = 1.0, read_timeout: float = LOCAL_READ_TIMEOUT) -> tuple[ArchiveEndpoint, ...]:
        """One endpoint per Archive (see :func:`local_endpoint`)."""
        return tuple(local_endpoint(archive, connect_timeout, read_timeout) for archive in self.archives.values())

    def answers_at_once(self, url: str) -> bool:
        """Whether the Archive ``url`` addresses answers without a delay of its own (a
        misbehaving demo Archive may sleep, and is asked on a thread of its own)."""
        behaviour = self.behaviours.get(_parts(url)[0].lower())
        return behaviour is None or not behaviour.delay_seconds

    def fetch(self, url: str, timeouts: Timeouts) -> Exchange:
        """Answer ``url`` from the addressed demo Archive; see the class docstring."""
        netloc, path, query = _parts(url)
        archive = self.archives.get(netloc.lower())
        if archive is None:
            return Exchange(failure=Failure.UNKNOWN_ARCHIVE, error=f"no local Archive at {netloc}")
        service_ibi = path.lstrip("/")
        if service_ibi.casefold() not in archive.service.identity.service_ibi.folded:
            return Exchange(404, "text/plain", b"", Failure.CONNECTION, f"{netloc} has no service {service_ibi}")
        behaviour = self.behaviours.get(netloc.lower())
        delay = 0.0 if behaviour is None else behaviour.delay_seconds
        limit = min(timeouts.read, timeouts.total)
        if delay > limit:
            self._sleep(limit)
            return Exchange(failure=Failure.TIMEOUT, error=N_("no answer within %(limit)s s, the limit of the demo Archives "
                                                               "answered inside the portal (this demo Archive takes "
                                                               "%(delay)s s)", limit=decimal(limit), delay=decimal(delay)))
        if delay:
            self._sleep(delay)
        answer = archive.service.respond(query)
        if behaviour is not None and behaviour.malformed is not None:
            return Exchange(answer.status, "text/plain", behaviour.malformed.encode("latin-1"))
        return Exchange(answer.status, "text/plain", answer.text.encode("latin-1"), pairs=answer.pairs)


def _parts(url: str) -> tuple[str, str, str]:
    """``url``'s host, path and query, as ``urlsplit`` gives them. A request URL as the resolver
    writes it (``http://<address>/<service IBI>?<query>``, §6.1: nothing to strip, no fragment)
    is split by ``str.partition``; ``urlsplit``'s general parsing was run twice on every message to
    an Archive answered in process (``benchmarks/uncached.py``). Any other URL goes to ``urlsplit``."""
    scheme, _, rest = url.partition("://")
    if scheme == "http" and "#" not in rest and " " not in rest and rest.isprintable():
        netloc, slash, rest = rest.partition("/")
        if "?" not in netloc:
            path, _, query = rest.partition("?")
            return netloc, slash + path, query
    parts = urlsplit(url)
    return parts.netloc, parts.path, parts.query
