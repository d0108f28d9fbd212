"""IBI Portal: web portal, resolver and Archive for IBIs (Internet Based Identifiers)."""
from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from flask import Flask

from . import config
from .ibi.clock import Clock, utc_now
from .storage.private_files import make_private
from .secret_key import instance_secret_key

if TYPE_CHECKING:
    from .application import Transports

ROOT = Path(__file__).resolve().parent.parent

__version__ = "0.1.0"
"""The portal's version, as ``pyproject.toml`` gives it (a test keeps the two equal); Archives
tell resolvers their platform's version with it (``archiveplatformversion``, Table 7.2)."""


def create_app(test_config: dict | None = None, clock: Clock = utc_now) -> Flask:
    """Application factory (flaskr style): the defaults, then the settings the environment gives
    (``IBIPORTAL_*``, read and checked once: :class:`~ibiportal.config.Settings`), or ``test_config``.

    The instance folder (``IBIPORTAL_INSTANCE``, else ``instance/``) holds what a node makes for
    itself: the secret key when none is configured, the SQLite database by default, and the file
    through which its workers learn of changes; created 0700 when missing, since the key and the
    database are secrets.

    The application layer (:class:`~ibiportal.application.Application`: the use cases and the
    transports, pools and caches they share) is built here, once per app, from the typed
    settings, a way to open the database they name, the transports and the portal's one ``clock``
    (a test moves it: every time the portal reads or stores follows), and handed to the views and
    the commands (``web.context.application``).
    """
    settings = config.Settings.from_environment() if test_config is None else None
    instance = settings.instance if settings is not None else test_config.get("INSTANCE_PATH")
    app = Flask(
        __name__,
        instance_path=os.path.abspath(instance) if instance else None,
        instance_relative_config=True,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_mapping(config.DEFAULTS)
    app.config["DATABASE"] = os.path.join(app.instance_path, "ibiportal.sqlite")
    app.config.from_mapping(settings.flask_changes() if settings is not None else test_config)
    os.makedirs(app.instance_path, mode=0o700, exist_ok=True)
    make_private(app.instance_path, kept=0o770)  # not others', also when an earlier version left it 0755
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = instance_secret_key(app.instance_path)

    from .application import Application
    from .storage.database import Storage
    from .web import register

    typed = config.Settings.from_config(app.config, instance=app.instance_path)
    register(app, Application(typed, partial(Storage, typed.database, clock=clock), _transports(typed), clock,
                              testing=app.testing))
    return app


def _transports(settings: config.Settings) -> Transports:
    """The transports, each made on first use (by the worker that uses it), with the address
    policy of IBIPORTAL_ALLOW_PRIVATE_ARCHIVES."""
    from .application import Transports
    from .resolver.curl_transport import CurlTransport
    from .resolver.http_transport import HttpTransport

    allow_private, portal = settings.allow_private_archives, settings.portal_url
    agent = f"IBI-Portal-target-check/{__version__}" + (f" (+{portal})" if portal else "")
    return Transports(http=lambda: HttpTransport(allow_private=allow_private),
                      fan_out=lambda: CurlTransport(allow_private=allow_private),
                      target_check=lambda: HttpTransport(allow_private=allow_private, user_agent=agent))
