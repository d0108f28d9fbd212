"""Acknowledging the URL (5) and reading the Archive's notice (6): Table 8.11, §10.1, §10.2.

The ``acknowledgment`` goes to the Archive whose answer gave the URL, built from that answer's
pairs, the user's IP list and the persistent URL as received (``url.persistent``, with an
explicit port); the Archive answers ``notice {acknowledgment received}``. The engine sends the
message and records the steps the functions here build.

§8.2 asks for the acknowledgment to be sent before the URL is returned ("após emitir a mensagem
de agradecimento, o resolvedor retorna a URL"), not for the notice to have come: an Archive that
takes seconds to answer (6) must not hold the reader's redirect (STANDARD.md §7).
:class:`PendingNotices` follows the notices the URL went out without.
"""
from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future

from ibiportal.protocol.messages import Acknowledgment, request_url
from ibiportal.protocol.pairlist import PairList, read_answer
from ibiportal.protocol.status import carries_notice
from ibiportal.resolver.asking import Reply
from ibiportal.resolver.reading import Reading
from ibiportal.resolver.trace import RESOLVER, AcknowledgmentOutcome, ParseProblem, Status, StepKind, TraceStep
from ibiportal.resolver.transport import ArchiveEndpoint, Failure
from ibiportal.resolver.wording import decision

log = logging.getLogger(__name__)


def explicit_port(received: str, default_base: str) -> str:
    """``url.persistent`` (Table 8.11): the persistent URL as received, its host with an explicit port.

    ``http://urlib.net/8JMKD3MGP8W/35MMLL8`` → ``http://urlib.net:80/8JMKD3MGP8W/35MMLL8``
    (§10.1, §10.2). A URL received without scheme and host is put on ``default_base``.
    """
    text = received.strip()
    if not re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text):
        text = default_base.rstrip("/") + "/" + text.lstrip("/")
    scheme, rest = text.split("://", 1)
    authority, slash, path = rest.partition("/")
    if not re.search(r":\d+$", authority):
        authority += ":443" if scheme.lower() == "https" else ":80"
    return f"{scheme}://{authority}{slash}{path}"


def acknowledgment_url(endpoint: ArchiveEndpoint, reading: Reading, client_ips: tuple[str, ...],
                       received: str, resolver_base: str) -> str:
    """The request URL of (5) to ``endpoint``; a ParseError when the answer lacks a pair Table 8.11 needs."""
    message = Acknowledgment.from_answer(reading.pairs, client_ips=client_ips,
                                         url_persistent=explicit_port(received, resolver_base),
                                         relation=reading.relation)
    return request_url(endpoint.address, endpoint.service_ibi, message, sort=True)


def unsent(endpoint: ArchiveEndpoint, reading: Reading, hop: int, error: str) -> TraceStep:
    """Step (5) that could not be built, and why."""
    return TraceStep(5, StepKind.ACKNOWLEDGMENT, RESOLVER, endpoint.name, "", hop=hop, archive=endpoint.address,
                     status=Status.NOT_SENT, error=error, relation=reading.relation,
                     acknowledgment=AcknowledgmentOutcome.NOT_SENT)


def sent(endpoint: ArchiveEndpoint, reading: Reading, hop: int, url: str) -> TraceStep:
    """Step (5) as sent."""
    return TraceStep(5, StepKind.ACKNOWLEDGMENT, RESOLVER, endpoint.name, "", hop=hop, archive=endpoint.address,
                     request_url=url, relation=reading.relation)


def pending(endpoint: ArchiveEndpoint, hop: int) -> TraceStep:
    """Step (6) not come yet when the URL is returned."""
    return TraceStep(6, StepKind.NOTICE, endpoint.name, RESOLVER, "", hop=hop, archive=endpoint.address,
                     acknowledgment=AcknowledgmentOutcome.PENDING)


