"""The own Archive harvested over a real loopback socket by an independent harvester, Sickle
(a well-kept OAI-PMH client from PyPI), as aggregators harvest URLib's Archives: every verb,
several resumption pages, deleted records, a from/until window, GET and POST."""
from __future__ import annotations

import threading

import pytest
from sickle import Sickle
from sickle.oaiexceptions import CannotDisseminateFormat, IdDoesNotExist, NoRecordsMatch
from sqlalchemy import update

from ibiportal import create_app
from ibiportal.archive import oai_pmh
from ibiportal.storage.database import Storage
from ibiportal.storage.schema import minted_item
from tests.servers import loopback_server


@pytest.fixture
def app(new_database):
    """The suite's app, minting at a granularity of a millisecond: no mint waits for the next second."""
    return create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                       "GRANULARITY": "0.001"})


@pytest.fixture
def endpoint(app):
    server = loopback_server(app)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/oai"
    server.shutdown()
    server.server_close()


@pytest.fixture
def archive(app, client, api_token, monkeypatch):
    """Seven items in pages of three: reports, theses and one of no kind; two deleted, each changed
    at a known time."""
    monkeypatch.setattr(oai_pmh, "PAGE_SIZE", 3)
    kinds = ["report", "report", "doctoral thesis", "report", "master's thesis", None, "report"]
    items = []
    for number, kind in enumerate(kinds):
        fields = {"title": f"Relatório {number}", "creators": ["Banon, Gerald"], "language": "pt"}
        response = client.post("/api/v1/mint", json={**fields, **({"item_type": kind} if kind else {})})
        assert response.status_code == 201
        items.append(response.get_json())
    for gone in (items[1], items[4]):
        response = client.delete(f"/api/v1/items/{gone['ibip']}", headers={"Authorization": f"Bearer {api_token}"})
        assert response.status_code == 200
    storage = Storage(app.config["DATABASE"])
    with storage.write_transaction() as conn:
        for number, item in enumerate(items):
            conn.execute(update(minted_item).where(minted_item.c.rep == item["rep"])
                         .values(updated_at=f"2024-05-{10 + number:02d}T08:00:00.000000Z"))
    storage.close()
    return items


def oai_id(item: dict) -> str:
    return f"oai:127.0.0.1:{item['rep']}"


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_whole_harvest_across_pages_with_deleted_records(endpoint, archive, method):
    sickle = Sickle(endpoint, http_method=method)
    identify = sickle.Identify()
    assert identify.baseURL == endpoint and identify.deletedRecord == "persistent"
    assert identify.earliestDatestamp == "2024-05-10T08:00:00Z"
    listing = sickle.ListRecords(metadataPrefix="oai_dc")
    records = list(listing)
    last = listing.resumption_token  # the third page's: empty, after 3 + 3 records of 7
    assert (last.token, last.cursor, last.complete_list_size) == (None, "6", "7")
    assert [record.header.identifier for record in records] == [oai_id(item) for item in archive]
    assert [record.header.datestamp for record in records] == [f"2024-05-{day}T08:00:00Z" for day in range(10, 17)]
    assert [record.deleted for record in records] == [False, True, False, False, True, False, False]
    first = records[0]
    assert first.metadata["title"] == ["Relatório 0"] and first.metadata["creator"] == ["Banon, Gerald"]
    assert first.metadata["identifier"][2:] == [archive[0]["ibip"], archive[0]["rep"]]
    assert first.header.setSpecs == ["type:report"] and records[5].header.setSpecs == []
    kept = list(sickle.ListRecords(metadataPrefix="oai_dc", ignore_deleted=True))
    assert len(kept) == 5


def test_a_window_of_time_and_a_set(endpoint, archive):
    sickle = Sickle(endpoint)
    window = list(sickle.ListIdentifiers(metadataPrefix="oai_dc", **{"from": "2024-05-11T08:00:00Z", "until": "2024-05-15T08:00:00Z"}))
    days = list(sickle.ListIdentifiers(metadataPrefix="oai_dc", **{"from": "2024-05-11", "until": "2024-05-15"}))
    assert [header.identifier for header in days] == [header.identifier for header in window]
    assert [header.identifier for header in window] == [oai_id(item) for item in archive[1:6]]
    assert [header.deleted for header in window] == [True, False, False, True, False]
    reports = list(sickle.ListIdentifiers(metadataPrefix="oai_dc", set="type:report"))
    assert [header.identifier for header in reports] == [oai_id(archive[n]) for n in (0, 1, 3, 6)]
    assert {spec.setSpec for spec in sickle.ListSets()} >= {"type:report", "type:doctoral_thesis", "type:masters_thesis"}
    with pytest.raises(NoRecordsMatch):
        list(sickle.ListIdentifiers(metadataPrefix="oai_dc", **{"from": "2024-06-01"}))


def test_single_records_and_formats(endpoint, archive):
    sickle = Sickle(endpoint)
    record = sickle.GetRecord(identifier=oai_id(archive[2]), metadataPrefix="oai_dc")
    assert record.metadata["title"] == ["Relatório 2"] and record.header.setSpecs == ["type:doctoral_thesis"]
    assert sickle.GetRecord(identifier=oai_id(archive[1]), metadataPrefix="oai_dc").deleted
    assert [format_.metadataPrefix for format_ in sickle.ListMetadataFormats()] == ["oai_dc"]
    with pytest.raises(IdDoesNotExist):
        sickle.GetRecord(identifier="oai:127.0.0.1:nothing/here", metadataPrefix="oai_dc")
    with pytest.raises(CannotDisseminateFormat):
        list(sickle.ListRecords(metadataPrefix="marc21"))
