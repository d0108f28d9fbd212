"""What the alert page (and the Trace page's headline) says beyond the alert itself: what a
deleted item of this portal was, with a link to the record its item page keeps; the Archives that
did not answer in time when nothing was found (one of them may hold the item); and the alert's
time in the reader's form, once, machine-readable in ``<time datetime>``.

The resolver's alert stays as the engine made it (JSON and plain text carry it as is)."""
from __future__ import annotations

from dataclasses import dataclass

from flask import url_for
from markupsafe import Markup

from ...application.items import ItemNotFound
from ...errors import ParseError
from ...i18n import Message
from ...resolver.diagnosis import NotFoundDiagnosis, asked_ibi
from ...resolver.trace import Alert, AlertReason, Resolution, Status
from ..context import application
from ..i18n import datetime_filter, iso_filter, ngettext


@dataclass(frozen=True)
class DeletedRecord:
    """A deleted item of this portal's own Archive: its title (``None`` when it had none) and its
    item page, which keeps what it was."""

    title: str | None
    href: str


def shown_message(alert: Alert) -> str:
    """The alert's sentence with its time (a Deleted item's) in the reader's form inside a
    ``<time>``: the engine writes it as ISO 8601, which a reader should not have to parse."""
    message = alert.message
    if not isinstance(message, Message) or "timestamp" not in message.values or not alert.timestamp:
        return message
    try:
        moment = Markup('<time datetime="{}">{}</time>').format(iso_filter(alert.timestamp), datetime_filter(alert.timestamp))
    except ValueError:  # an Archive's timestamp that is no ISO 8601 time: shown as it came
        return message
    return Message(message.template, {**message.values, "timestamp": moment})


def deleted_record(resolution: Resolution) -> DeletedRecord | None:
    """The own Archive's record of a deleted item the alert is about, if it is one of ours."""
    if resolution.alert is None or resolution.alert.reason is not AlertReason.DELETED:
        return None
    ibi = asked_ibi(resolution)
    if ibi is None:
        return None
    try:
        record = application().items().find(ibi)
    except (ItemNotFound, ParseError):
        return None
    return DeletedRecord(record.minted.title, url_for("archive.own_item", ibi=record.minted.ibip))


@dataclass(frozen=True)
class Unanswered:
    """The Archives that did not answer in time, and the headline naming them."""

    names: tuple[str, ...]

    @property
    def headline(self) -> str:
        """"The Archive X did not answer in time": the headline of a not-found that may be a timeout."""
        return ngettext("The Archive %(names)s did not answer in time", "The Archives %(names)s did not answer in time",
                        len(self.names), names=", ".join(self.names))


def unanswered(resolution: Resolution, diagnosis: NotFoundDiagnosis | None) -> Unanswered | None:
    """The Archives that did not answer in time in the round about the IBI asked, named as the
    diagnosis names them, when nothing was found: the item may be held by one of them."""
    alert = resolution.alert
    if diagnosis is None or alert is None or alert.reason is not AlertReason.NOT_FOUND:
        return None
    late = {(step.archive or "").lower() for step in resolution.trace.numbered(3)
            if step.hop == 1 and step.status is Status.TIMEOUT}
    names = tuple(outcome.name for outcome in diagnosis.failed if (outcome.address or "").lower() in late)
    return Unanswered(names) if names else None