def notice(reply: Reply, hop: int) -> TraceStep:
    """Step (6): the Archive's answer to the acknowledgment, and whether it is the notice."""
    endpoint, exchange = reply.endpoint, reply.exchange
    raw = None if exchange.body is None else exchange.body.decode("latin-1")
    parsed = None if exchange.body is None or exchange.failure else (
        exchange.pairs if exchange.pairs is not None else read_answer(exchange.body))
    pairs = tuple(parsed) if isinstance(parsed, PairList) else None
    if exchange.failure is not None:
        outcome = AcknowledgmentOutcome.NO_ANSWER
    elif isinstance(parsed, PairList) and carries_notice(parsed):
        outcome = AcknowledgmentOutcome.NOTICE
    else:
        outcome = AcknowledgmentOutcome.UNEXPECTED
    return TraceStep(
        6, StepKind.NOTICE, endpoint.name, RESOLVER, "", hop=hop, archive=endpoint.address,
        acknowledgment=outcome,
        status=Status.ANSWERED if exchange.failure is None else Status.TIMEOUT if exchange.failure is Failure.TIMEOUT else Status.TRANSPORT_ERROR,
        http_status=exchange.status, content_type=exchange.content_type, elapsed_ms=reply.elapsed_ms,
        raw_answer=raw, pairs=pairs,
        parse_error=ParseProblem(parsed.message, parsed.position) if parsed is not None and pairs is None else None,
        error=exchange.error, notes=exchange.notes,
    )


class PendingNotices:
    """The notices (6) the resolver returned URLs without, until each comes: at most
    ``per_archive`` per Archive (by address) at once, in one process.

    A resolution asks :meth:`admit` before it sends an acknowledgment whose notice it will not
    wait for; beyond the bound the acknowledgment is not sent (so many outstanding means the
    Archive is not answering, and a thread and a socket would be held for each), and is counted
    in ``dropped``. :meth:`follow` turns the exchange under way into the step (6) it ends with;
    a notice that does not come (a failed exchange, another answer) is counted in ``failed``.
    Both are logged, at most once a minute each with the counts so far, and each resolution's
    trace says what became of its own.

    Archives answered in this process (``in_process``: the demo ones, the portal's own) are
    waited for: a function call, with no network to wait on.
    """

    def __init__(self, per_archive: int, *, in_process: Iterable[str] = (),
                 clock: Callable[[], float] = time.monotonic) -> None:
        if per_archive <= 0:
            raise ValueError("at least one pending notice per Archive is needed to send acknowledgments")
        self.per_archive = per_archive
        self.in_process = frozenset(in_process)
        self.clock = clock
        self.dropped = 0
        self.failed = 0
        self._pending: dict[str, int] = {}
        self._lock = threading.Lock()
        self._last_warning = {"dropped": -math.inf, "failed": -math.inf}

    def waits_for(self, endpoint: ArchiveEndpoint) -> bool:
        """Whether the resolution waits for this Archive's notice (one in this process)."""
        return endpoint.transport in self.in_process

    def pending(self, endpoint: ArchiveEndpoint) -> int:
        """How many notices of this Archive are awaited now."""
        return self._pending.get(endpoint.address, 0)

    def admit(self, endpoint: ArchiveEndpoint) -> str | None:
        """Take a place for one more notice of ``endpoint``: ``None``, or why there is none
        (the acknowledgment is then not sent; counted and logged)."""
        with self._lock:
            waiting = self._pending.get(endpoint.address, 0)
            if waiting < self.per_archive:
                self._pending[endpoint.address] = waiting + 1
                return None
            self.dropped += 1
            why = (f"{waiting} acknowledgments to {endpoint.name} still await their notice "
                   f"(at most {self.per_archive}): not sent")
            self._log("dropped", "acknowledgment dropped: %s (%d dropped so far)", why, self.dropped)
            return why

    def follow(self, exchange: Future[Reply], hop: int) -> Future[TraceStep]:
        """The step (6) ``exchange`` (admitted) will end with; its place is freed then."""
        step: Future[TraceStep] = Future()
        exchange.add_done_callback(lambda done: step.set_result(self._arrived(done.result(), hop)))
        return step

    def _arrived(self, reply: Reply, hop: int) -> TraceStep:
        step = notice(reply, hop)
        step = step.worded(decision(step))
        with self._lock:
            address = reply.endpoint.address
            self._pending[address] -= 1
            if not self._pending[address]:
                del self._pending[address]
            if step.acknowledgment is not AcknowledgmentOutcome.NOTICE:
                self.failed += 1
                self._log("failed", "no notice from %s after an acknowledgment: %s (%d so far)",
                          reply.endpoint.name, step.decision, self.failed)
        return step

    def _log(self, kind: str, message: str, *args: object) -> None:
        """Each one at INFO; at WARNING at most once a minute per kind, so that an Archive that
        stopped answering is seen without a line per request (called with the lock held)."""
        now = self.clock()
        warn = now - self._last_warning[kind] >= 60
        if warn:
            self._last_warning[kind] = now
        log.log(logging.WARNING if warn else logging.INFO, message, *args)
