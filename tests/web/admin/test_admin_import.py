"""The administrator's Import page: upload a .bib/.ris/.csv (or an item package .zip) or give an
OAI-PMH URL; the import runs in the background with its progress kept in the database, so its page
shows records done of how many and the counts while it runs (after a reload, from another worker),
the preview's table and the report at the end, in both languages."""
from __future__ import annotations

import io
import json
import re
import threading
from pathlib import Path
from datetime import datetime, timezone

import pytest
from sqlalchemy import update

from ibiportal import create_app
from ibiportal.application.import_runs import STALE_SECONDS
from ibiportal.application.importing import OUTCOMES
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.storage.import_runs import ImportRunStore
from ibiportal.storage.schema import import_run
from ibiportal.web.context import APPLICATION
from tests.admin_session import log_in_as
from tests.oai_source import OaiSource, SourceRecord
from tests.servers import free_port, loopback_server

DATA = Path(__file__).resolve().parents[2] / "data" / "import"


@pytest.fixture
def app(new_database):
    return create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test"})  # CSRF on


@pytest.fixture
def admin(client):
    return log_in_as(client, "ada")


def token_of(html: str) -> str:
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html)[1]


def minted(app) -> list:
    storage = Storage(app.config["DATABASE"])
    try:
        return IdentifierStore(storage).minted_items()
    finally:
        storage.close()


def start(admin, language: str = "en", **fields):
    """Send the form (``preview`` by default); the run's address."""
    page = admin.get(f"/admin/import/?lang={language}").get_data(as_text=True)
    data = {"csrf_token": token_of(page), **({"preview": "1"} if "run" not in fields else {}), **fields}
    answer = admin.post("/admin/import/", data=data, content_type="multipart/form-data")
    assert answer.status_code == 303, answer.get_data(as_text=True)[-2000:]
    return answer.headers["Location"]


def finished(app, run_url: str) -> str:
    """Wait for the run's thread to end; its id."""
    run_id = run_url.rstrip("/").rsplit("/", 1)[-1]
    thread = app.extensions[APPLICATION].import_runs.threads[run_id]
    thread.join(30)
    assert not thread.is_alive()
    return run_id


def upload(name: str, data: bytes) -> dict:
    return {"source_file": (io.BytesIO(data), name)}


def test_the_page_needs_an_administrator(client):
    assert client.get("/admin/import/").status_code in (302, 303)


def test_preview_writes_nothing_then_import_writes_what_was_previewed(app, admin):
    run = start(admin, **upload("urlib.csv", (DATA / "urlib.csv").read_bytes()))
    finished(app, run)
    page = admin.get(run).get_data(as_text=True)
    assert "Preview: what an import would do" in page and "3 records" in page
    assert page.count('class="outcome-created"') == 2 and page.count('class="outcome-skipped"') == 1
    assert "8JMKD3MGP3W34R/3UGHFGH" in page and minted(app) == []

    done = admin.post(f"{run}/import", data={"csrf_token": token_of(page)})  # what was previewed, kept with the run
    assert done.status_code == 303
    finished(app, done.headers["Location"])
    page = admin.get(done.headers["Location"]).get_data(as_text=True)
    assert "What the import did" in page and "Import</button>" not in page
    assert sorted(item.ibip for item in minted(app)) == ["8JMKD3MGP3W34R/3UGHFGH", "8JMKD3MGP3W34T/4B9G5HL"]

    report = admin.get(f"{done.headers['Location']}/report")
    assert report.headers["Content-Disposition"] == 'attachment; filename="import-report.jsonl"'
    rows = [json.loads(line) for line in report.get_data(as_text=True).splitlines()]
    assert [row["outcome"] for row in rows] == ["created", "created", "skipped"]
    assert rows[0]["ibip"] == "8JMKD3MGP3W34R/3UGHFGH" and rows[0]["reason"] == "new here"
    history = admin.get("/api/v1/items/8JMKD3MGP3W34R/3UGHFGH/history", headers={}).get_json()["history"]
    assert history[0]["actor"]["kind"] == "import"


def test_the_page_in_portuguese_and_a_bad_source_said_so(app, admin):
    page = admin.get("/admin/import/?lang=pt-BR").get_data(as_text=True)
    token = token_of(page)
    answer = admin.post("/admin/import/", data={"csrf_token": token, "preview": "1", **upload("colecao.xml", b"x")},
                        content_type="multipart/form-data")
    assert answer.status_code == 400
    assert "colecao.xml não é um arquivo .bib, .ris, .csv ou .zip" in answer.get_data(as_text=True)
    answer = admin.post("/admin/import/", data={"csrf_token": token, "preview": "1"})
    assert answer.status_code == 400 and "Escolha um arquivo .bib, .ris, .csv ou .zip" in answer.get_data(as_text=True)


def test_an_oai_pmh_source_that_cannot_be_reached_is_said(app, admin):
    run = start(admin, source_url=f"http://127.0.0.1:{free_port()}/oai")
    finished(app, run)
    page = admin.get(run).get_data(as_text=True)
    assert "The source stopped: the OAI-PMH source http://127.0.0.1:" in page and "could not be reached" in page
    assert "0 records" in page and "Import</button>" not in page


