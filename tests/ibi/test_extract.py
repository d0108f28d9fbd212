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


# The first reference is TATHU's as published (tests/data/references.txt); the second takes Reis's
# thesis (8JMKD3MGP3W34T/47E2TRB, dated 2022-08-11T11:21) with TATHU's repository name pasted by
# mistake (dated 2022-07-20T15:45).
CONTRADICTING = """UBA, D. M. TATHU. IBI: <8JMKD3MGP3W34T/47AF772>. (sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC).

REIS, M. S. Thesis. 2022. IBI: <8JMKD3MGP3W34T/47E2TRB>.
(sid.inpe.br/mtc-m21d/2022/07.20.15.45-TDI).
"""


def test_a_reference_whose_ibi_and_repository_name_disagree_warns_on_both():
    first, second, ibi, rep = extract(CONTRADICTING, base=BASE).found
    assert first.contradictions == second.contradictions == ()  # TATHU's two forms are one item
    assert ibi.contradictions == (
        'this reference names two items: 8JMKD3MGP3W34T/47E2TRB here and sid.inpe.br/mtc-m21d/2022/07.20.15.45 '
        '("sid.inpe.br/mtc-m21d/2022/07.20.15.45-TDI", line 4); their dates differ (2022-08-11T11:21:00Z and '
        '2022-07-20T15:45:00Z)',)
    assert rep.contradictions == (
        'this reference names two items: sid.inpe.br/mtc-m21d/2022/07.20.15.45 here and 8JMKD3MGP3W34T/47E2TRB '
        '("8JMKD3MGP3W34T/47E2TRB", line 3); their dates differ (2022-07-20T15:45:00Z and 2022-08-11T11:21:00Z)',)
    assert ibi.contradictions[0] in ibi.to_dict()["warnings"] and rep.contradictions[0] in rep.to_dict()["warnings"]


@pytest.mark.parametrize("text", [
    # one IBI a line, no reference marks: each line is its own reference
    "8JMKD3MGP8W/34PGRBS\nsid.inpe.br/mtc-m19/2013/09.04.12.27.57\n",
    # two references, each in one form, told apart by the blank line or by the numbering
    "IBI: <8JMKD3MGP8W/34PGRBS>.\n\n(sid.inpe.br/mtc-m19/2013/09.04.12.27.57).",
    "[1] IBI: <8JMKD3MGP8W/34PGRBS>.\n[2] (sid.inpe.br/mtc-m19/2013/09.04.12.27.57).",
    # the same item in both forms (file 003's pair) in one reference
    "1. A. IBI: <8JMKD3MGP7W/3EPGUE5>. (sid.inpe.br/mtc-m19/2013/09.04.12.27.57).",
])
def test_no_warning_across_references_or_for_one_item(text):
    assert all(found.contradictions == () for found in extract(text, base=BASE).found)


def test_one_date_on_two_known_servers_is_two_items():
    ibi, rep = extract("SILVA, M. IBI: <8JMKD3MGP8W/34PGRBS>. (sid.inpe.br/mtc-m19/2009/02.16.17.46).", base=BASE).found
    assert ibi.contradictions[0].endswith("their servers differ (8JMKD3MGP8W/34PGRBS and 8JMKD3MGP7W/34PGRBS)")
    assert rep.contradictions[0].endswith("their servers differ (8JMKD3MGP7W/34PGRBS and 8JMKD3MGP8W/34PGRBS)")
