"""HTTP statuses the resolver answers, shared by every page that shows or predicts them.

``GET /<persistent URL>`` answers them; the Trace page and Cite report the same numbers, so they
live here, in one table, instead of in one blueprint that the others import.
"""
from __future__ import annotations

from .trace import AlertReason

#: A URL was found: the resolver redirects the browser to it (Figure 8.1, message 7).
FOUND_STATUS = 302

#: HTTP status of each alert (7): the item is not there (404), was there (410), the
#: Archives disagree (409), or nobody gave a usable answer (502 / 504).
ALERT_STATUS = {
    AlertReason.NOT_FOUND: 404,
    AlertReason.TRANSLATION_MISSING: 404,
    AlertReason.RELATION_MISSING: 404,
    AlertReason.NO_ORIGINAL: 404,
    AlertReason.DELETED: 410,
    AlertReason.CONFLICTING_ORIGINALS: 409,
    AlertReason.NO_ARCHIVE_ANSWERED: 504,
    AlertReason.NO_ARCHIVES: 503,
    AlertReason.HOP_LIMIT: 502,
    AlertReason.CYCLE: 502,
    AlertReason.UNSAFE_URL: 502,
    AlertReason.BAD_REQUEST: 400,
}
