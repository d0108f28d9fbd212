"""IANA's special-purpose address registries as the resolver reads them: every row is tested, so
a refreshed registry is tested row by row too."""
from __future__ import annotations

import csv
import ipaddress

import pytest

from ibiportal.resolver.addresses import refusal_reason
from ibiportal.resolver.special_addresses import COLUMNS, DATA, REGISTRIES, read_registry, unreachable_block

BLOCKS = [(name, block) for name in REGISTRIES for block in read_registry(DATA / name)]
UNREACHABLE = [block for _name, block in BLOCKS if not block.globally_reachable]
REACHABLE = [block for _name, block in BLOCKS if block.globally_reachable]

#: What the resolver does with an address in each block the registries call globally reachable.
#: A refresh that adds such a block fails ``test_every_reachable_block_has_a_decided_outcome``
#: until someone decides here (and in docs/security.md) what the resolver does with it.
REACHABLE_OUTCOMES = {
    # refused: inside 192.0.0.0/24 and 2001::/23, which are not (anycast of other protocols, identifiers)
    "192.0.0.9/32": "refused",
    "192.0.0.10/32": "refused",
    "2001:1::1/128": "refused",
    "2001:1::2/128": "refused",
    "2001:1::3/128": "refused",
    "2001:3::/32": "refused",
    "2001:4:112::/48": "refused",
    "2001:20::/28": "refused",
    "2001:30::/28": "refused",
    "64:ff9b::/96": "refused",  # NAT64 of any IPv4 address: ipaddress calls ::/8 reserved
    # contacted: DNS infrastructure and multicast tunnelling anycast, routed on the Internet
    "192.31.196.0/24": "contacted",
    "192.52.193.0/24": "contacted",
    "192.175.48.0/24": "contacted",
    "2620:4f:8000::/48": "contacted",
}


def ends(network):
    return [network.network_address, network.broadcast_address]


@pytest.mark.parametrize("name", REGISTRIES)
def test_each_file_has_iana_columns_and_says_where_it_comes_from(name):
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    comments = [line for line in lines if line.startswith("#")]
    assert comments and lines[:len(comments)] == comments  # source (and date) first
    assert lines[len(comments)].split(",") == COLUMNS
    if name.startswith("iana-"):
        assert " as of 20" in comments[0] and f"https://www.iana.org/assignments/{name[:-4]}/{name[:-4]}-1.csv" in comments[1]
    rows = list(csv.reader(lines[len(comments) + 1:]))
    assert rows and all(len(row) == len(COLUMNS) for row in rows)


def test_the_registries_hold_the_blocks_of_finding_4():
    networks = {str(block.network): block for _name, block in BLOCKS}
    assert not networks["192.0.0.8/32"].globally_reachable and not networks["192.0.0.0/24"].globally_reachable
    assert not networks["192.88.99.0/24"].globally_reachable  # deprecated: IANA removed its values
    assert not networks["3fff::/20"].globally_reachable and not networks["5f00::/16"].globally_reachable
    assert not networks["fec0::/10"].globally_reachable and networks["fec0::/10"].rfc == "[RFC3879]"
    assert networks["192.0.0.171/32"].name == "NAT64/DNS64 Discovery"  # the second block of its row
    assert networks["255.255.255.255/32"].rfc == "[RFC8190] [RFC919], Section 7"  # a cell on two lines


@pytest.mark.parametrize("block", UNREACHABLE, ids=lambda block: str(block.network))
def test_every_address_of_an_unreachable_block_is_refused(block):
    for ip in ends(block.network):
        assert refusal_reason(ip) is not None, ip
        assert unreachable_block(ip).network.subnet_of(block.network)


def test_every_reachable_block_has_a_decided_outcome():
    assert sorted(str(block.network) for block in REACHABLE) == sorted(REACHABLE_OUTCOMES)


@pytest.mark.parametrize("block", REACHABLE, ids=lambda block: str(block.network))
def test_a_reachable_block_is_contacted_unless_it_lies_in_one_that_is_not(block):
    expected = REACHABLE_OUTCOMES[str(block.network)]
    for ip in ends(block.network):
        assert (refusal_reason(ip) is None) == (expected == "contacted"), ip


@pytest.mark.parametrize(("address", "block"), [
    ("fec0::1", "fec0::/10, Deprecated (previously Site-Local), [RFC3879]"),
    ("192.0.0.8", "192.0.0.8/32, IPv4 dummy address, [RFC7600]"),
    ("192.0.0.9", "192.0.0.0/24, IETF Protocol Assignments, [RFC6890], Section 2.1"),
    ("192.88.99.1", "192.88.99.0/24, Deprecated (6to4 Relay Anycast), [RFC7526]"),
    ("3fff::1", "3fff::/20, Documentation, [RFC9637]"),
])
def test_the_addresses_of_finding_4_are_refused_naming_their_block(address, block):
    ip = ipaddress.ip_address(address)
    assert ip.is_global  # what Python 3.11 says, and why the registries are read
    assert refusal_reason(ip) == f"{address} is not globally reachable: it is in {block}"


def test_a_6to4_address_of_a_public_ipv4_address_is_refused_as_6to4():
    """2002::/16 is "N/A" in the registry: only reachable through a 6to4 relay, itself deprecated."""
    assert "2002::/16, 6to4" in refusal_reason(ipaddress.ip_address("2002:96a3:22f3::1"))


def test_public_addresses_stay_contacted():
    for address in ("150.163.34.243", "2001:4860::1", "::ffff:150.163.34.243", "2800:3f0:4001::1"):
        assert refusal_reason(ipaddress.ip_address(address)) is None, address
