"""Known pairs of prefixes naming the same identification subsystem (STANDARD.md §1.4).

A repository-name prefix names a host and port, an IBIp prefix an IP and port, and URLib
used port 80 in names and 800 in IBIps for the same server: neither prefix follows from
the other. Only a table of pairs seen together (file 003 examples, administrators, Archive
answers ``ibi {rep ... ibip ...}``) links them. Pairs are ``(rep_prefix, ibip_prefix)``, or
``(rep_prefix, ibip_prefix, source)`` where the table knows why the pair is a fact (the portal's
own subsystem, an administrator, an import's operator): conversion names it. A pair an Archive's
answer reported is only that Archive's claim until an administrator confirms it: it carries
:data:`SUGGESTED` as a fourth element, and :func:`table_with_claims` lists it only where no fact
speaks of either prefix, after all of them.

One subsystem may have several repository-name spellings: ``sid.inpe.br/mtc-m18@80``
(the legacy ``@`` form, issued before August 2010) and ``sid.inpe.br/mtc-m18`` name the same
host and port. :func:`equivalent_rep_prefixes` says so by decoding both (Algorithm 1
inverse); the table needs no list of spellings for that. Where the table gives several
repository-name prefixes for one IBIp prefix, the *first listed* is preferred; the seed
lists the Algorithm 1 form first (port 80 omitted), the form a prefix computed from a host
takes, so table and computation agree.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from ibiportal.errors import ParseError
from ibiportal.i18n import N_
from ibiportal.ibi.ibip import Ibip, decode_ibip_prefix
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.repository import decode_rep_prefix
from ibiportal.ibi.servers import KNOWN_SERVERS

#: The pairs of real servers (data/known_servers.json, each with its public source): file 003's
#: first (STANDARD.md §1.4; ``LK47B6W`` decodes to 127.0.0.1, port 800), then those found in
#: published references.
KNOWN_PREFIX_PAIRS: tuple[tuple[str, str], ...] = tuple(server.pair for server in KNOWN_SERVERS)

#: The fourth element of a pair an Archive reported and no administrator has confirmed.
SUGGESTED = "suggested"


def is_claim(pair: Sequence[str]) -> bool:
    """Whether a pair of the table is an Archive's unconfirmed claim (:data:`SUGGESTED`)."""
    return len(pair) > 3 and pair[3] == SUGGESTED


def table_with_claims(facts: Sequence[Sequence[str]], claims: Iterable[Sequence[str]]) -> list[tuple[str, ...]]:
    """The facts, then each claimed ``(rep, ibip, source)`` pair, marked :data:`SUGGESTED`, whose
    prefixes no fact speaks of. One Archive's answer could otherwise pair its own host with INPE's
    IBIp prefix and so send INPE's identifiers to it: a claim may fill a gap of the table, never
    contradict or outrank what the standard, the portal or an administrator established."""
    known_ibips = {ibip for _, ibip, _ in _normalized_pairs(facts)}
    known_hosts = {host_port for _, _, host_port in _normalized_pairs(facts)}
    open_claims = [(rep, ibip, source, SUGGESTED) for rep, ibip, source, *_ in claims
                   if ibip.upper() not in known_ibips and _host_port(rep) not in known_hosts]
    return [*(tuple(pair) for pair in facts), *open_claims]


def _host_port(rep_prefix: str) -> tuple[str, int] | None:
    try:
        return decode_rep_prefix(rep_prefix)
    except ParseError:
        return None


def _normalized_pairs(pairs: Iterable[Sequence[str]]) -> tuple[tuple[str, str, tuple[str, int]], ...]:
    """Each pair checked: ``(rep prefix lower-cased, IBIp prefix upper-cased, (host, port))``.

    Cached per table: a batch converts thousands of identifiers against the same pairs, and
    decoding every pair for every identifier cost 3 ms per identifier with 55 pairs.
    """
    return _normalize(tuple(tuple(pair) for pair in pairs))


@lru_cache(maxsize=8)
def _normalize(pairs: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, str, tuple[str, int]], ...]:
    normalized = []
    for pair in pairs:
        rep, ibip = pair[0], pair[1]  # a third element, where given, is the pair's source
        try:
            host_port = decode_rep_prefix(rep)
            decode_ibip_prefix(ibip)
        except ParseError as error:
            raise ParseError(N_("known prefix pair (%(rep)s, %(ibip)s): %(error)s", rep=rep, ibip=ibip, error=error.message), field="known_pairs") from error
        normalized.append((rep.lower(), ibip.upper(), host_port))
    return tuple(normalized)


def _distinct(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def equivalent_rep_prefixes(first: str, second: str) -> bool:
    """Whether two repository-name prefixes name the same host and port.

    ``sid.inpe.br/mtc-m18@80``, ``sid.inpe.br/mtc-m18.80`` and ``sid.inpe.br/mtc-m18`` do.
    """
    return decode_rep_prefix(first) == decode_rep_prefix(second)


def ibip_prefixes_for(rep_prefix: str, pairs: Iterable[Sequence[str]]) -> tuple[str, ...]:
    """IBIp prefixes paired with any spelling of this repository-name prefix, table order."""
    host_port = decode_rep_prefix(rep_prefix)
    return _distinct(ibip for _, ibip, known in _normalized_pairs(pairs) if known == host_port)


def rep_prefixes_for(ibip_prefix: str, pairs: Iterable[Sequence[str]]) -> tuple[str, ...]:
    """Repository-name prefixes paired with this IBIp prefix, table order (first preferred)."""
    wanted = ibip_prefix.upper()
    return _distinct(rep for rep, ibip, _ in _normalized_pairs(pairs) if ibip == wanted)


def check_prefix_pair(rep_prefix: str, ibip_prefix: str) -> tuple[str, str]:
    """A pair to add to the table, normalized (rep lower case, IBIp upper case), or ParseError."""
    try:
        decode_rep_prefix(rep_prefix)
    except ParseError as error:
        raise ParseError(error.message, error.position, "rep_prefix") from error
    try:
        decode_ibip_prefix(ibip_prefix)
    except ParseError as error:
        raise ParseError(error.message, error.position, "ibip_prefix") from error
    return rep_prefix.lower(), ibip_prefix.upper()


_BOTH_FORMS = re.compile(r"\{?\s*rep\s+(\S+)\s+ibip\s+([^\s}]+)\s*\}?")


def pair_proved_by(value: str) -> tuple[str, str] | None:
    """The prefix pair an Archive's value ``rep X ibip Y`` proves (file 003, Table 9.4: both forms
    of one IBI), normalized, when X is a repository name and Y an IBIp of the same date; else None
    (a value with one form, or two forms that are not one identifier, proves nothing)."""
    both = _BOTH_FORMS.fullmatch(value.strip())
    if both is None:
        return None
    try:
        rep, ibip = parse_ibi(both[1]), parse_ibi(both[2])
    except ParseError:
        return None
    if rep.form != "rep" or not isinstance(ibip, Ibip) or rep.date != ibip.date:
        return None
    return rep.prefix, ibip.prefix
