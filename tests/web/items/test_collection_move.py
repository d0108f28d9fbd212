"""A real URLib collection moves in, is harvested out, and one item moves on, without one broken
citation: the administrator's test of the whole move.

The collection (``tests/data/urlib_collection``: 302 items in URLib's own shapes, repository
names with ``@80``, IBIps of five servers' prefixes, accents everywhere, files in nested folders of
a ``col/`` folder, one name decomposed on disk, a deleted item) is served by an OAI-PMH 2.0 data
provider written from the protocol's text (``tests/oai_source.py``), on a loopback socket, in
pages with resumption tokens. Portal A imports it with ``flask items import URL --files col/``;
every IBI, field, file and the deleted state are checked, every persistent URL resolved, a second
run is all ``unchanged``; Sickle harvests A's ``/oai`` and finds the same collection; then one
item goes to portal B (its package into B's ``POST /api/v1/items/import``, released on A's Move
page) while a reader keeps following its citations at resolver R, a third portal whose Archives
A and B are, and at A.
"""
from __future__ import annotations

import json
import threading
import unicodedata
from pathlib import Path
from urllib.parse import quote

import pytest
import requests
from sickle import Sickle

from ibiportal import create_app
from ibiportal.storage.database import Storage
from ibiportal.storage.files import FileStore
from ibiportal.storage.identifiers import IdentifierStore
from tests.admin_session import log_in_as
from tests.oai_schemas import assert_valid
from tests.oai_source import OaiSource, records_of
from tests.servers import Reader, fresh_sqlite, include_archive, loopback_server

COLLECTION = Path(__file__).resolve().parents[2] / "data" / "urlib_collection" / "collection.jsonl"
REPOSITORY_ID = "archive.inpe.br"
SUCCESSOR_IBI = "8JMKD3MGPCW/3ER446E"
RESOLVER_ARCHIVE_IBI = "J8LNKAN8PW/3FUQHC5"
CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


def serve(app) -> tuple:
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server, f"127.0.0.1:{server.server_port}"


@pytest.fixture(scope="module")
def collection() -> list[dict]:
    return [json.loads(line) for line in COLLECTION.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def col(collection, tmp_path_factory) -> Path:
    """The old Archive's ``col/`` folder as it is on disk: ``col/<repository name>/doc/…``, and
    the Archive's own bookkeeping beside ``doc`` (not the item's files)."""
    root = tmp_path_factory.mktemp("urlib") / "col"
    for item in collection:
        folder = root / item["rep"]
        (folder / "service").mkdir(parents=True)
        (folder / "service" / "reference").write_text(f"{item['rep']}\n", encoding="utf-8")
        for file in item["files"]:
            disk = folder / "doc" / file["on_disk"]
            disk.parent.mkdir(parents=True, exist_ok=True)
            disk.write_text(file["text"], encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def source(collection):
    provider = OaiSource(records_of(collection), page_size=40)
    server, address = serve(provider)
    provider.url = provider.base_url = f"http://{address}/oai"
    yield provider
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def portal(tmp_path_factory):
    """Portal A, where the collection moves in (on a loopback socket too, for harvesters and B)."""
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path_factory.mktemp("a") / "a.sqlite"),
                      "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False, "ALLOW_PRIVATE_ARCHIVES": True,
                      "OAI_REPOSITORY_ID": REPOSITORY_ID, "DEMO_ARCHIVES": False})  # an Archive's portal: its own only
    server, app.address = serve(app)
    yield app
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def imported(portal, source, col, tmp_path_factory):
    """The first import: its output and its report's rows."""
    report = tmp_path_factory.mktemp("report") / "report.jsonl"
    result = portal.test_cli_runner().invoke(args=["items", "import", source.url, "--files", str(col),
                                                   "--report", str(report)])
    return result, [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]


def test_the_source_answers_as_oai_pmh_says(source, collection):
    """The source is held to the protocol's schema before anything is read from it."""
    for query in ("verb=Identify", "verb=ListMetadataFormats", "verb=ListRecords&metadataPrefix=oai_dc",
                  "verb=ListIdentifiers&metadataPrefix=oai_dc&from=2009-01-01&until=2009-12-31",
                  f"verb=GetRecord&metadataPrefix=oai_dc&identifier={quote(collection[0]['oai_identifier'])}",
                  "verb=ListSets", "verb=Nothing", "verb=ListRecords", "verb=ListRecords&resumptionToken=x",
                  "verb=ListRecords&metadataPrefix=marc21", "verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:x:y",
                  "verb=ListRecords&metadataPrefix=oai_dc&from=1990-01-01&until=1990-12-31"):
        assert_valid(requests.get(f"{source.url}?{query}", timeout=10).content)
    pages = list(Sickle(source.url).ListRecords(metadataPrefix="oai_dc", ignore_deleted=False))
    assert len(pages) == len(collection) and sum(record.deleted for record in pages) == 1


