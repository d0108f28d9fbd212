"""The ``flask --app app`` command groups: ``ibi``, ``db``, ``archives``, ``demo``, ``admin``,
``api-token``, ``resolvers`` and ``items``. Each command parses its arguments, calls a use case
through the same door as the views (``ibiportal.web.context``) and prints."""
from __future__ import annotations

from .admin import admin_cli
from .archives import archives_cli
from .db import db_cli
from .demo import demo_cli
from .ibi import ibi_cli
from .items import items_cli
from .resolvers import resolvers_cli
from .tokens import token_cli

#: Every command group, as ``flask --app app`` lists them.
COMMANDS = (ibi_cli, db_cli, archives_cli, demo_cli, admin_cli, token_cli, resolvers_cli, items_cli)
