"""An Archive played by the test, on a real loopback socket, for what the resolver sends.

The resolver asks Archives through libcurl (:mod:`ibiportal.resolver.curl_transport`), which
``responses`` cannot see: a test that plays an Archive to the resolver runs one for real. A
:class:`ScriptedArchive` is a :class:`~tests.reliability.faulty_archives.RawArchive` that answers
each request with what the test's ``answer`` callback returns for it, and reads back the
requests it received, so that a test counts the messages the portal sent (its ``urlRequest`` and
``acknowledgment``, §8) instead of mocked calls.

The ``scripted_archive`` and ``loopback_fan_out`` fixtures of ``tests/conftest.py`` start one
and let the resolver reach it.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import parse_qs, urlsplit

from tests.reliability.faulty_archives import RawArchive, http_answer


@dataclass(frozen=True)
class ArchiveRequest:
    """One request as the Archive received it: its ``Host`` header and its target."""

    host: str
    target: str

    @classmethod
    def of(cls, head: bytes) -> ArchiveRequest:
        """The request in a request head (request line and headers, as RawArchive keeps them)."""
        request_line, *headers = head.decode("latin-1").split("\r\n")
        host = next((value.strip() for name, _, value in (line.partition(":") for line in headers)
                     if name.strip().lower() == "host"), "")
        return cls(host, request_line.split(" ")[1])

    @property
    def url(self) -> str:
        """The URL the portal asked for (as ``requests`` saw it when this Archive was mocked)."""
        return f"http://{self.host}{self.target}"

    @property
    def hostname(self) -> str:
        """The Archive's host name the portal used, without the port."""
        return urlsplit(self.url).hostname or ""

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.target).query)

    @property
    def subject(self) -> str | None:
        """``servicesubject``: which message of the protocol this is."""
        return self.query.get("servicesubject", [None])[0]


@dataclass(frozen=True)
class Answer:
    """What the Archive answers: an HTTP status and a text body (a pair list, §6.2)."""

    body: str = ""
    status: int = 200
    content_type: str = "text/plain"


class ScriptedArchive(RawArchive):
    """A loopback Archive answering every request with ``answer(request)`` (a body, or an
    :class:`Answer` for another status), one connection per request."""

    def __init__(self, answer: Callable[[ArchiveRequest], Answer | str]) -> None:
        self.answer = answer
        super().__init__(self._reply)

    def _reply(self, connection, head: bytes) -> None:
        answer = self.answer(ArchiveRequest.of(head))
        if isinstance(answer, str):
            answer = Answer(answer)
        status = f"{answer.status} {HTTPStatus(answer.status).phrase}"
        connection.sendall(http_answer(answer.body.encode("utf-8"), status=status, content_type=answer.content_type))

    @property
    def received(self) -> list[ArchiveRequest]:
        """Every request received, in order of arrival."""
        return [ArchiveRequest.of(head) for head in list(self.requests)]

    def sent(self, subject: str) -> list[ArchiveRequest]:
        """The requests about ``subject`` (``urlRequest``, ``acknowledgment``…), in order."""
        return [request for request in self.received if request.subject == subject]

    def count(self, subject: str) -> int:
        return len(self.sent(subject))

    def wait_for(self, subject: str, count: int, seconds: float = 5.0) -> int:
        """Messages sent from a pool (a cache hit's acknowledgment) arrive after the response:
        wait until ``count`` came (``seconds`` at most), then a moment more, so that an extra
        one would be counted too."""
        deadline = time.monotonic() + seconds
        while self.count(subject) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)
        return self.count(subject)
