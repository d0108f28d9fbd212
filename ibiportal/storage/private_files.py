"""Files only the portal's user may read: the SQLite database and its journals, the secret key,
the change signal file, the instance folder holding them, and a ``db export``.

Each is created without group's and others' permissions; one an earlier version (or an operator's
umask) left open to them loses those permissions when the portal opens it, with a warning in the
log, and one the portal may not change (another user owns it) is only warned about. An existing
instance folder loses others' permissions only: a group its operator gave it (a backup user's)
stays, and the files in it are 0600 anyway.
"""
from __future__ import annotations

import logging
import os
import stat

logger = logging.getLogger(__name__)


def make_private(path: str, kept: int = 0o700) -> None:
    """Take group's and others' permissions off ``path`` if it exists, saying so in the log;
    ``kept=0o770`` (a folder an operator made) takes others' alone, leaving a group they chose."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return
    if not mode & ~kept:
        return
    try:
        os.chmod(path, mode & kept)
    except OSError as error:
        logger.warning("%s is open to other users (mode %o) and could not be made %o (%s): "
                       "chmod %s= it as its owner", path, mode, mode & kept, error, "go" if kept == 0o700 else "o")
    else:
        logger.warning("%s was open to other users (mode %o): made %o", path, mode, mode & kept)
