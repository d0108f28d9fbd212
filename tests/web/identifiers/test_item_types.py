"""Kinds of item end to end: minted (page, API, CLI) → the own Archive's oai_dc → every format.

The done-when of a minted doctoral thesis: the INPE form, character for character, in the shape
INPE's library prints (``AUTHOR. Title. Year. N p. IBI: <ibip>. (repository-TDI). Tese (…) -
institution, place, year. Disponível em: <persistent URL>.``), and BibTeX ``@phdthesis`` with
``ibi``.
"""
from __future__ import annotations

import json
import sqlite3

import pytest
import responses

from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.storage.migrations import upgrade

THESIS = {
    "title": "Estudo numérico do processo de decomposição em câmaras catalíticas",
    "creators": ["Robledo Asencio, José Carlos"],
    "date": "2020",
    "item_type": "doctoral thesis",
    "publisher": "Instituto Nacional de Pesquisas Espaciais (INPE)",
    "place": "São José dos Campos",
    "extent": "189",
    "degree": "Doutorado em Combustão e Propulsão",
    "report_number": "TDI",
}


def cite(client, ibi: str) -> dict:
    with responses.RequestsMock():  # the own Archive's record is read in process: no HTTP at all
        response = client.get("/api/v1/cite", query_string={"ibi": ibi})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_a_minted_doctoral_thesis_in_the_inpe_form_character_for_character(client):
    minted = client.post("/api/v1/mint", json=THESIS).get_json()
    rep, ibip, url = minted["rep"], minted["ibip"], minted["persistent_url"]
    body = cite(client, ibip)
    assert body["citations"]["formatted"]["inpe"] == (
        f"ROBLEDO ASENCIO, J. C. {THESIS['title']}. 2020. 189 p. IBI: <{ibip}>. ({rep}-TDI)."
        " Tese (Doutorado em Combustão e Propulsão) - Instituto Nacional de Pesquisas Espaciais (INPE),"
        f" São José dos Campos, 2020. Disponível em: <{url}>."
    )
    assert body["citations"]["formatted"]["inpe_en"].endswith(
        f" Thesis (Doutorado em Combustão e Propulsão) - Instituto Nacional de Pesquisas Espaciais (INPE),"
        f" São José dos Campos, 2020. Available from: <{url}>."
    )
    assert f"<b>{THESIS['title']}</b>" in body["citations"]["formatted_html"]["inpe"]
    bibtex = body["citations"]["bibtex"]
    assert bibtex.startswith("@phdthesis{robledoasencio2020estudo,\n")
    assert f"  ibi = {{{ibip}}},\n" in bibtex and f"  repository = {{{rep}}},\n" in bibtex
    assert f"  url = {{{url}}},\n" in bibtex and "  school = {Instituto Nacional" in bibtex
    assert body["citations"]["ris"].startswith("TY  - THES\r\n")
    assert body["citations"]["csl_json"]["type"] == "thesis"
    assert body["metadata"] == {
        "title": THESIS["title"], "creators": THESIS["creators"], "date": "2020", "language": None,
        "item_type": "doctoral thesis", "publisher": THESIS["publisher"], "place": "São José dos Campos",
        "extent": "189", "degree": "Doutorado em Combustão e Propulsão", "report_number": "TDI",
    }


def test_the_own_archive_writes_the_details_into_its_oai_dc_record(client):
    minted = client.post("/api/v1/mint", json=THESIS).get_json()
    ibip, rep = minted["ibip"], minted["rep"]
    xml = client.get(f"/archive/items/{ibip}/oai_dc.xml").get_data(as_text=True)
    for element in (
        "<dc:type>info:eu-repo/semantics/doctoralThesis</dc:type>",
        "<dc:publisher>São José dos Campos: Instituto Nacional de Pesquisas Espaciais (INPE)</dc:publisher>",
        "<dc:format>189 p.</dc:format>",
        "<dc:description>Tese (Doutorado em Combustão e Propulsão)</dc:description>",
    ):
        assert element in xml
    assert f"<dc:identifier>{rep}-TDI</dc:identifier>" in xml


