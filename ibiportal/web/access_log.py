"""The access log's line, written field by field (:class:`~.log_redaction.RedactingGunicornLogger`).

The line (``config.ACCESS_LOG_FORMAT``, ``gunicorn.conf.py``'s ``access_log_format``): client, time, method, PATH WITHOUT QUERY,
status, size, milliseconds, whether a resolution was served from the cache, user agent, and
X-Forwarded-For (behind nginx the client, ``h`` being nginx; nginx writes it, so a client cannot).
No query string at all (registration keys travel in the resolver service's queries, Table 7.1);
no Referer: a trace permalink (a capability) would land there.

gunicorn writes a line by building a dictionary of every field it knows (each request header,
each response header, each environ variable) and formatting the configured format over it; the
key filter (:mod:`.log_redaction`) then searched the whole line for ``…key=`` pairs, which this
line always has the look of (``cache=``, ``for=``). That was a third of a cached redirect's CPU
(``benchmarks/uncached.py``). :func:`access_line` writes the same line from the few fields it
has, and blanks keys only in the fields a client chooses (the path, the user agent and
X-Forwarded-For), and only when one holds a ``=``: the other fields are the server's own words.
A format other than that one (given on the command line) is written by gunicorn
as before, and filtered whole.
"""
from __future__ import annotations

import time

from .log_redaction import redact


class _Clock:
    """The time field, ``[28/Nov/2026:07:16:23 +0000]`` as gunicorn writes it, made once a second."""

    def __init__(self) -> None:
        self.second, self.text = -1, ""

    def now(self) -> str:
        second = int(time.time())
        if second != self.second:
            self.text, self.second = time.strftime("[%d/%b/%Y:%H:%M:%S %z]", time.localtime(second)), second
        return self.text


_CLOCK = _Clock()


def _text(value: object) -> str:
    """A field as gunicorn writes it: a double quote escaped."""
    return value.replace('"', '\\"') if isinstance(value, str) else str(value)


def _chosen(value: object) -> str:
    """A field the client chose: as :func:`_text`, its ``…key=`` values blanked."""
    text = _text(value)
    return redact(text) if "=" in text else text


def _header(headers, name: str) -> str:  # type: ignore[no-untyped-def]
    """The last value of header ``name`` (upper case) among gunicorn's ``(NAME, value)`` pairs,
    ``-`` without one."""
    found = "-"
    for key, value in headers:
        if key.upper() == name:
            found = value
    return found


def access_line(resp, req, environ: dict, request_time) -> str:  # type: ignore[no-untyped-def]
    """The line ``ACCESS_LOG_FORMAT`` gives for one request, keys blanked."""
    status = resp.status
    if isinstance(status, str):
        status = status.split(None, 1)[0]
    sent = getattr(resp, "sent", None)
    milliseconds = request_time.seconds * 1000 + int(request_time.microseconds / 1000)
    headers = req.headers if hasattr(req, "headers") else req
    return (f'{_text(environ.get("REMOTE_ADDR", "-"))} {_CLOCK.now()} "{_text(environ.get("REQUEST_METHOD"))} '
            f'{_chosen(environ.get("PATH_INFO"))} {_text(environ.get("SERVER_PROTOCOL"))}" {_text(status)} '
            f'{sent if sent is not None and str(sent) else "-"} {milliseconds}ms '
            f'cache={_text(_header(resp.headers, "X-IBI-CACHE"))} "{_chosen(environ.get("HTTP_USER_AGENT", "-"))}" '
            f'for={_chosen(_header(headers, "X-FORWARDED-FOR"))}')
