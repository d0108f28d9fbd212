"""``POST /api/v1/items/import``: an item package (``GET /api/v1/items/<ibi>/package``) or a
.bib, .ris or .csv file imported with an API token, as ``flask items import`` imports it: the same
IBI, state Original, one outcome per record and the totals as JSON; ``dry_run`` writes nothing."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from ibiportal import create_app
from ibiportal.web.api.importing import FORM_OVERHEAD_BYTES
from tests.web.items.test_item_package import portal_config

DATA = Path(__file__).resolve().parents[2] / "data" / "import"
IMPORT = "/api/v1/items/import"


@pytest.fixture
def successor(new_database):
    """The portal the item moves to, and the headers of a token of its own."""
    app = create_app(portal_config(new_database("successor.sqlite")))
    token = app.test_cli_runner().invoke(args=["api-token", "create", "mover"]).output.strip().splitlines()[-1]
    return app.test_client(), {"Authorization": f"Bearer {token}"}


def send(client, headers: dict, name: str, data: bytes, query: str = "", **more):
    return client.post(f"{IMPORT}{query}", data={"file": (io.BytesIO(data), name)}, headers=headers,
                       content_type="multipart/form-data", **more)


def test_an_import_needs_a_token_and_writes_nothing_without_one(client):
    csv = (DATA / "urlib.csv").read_bytes()
    for headers in ({}, {"Authorization": "Bearer nope"}):
        refused = send(client, headers, "urlib.csv", csv)
        assert refused.status_code == 401 and refused.get_json()["error"]["field"] == "Authorization"
    assert client.get("/api/v1/items/8JMKD3MGP3W34R/3UGHFGH").status_code == 404


def test_a_package_comes_in_with_its_ibi_state_original_files_and_history(packaged, successor):
    item, data = packaged
    client, headers = successor

    preview = send(client, headers, "moving.zip", data, "?dry_run=1")

    assert preview.status_code == 200, preview.get_json()
    body = preview.get_json()
    assert (body["source"], body["dry_run"], body["update"]) == ("moving.zip", True, False)
    assert [(row["outcome"], row["rep"], row["ibip"]) for row in body["records"]] == [
        ("created", item["rep"], item["ibip"])]
    assert body["totals"] == {"records": 1, "created": 1, "updated": 0, "unchanged": 0, "conflict": 0,
                              "skipped": 0, "failed": 0}
    assert client.get(f"/api/v1/items/{item['ibip']}").status_code == 404  # a dry run writes nothing

    done = send(client, headers, "moving.zip", data)

    assert done.status_code == 200 and done.get_json()["records"][0]["outcome"] == "created", done.get_json()
    assert done.get_json()["records"][0]["files"] == ["doc/report.pdf"]
    held = client.get(f"/api/v1/items/{item['rep']}").get_json()
    assert (held["ibip"], held["state"], held["metadata"]["title"], held["metadata"]["language"]) == (
        item["ibip"], "Original", "Relatório", "pt")
    assert client.get(f"/{item['ibip']}/doc/report.pdf", follow_redirects=True).data == b"%PDF-1.4 report"
    history = client.get(f"/api/v1/items/{item['ibip']}/history", headers=headers).get_json()["history"]
    assert [entry["action"] for entry in history] == ["minted", "file added", "edited", "imported", "file added"]
    assert history[3]["actor"] == {"kind": "import", "name": "moving.zip (API token mover)"}

    again = send(client, headers, "moving.zip", data)

    assert again.get_json()["records"][0]["outcome"] == "unchanged"
    assert again.get_json()["totals"]["unchanged"] == 1


def test_a_csv_is_imported_record_by_record_and_a_second_run_is_all_unchanged(client, auth):
    csv = (DATA / "urlib.csv").read_bytes()
    first = send(client, auth, "urlib.csv", csv).get_json()
    assert [row["outcome"] for row in first["records"]] == ["created", "created", "skipped"]
    assert first["records"][0]["ibip"] == "8JMKD3MGP3W34R/3UGHFGH" and first["records"][0]["record"] == "line 2"
    assert "no IBI in the record" in first["records"][2]["reason"]
    assert client.get("/api/v1/items/8JMKD3MGP3W34R/3UGHFGH").get_json()["state"] == "Original"

    second = send(client, auth, "urlib.csv", csv).get_json()
    assert [row["outcome"] for row in second["records"]] == ["unchanged", "unchanged", "skipped"]
    assert second["totals"]["records"] == 3 and second["totals"]["unchanged"] == 2


def test_other_data_is_a_conflict_unless_update(client, auth):
    csv = (DATA / "urlib.csv").read_text(encoding="utf-8")
    send(client, auth, "urlib.csv", csv.encode())
    changed = csv.replace("Estudo numérico", "Estudo analítico").encode()
    conflict = send(client, auth, "urlib.csv", changed).get_json()["records"][0]
    assert conflict["outcome"] == "conflict" and "title" in conflict["reason"]
    updated = send(client, auth, "urlib.csv", changed, "?update=true").get_json()["records"][0]
    assert updated["outcome"] == "updated"
    title = client.get("/api/v1/items/8JMKD3MGP3W34R/3UGHFGH").get_json()["metadata"]["title"]
    assert title.startswith("Estudo analítico")


def test_reasons_in_the_readers_language(client, auth):
    body = send(client, {**auth, "Accept-Language": "pt-BR"}, "urlib.bib", (DATA / "urlib.bib").read_bytes(),
                "?dry_run=yes").get_json()
    reasons = [row["reason"] for row in body["records"]]
    assert "novo aqui" in reasons and any("nenhum IBI no registro" in reason for reason in reasons)
    assert body["records"][0]["outcome"] == "created"  # outcomes are names, in English as the report's


@pytest.mark.parametrize(("name", "data", "query", "field", "words"), [
    ("colecao.xml", b"<x/>", "", "file", "is not a .bib, .ris, .csv or .zip file"),
    ("broken.zip", b"not a zip", "", "file", "broken.zip is not a zip file"),
    ("items.csv", b"title\nno ibi column\n", "", "file", "one of them `ibi`"),
    ("urlib.csv", b"ibi\n", "?dry_run=maybe", "dry_run", "dry_run must be"),
    ("urlib.csv", b"ibi\n", "?update=2", "update", "update must be"),
])
def test_a_source_that_cannot_be_read_is_refused_whole(client, auth, name, data, query, field, words):
    refused = send(client, auth, name, data, query)
    assert refused.status_code == 400, refused.get_json()
    error = refused.get_json()["error"]
    assert error["field"] == field and words in error["message"] and "position" in error


def test_a_form_without_a_file_is_refused(client, auth):
    refused = client.post(IMPORT, data={"text": "ibi\n"}, headers=auth, content_type="multipart/form-data")
    assert refused.status_code == 400 and refused.get_json()["error"]["field"] == "file"
    refused = client.post(IMPORT, json={"file": "x"}, headers=auth)
    assert refused.status_code == 400 and refused.get_json()["error"]["field"] == "file"


def test_a_malicious_package_is_refused_whole(packaged, successor):
    item, data = packaged
    client, headers = successor
    bad = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as good, zipfile.ZipFile(bad, "w") as evil:
        for info in good.infolist():
            evil.writestr(info, good.read(info))
        evil.writestr("../escape.txt", b"x")
    refused = send(client, headers, "evil.zip", bad.getvalue())
    assert refused.status_code == 400 and "leaves the package" in refused.get_json()["error"]["message"]
    assert client.get(f"/api/v1/items/{item['ibip']}").status_code == 404


def test_a_package_larger_than_a_form_but_within_the_file_limit_is_read(packaged, new_database):
    """A package carries the item's files: it is held to IBIPORTAL_MAX_FILE_BYTES, not to the
    limit of forms and JSON bodies (MAX_CONTENT_LENGTH); beyond the file limit it is a 413."""
    item, data = packaged
    roomy = create_app(portal_config(new_database("roomy.sqlite"), MAX_CONTENT_LENGTH=len(data) // 2,
                                     MAX_FILE_BYTES=len(data) * 4))
    token = roomy.test_cli_runner().invoke(args=["api-token", "create", "t"]).output.strip().splitlines()[-1]
    headers = {"Authorization": f"Bearer {token}"}
    done = send(roomy.test_client(), headers, "moving.zip", data)
    assert done.status_code == 200 and done.get_json()["records"][0]["outcome"] == "created", done.get_json()

    tight = create_app(portal_config(new_database("tight.sqlite"), MAX_FILE_BYTES=len(data) // 2))
    token = tight.test_cli_runner().invoke(args=["api-token", "create", "t"]).output.strip().splitlines()[-1]
    for body in (data, b"\0" * (len(data) + FORM_OVERHEAD_BYTES)):  # unpacked larger; the body itself larger
        refused = send(tight.test_client(), {"Authorization": f"Bearer {token}"}, "moving.zip", body)
        assert refused.status_code == 413, refused.get_json()
        assert "IBIPORTAL_MAX_FILE_BYTES" in refused.get_json()["error"]["message"]
        assert refused.get_json()["error"]["field"] == "file"


def test_the_report_rows_are_those_of_the_cli(client, auth, runner, tmp_path):
    """One shape for an outcome, whoever imports: the API's rows are the CLI's --report lines."""
    source = tmp_path / "urlib.ris"
    source.write_bytes((DATA / "urlib.ris").read_bytes())
    report = tmp_path / "report.jsonl"
    runner.invoke(args=["items", "import", str(source), "--dry-run", "--report", str(report)])
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    answered = send(client, auth, "urlib.ris", source.read_bytes(), "?dry_run=1").get_json()["records"]
    assert answered == rows


def test_the_import_path_is_no_item(client):
    """``import`` is no IBI (every IBI has a slash): another method there is a 405, not an item's answer."""
    for method in (client.get, client.patch, client.delete):
        refused = method(IMPORT)
        assert refused.status_code == 405 and set(refused.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
