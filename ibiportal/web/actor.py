"""Who makes the change a request asks for, as the item's history records it."""
from __future__ import annotations

from flask import g

from ..ibi.history import Actor
from .auth.session import current_admin


def current_actor() -> Actor:
    """The API token's name (never the token), else the administrator logged in, else a visitor
    minting where minting needs neither (``IBIPORTAL_MINT_REQUIRES_TOKEN=0``)."""
    if "api_token_name" in g:
        return Actor("token", g.api_token_name)
    admin = current_admin()
    return Actor("administrator", admin) if admin else Actor("anonymous")
