"""oai_dc records of items: well-formed, complete, escaped."""
from __future__ import annotations

from datetime import datetime, timezone
from xml.etree import ElementTree

import pytest

from ibiportal.archive.model import DublinCore, IbiForms, Item, ItemState
from ibiportal.archive.oai_dc import DC_NAMESPACE, OAI_DC_NAMESPACE, oai_dc_xml

DC = f"{{{DC_NAMESPACE}}}"
WHEN = datetime(2015, 3, 12, 9, 30, tzinfo=timezone.utc)
FORMS = IbiForms("ibiportal.test/lab/2015/03.10.14.22", "D7N2U8HW/3J5AC3H")


def record_of(dc: DublinCore, language: str | None = "en") -> ElementTree.Element:
    item = Item(FORMS, ItemState.ORIGINAL, WHEN, language=language, dc=dc)
    return ElementTree.fromstring(oai_dc_xml(item, "http://portal.test/resolve").encode("utf-8"))


def test_record_has_the_oai_dc_root_and_every_field():
    record = record_of(
        DublinCore(
            "Carbon stocks", ("Almeida, Rita C.", "Okafor, Daniel N."), ("mangroves",), "Plots.", "Demo", "2015-03-10", "Text"
        )
    )
    assert record.tag == f"{{{OAI_DC_NAMESPACE}}}dc"
    assert [child.tag.removeprefix(DC) for child in record] == [
        "title", "creator", "creator", "subject", "description", "publisher", "date", "type",
        "identifier", "identifier", "identifier", "identifier", "language",
    ]
    assert [element.text for element in record.iter(f"{DC}identifier")] == [  # persistent URLs, IBIp, repository name
        "http://portal.test/resolve/ibiportal.test/lab/2015/03.10.14.22",
        "http://portal.test/resolve/D7N2U8HW/3J5AC3H",
        "D7N2U8HW/3J5AC3H",
        "ibiportal.test/lab/2015/03.10.14.22",
    ]
    assert record.findtext(f"{DC}creator") == "Almeida, Rita C."
    assert record.findtext(f"{DC}language") == "en"


def test_optional_fields_are_left_out():
    record = record_of(DublinCore("Only a title"), language=None)
    assert [child.tag.removeprefix(DC) for child in record] == ["title", *["identifier"] * 4]


@pytest.mark.parametrize(
    "title",
    [
        '</dc:title><dc:rights>all yours</dc:rights><dc:title>',
        "Tom & Jerry <script>alert('x')</script> \"quoted\"",
        "]]> <!-- --> <?pi?> &amp; &#0;",
        "Relatório Final — ação ✓",
    ],
)
def test_hostile_titles_are_escaped(title):
    record = record_of(DublinCore(title))
    assert record.findtext(f"{DC}title") == title
    assert record.find(f"{DC}rights") is None


def test_characters_xml_cannot_carry_are_replaced():
    record = record_of(DublinCore("bell\x07 null\x00 escape\x1b tab\tok"))
    assert record.findtext(f"{DC}title") == "bell\ufffd null\ufffd escape\ufffd tab\tok"


def test_item_without_descriptive_metadata_has_no_record():
    with pytest.raises(ValueError, match="no descriptive metadata"):
        oai_dc_xml(Item(FORMS, ItemState.ORIGINAL, WHEN))
