"""The entries of a reference list: broken IBI-like strings kept with their error, modifiers and
file paths kept (``ibiportal.ibi.extract``). The strings are the issue's own examples and
variants of the real references in tests/data/references.txt."""
from __future__ import annotations

import pytest

from ibiportal.ibi.extract import extract

BASE = "http://portal.test/"


@pytest.mark.parametrize("text, entry, message, position", [
    ("Disponível em: <http://urlib.net/8JMKD3MGP8W/ZZZZZZZ>.", "http://urlib.net/8JMKD3MGP8W/ZZZZZZZ", "character 'Z' is not in the IBIp alphabet", 30),
    ("2020. IBI: <8JMKD3MGP8W/ZZZZZZZ>. Tese", "8JMKD3MGP8W/ZZZZZZZ", "character 'Z' is not in the IBIp alphabet", 13),
    ("(sid.inpe.br/mtc-m21d/2022/13.20.15.45-NTC).", "sid.inpe.br/mtc-m21d/2022/13.20.15.45-NTC", "month 13 out of range", 27),
    ("see http://mtc-m21c.sid.inpe.br/col/nothing-here/doc/a.pdf", "http://mtc-m21c.sid.inpe.br/col/nothing-here/doc/a.pdf", "", None),
])
def test_broken_ibi_like_strings_are_entries_with_their_error(text, entry, message, position):
    result = extract(text, base=BASE)
    (found,) = result.found
    assert found.broken and found.text == entry and text[found.start:found.end] == entry
    assert found.line == 1
    assert message in found.error["message"]
    if position is not None:
        assert found.error["position"] == position
    row = found.to_dict()
    assert row["ibi"] is None and row["persistent_url"] is None and row["error"] == found.error
    assert (result.distinct, result.broken) == (0, 1)


def test_a_broken_entry_keeps_its_line_among_good_ones():
    text = "A. IBI: <8JMKD3MGP3W34T/47AF772>.\nB. <http://urlib.net/8JMKD3MGP8W/ZZZZZZZ>\nC. 8JMKD3MGP8W/34PGRBS"
    result = extract(text, base=BASE)
    assert [(found.line, found.broken) for found in result.found] == [(1, False), (2, True), (3, False)]
    assert result.to_dict()["broken"] == 1 and result.distinct == 2


@pytest.mark.parametrize("text", [
    "http://www.inpe.br/noticias/2020", "http://urlib.net/", "AC/DC or TCP/IP", "8JMKD3MGP8W/34PGRBZ-ish",
    "https://example.com/a/b/2020/13.02.03.04",
])
def test_no_entry_for_what_is_not_meant_as_an_ibi(text):
    assert extract(text, base=BASE).found == ()


@pytest.mark.parametrize("text, entry, asks", [
    (r"\url{http://urlib.net/D7N2U8HW/39G4TD2!}", "http://urlib.net/D7N2U8HW/39G4TD2!", "D7N2U8HW/39G4TD2!"),
    ("Wow: http://urlib.net/8JMKD3MGP8W/35MMLL8!. Next", "http://urlib.net/8JMKD3MGP8W/35MMLL8!", "8JMKD3MGP8W/35MMLL8!"),
    ("see http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc).", "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
     "8JMKD3MGP8W/35MMLL8!:(oai_dc)"),
    ("<urlib.net/ibi/8JMKD3MGP8W/34PGRBS??>", "urlib.net/ibi/8JMKD3MGP8W/34PGRBS??", "8JMKD3MGP8W/34PGRBS:"),
    ("<http://urlib.net/8JMKD3MGP8W/35MMLL8:>", "http://urlib.net/8JMKD3MGP8W/35MMLL8:", "8JMKD3MGP8W/35MMLL8:"),
    ("(http://urlib.net/8JMKD3MGP8W/35MMLL8+(pt-BR)).", "http://urlib.net/8JMKD3MGP8W/35MMLL8+(pt-BR)",
     "8JMKD3MGP8W/35MMLL8+(pt-BR)"),
    ("http://urlib.net/8JMKD3MGP8W/35MMLL8/doc/a.pdf?x=1.", "http://urlib.net/8JMKD3MGP8W/35MMLL8/doc/a.pdf?x=1",
     "8JMKD3MGP8W/35MMLL8/doc/a.pdf?x=1"),
])
def test_modifiers_file_paths_and_queries_are_kept(text, entry, asks):
    (found,) = extract(text, base=BASE).found
    assert found.text == entry
    assert found.reading.portal_url == BASE + asks
