"""Why a citation could not be made, after the input was read: the sentence for the user, the
HTTP status, the trace of the resolution, and an edition that can be cited instead."""
from __future__ import annotations

from dataclasses import dataclass

from ...errors import IbiError

#: HTTP status of a problem after the resolution: the Archive's record could not be used.
BAD_GATEWAY = 502


@dataclass(frozen=True)
class Suggestion:
    """The last edition of an item whose own answer has no metadata, and that has some (§10.2)."""

    ibi: str
    persistent_url: str
    reason: str

    def to_dict(self) -> dict:
        return {"ibi": self.ibi, "persistent_url": self.persistent_url, "reason": self.reason}


class CiteProblem(IbiError):
    """Why no citation could be made, for the user; ``trace_id`` names the stored trace;
    ``suggestion`` an edition that can be cited instead (:class:`Suggestion`)."""

    def __init__(self, message: str, status: int, trace_id: str | None = None,
                 suggestion: Suggestion | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.trace_id = trace_id
        self.suggestion = suggestion
