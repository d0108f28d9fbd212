"""Citation core: BibTeX, RIS, CSL-JSON and formatted citations, names, dates, oai_dc reading."""
from __future__ import annotations

import json
from datetime import date, datetime, timezone

import pytest

from ibiportal.archive.model import DublinCore, IbiForms, Item, ItemState
from ibiportal.archive.oai_dc import oai_dc_xml
from ibiportal.citation import MAX_OAI_DC_BYTES, STYLE_KEYS, CitationRecord, citations, from_oai_dc
from ibiportal.citation.formats import citation_key, tex_escape
from ibiportal.citation.record import parse_date, parse_name

ACCESSED = date(2026, 11, 22)


def cite(record):
    """Every citation form of ``record``, accessed on a fixed day."""
    return citations(record, ACCESSED)
from ibiportal.errors import ParseError

#: The standard's worked example (file 004, Example 2): 8JMKD3MGP8W/34PGRBS, identified on
#: 2009-02-16 by G. Banon's subsystem ≡ sid.inpe.br/mtc-m18@80/2009/02.16.17.46.
URL = "http://urlib.net/8JMKD3MGP8W/34PGRBS"
EXAMPLE = CitationRecord(
    title="System for generating IBI",
    creators=("Banon, Gerald Jean Francis",),
    date="2009-02-16",
    language="en",
    persistent_url=URL,
    ibi="8JMKD3MGP8W/34PGRBS",
    repository="sid.inpe.br/mtc-m18@80/2009/02.16.17.46",
)


def bare(**fields) -> CitationRecord:
    return CitationRecord(persistent_url=URL, ibi="8JMKD3MGP8W/34PGRBS", **fields)


# --- formatted citations (every style is tested in depth in test_styles.py) -----------------


def test_example_in_every_style():
    formatted = cite(EXAMPLE).formatted
    assert set(formatted) == set(STYLE_KEYS) == {"inpe", "inpe_en", "abnt", "apa", "ieee", "harvard"}
    assert formatted["apa"] == f"Banon, G. J. F. (2009). System for generating IBI. {URL}"
    assert formatted["abnt"] == (
        f"BANON, G. J. F. System for generating IBI. [S. l.: s. n.], 2009. Disponível em: {URL}. Acesso em: 22 nov. 2026."
    )
    assert formatted["ieee"] == f"G. J. F. Banon, “System for generating IBI,” 2009. [Online]. Available: {URL}"
    assert formatted["harvard"] == (
        f"Banon, G.J.F. (2009) System for generating IBI. Available at: {URL} (Accessed: 22 November 2026)."
    )
    assert formatted["inpe"] == (
        "BANON, G. J. F. System for generating IBI. [S. l.: s. n.], 2009. IBI: <8JMKD3MGP8W/34PGRBS>."
        f" (sid.inpe.br/mtc-m18@80/2009/02.16.17.46). Disponível em: <{URL}>."
    )


def test_every_style_carries_the_persistent_url_even_with_no_metadata():
    for text in cite(bare()).formatted.values():
        assert URL in text


# --- names and dates ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "csl"),
    [
        ("Banon, Gerald Jean Francis", {"family": "Banon", "given": "Gerald Jean Francis"}),
        ("Gerald Jean Francis Banon", {"family": "Banon", "given": "Gerald Jean Francis"}),
        ("van der Berg, Jan", {"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"}),
        ("Ludwig van Beethoven", {"family": "Beethoven", "given": "Ludwig", "non-dropping-particle": "van"}),
        ("Gonçalves, João", {"family": "Gonçalves", "given": "João"}),
        ("Silva, Maria da", {"family": "Silva", "given": "Maria", "dropping-particle": "da"}),
        ("de Paula, Eurico R.", {"family": "Paula", "given": "Eurico R.", "dropping-particle": "de"}),
        ("Leite Filho, Waldir de Carvalho", {"family": "Leite Filho", "given": "Waldir de Carvalho"}),
        ("Maria da Silva", {"family": "Silva", "given": "Maria", "dropping-particle": "da"}),
        ("  Okafor ,  Daniel   N. ", {"family": "Okafor", "given": "Daniel N."}),
        ("Research Data Service", {"literal": "Research Data Service"}),
        ("Instituto Nacional de Pesquisas Espaciais", {"literal": "Instituto Nacional de Pesquisas Espaciais"}),
        ("Plato", {"literal": "Plato"}),
        ("Banon,", {"family": "Banon"}),
    ],
)
def test_creators_become_csl_names(text, csl):
    assert parse_name(text).csl() == csl


