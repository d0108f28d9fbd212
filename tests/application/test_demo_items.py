"""The own Archive's demo items: seeded once, on a demo portal only, and each part works."""
from __future__ import annotations

import io

import pypdf
import pytest

from ibiportal import create_app
from ibiportal.application.demo_items import demo_pdf
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.web.context import application

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


@pytest.fixture
def app(new_database):
    return create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "GRANULARITY": "0.001"})


def test_a_new_demo_portal_gets_an_item_with_a_file_translations_and_a_second_edition(app, client, runner):
    result = runner.invoke(args=["demo-archive", "seed"])
    assert result.exit_code == 0 and "Demo items minted" in result.output, result.output
    items = client.get("/api/v1/items/" + result.output.split("Demo items minted: ")[1].split(" ")[0]).get_json()
    original = items["ibip"]
    assert [file["path"] for file in items["files"]] == ["report.pdf"]
    assert items["relations"]["next_edition"] and items["relations"]["translations"][0]["language"] == "pt"
    pdf = client.get(client.get(f"/{original}/report.pdf", environ_base=CLIENT).headers["Location"].replace("http://localhost", ""))
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    assert "Archive in a box" in pypdf.PdfReader(io.BytesIO(pdf.data)).pages[0].extract_text()
    for modifier in (":", ":+", "!", "!+(pt)", "!:", "!+(pt):", "!:+", "!+(pt):+", "+(pt)", "+(pt)!", "+(pt):",
                     "+(pt)!:", "+(pt):+", "+(pt)!:+"):  # Table 8.2
        assert client.get(f"/{original}{modifier}", environ_base=CLIENT).status_code == 302, modifier
    again = runner.invoke(args=["demo-archive", "seed"])
    assert again.exit_code == 0 and "minted already" in again.output


def test_a_real_subsystem_never_gets_demo_items(new_database):
    real = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test",
                       "MINT_HOST": "mtc-m18.sid.inpe.br", "MINT_IP": "150.163.34.243"})
    result = real.test_cli_runner().invoke(args=["demo-archive", "seed"])
    assert result.exit_code == 0 and "real subsystem" in result.output
    with real.app_context():
        assert IdentifierStore(application().storage()).minted_items() == []


def test_the_demo_file_is_a_pdf_any_reader_opens():
    text = pypdf.PdfReader(io.BytesIO(demo_pdf("A (title) with \\ and ç", "x/y/2026/01.01.00.00"))).pages[0].extract_text()
    assert "A (title) with \\ and ç" in text and "x/y/2026/01.01.00.00" in text
