"""FAIR Signposting (https://signposting.org/FAIR/) for the own Archive's items: the typed links a
machine follows from an item's landing page to its persistent URL (``cite-as``), its metadata
(``describedby``), its files (``item``) and its kind (``type``), in HTTP ``Link`` headers
(RFC 8288), in the page's ``<link>`` elements and in a linkset (RFC 9264, ``application/linkset+json``).

No ``license`` link: the items have no licence field yet, and a guessed one would be wrong.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote

from ..archive.own import item_metadata_url, item_page_url
from ..citation.metadata import SCHEMA_TYPES
from ..citation.record import CitationRecord

LINKSET_TYPE = "application/linkset+json"
OAI_DC_PROFILE = "http://www.openarchives.org/OAI/2.0/oai_dc/"
ABOUT_PAGE = "https://schema.org/AboutPage"

#: The citation downloads Cite serves (``web.cite.views``): extension, media type.
CITATION_FORMATS = (
    ("bib", "application/x-bibtex"),
    ("ris", "application/x-research-info-systems"),
    ("json", "application/vnd.citationstyles.csl+json"),
)


@dataclass(frozen=True)
class Signpost:
    """One typed link from the item's landing page."""

    rel: str
    href: str
    type: str | None = None
    profile: str | None = None

    def header_value(self) -> str:
        """The link as a ``Link`` header's link-value (RFC 8288 §3)."""
        value = f'<{self.href}>; rel="{self.rel}"'
        if self.type:
            value += f'; type="{self.type}"'
        if self.profile:
            value += f'; profile="{self.profile}"'
        return value


def metadata_signposts(portal: str, persistent: str, ibip: str) -> list[Signpost]:
    """What every own item's landing page has, known from its IBIp alone (so that the resolver's
    redirect gets them without looking the item up): ``cite-as``, ``describedby`` for the oai_dc
    record and each citation format, and the ``linkset``. ``portal``: the portal's address."""
    portal = portal.rstrip("/")
    return [
        Signpost("cite-as", persistent),
        Signpost("describedby", item_metadata_url(portal, ibip), "application/xml", OAI_DC_PROFILE),
        *(Signpost("describedby", f"{portal}/cite.{extension}?ibi={quote(ibip, safe='')}", media)
          for extension, media in CITATION_FORMATS),
        Signpost("linkset", linkset_url(portal, ibip), LINKSET_TYPE),
    ]


def linkset_url(portal: str, ibip: str) -> str:
    """Where the portal serves an own item's linkset."""
    return f"{item_page_url(portal, ibip)}/linkset"


#: The pages below an item's page (``web.archive.views``): a redirect to one is not to the landing page.
_BELOW_ITEM_PAGE = ("/oai_dc.xml", "/files", "/linkset")


def landing_ibip(url: str, portal: str) -> str | None:
    """The IBIp of the own item whose landing page (``item_page_url``) ``url`` is, if it is one."""
    prefix = item_page_url(portal, "")
    if not url.startswith(prefix) or "?" in url or "#" in url or url.endswith(_BELOW_ITEM_PAGE):
        return None
    return url[len(prefix):] or None


def item_signposts(portal: str, persistent: str, ibip: str, record: CitationRecord | None,
                   files: list[tuple[str, str]]) -> list[Signpost]:
    """All the signposts of an own item's page: :func:`metadata_signposts`, its schema.org type
    (from its kind of item, ``CreativeWork`` without metadata) and ``AboutPage``, and an ``item``
    link for each file (``files``: URL and media type; none once the item is deleted)."""
    kind = SCHEMA_TYPES[record.item_type] if record is not None else "CreativeWork"
    return [
        *metadata_signposts(portal, persistent, ibip),
        Signpost("type", f"https://schema.org/{kind}"),
        Signpost("type", ABOUT_PAGE),
        *(Signpost("item", url, media) for url, media in files),
    ]


def link_header(signposts: list[Signpost]) -> str:
    """The signposts as one ``Link`` header value."""
    return ", ".join(signpost.header_value() for signpost in signposts)


@lru_cache(maxsize=4096)
def redirect_link_header(portal: str, persistent: str, ibip: str) -> str:
    """The ``Link`` value a redirect to an own item's landing page adds, built once per item and
    worker (a cached redirect stays as cheap as before: one dictionary look-up)."""
    return link_header(metadata_signposts(portal, persistent, ibip))


def linkset(anchor: str, signposts: list[Signpost]) -> dict:
    """The linkset document (RFC 9264 §4.2): one link context, the landing page ``anchor``,
    each relation type with its array of target objects."""
    context: dict = {"anchor": anchor}
    for signpost in signposts:
        target = {"href": signpost.href}
        if signpost.type:
            target["type"] = signpost.type
        if signpost.profile:
            target["profile"] = signpost.profile
        context.setdefault(signpost.rel, []).append(target)
    return {"linkset": [context]}
