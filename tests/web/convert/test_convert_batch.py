"""Batch conversion on the Convert page, its CSV download, and POST /api/v1/convert/batch."""
from __future__ import annotations

import csv
import io
import re

import pytest

from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from ibiportal import create_app
from ibiportal.ibi.batch import MAX_BYTES, MAX_ROWS
from tests.servers import fresh_sqlite

IBIP = "8JMKD3MGP8W/34PGRBS"
REP = "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"
BAD = "8JMKD3MGP8W/34PGRBV"


def upload(data: bytes, filename: str) -> FileStorage:
    return FileStorage(io.BytesIO(data), filename=filename)


def in_memory(data: dict) -> dict:
    """Arguments of a multipart post encoded in memory: the test client would spool a body over
    500 kB to a temporary file it never closes (a ResourceWarning)."""
    boundary, body = encode_multipart(data)
    return {"data": body, "content_type": f"multipart/form-data; boundary={boundary}"}


def table_rows(html: str) -> list[str]:
    body = html.split('<tbody>', 1)[1].split('</tbody>', 1)[0]
    return re.findall(r"<tr class=\"(\w+)\">", body)


def test_pasted_batch_is_a_table_with_a_per_row_error(client):
    page = client.post("/convert", data={"identifiers": f"{IBIP}\r\n\r\n{BAD}\r\n{REP}"})
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert table_rows(html) == ["noted", "failed", "ok"]
    assert "2 converted" in html and "1 failed" in html
    assert "(at character 19)" in html and "34PGRB<mark>V</mark>" in html
    assert 'name="download-kind" type="hidden" value="lines"' in html


def test_uploaded_csv_is_read_by_its_header(client):
    data = f"title,ibi\r\n\"A, b\",{REP}\r\nB,{BAD}\r\n".encode("utf-8-sig")
    page = client.post("/convert", data={"csv_file": (io.BytesIO(data), "items.csv")})
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert table_rows(html) == ["ok", "failed"]
    assert re.findall(r'<td class="line" data-label="Line">(\d+)</td>', html) == ["2", "3"]
    assert 'name="download-kind" type="hidden" value="csv"' in html


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({}, "identifiers", "Paste identifiers, one per line, or choose a CSV file."),
        ({"identifiers": " \n "}, "identifiers", "Paste identifiers"),
        ({"identifiers": "\n".join([IBIP] * (MAX_ROWS + 1))}, "identifiers", "5,001 identifiers; at most 5,000"),
        ({"identifiers": IBIP + "\n" + " " * MAX_BYTES}, "identifiers", "at most 1,000,000 bytes"),
        ({"identifiers": IBIP, "csv_file": upload(IBIP.encode(), "a.csv")}, "csv_file", "not both"),
        ({"csv_file": upload(b"\xff\xfei\x00b\x00i\x00", "utf16.csv")}, "csv_file", "not UTF-8 text"),
        ({"csv_file": upload(b"x" * (MAX_BYTES + 1), "big.csv")}, "csv_file", "the file is 1,000,001 bytes"),
    ],
)
def test_bad_batch_input_is_an_error_next_to_its_field_and_nothing_converts(client, data, field, message):
    page = client.post("/convert", **in_memory(data))
    assert page.status_code == 400
    html = page.get_data(as_text=True)
    error = re.search(rf'<div class="error" id="{field}-error"><p>(.*?)</p>', html, re.S)
    assert error and message in error.group(1)
    assert "batch-table" not in html


def test_text_a_little_over_flasks_form_limit_still_reaches_the_field(client):
    """Flask caps a form field at 500 kB by default; the batch fields get room up to 4 MB."""
    page = client.post("/convert", data={"identifiers": "x" * (2 * MAX_BYTES)})
    assert page.status_code == 400 and 'id="identifiers-error"' in page.get_data(as_text=True)


