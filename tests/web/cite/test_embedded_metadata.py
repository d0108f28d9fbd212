"""citation_* tags and JSON-LD on the Cite page, the Archives' item pages and the home page."""
from __future__ import annotations

import json
import re

THESIS = "D7N2U8HW/3UGHFGH"  # demo Archive "library"


def head_metadata(html: str) -> tuple[list[tuple[str, str]], dict | None]:
    head = html.split("</head>")[0]
    tags = re.findall(r'<meta name="((?:citation_|DC\.)[\w.]+)" content="([^"]*)">', head)
    found = re.search(r'<script type="application/ld\+json">(.*?)</script>', head, re.S)
    return tags, json.loads(found.group(1)) if found else None


def test_the_cite_page_embeds_the_citation(client):
    tags, data = head_metadata(client.get("/cite", query_string={"ibi": THESIS}).get_data(as_text=True))
    assert ("citation_author", "Silva, Maria da") in tags
    assert ("citation_dissertation_institution", "Instituto Nacional de Pesquisas Espaciais (INPE)") in tags
    assert ("citation_abstract_html_url", f"http://localhost/{THESIS}") in tags
    assert ("DC.identifier", f"ibi:{THESIS}") in tags
    assert data["@type"] == "Thesis" and data["@id"] == f"http://localhost/{THESIS}"
    assert data["identifier"][0]["value"] == THESIS


def test_an_own_item_page_embeds_its_citation(client):
    minted = client.post("/api/v1/mint", json={
        "title": "Relatório", "creators": ["Silva, Maria da"], "item_type": "report", "report_number": "NTC",
        "publisher": "INPE", "date": "2009",
    }).get_json()
    html = client.get(f"/archive/items/{minted['ibip']}").get_data(as_text=True)
    tags, data = head_metadata(html)
    assert ("citation_title", "Relatório") in tags and ("citation_technical_report_number", "NTC") in tags
    assert data["@type"] == "Report" and data["url"] == minted["persistent_url"]
    assert {"@type": "PropertyValue", "propertyID": "IBI", "value": minted["rep"]} in data["identifier"]
    assert f'<link rel="cite-as" href="{minted["persistent_url"]}">' in html


def test_the_home_pages_result_for_an_ibi_held_here_embeds_its_citation(client):
    tags, data = head_metadata(client.get("/", query_string={"q": f"http://urlib.net/ibi/{THESIS}"}).get_data(as_text=True))
    assert ("citation_title", "Segmentação hierárquica de imagens de radar: um estudo na Amazônia") in tags
    assert data["@type"] == "Thesis"
    # An IBI no Archive here holds: the home page says what it is, and embeds nothing.
    tags, data = head_metadata(client.get("/", query_string={"q": "8JMKD3MGP8W/34PGRBS"}).get_data(as_text=True))
    assert tags == [] and data is None
    tags, data = head_metadata(client.get("/").get_data(as_text=True))
    assert tags == [] and data is None
