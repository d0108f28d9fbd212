"""Real URLib servers: prefix pairs with the public source of each (``data/known_servers.json``).

A repository-name prefix and an IBIp prefix name the same identification subsystem only as a
fact found somewhere: neither follows from the other (STANDARD.md §1.4). Each pair here comes
with a published reference that prints both forms of one item, and that item, so that the pair
can be checked (its two suffixes must be one date) and a conversion can say where its prefix
came from. The standard's own pairs (file 003's examples) are listed first, as before.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ibiportal.ibi.ibip import decode_ibip_prefix
from ibiportal.ibi.repository import decode_rep_prefix

DATA_PATH = Path(__file__).resolve().parent / "data" / "known_servers.json"


@dataclass(frozen=True)
class KnownServer:
    """One subsystem's two prefixes, an item printed in both forms, and where it was printed."""

    rep_prefix: str
    ibip_prefix: str
    item_rep: str
    item_ibip: str
    reference: str
    found_in: str | None = None

    @property
    def pair(self) -> tuple[str, str]:
        return self.rep_prefix, self.ibip_prefix

    def to_dict(self) -> dict:
        return {"rep": self.rep_prefix, "ibip": self.ibip_prefix, "item": {"rep": self.item_rep, "ibip": self.item_ibip},
                "reference": self.reference, "found_in": self.found_in}


def load_known_servers(path: Path = DATA_PATH) -> tuple[KnownServer, ...]:
    """The servers of the data file, each pair checked to decode (a bad file fails at import)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    servers = []
    for entry in data["servers"]:
        decode_rep_prefix(entry["rep_prefix"])
        decode_ibip_prefix(entry["ibip_prefix"])
        servers.append(KnownServer(
            entry["rep_prefix"], entry["ibip_prefix"], entry["item"]["rep"], entry["item"]["ibip"],
            entry["reference"], entry.get("found_in"),
        ))
    return tuple(servers)


KNOWN_SERVERS = load_known_servers()


def known_server(rep_prefix: str, ibip_prefix: str, servers: tuple[KnownServer, ...] = KNOWN_SERVERS) -> KnownServer | None:
    """The server of the data file for this pair: the same spelling first, else one naming the same
    host and port (``sid.inpe.br/mtc-m18@80`` is ``sid.inpe.br/mtc-m18``); None when none has it."""
    wanted = ibip_prefix.upper()
    candidates = [server for server in servers if server.ibip_prefix.upper() == wanted]
    exact = next((server for server in candidates if server.rep_prefix.lower() == rep_prefix.lower()), None)
    if exact is not None:
        return exact
    host_port = decode_rep_prefix(rep_prefix)
    return next((server for server in candidates if decode_rep_prefix(server.rep_prefix) == host_port), None)
