"""The administrator's Import page (issue 34 point 6): upload a .bib/.ris/.csv or give an OAI-PMH
URL, preview the dry run as a table, import, download the report as JSON Lines, in both languages."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from ibiportal import create_app
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from tests.admin_session import log_in_as

DATA = Path(__file__).resolve().parents[1] / "data" / "import"


@pytest.fixture
def app(new_database):
    return create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test"})  # CSRF on


@pytest.fixture
def admin(client):
    return log_in_as(client, "ada")


def _token(html: str) -> str:
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html)[1]


def _minted(app) -> list:
    storage = Storage(app.config["DATABASE"])
    try:
        return IdentifierStore(storage).minted_items()
    finally:
        storage.close()


def test_the_page_needs_an_administrator(client):
    assert client.get("/admin/import/").status_code in (302, 303)


def test_preview_writes_nothing_then_import_writes_what_was_previewed(app, admin):
    token = _token(admin.get("/admin/import/").get_data(as_text=True))
    csv = (DATA / "urlib.csv").read_bytes()
    preview = admin.post("/admin/import/", data={"csrf_token": token, "preview": "1",
                                                 "source_file": (io.BytesIO(csv), "urlib.csv")},
                         content_type="multipart/form-data")
    page = preview.get_data(as_text=True)
    assert preview.status_code == 200
    assert "Preview: what an import would do" in page and "3 records" in page
    assert page.count('class="outcome-created"') == 2 and page.count('class="outcome-skipped"') == 1
    assert "8JMKD3MGP3W34R/3UGHFGH" in page and _minted(app) == []

    carried = {name: re.search(rf'name="{name}" type="hidden" value="([^"]*)"', page)[1]
               for name in ("source_name", "source-text")}
    assert carried["source_name"] == "urlib.csv"
    done = admin.post("/admin/import/", data={"csrf_token": _token(page), "run": "1",
                                              "source_name": carried["source_name"],
                                              "source-text": carried["source-text"]})
    page = done.get_data(as_text=True)
    assert "What the import did" in page
    assert sorted(item.ibip for item in _minted(app)) == ["8JMKD3MGP3W34R/3UGHFGH", "8JMKD3MGP3W34T/4B9G5HL"]

    report = re.search(r'name="report-text" type="hidden" value="([^"]*)"', page)[1]
    download = admin.post("/admin/import/report", data={"csrf_token": _token(page),
                                                        "report-text": report})
    assert download.headers["Content-Disposition"] == 'attachment; filename="import-report.jsonl"'
    rows = [json.loads(line) for line in download.get_data(as_text=True).splitlines()]
    assert [row["outcome"] for row in rows] == ["created", "created", "skipped"]


def test_the_page_in_portuguese_and_a_bad_source_said_so(app, admin):
    page = admin.get("/admin/import/?lang=pt-BR").get_data(as_text=True)
    token = _token(page)
    answer = admin.post("/admin/import/", data={"csrf_token": token, "preview": "1",
                                                "source_file": (io.BytesIO(b"x"), "colecao.xml")},
                        content_type="multipart/form-data")
    assert answer.status_code == 400
    assert "colecao.xml não é um arquivo .bib, .ris ou .csv" in answer.get_data(as_text=True)
    answer = admin.post("/admin/import/", data={"csrf_token": token, "preview": "1"})
    assert answer.status_code == 400 and "Escolha um arquivo .bib, .ris ou .csv" in answer.get_data(as_text=True)


def test_an_oai_pmh_source_that_cannot_be_reached_is_said_after_the_rows(app, admin):
    token = _token(admin.get("/admin/import/").get_data(as_text=True))
    from tests.servers import free_port
    page = admin.post("/admin/import/", data={"csrf_token": token, "preview": "1",
                                              "source_url": f"http://127.0.0.1:{free_port()}/oai"}).get_data(as_text=True)
    assert "The source stopped: the OAI-PMH source http://127.0.0.1:" in page and "could not be reached" in page
    assert "0 records" in page


def test_the_preview_in_portuguese(app, admin):
    token = _token(admin.get("/admin/import/?lang=pt-BR").get_data(as_text=True))
    page = admin.post("/admin/import/", data={"csrf_token": token, "preview": "1",
                                              "source_file": (io.BytesIO((DATA / "urlib.bib").read_bytes()), "urlib.bib")},
                      content_type="multipart/form-data").get_data(as_text=True)
    assert "Prévia: o que uma importação faria" in page and "novo aqui" in page and "criado" in page
    assert "o prefixo do nome de repositório de 8JMKD3MGPEW34M/49SPD9L não é conhecido" in page
    assert "nenhum IBI no registro" in page and "(nada gravado)" in page


def test_a_previewed_file_carried_in_a_field_larger_than_werkzeug_allows_is_imported(app, admin):
    """werkzeug keeps a form field to 500 kB; a previewed file comes back as one (in base64)."""
    token = _token(admin.get("/admin/import/").get_data(as_text=True))
    # blank lines (no records): under the test client's own 500 kB spooling, over 500 kB once in base64
    csv = (DATA / "urlib.csv").read_bytes() + b"\n" * 400_000
    with admin.post("/admin/import/", data={"csrf_token": token, "preview": "1",
                                            "source_file": (io.BytesIO(csv), "urlib.csv")},
                    content_type="multipart/form-data") as preview:  # a streamed page: closed, its spooled body too
        page = preview.get_data(as_text=True)
    carried = re.search(r'name="source-text" type="hidden" value="([^"]*)"', page)[1]
    assert len(carried) > 500_000
    done = admin.post("/admin/import/", data={"csrf_token": _token(page), "run": "1", "source_name": "urlib.csv",
                                              "source-text": carried})
    assert done.status_code == 200 and "What the import did" in done.get_data(as_text=True), done.get_data(as_text=True)[-3000:]
    assert len(_minted(app)) == 2
