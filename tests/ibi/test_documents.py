"""Text out of uploaded .docx and .odt reference lists (``ibiportal.ibi.documents``). Each document is
written here, with python-docx and odfdo themselves, so the text it holds is in the test; the
references are TATHU's and Reis's thesis's as published (tests/data/references.txt)."""
from __future__ import annotations

import io
import zipfile

import docx
import pytest
from odfdo import Document, Header, Link, Paragraph, Table

from ibiportal.ibi import documents
from ibiportal.errors import ParseError
from ibiportal.ibi.extract import extract

TATHU = "UBA, D. M. et al. TATHU. São José dos Campos: INPE, 2022. IBI: <8JMKD3MGP3W34T/47AF772>."
REIS_LINK = "http://urlib.net/ibi/8JMKD3MGP3W34T/47E2TRB"


def make_docx() -> bytes:
    document = docx.Document()
    document.add_heading("Referências", level=1)
    document.add_paragraph(TATHU)
    paragraph = document.add_paragraph("REIS, M. S. Thesis. Disponível em: ")
    part = document.part
    relation = part.relate_to(REIS_LINK, docx.opc.constants.RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    link = docx.oxml.shared.OxmlElement("w:hyperlink")
    link.set(docx.oxml.shared.qn("r:id"), relation)
    run = docx.oxml.shared.OxmlElement("w:r")
    text = docx.oxml.shared.OxmlElement("w:t")
    text.text = "a tese"
    run.append(text)
    link.append(run)
    paragraph._p.append(link)
    table = document.add_table(rows=1, cols=1)
    table.cell(0, 0).text = "(sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC)"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_odt() -> bytes:
    document = Document("text")
    document.body.append(Header(1, "Referências"))
    document.body.append(Paragraph(TATHU))
    paragraph = Paragraph("REIS, M. S. Thesis. Disponível em: ")
    paragraph.append(Link(REIS_LINK, text="a tese"))
    document.body.append(paragraph)
    table = Table("T", width=1, height=1)
    table.set_value((0, 0), "(sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC)")
    document.body.append(table)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.mark.parametrize("name, make", [("refs.docx", make_docx), ("refs.odt", make_odt)])
def test_word_processor_documents_give_their_references(name, make):
    text = documents.text_of(name, make())
    assert "Referências" in text and TATHU in text
    found = [entry.text for entry in extract(text).found]
    assert found == ["8JMKD3MGP3W34T/47AF772", REIS_LINK, "sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC"]


@pytest.mark.parametrize("name", ["refs.docx", "refs.odt"])
def test_damaged_and_oversized_documents_are_refused_with_a_reason(name, monkeypatch):
    with pytest.raises(ParseError, match="not a ZIP package"):
        documents.text_of(name, b"PK not really")
    empty_zip = io.BytesIO()
    with zipfile.ZipFile(empty_zip, "w") as package:
        package.writestr("something.xml", "<a/>")
    with pytest.raises(ParseError, match="could not be read"):
        documents.text_of(name, empty_zip.getvalue())
    monkeypatch.setattr(documents, "MAX_UNPACKED", 100)
    with pytest.raises(documents.TooLarge, match="unpacks to .* bytes; at most 100 are read"):
        documents.text_of(name, make_docx() if name.endswith("docx") else make_odt())
