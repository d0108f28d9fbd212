"""Fixtures of the security tests: a DNS under the test's control, and a record of every
address the portal actually dials (nothing is dialed: the attempt is refused and recorded)."""
from __future__ import annotations

import socket

import pycurl
import pytest
import urllib3.util.connection

from ibiportal.resolver.curl_transport import CurlTransport


@pytest.fixture
def dialed(monkeypatch) -> list[tuple[str, int]]:
    """Every (address, port) either HTTP client opens a socket to; each attempt is refused.

    urllib3 (``HttpTransport``) dials through ``create_connection``; libcurl
    (``CurlTransport``) asks its ``CURLOPT_OPENSOCKETFUNCTION`` for every socket it opens, with
    the address it is about to connect to, and gives up on that address when it gets none."""
    attempts: list[tuple[str, int]] = []

    def refuse(address, *args, **kwargs):
        attempts.append((address[0], address[1]))
        raise ConnectionRefusedError(f"test: connection to {address[0]} refused")

    def open_no_socket(purpose, address):
        attempts.append((address.addr[0], address.addr[1]))
        return pycurl.SOCKET_BAD

    configure = CurlTransport._configure

    def configure_recording(transport, transfer, *args, **kwargs):
        configure(transport, transfer, *args, **kwargs)
        transfer.curl.setopt(pycurl.OPENSOCKETFUNCTION, open_no_socket)

    monkeypatch.setattr(urllib3.util.connection, "create_connection", refuse)
    monkeypatch.setattr(CurlTransport, "_configure", configure_recording)
    return attempts


@pytest.fixture
def dns(monkeypatch):
    """``socket.getaddrinfo`` answering from a table: ``dns["evil.example"] = ["127.0.0.1"]``.

    A value may also be a list of answers, one per lookup (DNS rebinding). Names not in the
    table resolve as usual (IP literals, ``localhost``). Every lookup is recorded in
    ``dns.lookups``.
    """
    real = socket.getaddrinfo

    class Table(dict):
        lookups: list[str] = []

    table = Table()
    table.lookups = []

    def lookup(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        table.lookups.append(name)
        if name not in table:
            return real(host, port, *args, **kwargs)
        answer = table[name]
        if answer and isinstance(answer[0], list):  # one answer per lookup, the last one repeated
            answer = answer.pop(0) if len(answer) > 1 else answer[0]
        return [
            (socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM, 6, "",
             (ip, port, 0, 0) if ":" in ip else (ip, port))
            for ip in answer
        ]

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    return table
