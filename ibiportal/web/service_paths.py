"""The service rules answer their IBI in any case.

An IBI is case-insensitive (file 004, Tables 6.1 and 7.1: upper case is only *recommended*
for an IBIp, lower case for a repository name's prefix), so ``/32g4gkpw/4gr3p92`` is the own
Archive service (§9.1) and ``/j8lnkb5r7w/3fuqhc5`` the resolver service (§7.2). Their rules are
fixed paths; this WSGI wrapper gives a request for either path, in any case, the rule's own
spelling before routing, so that rate limits and everything else keyed on the rule still apply.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class ServicePaths:
    """WSGI middleware: ``PATH_INFO`` equal to one of ``paths`` but for case becomes that path."""

    def __init__(self, app: Any, paths: Iterable[str]) -> None:
        self.app = app
        self.paths = {path.casefold(): path for path in paths}

    def __call__(self, environ: dict, start_response: Any) -> Any:
        path = environ.get("PATH_INFO", "")
        spelled = self.paths.get(path.casefold())
        if spelled is not None and spelled != path:
            environ = {**environ, "PATH_INFO": spelled}
        return self.app(environ, start_response)
