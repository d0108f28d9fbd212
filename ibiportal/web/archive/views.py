"""The Archives the portal hosts: its own Archive's service, item pages and files, and the
pages behind the demo Archives' URLs, so that every resolution ends on a real page."""
from __future__ import annotations

import json

from flask import Blueprint, Flask, Response, abort, render_template, request, url_for

from ..i18n import gettext
from ...archive.model import Item
from ...archive.oai_dc import oai_dc_xml
from ...archive.service import ArchiveService
from ...application.items import ItemNotFound, ItemService
from ...archive.store import ibi_key
from ...citation import citations
from ...errors import ParseError
from ...ibi.minted import MintedItem
from ..cite.embedded import embedded_metadata, item_record
from ..context import application, holdings, resolver_base, settings
from ..errors import wants_json
from ..files import file_response, listing_response
from ..host import portal_url
from ..resolve.views import resolve
from ..results import persistent_url
from ..signposting import LINKSET_TYPE, Signpost, item_signposts, link_header, linkset

bp = Blueprint("archive", __name__)

PAIR_LIST_MIMETYPE = "text/plain"


def register_service_route(app: Flask) -> None:
    """``GET /<own archive service IBI>?servicesubject=…`` (§9.1), at the configured IBI.

    A fixed rule, so it wins over the resolver's ``/<path>`` rule.
    """
    app.add_url_rule(f"/{settings(app).archive_service_ibi}", "own_archive_service", answer_own_archive)


def answer_own_archive():
    """The own Archive answers the protocol: Algorithm 1 of §9 on the query string."""
    answer = holdings().own.respond(request.query_string)
    return Response(answer.text, answer.status, mimetype=PAIR_LIST_MIMETYPE, headers={"Cache-Control": "no-store"})


@bp.get("/archive/items/<path:ibi>/oai_dc.xml")
def own_item_metadata(ibi: str):
    """An own item's oai_dc record (its ``:`` and ``:(oai_dc)`` relations)."""
    item = _find(holdings().own, ibi)
    return Response(oai_dc_xml(item, resolver_base().rstrip("/")), mimetype="application/xml")


@bp.get("/archive/items/<path:ibi>/bibinpe")
def own_item_bibinpe(ibi: str):
    """An own item's "how to cite" page in INPE's form, as urlib.net answers ``:(BibINPE)``
    (STANDARD.md §8): the INPE citation in Portuguese and in English, from the item's oai_dc
    record (the one source of every citation of the item)."""
    item = _find(holdings().own, ibi)
    record = item_record(item)
    if record is None:
        abort(404, description=gettext("%(ibi)s has no descriptive metadata to cite", ibi=ibi))
    forms = citations(record, application().clock().date())
    return render_template("archive/bibinpe.html", item=item, record=record, citations=forms.formatted_html)


@bp.get("/archive/items/<path:ibi>/files")
def own_item_files(ibi: str):
    """An own item's file list (``GetFileList``, Example 9.12): a page, or JSON for a client that
    prefers it (``Accept: application/json``)."""
    held = application().item_files().listing(ibi)
    if wants_json():
        return listing_response(held, portal_url(), resolver_base())
    item = _find(holdings().own, held.item.ibip)
    return render_template("archive/own_files.html", item=item, held=held, file_urls=_file_urls(item, held.files))


@bp.get("/col/<path:rest>")
def direct_archive_link(rest: str):
    """``/col/<repository name>/doc/<path>``, a direct Archive link as URLib serves files.

    Step 1: the own Archive holds the item and the file: serve it (``web.files``).
    Step 2: anything else is the resolver's rescue of a direct link (``resolve.views``): the
    link is resolved as the persistent URL ``/<rep>/<path>`` and redirected wherever the item
    lives. The own Archive answers this very URL for its own files (``url`` for
    ``parsedibiurl.filepath``), so a file it does not hold must not be redirected back here:
    the rescue answers 404 instead of such a loop.
    """
    located = split_direct_link(rest)
    if located is not None:
        stored = application().item_files().find(*located)
        if stored is not None:
            return file_response(stored)
    return resolve(f"col/{rest}")


def split_direct_link(rest: str) -> tuple[str, str] | None:
    """``<rep>/doc/<path>`` as ``(rep, path)``, ``None`` when no ``/doc/`` follows an IBI
    (the first one that does wins: no IBI has a ``doc`` segment after its own)."""
    start = 0
    while (index := rest.find("/doc/", start)) != -1:
        try:
            ibi_key(rest[:index])
        except ParseError:
            start = index + 1
            continue
        return rest[:index], rest[index + len("/doc/"):]
    return None


