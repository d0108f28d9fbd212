"""Getting the oai_dc record at the URL a resolution found.

When that URL is on this portal (the demo Archives and the portal's own Archive serve their
records here), the record is written in process by the Archive that serves it, from the same
item store its pages read: an HTTP request to ourselves could wait forever on a single worker.
The demo Archives playing the standard's (``mtc-m16c.sid.inpe.br``, …) answer their real hosts'
URLs, which are not reachable offline: their records are written in process too. Any other URL
is fetched, one exchange, with the portal's ``requests`` transport (``Application.http_transport``), which
keeps the resolver's guarantees: its SSRF guard (``IBIPORTAL_ALLOW_PRIVATE_ARCHIVES``), IP pinning,
timeouts, no redirects and a size cap.
"""
from __future__ import annotations

from urllib.parse import unquote, urlsplit

from flask import current_app, request

from ...archive.demo import item_with_metadata_at, metadata_place
from ...archive.model import Item
from ...archive.oai_dc import oai_dc_xml
from ...archive.own import metadata_ibi
from ...archive.service import ArchiveService
from ...errors import ParseError
from ...resolver.transport import ARCHIVE_TIMEOUTS
from ..context import application, holdings, resolver_base
from ..host import portal_url
from .problems import BAD_GATEWAY, CiteProblem


def oai_dc_record(url: str) -> bytes | str:
    """The oai_dc record at ``url``: written in process when an Archive of this process serves
    it, else fetched; a :class:`CiteProblem` when there is none."""
    path = _portal_path(url)
    if path is not None:
        return _written(_local_item(url, path))
    if current_app.config["DEMO_ARCHIVES"]:
        item = item_with_metadata_at(holdings().demo.values(), url)
        if item is not None:
            return _written(item)
    exchange = application().http_transport.fetch(url, ARCHIVE_TIMEOUTS)
    if exchange.failure is not None:
        raise CiteProblem(f"The record at {url} could not be fetched: {exchange.error}", BAD_GATEWAY)
    if exchange.status != 200:
        raise CiteProblem(f"The record at {url} could not be fetched: HTTP status {exchange.status}", BAD_GATEWAY)
    return exchange.body or b""


def _written(item: Item) -> str:
    return oai_dc_xml(item, resolver_base().rstrip("/"))


def _portal_path(url: str) -> str | None:
    """The path of ``url`` inside this portal (PORTAL_URL or the request's own root), else None."""
    target = urlsplit(url)
    for root in (portal_url(), request.url_root):
        base = urlsplit(root)
        prefix = base.path.rstrip("/")
        same_server = (target.scheme, target.netloc.lower()) == (base.scheme, base.netloc.lower())
        if same_server and target.path.startswith(prefix + "/"):
            return unquote(target.path[len(prefix):])
    return None


def _local_item(url: str, path: str) -> Item:
    """The item whose oai_dc record ``url``, a page of this portal at ``path``, is: an own item's
    (:func:`ibiportal.archive.own.metadata_ibi`) or a demo item's
    (:func:`ibiportal.archive.demo.metadata_place`), from its Archive's store."""
    service: ArchiveService | None = None
    ibi = metadata_ibi(path)
    if ibi is not None:
        service = holdings().own
    elif (place := metadata_place(path)) is not None:
        archive = holdings().demo.get(place[0])
        service, ibi = (archive.service if archive else None), place[1]
    if service is None or ibi is None:
        raise CiteProblem(f"The Archive answered {url}, a page of this portal that is not an oai_dc record", BAD_GATEWAY)
    try:
        item = service.store.find(ibi)
    except ParseError:
        item = None
    if item is None or item.dc is None:
        raise CiteProblem(f"The Archive answered {url}, but it holds no oai_dc record there", BAD_GATEWAY)
    return item
