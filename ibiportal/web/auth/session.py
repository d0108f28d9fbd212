"""Who is logged in, and the guard on administrator pages.

The session is Flask's signed cookie, with the flags set in ``config.DEFAULTS``
(HttpOnly, SameSite=Lax, Secure unless ``IBIPORTAL_SECURE_COOKIES=0``) and a bounded lifetime.
A signed cookie cannot be taken back, so it carries only the random id of a session kept on the
server (``AccountStore.open_session``): the logout deletes it, and a copy of the cookie made while
logged in opens nothing afterwards.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from urllib.parse import unquote, urlsplit

from flask import abort, current_app, g, redirect, request, session, url_for
from werkzeug.security import check_password_hash

from ...config import Settings
from ..context import application, settings

#: The session's key holding the id of the administrator's session on the server.
SESSION_KEY = "admin_session"
# Checked when the username is unknown, so that a wrong name costs as long as a wrong password.
_DUMMY_HASH = "scrypt:32768:8:1$Qh4Vf0n6nI3bFZsU$" + "0" * 128


def current_admin() -> str | None:
    """The administrator whose session the cookie names, while that session lasts on the server
    (asked once per request)."""
    if "current_admin" not in g:
        session_id = session.get(SESSION_KEY)
        g.current_admin = None if not isinstance(session_id, str) else application().accounts.session_holder(
            session_id, current_app.permanent_session_lifetime)
    return g.current_admin


def check_credentials(username: str, password: str) -> bool:
    stored = application().accounts.password_hash(username)
    ok = check_password_hash(stored or _DUMMY_HASH, password)
    return ok and stored is not None


def log_in(username: str) -> None:
    """A fresh session for the administrator: nothing from before the login carries over, and
    the cookie changes (it names a new session on the server)."""
    session.clear()
    session[SESSION_KEY] = application().accounts.open_session(username, current_app.permanent_session_lifetime)
    session.permanent = True
    g.current_admin = username


def log_out() -> None:
    """End the session on the server too, so that no copy of the cookie outlives the logout."""
    session_id = session.get(SESSION_KEY)
    if isinstance(session_id, str):
        application().accounts.end_session(session_id)
    session.clear()
    g.current_admin = None


def safe_next(target: str | None) -> str:
    """Only a path on this site is followed after login (no open redirect via ``next``); anything
    else leads to the Archives page, where an administrator's work starts."""
    return target if target and is_local_path(target) else url_for("admin.archives_page")


def is_local_path(target: str) -> bool:
    r"""``target`` names a path of this site, however a browser or a proxy reads it.

    Browsers drop tabs, CR and LF from a ``Location`` (``/\t/evil.example`` becomes
    ``//evil.example``, another host) and read ``\`` as ``/``; a proxy may decode ``%2F``. So a
    path is a path only if no character of it, as given or percent-decoded, is a control
    character or a backslash, it has no scheme nor host, and it starts with one ``/``.
    """
    decoded = unquote(target)
    if any(not char.isprintable() or char == "\\" for char in target + decoded):
        return False
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return False
    return all(text.startswith("/") and not text.startswith("//") for text in (target, decoded))


def admin_required(view: Callable) -> Callable:
    """Pages: redirect to the login page and back. JSON API: 401."""

    @wraps(view)
    def guarded(*args, **kwargs):
        if current_admin() is None:
            if request.path.startswith("/api/"):
                abort(401, "Log in as an administrator first.")
            return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return guarded


def admin_required_if(wanted: Callable[[Settings], bool]) -> Callable[[Callable], Callable]:
    """:func:`admin_required` when the app's settings want it (the mint page with
    ``mint_requires_token``: minting closed to the public API is closed to the public page too)."""

    def decorate(view: Callable) -> Callable:
        guarded_view = admin_required(view)

        @wraps(view)
        def guarded(*args, **kwargs):
            return (guarded_view if wanted(settings()) else view)(*args, **kwargs)

        return guarded

    return decorate
