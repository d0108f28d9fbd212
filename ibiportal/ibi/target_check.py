"""What one check of an own item's target URL found, as values.

The resolver's checker finds it (``resolver.target_probe``), storage keeps it
(``storage.targets``) and the application and the pages read it; none of them owns it, so each
imports it from here, and storage needs nothing of the resolver.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ibiportal.i18n import Message


class TargetOutcome(StrEnum):
    """What one check found."""

    WORKING = "working"
    MOVED = "moved"
    FAILED = "failed"


@dataclass(frozen=True)
class TargetProbe:
    """One check of a target URL: the outcome; the status of the last answer; why it failed, in
    words (``detail``, a message or recorded text); the URL the redirects led to (``location``,
    ``None`` when there were none) and, for a move, the permanent redirect's status."""

    outcome: TargetOutcome
    status: int | None = None
    detail: Message | str | None = None
    location: str | None = None
    redirect_status: int | None = None