def test_the_collection_moves_in_with_every_ibi_field_file_and_deletion(portal, imported, collection, source):
    result, rows = imported
    total = len(collection)
    assert result.exit_code == 0, result.output[-3000:]
    assert result.output.strip().splitlines()[-1] == (
        f"totals: {total} records: {total} created, 0 updated, 0 unchanged, 0 conflict, 0 skipped, 0 failed")
    harvest = [query for query in source.asked if query.get("verb") == "ListRecords"][-8:]  # 302 in pages of 40
    assert harvest[0] == {"verb": "ListRecords", "metadataPrefix": "oai_dc"}
    assert len({query["resumptionToken"] for query in harvest[1:]}) == 7
    by_rep = {item["rep"]: item for item in collection}
    assert [(row["outcome"], row["rep"], row["ibip"]) for row in rows] == [
        ("created", row["rep"], by_rep[row["rep"]]["ibip"]) for row in rows]
    assert {row["rep"] for row in rows} == set(by_rep)

    storage = Storage(portal.config["DATABASE"])
    try:
        store, files = IdentifierStore(storage), FileStore(storage)
        held = {item.ibip: item for item in store.minted_items()}
        assert len(held) == total
        kept_files = 0
        for item in collection:
            minted = held[item["ibip"]]
            assert minted.rep == item["rep"]  # the name as published: @80, its case, never re-minted
            assert minted.deleted == item.get("deleted", False)
            if not minted.deleted:
                assert (minted.title, list(minted.creators), minted.item_date, minted.language) == (
                    item["title"], item["creators"], item["date"], item["language"])
            stored = {file.path: file.size for file in files.files(minted.ibip)}
            assert stored == {unicodedata.normalize("NFC", file["path"]): len(file["text"].encode()) for file in item["files"]}
            kept_files += len(stored)
        assert kept_files == sum(len(item["files"]) for item in collection) == 211
    finally:
        storage.close()


def test_citations_of_the_old_archive_resolve_here(portal, imported, collection):
    """Both forms of every 25th item (each server, spelling and way of naming the IBI among them),
    the deleted one's (410 Gone), and each of their files as the old ``/col/<rep>/doc/…`` links name
    it: a resolution takes tens of milliseconds, every item's would take the suite a minute. That
    every item is held with both its forms is checked above, from the database."""
    client = portal.test_client()
    sample = [*collection[::25], next(item for item in collection if item.get("deleted")), collection[10]]
    spellings = {item["rep"].split("/")[1] for item in collection}  # mtc-m18@80, mtc-m18, … banon: 7
    assert {item["rep"].split("/")[1] for item in sample} == spellings and len(spellings) == 7
    for item in sample:
        for form in (item["ibip"], item["rep"]):
            answer = client.get("/" + form, environ_base=CLIENT)
            assert answer.status_code == (410 if item.get("deleted") else 302), (form, answer.status_code)
        for file in item["files"]:
            answer = client.get(f"/{item['ibip']}/{quote(file['path'])}", environ_base=CLIENT, follow_redirects=True)
            assert answer.data == file["text"].encode(), (item["ibip"], file["path"])


def test_a_second_run_changes_nothing(portal, imported, source, col, collection):
    again = portal.test_cli_runner().invoke(args=["items", "import", source.url, "--files", str(col)])
    total = len(collection)
    assert again.exit_code == 0 and again.output.strip().splitlines()[-1] == (
        f"totals: {total} records: 0 created, 0 updated, {total} unchanged, 0 conflict, 0 skipped, 0 failed")


def test_harvested_out_it_is_the_same_collection(portal, imported, collection):
    records = list(Sickle(f"http://{portal.address}/oai").ListRecords(metadataPrefix="oai_dc", ignore_deleted=False))
    harvested = {record.header.identifier: record for record in records}
    assert set(harvested) == {f"oai:{REPOSITORY_ID}:{item['rep']}" for item in collection}
    for item in collection:
        record = harvested[f"oai:{REPOSITORY_ID}:{item['rep']}"]
        assert record.deleted == item.get("deleted", False)
        if record.deleted:
            continue
        assert record.metadata["title"] == [item["title"]] and record.metadata["creator"] == item["creators"]
        identifiers = record.metadata["identifier"]
        assert item["ibip"] in identifiers and item["rep"] in identifiers
        assert any(text.endswith("/" + item["ibip"]) and text.startswith("http") for text in identifiers)


