"""nginx's settings for running IBI Portal in production.

``python nginx_conf.py FOLDER UPSTREAM`` writes ``FOLDER/nginx.conf`` from ``nginx.conf.template``
(which says why each setting is what it is): nginx listening where users connect
(``IBIPORTAL_BIND``, as gunicorn alone did), passing whole requests to gunicorn at ``UPSTREAM``
(``host:port`` on loopback), believing forwarded headers only from ``IBIPORTAL_TRUSTED_PROXIES``
and taking bodies as large as each route of the portal reads (``IBIPORTAL_MAX_FILE_BYTES`` where
the body is a file). ``bin/run`` calls
it; the portal's settings are read and checked as ``ibiportal/config.py`` reads them.
"""
from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from ibiportal.config import FIXED, Settings
from ibiportal.web.catalogs import SOURCE, read
from ibiportal.web.files import FORM_OVERHEAD_BYTES

TEMPLATE = Path(__file__).with_name("nginx.conf.template")
MB = 1024 * 1024
#: The portal's own words for a body larger than it reads (ibiportal/web/errors.py), which nginx
#: says for it when a body is declared larger still; the Portuguese comes from the catalog.
TOO_LARGE = "The request is too large: the portal reads at most %(limit)s MB."


def too_large(limit_mb: int) -> tuple[str, str]:
    """:data:`TOO_LARGE` in English and Brazilian Portuguese, for a JSON string in nginx's quotes."""
    entry = read(SOURCE / "pt_BR" / "LC_MESSAGES" / "messages.po").get(TOO_LARGE)
    if entry is None or not entry.string:
        raise LookupError(f"the pt_BR catalog has no translation of {TOO_LARGE!r}")
    messages = (TOO_LARGE % {"limit": limit_mb}, entry.string % {"limit": limit_mb})
    if any(char in message for message in messages for char in "\\\"'$"):
        raise ValueError(f"nginx.conf cannot quote {messages!r}")
    return messages


def render(folder: str, upstream: str, environ: Mapping[str, str], running_as_root: bool) -> str:
    """The nginx configuration of a portal with these ``IBIPORTAL_*`` variables."""
    portal = Settings.from_environment(environ)  # a bad value stops the start, named
    binds = [part.strip() for part in portal.bind.split(",") if part.strip()]
    max_form = FIXED["MAX_CONTENT_LENGTH"]
    english, portuguese = too_large(math.ceil(max_form / MB))
    file_english, file_portuguese = too_large(math.ceil(portal.max_file_bytes / MB))
    values = {
        "RUN": folder,
        # nginx's master needs root only to listen on ports below 1024; its worker never runs as
        # root (nobody, Debian's nginx's default), and owns the spool folders nginx makes for it.
        "USER": "user nobody nogroup;" if running_as_root else "",
        "LISTEN": "\n".join(f"        listen {bind};" for bind in binds),
        "UPSTREAM": upstream,
        "TRUSTED": "\n".join(f"        {proxy} 1;" for proxy in portal.trusted_proxies),
        # Each route's limit is the portal's (see the template): forms and JSON everywhere, a file
        # as the body, a file in a multipart form with its form around it.
        "MAX_FORM_BODY": str(max_form),
        "MAX_FILE_BODY": str(portal.max_file_bytes),
        "MAX_FILE_FORM_BODY": str(portal.max_file_bytes + FORM_OVERHEAD_BYTES),
        "TOO_LARGE_EN": english,
        "TOO_LARGE_PT": portuguese,
        "FILE_TOO_LARGE_EN": file_english,
        "FILE_TOO_LARGE_PT": file_portuguese,
    }
    text = TEMPLATE.read_text()
    for name, value in values.items():
        text = text.replace("{{" + name + "}}", value)
    return text


def main(folder: str, upstream: str) -> None:
    Path(folder, "nginx.conf").write_text(render(folder, upstream, os.environ, os.geteuid() == 0))


if __name__ == "__main__":
    main(*sys.argv[1:])
