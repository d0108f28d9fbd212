"""The constant answers of the protocol (file 003, §7.2 and §9.2) and the refusal answer.

Each is a :class:`~ibiportal.protocol.pairlist.PairList`; ``serialize(" ")`` gives the exact
one-line strings the standard prints, e.g. ``status.archive included status.confirmation
successful``.
"""
from __future__ import annotations

from ibiportal.protocol.pairlist import PairList

INCLUDED_CONFIRMED = PairList.from_pairs([("status.archive", "included"), ("status.confirmation", "successful")])
"""Status (5) of §7.2: included, and the Archive answered the confirmation request."""

INCLUDED_UNCONFIRMED = PairList.from_pairs([("status.archive", "included"), ("status.confirmation", "unsuccessful")])
"""Status (5) of §7.2: included, but no confirmation came back."""

EXCLUDED = PairList.from_pairs([("status.archive", "excluded")])
"""Status (8) of §7.2, answering ``exclusionRequest``."""

CONFIRMATION = PairList.from_pairs([("confirmation", "yes")])
"""An Archive's answer to ``inclusionConfirmationRequest`` (§7.2; Algorithm 1, line 3)."""

ACKNOWLEDGMENT_NOTICE = PairList.from_pairs([("notice", "acknowledgment received")])
"""An Archive's answer to ``acknowledgment`` (§9.2; Algorithm 1, line 20)."""


def carries_notice(answer: PairList) -> bool:
    """Whether an answer to ``acknowledgment`` carries :data:`ACKNOWLEDGMENT_NOTICE`'s pair (6),
    whatever else it says: the one test of the notice for the resolver and its cache."""
    pairs = tuple(answer)
    return all(pair in pairs for pair in ACKNOWLEDGMENT_NOTICE)


REASON_UNKNOWN_ARCHIVE = "unknown archive"


def included(confirmed: bool) -> PairList:
    """:data:`INCLUDED_CONFIRMED` or :data:`INCLUDED_UNCONFIRMED`."""
    return INCLUDED_CONFIRMED if confirmed else INCLUDED_UNCONFIRMED


def refused(reason: str) -> PairList:
    """``status.archive refused status.reason {<reason>}`` (STANDARD.md §3 decision).

    ``reason`` is a short English text for the Archive's administrator; it must never
    contain the registration key or any other secret. Non-ASCII is escaped as ``%hh``.
    """
    if not reason:
        raise ValueError("a refusal needs a reason")
    return PairList.from_pairs([("status.archive", "refused"), ("status.reason", reason)])