def portal_at(database: Path, service_ibi: str, host: str, ip: str, **more) -> tuple:
    """Another portal (its own Archive and minting server), served on a loopback socket."""
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(database), "SECRET_KEY": "test", "DEMO_ARCHIVES": False,
                      "ARCHIVE_SERVICE_IBI": service_ibi, "MINT_HOST": host, "MINT_IP": ip,
                      "ALLOW_PRIVATE_ARCHIVES": True, **more})
    return app, *serve(app)


def test_one_item_moves_on_and_its_persistent_url_never_fails(portal, imported, collection, tmp_path):
    """Portals A (the collection's) and B (the successor) are both Archives of resolver R (a third
    portal, as urlib.net resolves for INPE's Archives); a reader follows the item's citations at R,
    and at A's own resolver, all along."""
    moving = next(item for item in collection if len(item["files"]) == 3 and "@80" in item["rep"])
    successor, server_b, address = portal_at(tmp_path / "b.sqlite", SUCCESSOR_IBI, "successor.example", "192.0.2.2")
    # R asks the Archives at every request: with its cache (IBIPORTAL_RESOLUTION_CACHE_SECONDS, 30 s)
    # it would send readers to A's page of the released item, which still answers, for up to 30 s more
    resolver, server_r, resolver_address = portal_at(tmp_path / "r.sqlite", RESOLVER_ARCHIVE_IBI, "resolver.example",
                                                     "192.0.2.3", RESOLUTION_CACHE_SECONDS=0)
    try:
        include_archive(resolver.config["DATABASE"], portal.config["ARCHIVE_SERVICE_IBI"], portal.address)
        include_archive(resolver.config["DATABASE"], SUCCESSOR_IBI, address)
        include_archive(portal.config["DATABASE"], SUCCESSOR_IBI, address)
        a_token = portal.test_cli_runner().invoke(args=["api-token", "create", "move"]).output.strip().splitlines()[-1]
        b_token = successor.test_cli_runner().invoke(args=["api-token", "create", "in"]).output.strip().splitlines()[-1]
        cited = [f"http://{base}/{path}" for base in (resolver_address, portal.address) for path in (
            moving["ibip"], moving["rep"], f"{moving['ibip']}/{quote(moving['files'][1]['path'])}")]
        with Reader(cited) as reader:
            reader.read_on(len(cited))  # each citation followed once, to A's copy
            package = requests.get(f"http://{portal.address}/api/v1/items/{moving['ibip']}/package", timeout=10,
                                   headers={"Authorization": f"Bearer {a_token}"})
            assert package.status_code == 200
            moved_in = requests.post(f"http://{address}/api/v1/items/import", timeout=20,
                                     files={"file": ("moving.zip", package.content)},
                                     headers={"Authorization": f"Bearer {b_token}"})
            assert moved_in.status_code == 200 and moved_in.json()["totals"]["created"] == 1, moved_in.text
            reader.read_on(len(cited))  # both hold it now
            admin = log_in_as(portal.test_client(), "ada")
            successor_url = f"http://{address}/{SUCCESSOR_IBI}"
            checked = admin.post(f"/admin/items/{moving['ibip']}/move", data={"successor": successor_url},
                                 environ_base=CLIENT).get_data(as_text=True)
            assert "state</th><td><code>Original</code>" in checked, checked[-3000:]
            released = admin.post(f"/admin/items/{moving['ibip']}/move", environ_base=CLIENT,
                                  data={"successor": successor_url, "release": "1"})
            assert released.status_code == 303, released.get_data(as_text=True)[-3000:]
            reader.read_on(2 * len(cited))
        held = requests.get(f"http://{address}/api/v1/items/{moving['rep']}", timeout=10).json()
        assert (held["ibip"], held["state"]) == (moving["ibip"], "Original")
        assert [file["path"] for file in held["files"]] == sorted(
            unicodedata.normalize("NFC", file["path"]) for file in moving["files"])
    finally:
        for server in (server_b, server_r):
            server.shutdown()
            server.server_close()
    answers = reader.answers
    assert {status for _, status, _, _ in answers} == {302} and {followed for *_, followed in answers} == {200}, [
        answer for answer in answers if answer[1] != 302 or answer[3] != 200]
    for url in cited:  # each citation led to A's copy first, to B's in the end
        locations = [location for asked, _, location, _ in answers if asked == url]
        assert locations[0].startswith(f"http://{portal.address}/") and locations[-1].startswith(f"http://{address}/")
