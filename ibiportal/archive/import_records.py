"""A record of another Archive's collection, as an import reads it, and the IBI it carries.

An import moves a URLib collection into the own Archive keeping every IBI: a
record's IBI is read out of its fields as the home box reads a published form (a repository
name, an IBIp, a persistent URL, an ``ibi:`` URI, a ``/col/<rep>/doc/…`` link: ``ibi.classify``),
never minted anew. Both forms are stored; the form the record does not give comes from a known
prefix pair (file 004 §§6-7: the suffix converts exactly, the prefix only through a pair), so a
record whose other prefix nobody knows is skipped with a reason saying how to add the pair.

Pure: no storage, no network, no Flask; the readers of each source format (``import_formats``)
make :class:`SourceRecord` values, the use case (``application.importing``) stores them.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from ..errors import IbiError
from ..i18n import N_
from ..ibi.classify import classify
from ..ibi.identifier import parse_ibi
from ..ibi.prefixes import equivalent_rep_prefixes

#: ``oai:urlib.net:sid.inpe.br/…``: an OAI-PMH item identifier (OAI-PMH 2.0 §2.4, the ``oai``
#: scheme) whose local part is the IBI; the scheme and the namespace are not part of it.
_OAI_IDENTIFIER = re.compile(r"oai:[A-Za-z0-9.-]+:(?P<local>.+)", re.IGNORECASE)


@dataclass(frozen=True)
class SourceRecord:
    """One record of a source: where it is (``record 3``, ``line 12``, an OAI identifier, for
    messages), the texts that may name its IBI in the order they are trusted, and its fields
    under the names of a mint request (``title``, ``creators``, ``date``, ``language``,
    ``target_url``, ``item_type``, ``publisher``, ``place``, ``extent``, ``degree``,
    ``report_number``). ``files`` names files below its folder (a CSV's ``files`` column);
    ``deleted``: the source says the item was deleted (an OAI-PMH header's ``status``);
    ``problem``: why the record could not be read (it is then reported as failed)."""

    where: str
    identifiers: tuple[str, ...]
    fields: dict[str, object] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    deleted: bool = False
    problem: str | None = None


@dataclass(frozen=True)
class ImportedIbi:
    """The IBI of a record in both forms (normalized, as the own Archive looks it up), as it was
    published (``published``: its case, ``sid.inpe.br/ePrint@1905/…``), its date, and where the
    other form's prefix came from (``pair``: the prefix pair used)."""

    rep: str
    ibip: str
    published: str
    date: Decimal
    utc: str
    pair: tuple[str, str]

    @property
    def subsystem(self) -> str:
        """The identification subsystem that issued it, named as minting names its own: both prefixes."""
        return f"{self.pair[0]} {self.pair[1]}"

    def is_of(self, rep_prefix: str, ibip_prefix: str) -> bool:
        """Whether the subsystem with these prefixes issued it."""
        return self.pair[1] == ibip_prefix or equivalent_rep_prefixes(self.pair[0], rep_prefix)


class NoIbi(IbiError):
    """A record from which no IBI can be read in both forms: it is skipped, never given one.
    ``found``: the one form it gives, when only the other's prefix is unknown (for the report)."""

    def __init__(self, message: str, found: str | None = None) -> None:
        super().__init__(message)
        self.found = found


def read_ibi(record: SourceRecord, pairs: Iterable[Sequence[str]]) -> ImportedIbi:
    """The IBI of ``record``, both forms: the first of its identifiers that names an IBI, the
    other form from another identifier of the same item, else from ``pairs``.

    Raises :class:`NoIbi` naming why: no identifier names an IBI, two name different items, or
    the other form's prefix is unknown.
    """
    known = [tuple(pair) for pair in pairs]
    found = [(text, classify(_local(text), known)) for text in record.identifiers if text.strip()]
    found = [(text, reading) for text, reading in found if reading.recognised]
    if not found:
        raise NoIbi(N_("no IBI in the record: none of its identifiers (%(identifiers)s) is a repository name, an "
                       "IBIp or a persistent URL", identifiers=", ".join(record.identifiers) or N_("none")))
    first = found[0][1]
    utc = first.conversion.utc if first.conversion else parse_ibi(first.ibi).utc
    others = [reading for _, reading in found if reading.ibi and _utc(reading.ibi) != utc]
    if others:
        raise NoIbi(N_("the record names two items, %(first)s and %(second)s: which one it is cannot be told",
                       first=first.published or first.ibi, second=others[0].published or others[0].ibi))
    named_rep = next((reading for _, reading in found if reading.form == "rep"), None)
    ibip = next((reading.ibi for _, reading in found if reading.form == "ibip"), None) or first.ibip
    rep = named_rep.ibi if named_rep else first.rep
    # a repository name as the record spells it (its case is the name's on disk), else the IBIp
    published = (named_rep.published or named_rep.ibi) if named_rep else (first.published or first.ibi)
    if ibip is None:
        raise NoIbi(N_("the IBIp prefix of %(ibi)s is not known: add its pair with --prefix-pair REP=IBIP (or flask "
                       "--app app ibi prefix-pair, or the prefix table page) and import again", ibi=published), rep)
    if rep is None:
        raise NoIbi(N_("the repository-name prefix of %(ibi)s is not known: add its pair with --prefix-pair REP=IBIP "
                       "(or flask --app app ibi prefix-pair, or the prefix table page) and import again", ibi=published), ibip)
    rep_identifier, ibip_identifier = parse_ibi(rep), parse_ibi(ibip)
    return ImportedIbi(rep, ibip, published, ibip_identifier.date, rep_identifier.utc,
                       (rep_identifier.prefix, ibip_identifier.prefix))


def _utc(ibi: str) -> str:
    return parse_ibi(ibi).utc


def _local(text: str) -> str:
    """An OAI-PMH identifier's local part; any other text as it is."""
    match = _OAI_IDENTIFIER.fullmatch(text.strip())
    return match["local"] if match else text
