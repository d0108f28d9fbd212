"""IANA's special-purpose address registries (RFC 6890) as data: the blocks an Archive address
must not fall in.

Python's ``ipaddress`` flags lag behind the registries (Python 3.11 calls ``192.0.0.8``,
``192.88.99.1``, ``3fff::1`` and ``fec0::1`` global), so the resolver also reads the registries
themselves, kept in ``data/`` as IANA publishes them (``iana-ipv4-special-registry.csv``,
``iana-ipv6-special-registry.csv``), plus ``data/additions.csv`` for what they do not list
(``fec0::/10``, site-local, deprecated by RFC 3879), each with its source.

An address is globally reachable only when EVERY block holding it says ``Globally Reachable``
``True``: a blank (a deprecated block, whose values IANA removed) or ``N/A`` (6to4, Teredo) is
not. So the more specific ``True`` entries inside an unreachable block stay refused – the
anycast addresses of other protocols (``192.0.0.9`` PCP, ``192.0.0.10`` TURN, ``2001:1::1``…)
and identifier prefixes (ORCHIDv2, DETs) inside ``192.0.0.0/24`` and ``2001::/23``: none is an
Archive's web server.

To refresh (docs/security.md, Special-purpose addresses): download the two ``-1.csv`` files named in their first lines
over the ones in ``data/``, put the two comment lines back with the registry's new date, and
run ``tests/resolver/test_special_addresses.py``, which tests every row.
"""
from __future__ import annotations

import csv
import ipaddress
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
REGISTRIES = ("iana-ipv4-special-registry.csv", "iana-ipv6-special-registry.csv", "additions.csv")

#: The columns of IANA's files, in their order.
COLUMNS = ["Address Block", "Name", "RFC", "Allocation Date", "Termination Date", "Source", "Destination",
           "Forwardable", "Globally Reachable", "Reserved-by-Protocol"]


@dataclass(frozen=True)
class SpecialBlock:
    """One address block of a registry row (a row may list two: ``192.0.0.170/32, 192.0.0.171/32``)."""

    network: ipaddress.IPv4Network | ipaddress.IPv6Network
    name: str
    rfc: str
    globally_reachable: bool


def _without_footnote(value: str) -> str:
    """``False [1]`` → ``False``: IANA marks footnotes in the cell."""
    return value.partition("[")[0].strip()


def read_registry(path: Path) -> tuple[SpecialBlock, ...]:
    """The blocks of one registry file; lines starting with ``#`` (its source and date) are skipped."""
    with path.open(newline="", encoding="utf-8") as file:
        rows = csv.DictReader(line for line in file if not line.startswith("#"))
        if rows.fieldnames != COLUMNS:
            raise ValueError(f"{path}: the columns are not IANA's: {rows.fieldnames}")
        return tuple(
            SpecialBlock(ipaddress.ip_network(block.strip()), row["Name"], " ".join(row["RFC"].split()),
                         _without_footnote(row["Globally Reachable"]) == "True")
            for row in rows
            for block in _without_footnote(row["Address Block"]).split(",")
        )


@cache
def unreachable_blocks() -> tuple[SpecialBlock, ...]:
    """Every block of the registries that is not globally reachable, most specific first."""
    blocks = (block for name in REGISTRIES for block in read_registry(DATA / name))
    return tuple(sorted((block for block in blocks if not block.globally_reachable),
                        key=lambda block: -block.network.prefixlen))


def unreachable_block(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> SpecialBlock | None:
    """The most specific block holding ``ip`` that is not globally reachable, or ``None``."""
    for block in unreachable_blocks():
        if block.network.version == ip.version and ip in block.network:
            return block
    return None
