"""Kinds of item: other Archives' dc:type values, in English and Portuguese, and the details
read back from an oai_dc record."""
from __future__ import annotations

import pytest

from ibiportal.citation import ItemType, from_oai_dc
from ibiportal.citation.oai_dc import split_imprint, written_fields
from ibiportal.citation.types import read_dc_type


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        (("info:eu-repo/semantics/doctoralThesis",), ItemType.DOCTORAL_THESIS),
        (("info:eu-repo/semantics/masterThesis",), ItemType.MASTERS_THESIS),
        (("Text", "info:eu-repo/semantics/conferenceObject"), ItemType.CONFERENCE_PAPER),
        (("Tese",), ItemType.DOCTORAL_THESIS),
        (("Dissertação",), ItemType.MASTERS_THESIS),
        (("dissertacao de mestrado",), ItemType.MASTERS_THESIS),
        (("Dissertation",), ItemType.DOCTORAL_THESIS),
        (("Master's thesis",), ItemType.MASTERS_THESIS),
        (("PhD Thesis",), ItemType.DOCTORAL_THESIS),
        (("Relatório técnico",), ItemType.REPORT),
        (("Technical Report",), ItemType.REPORT),
        (("Trabalho em evento",), ItemType.CONFERENCE_PAPER),
        (("Conference Proceedings",), ItemType.CONFERENCE_PAPER),
        (("Journal Article",), ItemType.ARTICLE),
        (("Artigo de periódico",), ItemType.ARTICLE),
        (("Livro",), ItemType.BOOK),
        (("Book Section",), ItemType.CHAPTER),
        (("Capítulo de livro",), ItemType.CHAPTER),
        (("Dataset",), ItemType.DATASET),
        (("Conjunto de dados",), ItemType.DATASET),
        (("Software",), ItemType.SOFTWARE),
        (("Programa de computador",), ItemType.SOFTWARE),
        (("Text",), None),
        ((), None),
    ],
)
def test_dc_type_in_english_portuguese_and_the_repository_vocabularies(values, kind):
    assert read_dc_type(values) is kind


def test_urlib_thesis_or_dissertation_is_told_apart_by_the_degree():
    assert read_dc_type(("Thesis or Dissertation",), "Mestrado em Sensoriamento Remoto") is ItemType.MASTERS_THESIS
    assert read_dc_type(("Thesis or Dissertation",), "Doutorado em Meteorologia") is ItemType.DOCTORAL_THESIS
    assert read_dc_type(("thesis",)) is ItemType.DOCTORAL_THESIS


def test_every_kind_is_read_back_from_what_is_written():
    for kind in ItemType:
        assert read_dc_type((written_fields(kind).type,)) is kind


RECORD = """<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title>Segmentação multi-níveis</dc:title><dc:creator>Sousa Júnior, Manoel Araújo</dc:creator>
<dc:description>Resumo do trabalho.</dc:description><dc:description>Tese (Doutorado em Computação Aplicada)</dc:description>
<dc:publisher>São José dos Campos: Instituto Nacional de Pesquisas Espaciais</dc:publisher><dc:date>2005</dc:date>
<dc:format>application/pdf</dc:format><dc:format>131 p.</dc:format><dc:identifier>INPE-14466-TDI/1147</dc:identifier>
</oai_dc:dc>"""


def test_a_thesis_record_of_another_archive_without_dc_type():
    record = from_oai_dc(RECORD).citation_record("http://urlib.net/X/Y", "X/Y")
    assert record.item_type is ItemType.DOCTORAL_THESIS  # from its degree note
    assert (record.place, record.publisher) == ("São José dos Campos", "Instituto Nacional de Pesquisas Espaciais")
    assert (record.extent, record.degree, record.report_number) == ("131", "Doutorado em Computação Aplicada", "INPE-14466-TDI/1147")
    assert record.description == "Resumo do trabalho."


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("São José dos Campos: INPE", ("São José dos Campos", "INPE")),
        ("INPE", (None, "INPE")),
        ("Natal:", ("Natal", None)),
        ("IEEE Std 1234: 2009 edition", (None, "IEEE Std 1234: 2009 edition")),
        (None, (None, None)),
    ],
)
def test_imprint_is_split_into_place_and_publisher(text, parts):
    assert split_imprint(text) == parts