def test_download_is_the_same_table_as_csv_with_formulas_neutralised(client):
    text = f"{REP}\n=1+1\n{BAD}"
    response = client.post("/convert/batch.csv", data={"download-kind": "lines", "download-text": text})
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == 'attachment; filename="ibi-conversions.csv"'
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True), newline="")))
    assert [(row["line"], row["input"]) for row in rows] == [("1", REP), ("2", "'=1+1"), ("3", BAD)]
    assert rows[0]["IBIp"] == IBIP and rows[2]["error position"] == "19"


def test_download_of_an_uploaded_csv_keeps_its_line_numbers(client):
    response = client.post(
        "/convert/batch.csv", data={"download-kind": "csv", "download-text": f"ibi\n\n{IBIP}\n"}
    )
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True), newline="")))
    assert [row["line"] for row in rows] == ["3"]


def test_download_with_an_unknown_kind_is_refused(client):
    response = client.post("/convert/batch.csv", data={"download-kind": "xml", "download-text": IBIP})
    assert response.status_code == 400


@pytest.fixture
def csrf_client(tmp_path):
    """A client of an app with CSRF protection on, as in production."""
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "csrf.sqlite"), "SECRET_KEY": "test"})
    return app.test_client()


def test_batch_and_download_need_the_csrf_token(csrf_client):
    assert csrf_client.post("/convert", data={"identifiers": IBIP}).status_code == 400
    assert csrf_client.post("/convert/batch.csv", data={"download-kind": "lines", "download-text": IBIP}).status_code == 400
    html = csrf_client.get("/convert").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)
    page = csrf_client.post("/convert", data={"csrf_token": token, "identifiers": IBIP})
    assert page.status_code == 200 and "1 converted" in page.get_data(as_text=True)
    download_token = re.search(r'name="download-csrf_token" type="hidden" value="([^"]+)"', page.get_data(as_text=True))
    response = csrf_client.post(
        "/convert/batch.csv",
        data={"download-csrf_token": download_token.group(1), "download-kind": "lines", "download-text": IBIP},
    )
    assert response.status_code == 200 and IBIP in response.get_data(as_text=True)


def test_api_batch_rows_with_per_row_errors(client):
    response = client.post("/api/v1/convert/batch", json={"identifiers": [IBIP, BAD, "", REP]})
    assert response.status_code == 200
    body = response.get_json()
    assert (body["converted"], body["failed"]) == (2, 2)
    assert [row["line"] for row in body["rows"]] == [1, 2, 3, 4]
    assert body["rows"][0]["rep"] == "sid.inpe.br/mtc-m18@80/2009/02.16.17.46" and body["rows"][0]["error"] is None
    assert body["rows"][1]["error"]["position"] == 19 and "'V'" in body["rows"][1]["error"]["message"]
    assert body["rows"][2]["error"] == {"message": "empty identifier", "position": None}
    assert body["rows"][3]["ibip"] == IBIP and body["rows"][3]["utc"] == "2009-02-16T17:46:00Z"


@pytest.mark.parametrize(
    ("body", "position", "fragment"),
    [
        ({}, None, '"identifiers"'),
        ({"identifiers": IBIP}, None, "JSON array of strings"),
        ({"identifiers": [IBIP, 7]}, 2, "identifier 2 is a number"),
        ({"identifiers": [None]}, 1, "is null"),
        ({"identifiers": [IBIP] * (MAX_ROWS + 1)}, None, "at most 5,000"),
    ],
)
def test_api_batch_bad_body_is_a_400_naming_the_field(client, body, position, fragment):
    response = client.post("/api/v1/convert/batch", json=body)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert fragment in error["message"] and error["field"] == "identifiers" and error["position"] == position


def test_api_batch_body_that_is_not_json(client):
    response = client.post("/api/v1/convert/batch", data="[not json", content_type="application/json")
    assert response.status_code == 400 and response.get_json()["error"]["field"] == "body"
