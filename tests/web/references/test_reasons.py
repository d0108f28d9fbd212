"""A check's reasons in the reader's language (``web.references.checking.Reasons``): each distinct
reason translated once per check, and what is kept bounded whatever the list's length."""
from __future__ import annotations

from ibiportal.i18n import N_, NP_
from ibiportal.web.references import checking


def test_each_distinct_reason_is_translated_once_and_what_is_kept_is_bounded(monkeypatch):
    translated: list[str] = []
    monkeypatch.setattr(checking, "translate", lambda text: translated.append(text) or f"<{text}>")
    reasons = checking.Reasons()
    empty = NP_("not found: the Archive that answered does not hold this IBI",
                "not found: the %(count)s Archives that answered do not hold this IBI", 4)
    assert [reasons(empty), reasons(NP_(empty.template, empty.plural, 4))] == [f"<{empty}>"] * 2
    assert reasons(NP_(empty.template, empty.plural, 3)) == f"<{NP_(empty.template, empty.plural, 3)}>"
    assert reasons("plain text") == "<plain text>" and len(translated) == 3  # only messages are kept
    for number in range(checking.Reasons.KEPT + 1):  # found entries: a reason each
        reasons(N_("redirects to %(url)s", url=f"http://archive.test/{number}"))
    assert len(reasons._known) <= checking.Reasons.KEPT
