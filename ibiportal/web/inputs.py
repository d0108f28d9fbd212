"""Small input parsers shared by the API, the pages and the CLI."""
from __future__ import annotations

from ..errors import ParseError


def optional_port(value: str | None) -> int | None:
    """A port typed by a user: empty is "none"; digits only (the range is checked by the core)."""
    if value is None or not value.strip():
        return None
    if not value.strip().isdigit():
        raise ParseError(f"port must be a number from 1 to 65535, not {value!r}", position=1, field="port")
    return int(value)
