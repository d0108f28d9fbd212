"""The known servers file: every pair is backed by an item printed in both forms, and conversion cites it."""
from __future__ import annotations

import pytest

from ibiportal.ibi.conversion import convert
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.ibip import decode_ibip_prefix
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS, equivalent_rep_prefixes
from ibiportal.ibi.servers import KNOWN_SERVERS, known_server, load_known_servers


@pytest.mark.parametrize("server", KNOWN_SERVERS, ids=[server.rep_prefix for server in KNOWN_SERVERS])
def test_each_pair_is_what_its_source_prints(server):
    """The item's two forms carry the pair's two prefixes and name one date: computed here from
    each form on its own (Algorithms 2 and 6), not taken from the table."""
    rep, ibip = parse_ibi(server.item_rep), parse_ibi(server.item_ibip)
    assert equivalent_rep_prefixes(rep.prefix, server.rep_prefix)
    assert ibip.prefix == server.ibip_prefix
    assert rep.date == ibip.date, server.reference
    assert server.reference
    assert server.item_ibip in server.reference or server.item_rep.split("/", 2)[2] in server.reference or "file 003" in server.reference


def test_real_servers_found_in_references_are_known():
    assert ("sid.inpe.br/mtc-m21d", "8JMKD3MGP3W34T") in KNOWN_PREFIX_PAIRS
    assert ("sid.inpe.br/mtc-m21c", "8JMKD3MGP3W34R") in KNOWN_PREFIX_PAIRS
    # Both decode to INPE's 150.163.34.239, ports 808 and 806 (URLib's links name mtc-m21c.sid.inpe.br+806).
    assert decode_ibip_prefix("8JMKD3MGP3W34T") == ("150.163.34.239", 808)
    assert decode_ibip_prefix("8JMKD3MGP3W34R") == ("150.163.34.239", 806)
    assert len(KNOWN_SERVERS) == len(load_known_servers())


def test_conversion_says_which_pair_and_which_source():
    conversion = convert("8JMKD3MGP3W34T/47E2TRB")  # REIS (2022): sid.inpe.br/mtc-m21d/2022/08.11.11.21-TDI
    assert conversion.rep == "sid.inpe.br/mtc-m21d/2022/08.11.11.21"
    assert (conversion.prefix.rep, conversion.prefix.ibip, conversion.prefix.source) == ("sid.inpe.br/mtc-m21d", "8JMKD3MGP3W34T", "table")
    assert "TATHU" in conversion.prefix.reference
    back = convert("sid.inpe.br/mtc-m21c/2019/12.04.15.16")
    assert back.ibip == "8JMKD3MGP3W34R/3UGHFGH" and "ROBLEDO ASENCIO" in back.prefix.reference
    # A pair given by the caller or an administrator has no published reference.
    assert convert("8JMKD3MGP3W34T/47E2TRB", [("example.org/x", "8JMKD3MGP3W34T")]).prefix.reference is None
    assert convert("8JMKD3MGP3W34T/47E2TRB", [], host="example.org").prefix.reference is None


def test_known_server_matches_spellings_of_one_subsystem():
    assert known_server("sid.inpe.br/mtc-m18@80", "8JMKD3MGP8W").rep_prefix == "sid.inpe.br/mtc-m18@80"
    assert known_server("sid.inpe.br/mtc-m18.80", "8jmkd3mgp8w").rep_prefix == "sid.inpe.br/mtc-m18"
    assert known_server("sid.inpe.br/mtc-m18", "LK47B6W") is None
