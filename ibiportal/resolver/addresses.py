"""Address policy of the resolver: who the user is, which Archives it may contact, and where
it may send the user.

Three questions about addresses:

* :func:`client_ip_list` – the ``clientinformation.ipaddress`` value captured in step (2) of
  Figure 8.1 (Table 8.6): the user's IP, then its successive proxies (Table 8.10, e.g.
  ``172.16.44.200 150.163.68.1`` in §10.1). ``X-Forwarded-For`` is honoured only when it
  was written by a configured trusted proxy.
* :func:`redirect_problem` – whether the resolver may send the browser to a URL an Archive
  answered (step (7) of Figure 8.1): no open redirect to another scheme or a malformed URL.
* :func:`check_host` – whether the HTTP transport may contact an Archive's host: every
  address the host resolves to must be a public one (no loopback, private, link-local,
  multicast, reserved or unspecified address, nor one in a block that IANA's special-purpose
  registries do not call globally reachable, so that an Archive address cannot be used to
  reach the resolver's own network), unless the deployment allows private Archives. The
  addresses checked are returned so that the caller connects to exactly those (a later DNS
  answer cannot switch it to another address).
"""
from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from ibiportal.errors import IbiError
from ibiportal.i18n import N_, Message, Recorded
from ibiportal.resolver.special_addresses import unreachable_block

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
GetAddrInfo = Callable[..., list]


class AddressRefused(IbiError):
    """An Archive address the resolver will not contact (the reason says why)."""

    def __init__(self, host: str, reason: Message):
        self.message = N_("refused to contact %(host)s: %(reason)s", host=host, reason=reason)
        super().__init__(self.message)
        self.host = host
        self.reason = reason


def _parse_ip(text: str) -> IpAddress | None:
    """An IP address from an ``X-Forwarded-For`` element or ``remote_addr``, or ``None``.

    Accepts ``[v6]`` brackets and an IPv4 ``:port`` suffix, which some proxies write.
    """
    candidate = text.strip()
    if candidate.startswith("[") and "]" in candidate:
        candidate = candidate[1:candidate.index("]")]
    elif candidate.count(":") == 1:
        candidate = candidate.partition(":")[0]
    try:
        return ipaddress.ip_address(candidate)
    except ValueError:
        return None


def _networks(trusted: Iterable[str]) -> tuple[IpNetwork, ...]:
    """Trusted proxies as networks (a single address is a /32 or /128)."""
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in trusted)


def client_ip_list(
    remote_addr: str | None, forwarded_for: str | None, trusted_proxies: Iterable[str]
) -> tuple[str, ...]:
    """The user's IP then its proxies', for ``clientinformation.ipaddress`` (Tables 8.6, 8.10).

    ``remote_addr`` is the peer of the resolver's socket; ``forwarded_for`` the raw
    ``X-Forwarded-For`` header (``client, proxy1, proxy2``) or ``None``; ``trusted_proxies``
    the configured proxies (addresses or CIDR networks) whose ``X-Forwarded-For`` is believed.

    The chain ``forwarded_for + [remote_addr]`` is read from the right: the peer is always
    kept; an element to its left is kept only while the element to its right is a trusted
    proxy (only a trusted proxy's claim about who connected to it is believed). Reading stops
    at the first element that is not an IP. With peer 150.163.68.1 trusted and
    ``X-Forwarded-For: 172.16.44.200`` the list is ``("172.16.44.200", "150.163.68.1")``, as
    in §10.1; with the peer untrusted it is ``("150.163.68.1",)`` – the case of footnote 2 of
    §8.2 ("the first element may be the user's last proxy").

    Returns the empty tuple when ``remote_addr`` is missing or not an IP (the caller decides
    what to do: Table 8.9 makes the pair mandatory).
    """
    peer = _parse_ip(remote_addr or "")
    if peer is None:
        return ()
    networks = _networks(trusted_proxies)
    claimed = [element for element in (forwarded_for or "").split(",") if element.strip()]
    kept: list[IpAddress] = [peer]
    while claimed and any(kept[0] in network for network in networks):
        previous = _parse_ip(claimed.pop())
        if previous is None:
            break
        kept.insert(0, previous)
    return tuple(str(ip) for ip in kept)


_NOT_IN_A_URL = re.compile(r"[^\x21-\x7e]|\\")


def redirect_problem(url: str) -> str | None:
    """Why the browser must not be redirected to ``url`` (an Archive's answer), or ``None``.

    Only an absolute ``http`` or ``https`` URL with a host is a place to send a user to: not
    ``javascript:``, ``data:``, ``file:`` or ``ftp:``, not a scheme-relative ``//host`` or a
    relative URL (the browser would resolve it against the portal). Whitespace, control and
    non-ASCII characters and backslashes are refused (browsers and parsers disagree about
    them; an Archive writes them ``%hh``, §6.2), and so is a user name or password in the
    URL (``http://www.inpe.br@evil.example/`` is a classic disguise).
    """
    if not url:
        return N_("the URL is empty")
    bad = _NOT_IN_A_URL.search(url)
    if bad:
        return N_("the URL has the character %(char)s at position %(position)s; write it %%hh",
                  char=repr(bad.group()), position=bad.start() + 1)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number from 0 to 65535
    except ValueError as error:
        return N_("the URL does not parse: %(error)s", error=Recorded(error))
    if parts.scheme.lower() not in ("http", "https"):
        if not parts.scheme:
            return N_("a relative URL is not http or https")
        return N_("%(scheme)s: is not http or https", scheme=parts.scheme)
    if not parts.hostname:
        return N_("the URL has no host")
    if "@" in parts.netloc:
        return N_("the URL carries a user name or password")
    return None


