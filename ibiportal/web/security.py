"""Security headers on every response and the session cookie's flags.

The Content-Security-Policy allows scripts, styles and images from the portal itself only:
no inline script or style anywhere, so hostile text that slipped into a page could not run.
"""
from __future__ import annotations

from flask import Flask, Response, request

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # Trace permalinks are capabilities: do not hand them to other sites in Referer.
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


_BY_LOWER_NAME = tuple((name.lower(), name, value) for name, value in HEADERS.items())


def add_security_headers(response: Response) -> Response:
    """Each header unless the view set its own (a file's sandboxing Content-Security-Policy).

    The names present are read once: ``Headers.setdefault`` scans the list three times and raises
    a KeyError per absent header, which on a cached redirect's dozen headers cost a quarter of its
    view (benchmarks/cache.py)."""
    present = {name.lower() for name, _ in response.headers}
    response.headers.extend([(name, value) for lower, name, value in _BY_LOWER_NAME if lower not in present])
    if request.is_secure and "strict-transport-security" not in present:
        response.headers.add("Strict-Transport-Security", "max-age=31536000")
    return response


def init_app(app: Flask) -> None:
    app.after_request(add_security_headers)
