"""Where each next step of a not-found diagnosis (``ibiportal.resolver.diagnosis.Page``) is done
or checked: a public page, prefilled with the IBI or URL not found, that a reader without an
administrator's login can open (the Trace page and the alert page show the steps to anyone)."""
from __future__ import annotations

from flask import url_for

from ..i18n import gettext
from ...resolver.diagnosis import NextStep, NotFoundDiagnosis, Page


def next_step_links(step: NextStep, diagnosis: NotFoundDiagnosis, persistent_url: str,
                    external: bool = False) -> list[tuple[str, str]]:
    """The (link text, address) of each page of ``step``."""
    targets = {
        Page.ARCHIVE_HEALTH: (gettext("Archive health: every registered Archive and its state"),
                              url_for("health.archives_health", _external=external)),
        Page.PARSE: (gettext("Parse the persistent URL"), url_for("urls.parse_page", url=persistent_url, _external=external)),
        Page.CONVERT: (gettext("Convert the IBI (what its prefix encodes)"),
                       url_for("convert.convert_page", ibi=diagnosis.ibi, _external=external)),
        Page.TRACE: (gettext("Trace it again"), url_for("trace.trace_page", url=persistent_url, _external=external)),
    }
    return [targets[page] for page in step.pages]
