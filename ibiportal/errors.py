"""One exception family for the whole portal.

Views and the CLI map these to messages and 4xx statuses; anything else escaping is a bug.
Every parse error says *what* is wrong and *where* (``position`` is the 1-based character
number in the named ``field``), because STANDARD.md asks for errors a person can act on.
"""
from __future__ import annotations


class IbiError(Exception):
    """Root of every error the portal raises on purpose."""


class ParseError(IbiError, ValueError):
    """Input that does not follow a grammar of the standards."""

    def __init__(self, message: str, position: int | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.position = position
        self.field = field

    def to_dict(self) -> dict:
        """The ``{"message", "position"}`` body of an API error (plus ``field`` when known)."""
        body: dict = {"message": self.message, "position": self.position}
        if self.field is not None:
            body["field"] = self.field
        return body

    def __str__(self) -> str:
        where = f" (at character {self.position})" if self.position is not None else ""
        return f"{self.message}{where}"


class TooLarge(ParseError):
    """An input over a size limit, or whose reading took longer than one request may: answered
    413 (Content Too Large: more than the portal is willing to process), its message naming the limit."""