@bp.get("/archive/items/<path:ibi>")
def own_item(ibi: str):
    """An own item's page (the landing page of an item minted without a target URL): what it
    is, its files, its editions and translations, and Cite."""
    items = application().items()
    record, history = items.history(ibi)
    item = _landing_item(record, ibi)
    relations = record.relations
    related = [(label, target, _related(items, target)) for label, target in (
        (gettext("Previous edition"), relations.previous_edition), (gettext("Next edition"), relations.next_edition),
        (gettext("Translation of (%(language)s)", language=relations.translation_language) if relations.translation_of else "",
         relations.translation_of),
    ) if target]
    related += [(gettext("Translation (%(language)s)", language=language), target, _related(items, target))
                for language, target in relations.translations]
    citation = item_record(item)
    embedded = embedded_metadata(citation) if item.dc else None
    files = application().item_files().listing(record.minted.ibip).files
    file_urls = _file_urls(item, files)
    persistent = persistent_url(resolver_base(), record.minted.ibip)
    signposts = _signposts(record, citation, files, file_urls)
    target = application().target_checks().states([record.minted])[record.minted.ibip]
    usage = application().usage_report().report((record.minted.rep, record.minted.ibip))
    page = render_template("archive/own_item.html", item=item, record=record, related=related, files=files,
                           file_urls=file_urls, persistent=persistent, embedded=embedded, history=history,
                           signposts=signposts, target=target, usage=usage)
    return Response(page, headers={"Link": link_header(signposts)})


@bp.get("/archive/items/<path:ibi>/linkset")
def own_item_linkset(ibi: str):
    """The item page's signposts as a linkset (RFC 9264), for a client that reads no headers."""
    record, _ = application().items().history(ibi)
    item = _landing_item(record, ibi)
    files = application().item_files().listing(record.minted.ibip).files
    signposts = _signposts(record, item_record(item), files, _file_urls(item, files))
    anchor = portal_url() + url_for("archive.own_item", ibi=record.minted.ibip)
    return Response(json.dumps(linkset(anchor, signposts), ensure_ascii=False), mimetype=LINKSET_TYPE)


def _landing_item(record, ibi: str) -> Item:
    """The item an own item's page describes: a released item is no longer held (the Archive
    answers it nothing), but its page says where it went."""
    return holdings().own.store.item(record.minted) if record.minted.released else _find(holdings().own, ibi)


def _signposts(record, citation, files, file_urls: dict[str, str | None]) -> list[Signpost]:
    """The item page's FAIR signposts (``signposting``): a file link only while it is served."""
    return item_signposts(portal_url(), persistent_url(resolver_base(), record.minted.ibip), record.minted.ibip,
                          citation, [(file_urls[stored.path], stored.content_type)
                                     for stored in files if file_urls[stored.path]])


def _file_urls(item: Item, files) -> dict[str, str | None]:
    """Where each file of an own item is served (``None`` once the item is deleted)."""
    return {stored.path: item.file_url(stored.path) for stored in files}


def _related(items: ItemService, ibi: str) -> MintedItem | None:
    """A related own item's record (its title shown in its own language), ``None`` when it is not one."""
    try:
        return items.find(ibi).minted
    except (ItemNotFound, ParseError):
        return None


@bp.get("/demo/archives/<name>/col/<path:rest>")
def demo_item_resource(name: str, rest: str):
    """What a demo Archive's item URLs point to: its data page, metadata page or oai_dc record."""
    service = _demo(name)
    for suffix, kind in (("/metadata.xml", "oai_dc"), ("/metadata", "metadata")):
        if rest.endswith(suffix):
            item = _find(service, rest[: -len(suffix)])
            if kind == "oai_dc":
                return Response(oai_dc_xml(item, resolver_base().rstrip("/")), mimetype="application/xml")
            return render_template("archive/metadata.html", item=item, archive=name)
    ibi, _, path = rest.partition("/doc/")
    item = _find(service, ibi)
    embedded = embedded_metadata(item_record(item))
    cited = item.ibi.ibip or item.ibi.rep
    return render_template("archive/item.html", item=item, archive=name, file=path or None, embedded=embedded,
                           cited=cited, persistent=persistent_url(resolver_base(), cited))


@bp.get("/demo/archives/<name>/filelist/<path:ibi>")
def demo_file_list(name: str, ibi: str):
    """A demo item's file list (``GetFileList``, Example 9.12)."""
    item = _find(_demo(name), ibi)
    return render_template("archive/filelist.html", item=item, archive=name)


def _demo(name: str) -> ArchiveService:
    archive = holdings().demo.get(name)
    if archive is None:
        abort(404, description=gettext("no demo Archive named %(name)s", name=name))
    return archive.service


def _find(service: ArchiveService, ibi: str) -> Item:
    try:
        item = service.store.find(ibi)
    except ParseError as exc:
        abort(404, description=gettext("%(ibi)s is not an IBI: %(reason)s", ibi=ibi, reason=exc))
    if item is None:
        abort(404, description=gettext("%(ibi)s is not held by this Archive", ibi=ibi))
    return item
