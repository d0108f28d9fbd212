"""Which in-process item serves an oai_dc record URL, as the Archive modules tell (Cite reads
these records in process instead of asking its own server over HTTP)."""
from __future__ import annotations

from urllib.parse import urlsplit

from ibiportal.archive.demo import item_with_metadata_at, load_demo_archives, metadata_place
from ibiportal.archive.own import item_metadata_url, metadata_ibi

PORTAL = "https://portal.example/ibi"


def test_an_own_items_record_path_names_its_ibi_and_nothing_else_does():
    url = item_metadata_url(PORTAL, "D7N2U8HW/3J5AC3H")
    assert metadata_ibi(urlsplit(url).path.removeprefix("/ibi")) == "D7N2U8HW/3J5AC3H"
    for path in ("/archive/items/D7N2U8HW/3J5AC3H", "/archive/items//oai_dc.xml", "/convert",
                 "/archive/items/D7N2U8HW/3J5AC3H/oai_dc.xml/more"):
        assert metadata_ibi(path) is None, path


def test_a_demo_items_record_path_names_its_archive_and_ibi():
    assert metadata_place("/demo/archives/origin/col/ibiportal.test/lab/2015/03.10.14.22/metadata.xml") == (
        "origin", "ibiportal.test/lab/2015/03.10.14.22")
    assert metadata_place("/demo/archives/origin/col/ibiportal.test/lab/2015/03.10.14.22/metadata") is None
    assert metadata_place("/demo/archives/origin/filelist/x/metadata.xml") is None


def test_every_demo_record_url_finds_its_item_and_an_unknown_one_none():
    archives = load_demo_archives(portal_url=PORTAL).values()
    urls = [(item.metadata.oai_dc_url, item) for archive in archives for item in archive.service.store.items()
            if item.metadata is not None and item.metadata.oai_dc_url and item.dc is not None]
    assert any(urlsplit(url).netloc == "mtc-m16c.sid.inpe.br" for url, _ in urls)  # the standard's real hosts
    for url, item in urls:
        assert item_with_metadata_at(archives, url) is item
    assert item_with_metadata_at(archives, PORTAL + "/demo/archives/origin/col/nothing/metadata.xml") is None
