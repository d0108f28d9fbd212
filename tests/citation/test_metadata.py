"""Highwire citation_* tags and schema.org JSON-LD of a record."""
from __future__ import annotations

import json

from ibiportal.citation import CitationRecord, ItemType
from ibiportal.citation.metadata import highwire_tags, json_ld, json_ld_text

THESIS = CitationRecord(
    persistent_url="http://urlib.net/8JMKD3MGP3W34R/3UGHFGH", ibi="8JMKD3MGP3W34R/3UGHFGH",
    repository="sid.inpe.br/mtc-m21c/2019/12.04.15.16", title="Estudo numérico", date="2019-12-04",
    creators=("Robledo Asencio, José Carlos", "Instituto Nacional de Pesquisas Espaciais"), language="pt",
    publisher="INPE", place="São José dos Campos", extent="189", degree="Doutorado em Combustão e Propulsão",
    item_type=ItemType.DOCTORAL_THESIS,
)


def test_highwire_tags_of_a_thesis():
    assert highwire_tags(THESIS) == [
        ("citation_title", "Estudo numérico"),
        ("citation_author", "Robledo Asencio, José Carlos"),
        ("citation_author", "Instituto Nacional de Pesquisas Espaciais"),
        ("citation_publication_date", "2019/12/04"),
        ("citation_dissertation_institution", "INPE"),
        ("citation_language", "pt"),
        ("citation_abstract_html_url", "http://urlib.net/8JMKD3MGP3W34R/3UGHFGH"),
        ("citation_id", "ibi:8JMKD3MGP3W34R/3UGHFGH"),
        ("DC.identifier", "ibi:8JMKD3MGP3W34R/3UGHFGH"),
        ("DC.identifier", "ibi:sid.inpe.br/mtc-m21c/2019/12.04.15.16"),
        ("DC.type", "info:eu-repo/semantics/doctoralThesis"),
    ]


def test_report_tags_name_the_institution_and_number():
    report = CitationRecord(persistent_url="u", ibi="A/B", publisher="INPE", report_number="NTC", item_type=ItemType.REPORT)
    tags = dict(highwire_tags(report))
    assert tags["citation_technical_report_institution"] == "INPE"
    assert tags["citation_technical_report_number"] == "NTC"


def test_json_ld_of_a_thesis():
    assert json_ld(THESIS) == {
        "@context": "https://schema.org",
        "@type": "Thesis",
        "@id": "http://urlib.net/8JMKD3MGP3W34R/3UGHFGH",
        "url": "http://urlib.net/8JMKD3MGP3W34R/3UGHFGH",
        "identifier": [
            {"@type": "PropertyValue", "propertyID": "IBI", "value": "8JMKD3MGP3W34R/3UGHFGH"},
            {"@type": "PropertyValue", "propertyID": "IBI", "value": "sid.inpe.br/mtc-m21c/2019/12.04.15.16"},
        ],
        "name": "Estudo numérico",
        "author": [
            {"@type": "Person", "name": "José Carlos Robledo Asencio", "familyName": "Robledo Asencio", "givenName": "José Carlos"},
            {"@type": "Organization", "name": "Instituto Nacional de Pesquisas Espaciais"},
        ],
        "datePublished": "2019-12-04",
        "publisher": {"@type": "Organization", "name": "INPE", "location": "São José dos Campos"},
        "numberOfPages": 189,
        "inLanguage": "pt",
        "inSupportOf": "Doutorado em Combustão e Propulsão",
    }


def test_every_kind_has_a_schema_org_type():
    for kind in ItemType:
        assert json_ld(CitationRecord(persistent_url="u", ibi="A/B", item_type=kind))["@type"]


def test_json_ld_text_cannot_close_its_script_element():
    record = CitationRecord(persistent_url="u", ibi="A/B", title="</script><script>alert(1)</script> & <!--")
    text = json_ld_text(record)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text)["name"] == record.title