@pytest.mark.parametrize(
    ("text", "parts"),
    [("2009", [2009]), ("2009-02", [2009, 2]), ("2009-02-16", [2009, 2, 16]), ("2009-02-16T17:46:00Z", [2009, 2, 16])],
)
def test_w3cdtf_dates(text, parts):
    assert parse_date(text).parts() == parts


@pytest.mark.parametrize("text", ["", "16/02/2009", "2009-13", "2009-02-32", "circa 2009", None])
def test_other_dates_are_not_parsed(text):
    assert parse_date(text) is None


def test_unparsed_date_is_kept_as_a_literal():
    record = bare(title="Notes", date="summer 2009")
    assert cite(record).csl_json["issued"] == {"literal": "summer 2009"}
    assert "year = {summer 2009}" in cite(record).bibtex


# --- BibTeX -----------------------------------------------------------------------------------


def test_bibtex_of_the_example():
    assert cite(EXAMPLE).bibtex == (
        "@misc{banon2009system,\n"
        "  author = {Banon, Gerald Jean Francis},\n"
        "  title = {System for generating IBI},\n"
        "  year = {2009},\n"
        "  date = {2009-02-16},\n"
        "  language = {en},\n"
        "  ibi = {8JMKD3MGP8W/34PGRBS},\n"
        "  repository = {sid.inpe.br/mtc-m18@80/2009/02.16.17.46},\n"
        f"  url = {{{URL}}},\n"
        "  note = {IBI: 8JMKD3MGP8W/34PGRBS (sid.inpe.br/mtc-m18@80/2009/02.16.17.46)}\n"
        "}\n"
    )


def test_bibtex_escapes_every_tex_special_and_keeps_utf8():
    record = bare(title="100% {raw} A&B $5 #1 a_b \\x ~ ^ Bragança", creators=("Research & Data Group",))
    entry = cite(record).bibtex
    assert (
        r"title = {100\% \{raw\} A\&B \$5 \#1 a\_b \textbackslash{}x \textasciitilde{} \textasciicircum{} Bragança}"
        in entry
    )
    assert r"author = {{Research \& Data Group}}" in entry
    assert tex_escape("a\nb") == "a b"


def test_bibtex_url_is_verbatim_but_cannot_break_the_braces():
    record = CitationRecord(persistent_url="http://urlib.net/X/Y?a_b=1%20{2}\\", ibi="X/Y")
    assert "url = {http://urlib.net/X/Y?a_b=1%20%7B2%7D%5C}" in cite(record).bibtex


def test_citation_key_is_stable_ascii_and_falls_back_to_the_ibi():
    record = bare(title="Ação 2: estoques", creators=("Gonçalves, João",), date="2015")
    assert citation_key(record) == citation_key(record) == "goncalves2015acao"
    assert citation_key(bare(creators=("Research Data Service",))) == "research"
    assert citation_key(bare()) == "ibi8jmkd3mgp8w34pgrbs"
    assert cite(record).bibtex.startswith("@misc{goncalves2015acao,\n")


# --- RIS --------------------------------------------------------------------------------------


def test_ris_of_the_example():
    assert cite(EXAMPLE).ris == (
        "TY  - GEN\r\n"
        "AU  - Banon, Gerald Jean Francis\r\n"
        "TI  - System for generating IBI\r\n"
        "PY  - 2009\r\n"
        "DA  - 2009/02/16/\r\n"
        "LA  - en\r\n"
        f"UR  - {URL}\r\n"
        "ID  - banon2009system\r\n"
        "N1  - IBI: 8JMKD3MGP8W/34PGRBS (sid.inpe.br/mtc-m18@80/2009/02.16.17.46)\r\n"
        "ER  - \r\n"
    )


def test_ris_values_stay_on_one_line_and_partial_dates_keep_empty_slots():
    record = bare(title="Two\nlines", creators=("van der Berg, Jan",), date="2009-02", description="A\r\nB")
    lines = cite(record).ris.split("\r\n")
    assert "TI  - Two lines" in lines
    assert "AU  - van der Berg, Jan" in lines
    assert "DA  - 2009/02//" in lines
    assert "AB  - A B" in lines


# --- CSL-JSON ---------------------------------------------------------------------------------


