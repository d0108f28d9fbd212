"""One exception family for the whole portal, in kinds that say how it is answered.

Every error the portal raises on purpose is an :class:`IbiError` of one kind: :class:`Invalid`
(400), :class:`NotFound` (404), :class:`Gone` (410), :class:`Conflict` (409), :class:`Refused`
(422) or :class:`TooLarge` (413). One handler (``web/errors.py``) answers every kind with its status
and its message in the reader's language, as the API's JSON or the error page; an ``IbiError`` of
no kind that escapes a view is a defect (500), like any other exception.
Every parse error says *what* is wrong and *where* (``position`` is the 1-based character
number in the named ``field``), because STANDARD.md asks for errors a person can act on.
"""
from __future__ import annotations

from collections.abc import Sequence


class IbiError(Exception):
    """Root of every error the portal raises on purpose; its first argument is its message."""

    #: The HTTP status a view answers it with: its kind's (500: a defect, for none).
    status = 500
    #: The input the error is about, where one is (the API's ``field``).
    field: str | None = None


class Invalid(IbiError):
    """Input that cannot be used as given."""

    status = 400


class NotFound(IbiError):
    """What the request names does not exist here."""

    status = 404


class Gone(IbiError):
    """What the request names existed here and no longer does (a tombstone can be read, not changed)."""

    status = 410


class Conflict(IbiError):
    """The request contradicts what is already there."""

    status = 409


class Refused(IbiError):
    """A request understood, well-formed, that the portal will not carry out."""

    status = 422


class ParseError(Invalid, ValueError):
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

    @property
    def errors(self) -> tuple[ParseError, ...]:
        """Every mistake this error stands for, each with its field and position: itself alone."""
        return (self,)

    def __str__(self) -> str:
        where = f" (at character {self.position})" if self.position is not None else ""
        return f"{self.message}{where}"


class FieldErrors(ParseError):
    """Several fields at fault in one request (a mint request read once): each error names its
    field, message and position. It reads as its first error, so whoever shows one error shows
    the first; a form shows each next to its field, and the API answers them all (``errors``)."""

    def __init__(self, errors: Sequence[ParseError]):
        first = errors[0]
        super().__init__(first.message, first.position, first.field)
        self._errors = tuple(error for each in errors for error in each.errors)

    @property
    def errors(self) -> tuple[ParseError, ...]:
        return self._errors

    def to_dict(self) -> dict:
        """The first error's body, and ``errors``: every error's, in the order of the fields."""
        return {**super().to_dict(), "errors": [error.to_dict() for error in self._errors]}


class TooLarge(ParseError):
    """An input over a size limit, or whose reading took longer than one request may: answered
    413 (Content Too Large: more than the portal is willing to process), its message naming the limit."""

    status = 413
