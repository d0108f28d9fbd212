"""Reading the sources of ``items import`` and the IBI of each record (archive.import_formats,
archive.import_records), on URLib's own records (tests/data/import, see tests/data/README.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ibiportal.archive.import_formats import read_bib, read_csv, read_oai_page, read_ris
from ibiportal.archive.import_records import NoIbi, SourceRecord, read_ibi
from ibiportal.errors import ParseError
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS

DATA = Path(__file__).resolve().parents[1] / "data" / "import"


def _text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_bibtex_entries_of_urlib_are_read_with_accents_and_ibi_fields():
    koja, sibgrapi, no_ibi = list(read_bib(_text("urlib.bib")))
    assert koja.identifiers == ("8JMKD3MGP3W34R/3SMGTAP", "http://urlib.net/ibi/8JMKD3MGP3W34R/3SMGTAP")
    assert koja.fields == {
        "title": "On methods for in-flight alignment of inertial navigation systems", "creators": ("Koja, Rian",),
        "date": "2019", "language": "en", "publisher": "Instituto Nacional de Pesquisas Espaciais (INPE)",
        "place": "São José dos Campos", "item_type": "master's thesis",
    }
    assert koja.where.startswith("entry 1 Koja:2019:MeInAl")
    assert sibgrapi.identifiers[0] == "8JMKD3MGPEW34M/49SPD9L"
    assert no_ibi.identifiers == ("https://example.org/article",)


def test_ris_records_are_read_with_their_identifiers_in_order():
    tathu, tapajos = list(read_ris(_text("urlib.ris")))
    assert tathu.identifiers == ("sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC", "http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772")
    assert tathu.fields["creators"] == ("Uba, D. M.", "Negri, R. G.", "Enoré, D. P.")
    assert tathu.fields["date"] == "2022" and tathu.fields["item_type"] == "report"
    assert tathu.fields["place"] == "São José dos Campos" and tathu.fields["publisher"] == "INPE"
    assert tapajos.fields["item_type"] == "doctoral thesis"


def test_csv_rows_by_their_header():
    robledo, martinon, no_ibi = list(read_csv(_text("urlib.csv")))
    assert robledo.identifiers == ("ibi:8JMKD3MGP3W34R/3UGHFGH",)
    assert robledo.fields["creators"] == ("Robledo Asencio, J. C.",)
    assert robledo.fields["item_type"] == "doctoral thesis" and robledo.where == "line 2"
    assert no_ibi.identifiers == ("",)


def test_a_csv_without_an_ibi_column_or_with_an_unknown_one_is_refused():
    with pytest.raises(ParseError, match="one of them `ibi`"):
        list(read_csv("title,creators\nA,B\n"))
    with pytest.raises(ParseError, match="names a column `author`"):
        list(read_csv("ibi,author\nx,y\n"))


def test_the_ibi_keeps_its_published_spelling_and_takes_its_other_form_from_a_pair():
    ibi = read_ibi(SourceRecord("r", ("http://urlib.net/ibi/8JMKD3MGP8W/35MME4E",
                                      "sid.inpe.br/mtc-m18@80/2009/07.21.13.23")), KNOWN_PREFIX_PAIRS)
    assert (ibi.rep, ibi.ibip) == ("sid.inpe.br/mtc-m18@80/2009/07.21.13.23", "8JMKD3MGP8W/35MME4E")
    case = read_ibi(SourceRecord("r", ("oai:urlib.net:sid.inpe.br/ePrint@1905/2005/03.28.19.09",)),
                    [("sid.inpe.br/eprint@1905", "8JMKD3MGP5W")])  # a pair made for the test, not a real one
    assert case.published == "sid.inpe.br/ePrint@1905/2005/03.28.19.09"
    assert case.rep == "sid.inpe.br/eprint@1905/2005/03.28.19.09" and case.ibip.startswith("8JMKD3MGP5W/")


def test_a_record_without_an_ibi_or_with_an_unknown_prefix_or_two_items_has_none():
    with pytest.raises(NoIbi, match="no IBI in the record"):
        read_ibi(SourceRecord("r", ("https://example.org/article",)), KNOWN_PREFIX_PAIRS)
    with pytest.raises(NoIbi, match="repository-name prefix of 8JMKD3MGPEW34M/49SPD9L is not known: add its pair"):
        read_ibi(SourceRecord("r", ("8JMKD3MGPEW34M/49SPD9L",)), KNOWN_PREFIX_PAIRS)
    with pytest.raises(NoIbi, match="names two items"):
        read_ibi(SourceRecord("r", ("8JMKD3MGP3W34R/3SMGTAP", "8JMKD3MGP3W34T/47AF772")), KNOWN_PREFIX_PAIRS)


def test_an_oai_pmh_page_its_deleted_header_and_its_token():
    page = read_oai_page("""<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate>
<request verb="ListRecords">http://x/oai</request><ListRecords>
<record><header><identifier>oai:urlib.net:sid.inpe.br/mtc-m18@80/2009/07.21.13.23</identifier>
<datestamp>2009-07-21</datestamp></header><metadata>
<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title>Um título com acentuação</dc:title><dc:creator>Souza, Maria</dc:creator><dc:type>Tese</dc:type>
<dc:identifier>http://urlib.net/ibi/8JMKD3MGP8W/35MME4E</dc:identifier></oai_dc:dc></metadata></record>
<record><header status="deleted"><identifier>oai:urlib.net:8JMKD3MGP8W/35MMLL8</identifier>
<datestamp>2010-01-01</datestamp></header></record>
<resumptionToken completeListSize="5" cursor="0">page-2</resumptionToken></ListRecords></OAI-PMH>""".encode(), "page 1")
    first, deleted = page.records
    assert first.fields["title"] == "Um título com acentuação" and first.fields["item_type"] == "doctoral thesis"
    assert first.identifiers == ("http://urlib.net/ibi/8JMKD3MGP8W/35MME4E",
                                 "oai:urlib.net:sid.inpe.br/mtc-m18@80/2009/07.21.13.23")
    assert deleted.deleted and deleted.identifiers == ("oai:urlib.net:8JMKD3MGP8W/35MMLL8",)
    assert page.token == "page-2"
    assert page.complete_list_size == 5  # §3.5: how many records the whole list has, when the source says


def test_a_page_without_a_size_or_with_a_bad_one_leaves_the_size_unknown():
    page = read_oai_page(b"""<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>
<resumptionToken completeListSize="many">p2</resumptionToken></ListRecords></OAI-PMH>""", "page 1")
    assert page.token == "p2" and page.complete_list_size is None
    last = read_oai_page(b"""<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>
</ListRecords></OAI-PMH>""", "page 1")
    assert last.token is None and last.complete_list_size is None


def test_an_oai_pmh_error_or_what_is_not_oai_pmh_is_refused():
    error = b"""<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><error code="badResumptionToken">expired</error></OAI-PMH>"""
    with pytest.raises(ParseError, match="badResumptionToken: expired"):
        read_oai_page(error, "page 2")
    empty = b"""<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><error code="noRecordsMatch"/></OAI-PMH>"""
    assert read_oai_page(empty, "page 1").records == ()
    with pytest.raises(ParseError, match="not well-formed XML"):
        read_oai_page(b"<html>", "page 1")
