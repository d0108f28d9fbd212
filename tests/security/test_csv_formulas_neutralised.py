"""CSV formulas are neutralised in every CSV the portal writes (security issue 39): the batch
conversion's download (pasted lines, and an uploaded CSV's own header and columns), the
references' download (the text and the resolutions the page posts back), ``flask ibi convert
--csv`` and the administrators' report of the items' targets (titles, creators and target URLs
come from whoever minted). Each formula start a spreadsheet runs (= + - @ tab CR; OWASP "CSV
injection") is put in every cell a user controls; no cell of the file written may begin with one.
These are all the CSV files the portal writes."""
from __future__ import annotations

import csv
import io
import json

import pytest

from ibiportal.ibi.batch import FORMULA_STARTS
from tests.admin_session import log_in_as

#: One payload per formula start, each a command a spreadsheet would run.
PAYLOADS = ['=HYPERLINK("http://evil.example","x")', "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0",
            "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1"]
IBIP = "8JMKD3MGP8W/34PGRBS"


def assert_no_formula(text: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text, newline="")))
    for row in rows:
        for cell in row:
            assert not cell.startswith(FORMULA_STARTS), (cell, row)
    return rows


def test_the_formula_starts_are_the_ones_spreadsheets_run():
    assert set(FORMULA_STARTS) == {"=", "+", "-", "@", "\t", "\r"}


@pytest.mark.parametrize("payload", PAYLOADS, ids=repr)
def test_the_batch_download_of_pasted_lines(client, payload):
    answer = client.post("/convert/batch.csv", data={"download-kind": "lines", "download-text": f"{IBIP}\n{payload}"})
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    rows = assert_no_formula(answer.get_data(as_text=True))
    assert any(payload.strip() in cell for row in rows for cell in row)  # kept, as text


def uploaded_csv(payload: str) -> str:
    """A catalogue whose header, identifier and own column all hold ``payload``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerows([["ibi", payload], [IBIP, payload], [payload, "title"]])
    return out.getvalue()


@pytest.mark.parametrize("payload", PAYLOADS, ids=repr)
def test_the_batch_download_of_an_uploaded_csv(client, payload):
    answer = client.post("/convert/batch.csv", data={"download-kind": "csv", "download-text": uploaded_csv(payload)})
    assert answer.status_code == 200
    assert len(assert_no_formula(answer.get_data(as_text=True))) == 3


@pytest.mark.parametrize("payload", PAYLOADS, ids=repr)
def test_the_references_download_with_hostile_resolutions_posted(client, payload):
    text = f"A. IBI: <{IBIP}>. {payload}\n{payload} IBI: <8JMKD3MGP8W/ZZZZZZZ>."
    found = len(client.post("/api/v1/extract", json={"text": text}).get_json()["found"])
    posted = json.dumps([{"outcome": "found", "status": 302, "location": payload, "reason": payload, "trace": payload}]
                        * found)
    answer = client.post("/references.csv", data={"text": text, "resolutions": posted})
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    rows = assert_no_formula(answer.get_data(as_text=True))
    assert len(rows) == found + 1 and found >= 1


@pytest.mark.parametrize("payload", PAYLOADS, ids=repr)
def test_the_command_line_conversion_of_a_csv(runner, payload):
    result = runner.invoke(args=["ibi", "convert", "--csv", "-"], input=uploaded_csv(payload))
    assert len(assert_no_formula(result.output)) == 3


@pytest.mark.parametrize("payload", PAYLOADS, ids=repr)
def test_the_target_report(client, payload):
    payload = payload.strip()  # a title or name cannot hold a tab or CR (refused at minting)
    minted = client.post("/api/v1/mint", json={"title": payload, "creators": [payload],
                                               "target_url": "http://repository.example/a"})
    assert minted.status_code == 201
    log_in_as(client, "ada")
    answer = client.get("/admin/items/targets.csv?state=all")
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    rows = assert_no_formula(answer.get_data(as_text=True))
    assert len(rows) == 2 and payload in rows[1][2]
