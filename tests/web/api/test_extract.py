"""Finding IBIs in text: a real reference list, a real .bib, a PDF made here; limits; page, API, CLI.

tests/data/references.txt is references copied from public READMEs (the sources of
tests/ibi/data/wild_ibis.py), with a paragraph of things that are not IBIs (a DOI, ordinary
links, a date-like path on another site, the bare date); tests/data/references.bib is BibTeX as
published. Each test says exactly what must be found, and so that nothing else is.
"""
from __future__ import annotations

import csv
import html as html_module
import io
import json
import re
from pathlib import Path

import pytest
from fpdf import FPDF

from ibiportal.ibi.batch import MAX_BYTES, MAX_ROWS
from ibiportal.ibi.extract import extract
from ibiportal.web.references import views as references_views

DATA = Path(__file__).resolve().parents[2] / "data"
REFERENCES = (DATA / "references.txt").read_text(encoding="utf-8")
BIB = (DATA / "references.bib").read_text(encoding="utf-8")

IN_REFERENCES = [
    ("8JMKD3MGP3W34T/47AF772", "8JMKD3MGP3W34T/47AF772"),
    ("sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC", "8JMKD3MGP3W34T/47AF772"),
    ("http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772", "8JMKD3MGP3W34T/47AF772"),
    ("8JMKD3MGP3W34T/47E2TRB", "8JMKD3MGP3W34T/47E2TRB"),
    ("sid.inpe.br/mtc-m21d/2022/08.11.11.21-TDI", "8JMKD3MGP3W34T/47E2TRB"),
    ("http://urlib.net/ibi/8JMKD3MGP3W34T/47E2TRB", "8JMKD3MGP3W34T/47E2TRB"),
    ("8JMKD3MGP3W34R/3UGHFGH", "8JMKD3MGP3W34R/3UGHFGH"),
    ("sid.inpe.br/mtc-m21c/2019/12.04.15.16-TDI", "8JMKD3MGP3W34R/3UGHFGH"),
    ("ibi:8JMKD3MGP3W34R/3UGHFGH", "8JMKD3MGP3W34R/3UGHFGH"),
    ("http://urlib.net/rep/8JMKD3MGP6W34M/3JM4CC8", "8JMKD3MGP6W34M/3JM4CC8"),
    ("http://urlib.net/ibi/8JMKD3MGP3W34T/4B9G5HL", "8JMKD3MGP3W34T/4B9G5HL"),
    ("http://mtc-m21c.sid.inpe.br/col/sid.inpe.br/mtc-m21c/2019/02.06.02.41/doc/publicacao.pdf",
     "8JMKD3MGP3W34R/3SMGTAP"),
]
IN_BIB = [
    "8JMKD3MGP3W34T/48QQB65", "http://urlib.net/ibi/8JMKD3MGP3W34T/48QQB65",
    "8JMKD3MGPEW34M/49SPD9L", "http://urlib.net/ibi/8JMKD3MGPEW34M/49SPD9L",
    "http://urlib.net/ibi/8JMKD3MGPEW34M/4C22QAL",
]


def test_a_real_reference_list_gives_every_ibi_and_nothing_else():
    result = extract(REFERENCES)
    assert [(found.text, found.reading.ibip) for found in result.found] == IN_REFERENCES
    # Koja's thesis link (mtc-m21c, 2019/02.06.02.41) is the item 8JMKD3MGP3W34R/3SMGTAP of the
    # BibTeX url found elsewhere (tests/ibi/data/wild_ibis.py): the known pair gives it.
    assert result.distinct == 6
    for found in result.found:
        assert REFERENCES[found.start:found.end] == found.text
        assert REFERENCES.split("\n")[found.line - 1].find(found.text.split("\n")[0]) >= 0


def test_a_real_bib_file():
    result = extract(BIB)
    assert [found.text for found in result.found] == IN_BIB
    assert result.distinct == 3


def test_a_link_broken_over_two_lines_is_joined():
    result = extract("Available from: http://urlib.net/ibi/\n8JMKD3MGP3W34T/47AF772. Next sentence.")
    (found,) = result.found
    assert found.text == "http://urlib.net/ibi/\n8JMKD3MGP3W34T/47AF772" and found.line == 1
    assert any("line break" in note.message for note in found.reading.notes)


@pytest.mark.parametrize("text", [
    "doi: 10.1109/ACCESS.2020.2997019",
    "https://news.example.org/site/2020/01.02.03.04/story.html",
    "https://example.com/a/b/2020/01.02.03.04",
    "and/or ok/done HTTP/2 TCP/IP A4/B5",
    "2020/01.02.03.04",
    "http://www.inpe.br/",
    "https://github.com/IMScience-PPGINF-PucMinas/MALSumm",
])
def test_not_ibis(text):
    assert extract(text).found == ()