def test_the_preview_in_portuguese(app, admin):
    run = start(admin, "pt-BR", **upload("urlib.bib", (DATA / "urlib.bib").read_bytes()))
    finished(app, run)
    page = admin.get(f"{run}?lang=pt-BR").get_data(as_text=True)
    assert "Prévia: o que uma importação faria" in page and "novo aqui" in page and "criado" in page
    assert "o prefixo do nome de repositório de 8JMKD3MGPEW34M/49SPD9L não é conhecido" in page
    assert "nenhum IBI no registro" in page and "(nada gravado)" in page


def test_an_item_package_comes_in_through_the_page(app, admin, auth, new_database):
    other = create_app({"TESTING": True, "DATABASE": new_database("other.sqlite"), "SECRET_KEY": "test",
                        "MINT_HOST": "other.example", "MINT_IP": "192.0.2.2"})
    token = other.test_cli_runner().invoke(args=["api-token", "create", "t"]).output.strip().splitlines()[-1]
    item = other.test_client().post("/api/v1/mint", json={"title": "Moving in"}).get_json()
    with other.test_client().get(f"/api/v1/items/{item['ibip']}/package",
                                 headers={"Authorization": f"Bearer {token}"}) as response:
        package = response.data
    run = start(admin, run="1", **upload("moving.zip", package))
    finished(app, run)
    assert "What the import did" in admin.get(run).get_data(as_text=True)
    held = admin.get(f"/api/v1/items/{item['ibip']}").get_json()
    assert (held["rep"], held["state"], held["metadata"]["title"]) == (item["rep"], "Original", "Moving in")


@pytest.fixture
def slow_source():
    """An OAI-PMH source of five records in pages of two (``completeListSize`` given), whose second
    page waits until the test lets it go: the import is caught half-way."""
    records = [SourceRecord(f"oai:urlib.net:8JMKD3MGP3W34R/3UGHF{letter}", datetime(2024, 1, 1, tzinfo=timezone.utc),
                            (("title", f"Relatório {letter}"),)) for letter in "ABCDE"]
    source = OaiSource(records, page_size=2, hold={2: threading.Event()})
    server = loopback_server(source)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    source.url = f"http://127.0.0.1:{server.server_port}/oai"
    yield source
    source.hold[2].set()
    server.shutdown()
    server.server_close()


def test_a_long_import_shows_its_progress_to_any_worker_then_its_report(app, admin, slow_source, new_database):
    run = start(admin, run="1", source_url=slow_source.url)
    assert slow_source.held.wait(30)  # the first page's records are done: the import waits for the second

    page = admin.get(run).get_data(as_text=True)
    assert "Importing" in page and "2 of 5 records done" in page
    assert '<progress id="progress-bar" max="5" value="2"' in page and "2 created" in page
    assert 'data-import-running' in page and "/static/js/import-progress.js" in page
    assert "Download the report" not in page
    # another worker (here a second app on the same database) shows the same run, as does the list
    worker = create_app({"TESTING": True, "DATABASE": app.config["DATABASE"], "SECRET_KEY": "test"})
    other = log_in_as(worker.test_client(), "grace")
    assert "2 of 5 records done" in other.get(run).get_data(as_text=True)
    assert "2 of 5" in other.get("/admin/import/").get_data(as_text=True)

    slow_source.hold[2].set()
    finished(app, run)

    page = admin.get(run).get_data(as_text=True)
    assert "What the import did" in page and "5 records: 5 created" in page and "data-import-running" not in page
    assert page.count('class="outcome-created"') == 5 and "Download the report (JSON Lines)" in page
    assert len(minted(app)) == 5


def test_a_run_whose_process_ended_is_said_interrupted(app, admin):
    storage = Storage(app.config["DATABASE"])
    store = ImportRunStore(storage)
    run_id = store.create("http://archive.example.org/oai", None, dry_run=False, update=False, started_by="ada",
                          counts=dict.fromkeys(OUTCOMES, 0))
    store.record(run_id, 0, {"record": "oai:x:1", "outcome": "created", "reason": "new here", "rep": None,
                             "ibip": None, "published": None, "files": []}, {**dict.fromkeys(OUTCOMES, 0), "created": 1}, 9)
    with storage.write_transaction() as conn:  # not heard from for longer than a run stays silent
        conn.execute(update(import_run).where(import_run.c.id == run_id).values(alive_at="2020-01-01T00:00:00.000000Z"))
    storage.close()
    assert STALE_SECONDS >= 30
    page = admin.get(f"/admin/import/runs/{run_id}").get_data(as_text=True)
    assert "This import was interrupted" in page and "1 of 9 records done" in page
    assert "data-import-running" not in page
    assert "interrupted" in admin.get("/admin/import/").get_data(as_text=True)


def test_an_unknown_run_is_a_404(admin):
    assert admin.get("/admin/import/runs/nothing-here").status_code == 404
    assert admin.get("/admin/import/runs/nothing-here/report").status_code == 404