def refusal_reason(ip: IpAddress) -> Message | None:
    """Why the resolver must not contact ``ip`` when private Archives are not allowed, or ``None``.

    IPv6 addresses that carry an IPv4 address – IPv4-mapped (``::ffff:127.0.0.1``) and 6to4
    (``2002:7f00:1::``, which a host with a 6to4 tunnel sends to that IPv4 address) – are
    judged by their IPv4 address first (a 6to4 address of a public one is still refused: the
    registry does not call 2002::/16 globally reachable). After ``ipaddress``'s flags, which name the usual cases,
    the registries of :mod:`~ibiportal.resolver.special_addresses` catch the blocks Python does
    not know (``192.0.0.8``, ``192.88.99.1``, ``3fff::1``, ``fec0::1``…).
    """
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return refusal_reason(ip.ipv4_mapped)
    if isinstance(ip, ipaddress.IPv6Address) and ip.sixtofour is not None:
        embedded = refusal_reason(ip.sixtofour)
        if embedded is not None:
            return N_("%(ip)s is a 6to4 address of %(ipv4)s: %(reason)s", ip=str(ip), ipv4=str(ip.sixtofour),
                      reason=embedded)
    checks = (
        (N_("%(ip)s is an unspecified address"), ip.is_unspecified),
        (N_("%(ip)s is a loopback address"), ip.is_loopback),
        (N_("%(ip)s is a link-local address"), ip.is_link_local),
        (N_("%(ip)s is a multicast address"), ip.is_multicast),
        (N_("%(ip)s is a reserved address"), ip.is_reserved),
        (N_("%(ip)s is a private address"), ip.is_private),
    )
    for words, applies in checks:
        if applies:
            return Message(words.template, {"ip": str(ip)})
    block = unreachable_block(ip)
    if block is not None:
        return N_("%(ip)s is not globally reachable: it is in %(block)s, %(name)s, %(rfc)s",
                  ip=str(ip), block=str(block.network), name=Recorded(block.name), rfc=block.rfc)
    if not ip.is_global:
        return N_("%(ip)s is not globally reachable", ip=str(ip))
    return None


@dataclass(frozen=True)
class CheckedHost:
    """A host whose every resolved address passed the policy: connect only to ``addresses``."""

    host: str
    port: int
    addresses: tuple[str, ...]


#: Said with every refused address, so that whoever reads the refusal (an Archive's administrator
#: reading the resolver service's ``status.reason``, the portal's administrator reading a history
#: or a check) learns the one setting that changes it.
PRIVATE_REFUSED = N_("private Archives are not allowed by this resolver; its administrator can allow them "
                     "with IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1")


def check_host(
    host: str, port: int, *, allow_private: bool, getaddrinfo: GetAddrInfo | None = None
) -> CheckedHost:
    """Resolve ``host`` and check EVERY address it resolves to (after DNS, not before).

    Raises :class:`AddressRefused` when the name does not resolve or when any address is
    refused by :func:`refusal_reason` (one bad address is enough: a rebinding DNS could
    otherwise pick it on the next lookup). ``allow_private=True`` (deployment setting
    ``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1``) lets every address through, still resolved once.
    ``getaddrinfo`` defaults to :func:`socket.getaddrinfo` as it is at the call.
    """
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    lookup = socket.getaddrinfo if getaddrinfo is None else getaddrinfo
    try:
        infos = lookup(bare, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, ValueError) as error:  # ValueError: e.g. a NUL in the name
        raise AddressRefused(host[:80], N_("the name does not resolve (%(error)s)", error=Recorded(error))) from error
    addresses: list[str] = []
    for info in infos:
        text = str(info[4][0]).partition("%")[0]
        ip = ipaddress.ip_address(text)
        reason = None if allow_private else refusal_reason(ip)
        if reason is not None:
            raise AddressRefused(host, Message("%(reason)s (%(hint)s)", {"reason": reason, "hint": PRIVATE_REFUSED}))
        if str(ip) not in addresses:
            addresses.append(str(ip))
    if not addresses:
        raise AddressRefused(host, N_("the name resolves to no address"))
    return CheckedHost(host, port, tuple(addresses))


def check_url(url: str, *, allow_private: bool, getaddrinfo: GetAddrInfo | None = None) -> CheckedHost:
    """:func:`check_host` for the host of a request URL, which must be http(s) with a host (the
    port defaults by scheme); ``ValueError`` for a port that is not one (from ``urlsplit``)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressRefused(url[:80], N_("not an http(s) URL with a host"))
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return check_host(parts.hostname, port, allow_private=allow_private, getaddrinfo=getaddrinfo)