def make_pdf(lines: list[str]) -> bytes:
    """A PDF written here with fpdf2: one line of text per line (core font, Latin-1)."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=9)
    for line in lines:
        pdf.cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


PDF_LINES = [
    "REFERENCES",
    "UBA, D. M. et al. TATHU - Software para rastreio e analise do ciclo de vida de sistemas convectivos.",
    "Sao Jose dos Campos: INPE, 2022. 39 p. IBI: <8JMKD3MGP3W34T/47AF772>.",
    "(sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC). Disponivel em: <http://urlib.net/ibi/",
    "8JMKD3MGP3W34T/47AF772>.",
    "M. S. Reis et al., IEEE Access, vol. 8, 2020, doi: 10.1109/ACCESS.2020.2997019.",
]


def test_api_reads_a_pdf(client):
    response = client.post("/api/v1/extract", data={"file": (io.BytesIO(make_pdf(PDF_LINES)), "refs.pdf")},
                           content_type="multipart/form-data")
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert [found["text"] for found in body["found"]] == [
        "8JMKD3MGP3W34T/47AF772", "sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC",
        "http://urlib.net/ibi/\n8JMKD3MGP3W34T/47AF772",
    ]
    assert (body["count"], body["distinct"]) == (3, 1)
    first = body["found"][0]
    assert set(first) == {"text", "line", "start", "end", "ibi", "form", "rep", "ibip", "persistent_url", "warnings", "error"}
    assert first["line"] == 3 and first["rep"] == "sid.inpe.br/mtc-m21d/2022/07.20.15.45"
    assert first["persistent_url"] == "http://urlib.net/8JMKD3MGP3W34T/47AF772"


def test_api_json_text_and_bib_file(client):
    body = client.post("/api/v1/extract", json={"text": REFERENCES}).get_json()
    assert [found["text"] for found in body["found"]] == [text for text, _ in IN_REFERENCES]
    bib = client.post("/api/v1/extract", data={"file": (io.BytesIO(BIB.encode()), "refs.bib")},
                      content_type="multipart/form-data").get_json()
    assert bib["count"] == len(IN_BIB)


def test_a_file_part_without_a_file_name_is_read_as_text(client):
    """curl -F 'file=<refs.bib' sends the file's text with no name: werkzeug keeps it as a form field."""
    body = client.post("/api/v1/extract", data={"file": BIB}, content_type="multipart/form-data").get_json()
    assert body["count"] == len(IN_BIB)
    # A file may hold any byte (here a form feed and a NUL), as it may when sent with its name.
    odd = client.post("/api/v1/extract", data={"file": "\x0c\x00 " + BIB}, content_type="multipart/form-data")
    assert odd.status_code == 200 and odd.get_json()["count"] == len(IN_BIB)


def test_api_limits_and_unreadable_files(client, monkeypatch):
    big = client.post("/api/v1/extract", json={"text": "x" * (MAX_BYTES + 1)})
    assert big.status_code == 413 and "at most 1,000,000 bytes (1 MB)" in big.get_json()["error"]["message"]
    # The count limit is batch conversion's; it is lowered here so that the test reads 4 IBIs, not
    # 5,001 (tests/web/api/test_extract_cost.py reads those).
    assert references_views.MAX_ROWS == MAX_ROWS
    monkeypatch.setattr(references_views, "MAX_ROWS", 3)
    many = client.post("/api/v1/extract", json={"text": "8JMKD3MGP8W/34PGRBS\n" * 5})
    assert many.status_code == 400 and "holds more than 3 IBIs" in many.get_json()["error"]["message"]
    assert many.get_json()["error"]["position"] == 3 * 20 + 1
    monkeypatch.undo()
    broken = client.post("/api/v1/extract", data={"file": (io.BytesIO(b"%PDF-1.4\n garbage"), "refs.pdf")},
                         content_type="multipart/form-data")
    assert broken.status_code == 400 and "the PDF could not be read" in broken.get_json()["error"]["message"]
    fake = client.post("/api/v1/extract", data={"file": (io.BytesIO(b"hello"), "refs.pdf")}, content_type="multipart/form-data")
    assert fake.status_code == 400 and "not a PDF" in fake.get_json()["error"]["message"]
    other = client.post("/api/v1/extract", data={"file": (io.BytesIO(b"a,b"), "refs.doc")}, content_type="multipart/form-data")
    assert other.status_code == 400 and ".txt, .bib, .ris, .pdf, .docx or .odt" in other.get_json()["error"]["message"]
    not_zip = client.post("/api/v1/extract", data={"file": (io.BytesIO(b"a,b"), "refs.docx")}, content_type="multipart/form-data")
    assert not_zip.status_code == 400 and "not a .docx document" in not_zip.get_json()["error"]["message"]
    nothing = client.post("/api/v1/extract", json={})
    assert nothing.status_code == 400 and nothing.get_json()["error"]["field"] == "text"