@pytest.mark.parametrize(
    ("item_type", "bibtex", "ris", "words"),
    [
        ("master's thesis", "@mastersthesis{", "TY  - THES", " Dissertação (Mestrado em Computação Aplicada) - "),
        ("report", "@techreport{", "TY  - RPRT", ". São José dos Campos: INPE, 2009. 39 p. IBI: <"),
        ("conference paper", "@inproceedings{", "TY  - CONF", ". São José dos Campos: INPE, 2009. 39 p. IBI: <"),
        ("article", "@article{", "TY  - JOUR", "Título. São José dos Campos"),
        ("book", "@book{", "TY  - BOOK", "Título. São José dos Campos"),
        ("dataset", "@misc{", "TY  - DATA", "Título. São José dos Campos"),
        ("software", "@misc{", "TY  - COMP", "Título. São José dos Campos"),
        ("other", "@misc{", "TY  - GEN", "Título. São José dos Campos"),
    ],
)
def test_every_kind_minted_through_the_api_reaches_every_format(client, item_type, bibtex, ris, words):
    fields = {
        "title": "Título", "creators": ["Silva, Maria da"], "date": "2009", "item_type": item_type,
        "publisher": "INPE", "place": "São José dos Campos", "extent": "39",
    }
    if item_type == "master's thesis":
        fields.update(publisher="INPE", degree="Doutorado em Computação Aplicada".replace("Doutorado", "Mestrado"))
    minted = client.post("/api/v1/mint", json=fields)
    assert minted.status_code == 201
    body = cite(client, minted.get_json()["ibip"])
    assert body["metadata"]["item_type"] == item_type
    assert body["citations"]["bibtex"].startswith(bibtex)
    assert body["citations"]["ris"].startswith(ris + "\r\n")
    assert body["citations"]["formatted"]["inpe"].startswith("SILVA, M. da. ")
    assert words in body["citations"]["formatted"]["inpe"]


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"item_type": "poem"}, "item_type", "unknown item type 'poem'; one of: `article`, `book`, `chapter`"),
        ({"item_type": "report", "degree": "Doutorado"}, "degree", "a degree belongs to a master's or doctoral thesis"),
        ({"degree": "Doutorado"}, "degree", "a degree belongs to a master's or doctoral thesis"),
        ({"publisher": "x" * 301}, "publisher", "publisher"),
        ({"extent": 39}, "extent", "extent must be text"),
    ],
)
def test_bad_details_are_refused_naming_the_field(client, fields, field, message):
    response = client.post("/api/v1/mint", json=fields)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["field"] == field and message in error["message"]


def test_the_mint_page_takes_the_details_and_shows_the_citations_with_emphasis(client):
    page = client.get("/mint").get_data(as_text=True)
    assert '<option value="doctoral thesis">Doctoral thesis</option>' in page
    response = client.post("/mint", data={**{k: v for k, v in THESIS.items() if k != "creators"},
                                          "creators": THESIS["creators"][0], "count": "1"}, follow_redirects=True)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "ROBLEDO ASENCIO, J. C. <b>Estudo numérico" in html
    assert "Tese (Doutorado em Combustão e Propulsão) - Instituto Nacional" in html
    assert "@phdthesis{" in html and 'data-copy-html="' in html
    wrong = client.post("/mint", data={"title": "T", "item_type": "report", "degree": "Doutorado", "count": "1"})
    assert wrong.status_code == 400
    assert 'id="degree-error"' in wrong.get_data(as_text=True)


def test_the_cli_mints_with_the_details(app, runner):
    result = runner.invoke(args=[
        "ibi", "mint", "--title", "Relatório", "--creator", "Silva, Maria da", "--creator",
        "Leite Filho, Waldemar de Castro", "--date", "2009", "--item-type", "report", "--publisher", "INPE",
        "--place", "São José dos Campos", "--extent", "39", "--report-number", "NTC", "--json",
    ])
    assert result.exit_code == 0, result.output
    ibip = json.loads(result.output)["ibip"]
    with app.app_context():
        from ibiportal.web.context import application

        item = IdentifierStore(application().storage()).find_minted(ibip=ibip)
    assert item.creators == ("Silva, Maria da", "Leite Filho, Waldemar de Castro")
    assert (item.bibliographic.item_type, item.bibliographic.report_number) == ("report", "NTC")
    refused = runner.invoke(args=["ibi", "mint", "--item-type", "poem"])
    assert refused.exit_code != 0 and "unknown item type 'poem'" in refused.output


def test_an_older_database_gets_the_new_columns_by_db_upgrade(tmp_path):
    path = str(tmp_path / "old.sqlite")
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE minted_item (id INTEGER PRIMARY KEY AUTOINCREMENT, rep TEXT NOT NULL UNIQUE,"
        " ibip TEXT NOT NULL UNIQUE, date TEXT NOT NULL, utc TEXT NOT NULL, subsystem TEXT NOT NULL, title TEXT,"
        " target_url TEXT, creators TEXT, item_date TEXT, language TEXT, created_at TEXT NOT NULL)"
    )
    old.execute(
        "INSERT INTO minted_item (rep, ibip, date, utc, subsystem, title, created_at)"
        " VALUES ('a/b/2009/02.16.17.46', 'X/Y', '1', 'u', 's', 'Old', 'now')"
    )
    old.commit()
    old.close()
    upgrade(path)
    storage = Storage(path)
    (item,) = IdentifierStore(storage).minted_items()
    assert item.title == "Old" and item.bibliographic.item_type is None
    columns = {row[1] for row in storage.connection.exec_driver_sql("PRAGMA table_info(minted_item)")}
    assert {"item_type", "publisher", "place", "extent", "degree", "report_number"} <= columns
    storage.close()
