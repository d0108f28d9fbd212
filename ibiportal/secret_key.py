"""The key that signs session cookies and CSRF tokens, when IBIPORTAL_SECRET_KEY is not set.

A fixed default key would let anyone forge an administrator's session, so the portal makes a
random one on first start and keeps it in the instance folder (mode 0600, also made so when found
open to others). Every gunicorn worker
reads the same file: the first to start creates it atomically (O_EXCL), the others read it.
"""
from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

from .storage.private_files import make_private


def instance_secret_key(instance_path: str) -> str:
    path = Path(instance_path) / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        make_private(str(path))  # an earlier version, or an operator's copy, may have left it 0644
        return _read_when_written(path)
    key = secrets.token_hex(32)
    with os.fdopen(fd, "w") as file:
        file.write(key)
    return key


def _read_when_written(path: Path) -> str:
    """Another worker may have created the file a moment ago and not yet written it."""
    for _ in range(100):
        key = path.read_text().strip()
        if key:
            return key
        time.sleep(0.01)
    raise RuntimeError(f"{path} is empty: delete it, or set IBIPORTAL_SECRET_KEY")