def test_page_table_and_downloads(client):
    page = client.post("/references", data={"text": REFERENCES})
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "12 IBIs found" in html and "6 distinct items" in html
    assert "<mark>sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC</mark>" in html
    assert "<code>-NTC</code> is INPE&#39;s report-number suffix" in html
    csv_file = client.post("/references.csv", data={"text": REFERENCES})
    rows = list(csv.reader(io.StringIO(csv_file.get_data(as_text=True))))
    assert rows[0][0] == "line" and len(rows) == 1 + len(IN_REFERENCES)
    assert 'filename="ibis-found.csv"' in csv_file.headers["Content-Disposition"]
    as_json = json.loads(client.post("/references.json", data={"text": REFERENCES}).get_data(as_text=True))
    assert as_json["count"] == len(IN_REFERENCES)
    empty = client.post("/references", data={"text": ""})
    assert empty.status_code == 400 and "Paste a reference list" in empty.get_data(as_text=True)
    big = client.post("/references", data={"text": "x" * (MAX_BYTES + 1)})
    assert big.status_code == 413 and "at most 1,000,000 bytes (1 MB)" in big.get_data(as_text=True)


def test_cli(runner, tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text(BIB, encoding="utf-8")
    result = runner.invoke(args=["ibi", "extract", str(path)])
    assert result.exit_code == 0
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert [line.split("\t")[1] for line in lines] == IN_BIB
    as_json = runner.invoke(args=["ibi", "extract", "--json", str(path)])
    assert json.loads(as_json.stdout)["distinct"] == 3
    bad = tmp_path / "x.pdf"
    bad.write_bytes(b"%PDF-1.4 nothing")
    failed = runner.invoke(args=["ibi", "extract", str(bad)])
    assert failed.exit_code != 0 and "the PDF could not be read" in failed.output


BROKEN_LIST = ("A. IBI: <8JMKD3MGP3W34T/47AF772>.\n"
               "B. Disponível em: <http://urlib.net/8JMKD3MGP8W/ZZZZZZZ>.\n"
               r"C. \url{http://urlib.net/D7N2U8HW/39G4TD2!}")


def test_broken_entries_and_modifiers_on_page_api_csv_and_cli(client, runner, tmp_path):
    body = client.post("/api/v1/extract", json={"text": BROKEN_LIST}).get_json()
    assert [(row["line"], row["text"], row["error"] and row["error"]["message"]) for row in body["found"]] == [
        (1, "8JMKD3MGP3W34T/47AF772", None),
        (2, "http://urlib.net/8JMKD3MGP8W/ZZZZZZZ", "character 'Z' is not in the IBIp alphabet (0 1 I O V Y Z are excluded, Table 7.1)"),
        (3, "http://urlib.net/D7N2U8HW/39G4TD2!", None),
    ]
    assert body["found"][2]["persistent_url"] == "http://urlib.net/D7N2U8HW/39G4TD2!"
    assert (body["count"], body["distinct"], body["broken"]) == (3, 2, 1)
    html = client.post("/references", data={"text": BROKEN_LIST}).get_data(as_text=True)
    assert "2 IBIs found" in html and "1 not IBI<" in html
    assert "Not an IBI:</strong> character &#39;Z&#39; is not in the IBIp alphabet (0 1 I O V Y Z are excluded, Table 7.1) (at character 30)" in html
    rows = list(csv.reader(io.StringIO(client.post("/references.csv", data={"text": BROKEN_LIST}).get_data(as_text=True))))
    error = rows[0].index("error")
    assert rows[2][error] == "character 'Z' is not in the IBIp alphabet (0 1 I O V Y Z are excluded, Table 7.1) (at character 30)" and rows[1][error] == ""
    path = tmp_path / "refs.txt"
    path.write_text(BROKEN_LIST, encoding="utf-8")
    result = runner.invoke(args=["ibi", "extract", str(path)])
    assert "2\thttp://urlib.net/8JMKD3MGP8W/ZZZZZZZ\tnot an IBI: character 'Z' is not in the IBIp alphabet (0 1 I O V Y Z are excluded, Table 7.1) (at character 30)" in result.stdout
    assert "2 IBIs found, 2 distinct items, 1 not IBIs" in result.stderr


def test_the_page_shows_a_contradiction_on_both_entries(client):
    text = "REIS, M. S. Thesis. IBI: <8JMKD3MGP3W34T/47E2TRB>. (sid.inpe.br/mtc-m21d/2022/07.20.15.45-TDI)."
    html = client.post("/references", data={"text": text}).get_data(as_text=True)
    assert html.count('<ul class="contradictions">') == 2
    assert "this reference names two items: 8JMKD3MGP3W34T/47E2TRB here and sid.inpe.br/mtc-m21d/2022/07.20.15.45" in html


def test_downloads_carry_the_resolutions_the_page_posts(client):
    found = {"outcome": "found", "status": 302, "location": "http://archive.test/item.pdf",
             "reason": "redirects to http://archive.test/item.pdf", "trace": "http://localhost/api/v1/trace/abc",
             "cache": "miss", "extra": "dropped"}
    posted = json.dumps([found, None, {"outcome": "found", "status": "=HYPERLINK(1)"}])
    rows = list(csv.reader(io.StringIO(client.post("/references.csv", data={"text": BROKEN_LIST, "resolutions": posted})
                                       .get_data(as_text=True))))
    assert rows[0][-5:] == ["outcome", "status", "location", "reason", "trace"]
    assert rows[1][-5:] == ["found", "302", "http://archive.test/item.pdf", "redirects to http://archive.test/item.pdf",
                            "http://localhost/api/v1/trace/abc"]
    # The broken entry is invalid whatever was posted; a field of the wrong type is left empty.
    assert rows[2][-5] == "invalid" and rows[2][-2].startswith("not an IBI: ")
    assert rows[3][-5:-3] == ["found", ""]
    body = json.loads(client.post("/references.json", data={"text": BROKEN_LIST, "resolutions": posted}).get_data(as_text=True))
    assert body["found"][0]["resolution"] == {key: value for key, value in found.items() if key != "extra"}
    assert body["summary"] == {"found": 2, "deleted": 0, "not found": 0, "invalid": 1, "error": 0}
    unchecked = list(csv.reader(io.StringIO(client.post("/references.csv", data={"text": BROKEN_LIST}).get_data(as_text=True))))
    assert [row[-5] for row in unchecked[1:]] == ["", "invalid", ""]
    wrong = client.post("/references.csv", data={"text": BROKEN_LIST, "resolutions": "[1, 2]"})
    assert wrong.status_code == 400 and "do not match the references" in wrong.get_data(as_text=True)


def test_the_references_page_and_its_check_speak_portuguese(client):
    """In Portuguese: the page's words and its file errors, the check's reasons (the API's
    sentences), and the outcomes' names for the script; the outcome values and the CSV's columns
    stay the same English words (data)."""
    wrong = client.post("/references?lang=pt-BR", data={"file": (io.BytesIO(b"a,b"), "refs.doc")},
                        content_type="multipart/form-data")
    html = wrong.get_data(as_text=True)
    assert wrong.status_code == 400 and '<html lang="pt-BR">' in html
    assert "refs.doc não é um arquivo .txt, .bib, .ris, .pdf, .docx ou .odt" in html
    found = client.post("/references?lang=pt-BR", data={"text": BROKEN_LIST}).get_data(as_text=True)
    assert "2 IBIs encontrados" in found and "1 não é IBI" in found and "Verificando 2 IBIs aqui" in found
    words = json.loads(html_module.unescape(re.search(r"data-words='([^']*)'", found).group(1)))
    assert words["outcomes"]["not found"] == "não encontrado" and words["checkingCount"]["other"] == "Verificando {n} IBIs…"
    lines = client.post("/api/v1/extract?resolve=1", json={"text": BROKEN_LIST},
                        headers={"Accept": "application/x-ndjson", "Accept-Language": "pt-BR"}).get_data(as_text=True)
    broken = next(json.loads(line) for line in lines.splitlines() if '"index": 1,' in line)
    assert broken["resolution"]["outcome"] == "invalid"
    assert broken["resolution"]["reason"].startswith("não é um IBI: ") and broken["resolution"]["reason"].endswith("(no caractere 30)")
    rows = list(csv.reader(io.StringIO(client.post("/references.csv?lang=pt-BR", data={"text": BROKEN_LIST}).get_data(as_text=True))))
    assert rows[0][:3] == ["line", "text", "ibi"] and rows[0][-5:] == ["outcome", "status", "location", "reason", "trace"]
