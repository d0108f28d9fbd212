"""Address policy: Table 8.10 IP lists from X-Forwarded-For, and which Archive hosts may be contacted."""
from __future__ import annotations

import socket

import pytest

from ibiportal.resolver.addresses import AddressRefused, check_host, client_ip_list, refusal_reason
import ipaddress


@pytest.mark.parametrize(
    ("remote", "forwarded", "trusted", "expected"),
    [
        ("150.163.68.1", "172.16.44.200", ["150.163.68.1"], ("172.16.44.200", "150.163.68.1")),  # §10.1
        ("150.163.68.1", "172.16.44.200", [], ("150.163.68.1",)),  # untrusted peer: footnote 2 of §8.2
        ("150.163.2.175", None, [], ("150.163.2.175",)),  # Example 8.8
        ("10.0.0.2", "203.0.113.9, 198.51.100.7", ["10.0.0.0/8"], ("198.51.100.7", "10.0.0.2")),
        ("10.0.0.2", "203.0.113.9, 198.51.100.7", ["10.0.0.0/8", "198.51.100.7"], ("203.0.113.9", "198.51.100.7", "10.0.0.2")),
        ("10.0.0.2", "unknown, 198.51.100.7", ["10.0.0.2", "198.51.100.7"], ("198.51.100.7", "10.0.0.2")),
        ("10.0.0.2", "[2001:db8::1], 198.51.100.7:4711", ["10.0.0.2", "198.51.100.7"], ("2001:db8::1", "198.51.100.7", "10.0.0.2")),
        ("not-an-ip", "1.2.3.4", ["0.0.0.0/0"], ()),
    ],
)
def test_client_ip_list(remote, forwarded, trusted, expected):
    assert client_ip_list(remote, forwarded, trusted) == expected


def fake_dns(mapping):
    def getaddrinfo(host, port, *args, **kwargs):
        if host not in mapping:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in mapping[host]]
    return getaddrinfo


@pytest.mark.parametrize(
    ("host", "ips", "word"),
    [
        ("127.0.0.1", ["127.0.0.1"], "loopback"),
        ("10.1.2.3", ["10.1.2.3"], "private"),
        ("169.254.169.254", ["169.254.169.254"], "link-local"),
        ("::1", ["::1"], "loopback"),
        ("evil.example", ["127.0.0.1"], "loopback"),
        ("mixed.example", ["93.184.216.34", "192.168.1.1"], "private"),
        ("0.0.0.0", ["0.0.0.0"], "unspecified"),
        ("224.0.0.1", ["224.0.0.1"], "multicast"),
        ("mapped.example", ["::ffff:127.0.0.1"], "loopback"),
        ("240.0.0.1", ["240.0.0.1"], "reserved"),
        # what Python 3.11 calls global, IANA's special-purpose registries do not (finding 4)
        ("fec0::1", ["fec0::1"], "fec0::/10, Deprecated (previously Site-Local)"),
        ("192.0.0.8", ["192.0.0.8"], "192.0.0.8/32, IPv4 dummy address"),
        ("192.0.0.9", ["192.0.0.9"], "192.0.0.0/24, IETF Protocol Assignments"),
        ("relay.example", ["192.88.99.1"], "192.88.99.0/24, Deprecated (6to4 Relay Anycast)"),
        ("docs.example", ["150.163.34.243", "3fff::1"], "3fff::/20, Documentation"),
    ],
)
def test_refused_after_dns(host, ips, word):
    with pytest.raises(AddressRefused) as caught:
        check_host(host, 80, allow_private=False, getaddrinfo=fake_dns({host: ips}))
    assert word in caught.value.reason


def test_public_and_allow_private():
    dns = fake_dns({"archive.example": ["93.184.216.34"], "lab": ["127.0.0.1"]})
    assert check_host("archive.example", 80, allow_private=False, getaddrinfo=dns).addresses == ("93.184.216.34",)
    assert check_host("lab", 80, allow_private=True, getaddrinfo=dns).addresses == ("127.0.0.1",)


def test_allow_private_lets_special_purpose_addresses_through_too():
    dns = fake_dns({"lab": ["192.0.0.8", "fec0::1", "3fff::1"]})
    assert check_host("lab", 80, allow_private=True, getaddrinfo=dns).addresses == ("192.0.0.8", "fec0::1", "3fff::1")


def test_unresolvable_is_refused():
    with pytest.raises(AddressRefused, match="does not resolve"):
        check_host("nowhere.example", 80, allow_private=False, getaddrinfo=fake_dns({}))


def test_refusal_reason_public():
    assert refusal_reason(ipaddress.ip_address("150.163.34.243")) is None
