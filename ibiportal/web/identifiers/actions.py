"""What a person can do next with a recognised text: the home page's action buttons.

Each action is a page of the portal opened on the text: links (GET) for the pages that only
read, and the one-click trace as a POST form, since a trace runs a resolution and stores it
(the trace page's contract: ``url`` plus the CSRF token; it redirects to the trace's permalink).
"""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode


from ..i18n import gettext
from ...ibi.classify import Classification
from ...ibi.url import PersistentUrl
from ..urls.forms import compose_args


@dataclass(frozen=True)
class Action:
    """A button: ``href`` for a link, else a POST form to ``post`` with ``fields``."""

    label: str
    description: str
    href: str | None = None
    post: str | None = None
    fields: tuple[tuple[str, str], ...] = ()


def actions_for(result: Classification, root: str = "") -> list[Action]:
    """The actions that fit ``result`` (a recognised text), paths under ``root`` (the app's script root)."""
    url = result.url
    assert url is not None and result.persistent_url is not None, "only a recognised text has actions"
    ibi = str(url.ibi)
    # Cite names the item the URL names: its last edition (!), a translation (+), the original;
    # the metadata and file-list verbs it drops itself (CiteRequest.parse).
    cited = result.persistent_url if url.verbs or url.required_item_status is not None else ibi
    return [
        Action(
            gettext("Resolve"),
            gettext("Open it through this portal's resolver: it asks the Archives where the item is now."),
            href=root + (result.resolver_path or ""),
        ),
        Action(
            gettext("Trace"),
            gettext("Resolve it and see every step: which Archives were asked and what each answered."),
            post=root + "/trace",
            fields=(("url", result.persistent_url),),
        ),
        Action(
            gettext("Convert"),
            gettext("The other form of the IBI, with the anatomy of both."),
            href=_page(root, "/convert", [("ibi", ibi)]),
        ),
        Action(
            gettext("Parse"),
            gettext("What the persistent URL asks for, field by field, in both syntaxes."),
            href=_page(root, "/parse", [("url", result.persistent_url)]),
        ),
        Action(
            gettext("Compose"),
            gettext("Change what the URL asks for: last edition, translation, metadata, a file."),
            href=_page(root, "/compose", compose_fields(url)),
        ),
        Action(
            gettext("Cite"),
            gettext("A citation of the item in APA, ABNT, IEEE, BibTeX or RIS."),
            href=_page(root, "/cite", [("ibi", cited)]),
        ),
    ]


def compose_fields(url: PersistentUrl) -> list[tuple[str, str]]:
    """The Compose form filled in with ``url``'s IBI, verbs, file path, status and query pairs,
    on this portal (the Compose page's own mapping, without the URL's resolver base)."""
    return [(name, value) for name, value in compose_args(url).items() if name != "base"]


def _page(root: str, path: str, params: list[tuple[str, str]]) -> str:
    return f"{root}{path}?{urlencode(params)}"
