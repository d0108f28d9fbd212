"""A resolver service written from file 003 §7 alone, to test the portal's own Archive joining one.

It deliberately uses nothing of ``ibiportal`` (only the standard library), so that it cannot
share a misreading with the portal's own resolver code. From the standard's text:

* Table 7.2: an ``inclusionRequest`` or ``exclusionRequest`` carries eight mandatory pairs:
  ``servicesubject``, ``archiveaddress`` (hostport), ``archiveserviceibi``, ``archiveip``
  (IPv4address or IPv6address), ``archiveprotocol`` (``HTTP``), ``archiveplatformversion`` (an
  ASCII string), ``archiveadmemailaddress`` and ``registrationkey`` (Table 7.1: ``número
  ["-" número]``, ``número = 10*DÍGITO``).
* §7.2: the resolver includes a registered Archive whose key matches; on inclusion it sends
  ``http://<archiveaddress>/<archiveserviceibi>?servicesubject=inclusionConfirmationRequest``
  (Example 7.4) and answers ``status.archive included status.confirmation successful`` when the
  answer was ``confirmation yes``, else ``… unsuccessful``; on exclusion it answers
  ``status.archive excluded``.
* A refusal is a pair list ``status.archive refused status.reason {…}`` with a 4xx status (the
  project's decision where the standard is silent, STANDARD.md §3).

Answers are ``text/plain`` pair lists (Table 6.2), a multi-word value in braces.
"""
from __future__ import annotations

import ipaddress
import re
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

MANDATORY = ("servicesubject", "archiveaddress", "archiveserviceibi", "archiveip", "archiveprotocol",
             "archiveplatformversion", "archiveadmemailaddress", "registrationkey")
KEY = re.compile(r"[0-9]{10,}(-[0-9]{10,})?")
HOSTPORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?")


@dataclass
class Received:
    """One request as the resolver saw it: its raw query's pairs in order, and for an inclusion
    what the confirmation request (3) brought back (``None``: it could not be sent or answered)."""

    pairs: list[tuple[str, str]]
    confirmation_url: str | None = None
    confirmation_answer: str | None = None


@dataclass
class IndependentResolver:
    """The resolver's state: registered Archives (service IBI → key), who is included, what came in.

    ``answer_override``: a raw body to answer every request with (to test an answer that is no
    pair list); ``callback_timeout``: how long the confirmation request may take.
    """

    service_ibi: str = "J8LNKB5R7W/3FUQHC5"
    registered: dict[str, str] = field(default_factory=dict)
    included: dict[str, str] = field(default_factory=dict)  # service IBI → archiveaddress
    received: list[Received] = field(default_factory=list)
    answer_override: bytes | None = None
    callback_timeout: float = 10.0
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/{self.service_ibi}"

    def start(self) -> IndependentResolver:
        resolver = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                status, body = resolver.answer(self.path)
                data = body.encode("ascii")
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, path: str) -> tuple[int, str]:
        if self.answer_override is not None:
            return 200, self.answer_override.decode("latin-1")
        parts = urlsplit(path)
        if parts.path.strip("/") != self.service_ibi:
            return 404, refused("not the resolver service")
        pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=False)
        received = Received(pairs)
        self.received.append(received)
        values = dict(pairs)
        problem = self.check(pairs, values)
        if problem:
            return 400, refused(problem)
        ibi = values["archiveserviceibi"]
        if ibi not in self.registered:
            return 404, refused("unknown archive")
        if values["registrationkey"] != self.registered[ibi]:
            return 403, refused("wrong registration key")
        if values["servicesubject"] == "exclusionRequest":
            self.included.pop(ibi, None)
            return 200, "status.archive excluded"
        self.included[ibi] = values["archiveaddress"]
        confirmed = self.confirm(values["archiveaddress"], ibi, received)
        return 200, f"status.archive included status.confirmation {'successful' if confirmed else 'unsuccessful'}"

    def check(self, pairs: list[tuple[str, str]], values: dict[str, str]) -> str | None:
        """What is wrong with an inclusion or exclusion request (Table 7.2), or ``None``."""
        names = [name for name, _ in pairs]
        for name in MANDATORY:
            if names.count(name) != 1:
                return f"{name} missing or repeated"
        if values["servicesubject"] not in ("inclusionRequest", "exclusionRequest"):
            return "servicesubject is neither inclusionRequest nor exclusionRequest"
        if not HOSTPORT.fullmatch(values["archiveaddress"]):
            return "archiveaddress is not a hostport"
        try:
            ipaddress.ip_address(values["archiveip"])
        except ValueError:
            return "archiveip is not an IP address"
        if values["archiveprotocol"] != "HTTP":
            return "archiveprotocol is not HTTP"
        if not values["archiveplatformversion"] or not values["archiveplatformversion"].isascii():
            return "archiveplatformversion is not an ASCII string"
        if values["archiveadmemailaddress"].count("@") != 1:
            return "archiveadmemailaddress is not an e-mail address"
        if not KEY.fullmatch(values["registrationkey"]):
            return "registrationkey does not follow Table 7.1"
        return None

    def confirm(self, address: str, ibi: str, received: Received) -> bool:
        """Message (3) of Figure 7.1 (Example 7.4); True when (4) is ``confirmation yes``."""
        url = f"http://{address}/{ibi}?servicesubject=inclusionConfirmationRequest"
        received.confirmation_url = url
        try:
            with urllib.request.urlopen(url, timeout=self.callback_timeout) as response:
                received.confirmation_answer = response.read(4096).decode("latin-1")
        except (OSError, urllib.error.URLError):
            return False
        # Strict, as a resolver written from Table 6.2 alone may be: exactly the one pair.
        return received.confirmation_answer == "confirmation yes"


def refused(reason: str) -> str:
    return f"status.archive refused status.reason {{{reason}}}"
