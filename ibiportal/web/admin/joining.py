"""Joining outside resolvers, for the Resolvers page and ``flask resolvers``: the use case, and its
answers put into words (one wording for both)."""
from __future__ import annotations

from flask_babel import lazy_gettext

from ...application.joining import Action, Joining, JoinOutcome, ResolverAnswer
from ..context import application
from ..i18n import gettext, translate


def joining() -> Joining:
    """:class:`Joining` for this app, as the application wires it."""
    return application().joining()


#: The subject sent for each action (Table 7.2).
SUBJECTS = {Action.JOIN: "inclusionRequest", Action.LEAVE: "exclusionRequest"}

#: JoinOutcome → the label the list shows.
LABELS = {
    JoinOutcome.INCLUDED: lazy_gettext("included"),
    JoinOutcome.UNCONFIRMED: lazy_gettext("included, unconfirmed"),
    JoinOutcome.EXCLUDED: lazy_gettext("excluded"),
    JoinOutcome.REFUSED: lazy_gettext("refused"),
    JoinOutcome.FAILED: lazy_gettext("failed"),
}


def outcome_sentence(answer: ResolverAnswer) -> str:
    """What the resolver's answer means for the administrator, in one or two sentences."""
    outcome = answer.outcome
    if outcome is JoinOutcome.INCLUDED:
        return gettext("Included: the resolver asked this Archive for its confirmation and received it; it will ask "
                       "this Archive when resolving.")
    if outcome is JoinOutcome.UNCONFIRMED:
        return gettext("Included, but the resolver could not get this Archive's confirmation from %(url)s "
                       "(Example 7.4): make sure the portal runs and is reachable from the resolver at that address "
                       "(IBIPORTAL_PORTAL_URL), then join again.", url=answer.identity.confirmation_url)
    if outcome is JoinOutcome.EXCLUDED:
        return gettext("Excluded: the resolver no longer asks this Archive.")
    if outcome is JoinOutcome.REFUSED:
        return gettext("Refused by the resolver: %(reason)s.", reason=translate(answer.reason))
    return gettext("Failed: %(reason)s.", reason=translate(answer.reason))
