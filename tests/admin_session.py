"""A test client logged in as an administrator without the login form: a session opened on the
server as the login opens one (``AccountStore.open_session``), its id put in the client's cookie."""
from __future__ import annotations

from flask.testing import FlaskClient

from ibiportal.storage.accounts import AccountStore
from ibiportal.storage.database import Storage
from ibiportal.web.auth.session import SESSION_KEY


def log_in_as(client: FlaskClient, username: str, **session_options) -> FlaskClient:
    """``client``, logged in as ``username`` (``session_options``: of ``session_transaction``)."""
    app = client.application
    storage = Storage(app.config["DATABASE"])
    try:
        session_id = AccountStore(storage).open_session(username, app.permanent_session_lifetime)
    finally:
        storage.close()
    with client.session_transaction(**session_options) as session:
        session[SESSION_KEY] = session_id
    return client
