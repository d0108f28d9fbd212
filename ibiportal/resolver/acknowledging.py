"""Acknowledging the URL (5) and reading the Archive's notice (6): Table 8.11, §10.1, §10.2.

The ``acknowledgment`` goes to the Archive whose answer gave the URL, built from that answer's
pairs, the user's IP list and the persistent URL as received (``url.persistent``, with an
explicit port); the Archive answers ``notice {acknowledgment received}``. Pure functions: the
engine sends the message and records the steps these build.
"""
from __future__ import annotations

import re

from ibiportal.protocol.messages import Acknowledgment, request_url
from ibiportal.protocol.pairlist import PairList, read_answer
from ibiportal.protocol.status import carries_notice
from ibiportal.resolver.asking import Reply
from ibiportal.resolver.reading import Reading
from ibiportal.resolver.trace import RESOLVER, AcknowledgmentOutcome, ParseProblem, Status, StepKind, TraceStep
from ibiportal.resolver.transport import ArchiveEndpoint, Failure


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


def notice(reply: Reply, hop: int) -> TraceStep:
    """Step (6): the Archive's answer to the acknowledgment, and whether it is the notice."""
    endpoint, exchange = reply.endpoint, reply.exchange
    raw = None if exchange.body is None else exchange.body.decode("latin-1")
    parsed = None if exchange.body is None or exchange.failure else read_answer(exchange.body)
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
