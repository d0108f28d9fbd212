"""Whether two IBIs name the same item, in either form (STANDARD.md §1.1, §1.2 and §1.4).

How IBIs compare, as the standards say it:

* both forms are case-insensitive (a repository-name prefix is written in lower case, an IBIp
  in upper case, and neither case changes the identifier);
* two repository names are one item when their prefixes name the same host and port
  (``sid.inpe.br/mtc-m18@80`` and ``sid.inpe.br/mtc-m18`` do, Algorithm 1 inverse) and their
  suffixes the same date; two IBIps when their prefixes decode to the same IP and port
  (Algorithm 5 inverse) and their suffixes to the same date;
* a repository name and an IBIp are two items when their dates differ: the suffix converts
  exactly both ways (§1.4). When the dates agree, only a known prefix pair can tell, since
  neither prefix follows from the other: they are one item when the table pairs the two
  prefixes, two when the table pairs either prefix with others only, and nobody can tell
  otherwise (``None``): never a guess presented as fact.

Pure: the table is handed in (:mod:`ibiportal.ibi.prefixes`), as a callable so that a caller
that usually needs no table (the resolver, comparing an answer's IBI with the one it asked)
reads it only when a question needs it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ibiportal.ibi.ibip import Ibip, decode_ibip_prefix
from ibiportal.ibi.identifier import Identifier
from ibiportal.ibi.prefixes import equivalent_rep_prefixes, ibip_prefixes_for, rep_prefixes_for
from ibiportal.ibi.repository import RepositoryName, decode_rep_prefix

PrefixPairs = Callable[[], Iterable[Sequence[str]]]


def same_item(first: Identifier, second: Identifier, prefix_pairs: PrefixPairs = tuple) -> bool | None:
    """``True`` when ``first`` and ``second`` name one item, ``False`` when two, ``None`` when
    it cannot be told (a repository name and an IBIp of one date whose prefixes no known pair
    links or separates). ``prefix_pairs()`` gives the known (rep prefix, IBIp prefix) pairs; it
    is called only for a repository name against an IBIp of the same date."""
    if first.date != second.date:
        return False
    if isinstance(first, RepositoryName) and isinstance(second, RepositoryName):
        return decode_rep_prefix(first.prefix) == decode_rep_prefix(second.prefix)
    if isinstance(first, Ibip) and isinstance(second, Ibip):
        return decode_ibip_prefix(first.prefix) == decode_ibip_prefix(second.prefix)
    rep, ibip = (first, second) if isinstance(first, RepositoryName) else (second, first)
    pairs = tuple(prefix_pairs())
    partners = ibip_prefixes_for(rep.prefix, pairs)
    if ibip.prefix in partners:
        return True
    reps = rep_prefixes_for(ibip.prefix, pairs)
    if any(equivalent_rep_prefixes(known, rep.prefix) for known in reps):
        return True
    return False if partners or reps else None
