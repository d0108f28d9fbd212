"""A redirect answered before Flask's dispatch, from the cache or resolved.

Most of what ``GET /<persistent URL>`` serves is a redirect: from the resolution cache
(``ibiportal.resolver.cache``) a lookup, an acknowledgment (Table 8.11) and a 302; uncached, a
resolution, its trace stored, and the same 302. Through Flask such a request also paid for a
request context, a session opened though none is sent, the request hooks, every header parsed
and validated twice, and the Location and Signposting URLs converted again and again: more than
the rest of the portal's work on a hit (benchmarks/cache.py), a fifth of an uncached resolution
(benchmarks/uncached.py). This WSGI layer, between the service paths' spelling and the request
ids, recognises a request that Flask would route to the resolve view, makes the view's one use
case call (``Resolving.answer``: the cache, or the URL read and resolved, its acknowledgment
sent, its trace stored, its serving counted), and when the answer is a redirect answers it itself
with the same bytes: status, Location, body, the trace headers, the Signposting ``Link``, the
security headers, ``X-Request-ID``; gunicorn writes the same access line from the same response.
Any other answer (an alert, a refusal, a rescued direct link, a failure) is handed to the resolve
view in the WSGI environ (:data:`~ibiportal.web.resolve.views.ANSWERED`), which renders it as it
renders its own: nothing is resolved twice, and every alert page is Flask's. A test sends the
same requests through both paths and compares them.

It resolves only what Flask would resolve with the same answer, and hands everything else to
Flask unchanged:

* a ``GET`` without a body (no ``Content-Length`` beyond 0, no ``Transfer-Encoding``) and
  without a cookie (a session cookie may be refreshed, a ``Vary: Cookie`` added);
* a host Flask accepts (``TRUSTED_HOSTS``: an untrusted one is Flask's 400), a path the router
  sends to the resolve view (asked once per path and worker), an empty ``SCRIPT_NAME``;
* a query string the edge check (``web/edge.py``) would pass without decoding it: printable
  ASCII without ``%``, at most ``MAX_TEXT_CHARS``;
* no citation type in ``Accept`` (it is counted against ``RATELIMIT_TRACE``, and may get the citation);
* the request URI as sent (``RAW_URI`` or ``REQUEST_URI``).

Resolution is not rate limited (``web/resolve/views.py``), and a request that reaches a view
through Flask with these properties runs no other hook that changes its answer: the language
switch does not read a persistent URL's query, the body reader has no body to read. A redirect
to a direct Archive link's item (``rescued``) is Flask's too: its loop check reads the whole
request URL.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.exceptions import HTTPException
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.urls import iri_to_uri
from werkzeug.wsgi import get_host

from ..application.resolving import Received
from ..log_limits import LimitedLog
from ..resolver.statuses import FOUND_STATUS
from .context import APPLICATION, request_caller, site_at
from .edge import passes_undecoded
from .log_format import REQUEST_ID, request_id
from .resolve.negotiation import mentions_citation
from .resolve.views import ANSWERED, found_headers, redirect_body
from .security import HEADERS

_LOG = LimitedLog(logging.getLogger(__name__))

#: The endpoint whose cached redirects are answered here.
RESOLVE_ENDPOINT = "resolve.resolve"
#: The most paths whose route, and Host headers whose verdict, are remembered (then forgotten all
#: at once: a crawler's paths must not grow a worker's memory).
ROUTED_PATHS = 4096
#: The most answers whose headers are remembered, by redirect, trace, cache state and site.
ANSWERS = 4096
#: The cache states whose answers repeat: a redirect served from the cache carries its trace again;
#: a resolution made here has a trace of its own, so its headers are never asked twice.
_REPEATED = ("hit", "stale")

_STATUS = f"{FOUND_STATUS} {HTTP_STATUS_CODES[FOUND_STATUS].upper()}"
_SECURITY = list(HEADERS.items())
_HSTS = ("Strict-Transport-Security", "max-age=31536000")

StartResponse = Callable[..., Any]


class CachedHits:
    """WSGI middleware over ``wsgi_app`` (the portal's Flask app, ``flask_app``, behind its request
    ids): a cached redirect answered here, any other request passed on (module docstring)."""

    def __init__(self, wsgi_app: Callable[[dict, StartResponse], Iterable[bytes]], flask_app: Flask) -> None:
        self.wsgi_app = wsgi_app
        self.flask_app = flask_app
        self.application = flask_app.extensions[APPLICATION]  # its parts are made on first use, after a fork
        self.settings = self.application.settings
        # Routing that depends on the host, or a SERVER_NAME, is Flask's alone.
        self.enabled = not (flask_app.url_map.host_matching or flask_app.subdomain_matching
                            or flask_app.config.get("SERVER_NAME"))
        self._routed: dict[str, bool] = {}
        self._hosts: dict[tuple, str | None] = {}
        self._answers: dict[tuple, tuple[list[tuple[str, str]], bytes]] = {}

    def __call__(self, environ: dict, start_response: StartResponse) -> Iterable[bytes]:
        try:
            answer = self._answer(environ) if self.enabled else None
        except Exception:  # noqa: BLE001 - Flask answers it (with what was resolved, if anything), or its error page
            _LOG.exception("redirect failed", "a redirect could not be answered before Flask; Flask answers it")
            answer = None
        if answer is None:
            return self.wsgi_app(environ, start_response)
        headers, body = answer
        rid = environ[REQUEST_ID] = request_id(environ.get("HTTP_X_REQUEST_ID"))  # as log_format.RequestIds does
        start_response(_STATUS, [*headers, ("X-Request-ID", rid)])
        return [body]

    def _answer(self, environ: dict) -> tuple[list[tuple[str, str]], bytes] | None:
        """The headers (all but the request id) and body of the redirect ``environ`` asks for,
        its acknowledgment sent and its serving counted; ``None`` when Flask must answer, with the
        answer (or the failure) of a resolution made here in ``environ[ANSWERED]``."""
        get = environ.get
        if (environ["REQUEST_METHOD"] != "GET" or get("HTTP_COOKIE") is not None or get("CONTENT_LENGTH") not in (None, "", "0")
                or get("HTTP_TRANSFER_ENCODING") is not None or get("SCRIPT_NAME")):
            return None
        raw = get("RAW_URI") or get("REQUEST_URI")
        accept = get("HTTP_ACCEPT")
        query = get("QUERY_STRING", "")
        if not raw or (accept and mentions_citation(accept)) or (query and not passes_undecoded(query.encode("latin-1"))):
            return None
        host = self._host(environ)
        if not host or not self._routes_to_resolve(environ):
            return None
        scheme = environ["wsgi.url_scheme"]
        address = f"{scheme}://{host}"
        site = site_at(address, "", self.settings)  # SCRIPT_NAME is empty (above)
        try:
            answer = self.application.resolving.answer(Received.request(raw, address), request_caller(environ), site)
        except Exception as error:  # noqa: BLE001 - the view raises it: Flask answers it as any failure of the view
            environ[ANSWERED] = error
            return None
        finally:
            self.application.close_storage()  # the unit of work ends here, as Flask's teardown ends it
        environ[ANSWERED] = answer
        if answer.url is None or answer.rescued is not None:
            return None
        return self._response(answer.url, answer.trace_url, answer.cache, site.portal_url, site.resolver_base,
                              scheme in ("https", "wss"))

    def _response(self, url: str, trace_url: str, cache: str, portal: str, base: str,
                  secure: bool) -> tuple[list[tuple[str, str]], bytes]:
        """The redirect as the resolve view and Flask's response hooks make it, made once per
        redirect, trace, cache state and site when it is served from the cache (:data:`_REPEATED`):
        a resolution's own would only push the cached ones out."""
        key = (url, trace_url, cache, portal, base, secure)
        made = self._answers.get(key)
        if made is None:
            body = redirect_body(url).encode()
            headers = [(name, iri_to_uri(value) if name == "Location" else value)
                       for name, value in found_headers(url, trace_url, cache, lambda: portal, lambda: base)]
            headers += [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body))), *_SECURITY]
            if secure:
                headers.append(_HSTS)
            made = (headers, body)
            if cache in _REPEATED:
                if len(self._answers) >= ANSWERS:
                    self._answers.clear()
                self._answers[key] = made
        return made

    def _host(self, environ: dict) -> str | None:
        """The request's host as Flask reads it, ``None`` when Flask refuses it (not in
        ``TRUSTED_HOSTS``: its 400) or reads none; judged once per Host header, scheme and server
        (werkzeug encodes every trusted name to IDNA for each request)."""
        get, trusted = environ.get, self.settings.served_hosts
        key = (get("HTTP_HOST"), environ["wsgi.url_scheme"], get("SERVER_NAME"), get("SERVER_PORT"),
               None if trusted is None else tuple(trusted))
        if key in self._hosts:
            return self._hosts[key]
        try:
            host: str | None = get_host(environ, trusted)
        except HTTPException:  # SecurityError
            host = None
        if len(self._hosts) >= ROUTED_PATHS:
            self._hosts.clear()
        self._hosts[key] = host
        return host

    def _routes_to_resolve(self, environ: dict) -> bool:
        """Whether Flask's router sends a ``GET`` of this path to the resolve view (and not to a
        fixed rule, a slash redirect or a 404); asked once per path."""
        path = environ.get("PATH_INFO", "")
        routed = self._routed.get(path)
        if routed is None:
            adapter = self.flask_app.url_map.bind_to_environ(environ, subdomain=self.flask_app.url_map.default_subdomain or "")
            try:
                rule, _ = adapter.match(method="GET", return_rule=True)
                routed = rule.endpoint == RESOLVE_ENDPOINT
            except HTTPException:  # a 404, a 405, or a redirect to the path with a slash
                routed = False
            if len(self._routed) >= ROUTED_PATHS:
                self._routed.clear()
            self._routed[path] = routed
        return routed