def test_csl_json_of_the_example():
    assert cite(EXAMPLE).csl_json == {
        "id": "banon2009system",
        "type": "document",
        "title": "System for generating IBI",
        "author": [{"family": "Banon", "given": "Gerald Jean Francis"}],
        "issued": {"date-parts": [[2009, 2, 16]]},
        "language": "en",
        "URL": URL,
        "note": "IBI: 8JMKD3MGP8W/34PGRBS (sid.inpe.br/mtc-m18@80/2009/02.16.17.46)",
    }


def test_csl_json_invents_nothing_for_missing_fields():
    item = cite(bare()).csl_json
    assert set(item) == {"id", "type", "URL", "note"}
    json.dumps(item)


# --- oai_dc -----------------------------------------------------------------------------------


def demo_record_xml() -> str:
    dc = DublinCore(
        "Carbon stocks of mangrove forests on the Bragança peninsula",
        ("Almeida, Rita C.", "Okafor, Daniel N."),
        ("mangroves",),
        "Plots & transects <48>.",
        "IBI Portal demonstration collection",
        "2015-03-10",
        "Text",
    )
    item = Item(
        IbiForms("ibiportal.test/lab/2015/03.10.14.22", "D7N2U8HW/3J5AC3H"),
        ItemState.ORIGINAL,
        datetime(2015, 3, 10, 14, 22, tzinfo=timezone.utc),
        language="en",
        dc=dc,
    )
    return oai_dc_xml(item)


def test_reads_the_portals_own_oai_dc_records():
    record = from_oai_dc(demo_record_xml().encode("utf-8"))
    assert record.title == "Carbon stocks of mangrove forests on the Bragança peninsula"
    assert record.creators == ("Almeida, Rita C.", "Okafor, Daniel N.")
    assert record.date == "2015-03-10"
    assert record.language == "en"
    assert record.first("description") == "Plots & transects <48>."
    assert record.all("identifier") == (
        "http://urlib.net/ibiportal.test/lab/2015/03.10.14.22",
        "http://urlib.net/D7N2U8HW/3J5AC3H",
        "D7N2U8HW/3J5AC3H",
        "ibiportal.test/lab/2015/03.10.14.22",
    )
    cited = cite(record.citation_record("http://urlib.net/D7N2U8HW/3J5AC3H", "D7N2U8HW/3J5AC3H"))
    assert cited.formatted["apa"] == (
        "Almeida, R. C., & Okafor, D. N. (2015). Carbon stocks of mangrove forests on the Bragança peninsula."
        " IBI Portal demonstration collection. http://urlib.net/D7N2U8HW/3J5AC3H"
    )


def test_reads_a_record_inside_an_oai_pmh_envelope_in_latin_1():
    xml = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>'
        '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><GetRecord><record><metadata>'
        '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"'
        ' xmlns:dc="http://purl.org/dc/elements/1.1/">'
        "<dc:title>  Relatório\n final </dc:title><dc:creator>Banon, Gerald</dc:creator><dc:creator> </dc:creator>"
        "<dc:description><p>nested</p> text</dc:description>"
        "</oai_dc:dc></metadata></record></GetRecord></OAI-PMH>"
    ).encode("latin-1")
    record = from_oai_dc(xml)
    assert record.title == "Relatório final"
    assert record.creators == ("Banon, Gerald",)
    assert record.first("description") == "text"
    assert record.date is None


def test_refuses_a_doctype_so_no_entity_is_expanded():
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
        '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"'
        ' xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>&lol2;</dc:title></oai_dc:dc>'
    )
    with pytest.raises(ParseError, match="document type declaration .*line 1"):
        from_oai_dc(laughs)
    external = '<!DOCTYPE x SYSTEM "file:///etc/passwd"><x/>'
    with pytest.raises(ParseError, match="document type declaration"):
        from_oai_dc(external)


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        ("<oai_dc:dc xmlns:oai_dc='http://www.openarchives.org/OAI/2.0/oai_dc/'>\n<a></b>", r"mismatched tag \(line 2, column 6\)"),
        ("", "no element found"),
        ("not xml", "syntax error"),
        ("<dc xmlns='http://purl.org/dc/elements/1.1/'><title>x</title></dc>", "no oai_dc:dc element"),
    ],
)
def test_malformed_or_foreign_xml_is_a_parse_error(xml, message):
    with pytest.raises(ParseError, match=message):
        from_oai_dc(xml)


def test_refuses_records_over_the_size_bound():
    padding = "<!--" + "x" * MAX_OAI_DC_BYTES + "-->"
    with pytest.raises(ParseError, match="more than the 1000000 allowed"):
        from_oai_dc(padding + demo_record_xml().split("\n", 1)[1])
