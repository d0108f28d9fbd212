"""How a page names an alert (7): its headline in the reader's words, and its reason as the
resolver and the trace JSON write it."""
from __future__ import annotations

from flask_babel import lazy_gettext

from ...resolver.trace import AlertReason

#: The outcome in a few words, by alert reason.
HEADLINES = {
    AlertReason.NOT_FOUND: lazy_gettext("Not found"),
    AlertReason.DELETED: lazy_gettext("Deleted"),
    AlertReason.TRANSLATION_MISSING: lazy_gettext("Translation does not exist"),
    AlertReason.RELATION_MISSING: lazy_gettext("The item is held, not what the modifiers ask"),
    AlertReason.CONFLICTING_ORIGINALS: lazy_gettext("Conflict: more than one original"),
    AlertReason.NO_ORIGINAL: lazy_gettext("No Archive claims the original"),
    AlertReason.NO_ARCHIVE_ANSWERED: lazy_gettext("No Archive answered"),
    AlertReason.NO_ARCHIVES: lazy_gettext("No Archives to ask"),
    AlertReason.HOP_LIMIT: lazy_gettext("Gave up: too many rounds"),
    AlertReason.CYCLE: lazy_gettext("Stopped: the Archives lead in a circle"),
    AlertReason.UNSAFE_URL: lazy_gettext("Refused an unsafe URL"),
    AlertReason.BAD_REQUEST: lazy_gettext("Not a persistent URL"),
}


def alert_words(reason: AlertReason) -> str:
    """An alert as a sentence names it: its headline in the reader's words, then its reason as the
    resolver and the trace JSON write it (``Não encontrado (not-found)``)."""
    return f"{HEADLINES[reason]} ({reason.value})"
