"""The recogniser: IBIs as people hold them (STANDARD.md §6), read as the standard's IBIs, with notes.

The table-driven tests run over real strings collected from public texts (tests/ibi/data/wild_ibis.py
keeps each one's source); the malformed neighbours are those strings with one thing wrong, each
with the message and the 1-based position (in the text as given) a person is shown.
"""
from __future__ import annotations

import pytest

from ibiportal.ibi.classify import KIND_UNKNOWN, KIND_URL, classify
from ibiportal.ibi.conversion import convert
from ibiportal.ibi.extract import extract
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.prefixes import equivalent_rep_prefixes
from ibiportal.ibi.recognise import recognise, without_resolver_segment
from ibiportal.ibi.url import parse_persistent_url
from tests.ibi.data.wild_ibis import NOT_RECOGNISED, RECOGNISED
from tests.ibi.data.wild_links import HELD_OUT, LINKS, MIRROR, PASSAGES

PORTAL = "https://portal.example/"


def test_at_least_sixty_real_strings_each_with_its_source():
    assert len(RECOGNISED) + len(NOT_RECOGNISED) >= 60
    assert len({row[0] for row in RECOGNISED}) == len(RECOGNISED), "no string twice"
    assert all(row[-1] and "index id" in row[-1] for row in RECOGNISED + NOT_RECOGNISED)


@pytest.mark.parametrize(("text", "ibi", "form", "notes", "source"), RECOGNISED, ids=[row[0][:60] for row in RECOGNISED])
def test_real_strings_give_the_ibi_meant_with_notes(text, ibi, form, notes, source):
    result = classify(text, base=PORTAL)
    assert result.recognised, (source, result.error)
    assert (result.ibi, result.form) == (ibi, form), source
    said = " | ".join(note.message for note in result.notes)
    for fragment in notes:
        assert fragment in said, (fragment, said)
    # Both persistent URLs name the same request: on this portal and on the resolver it came from.
    path = result.resolver_path
    assert result.portal_url == PORTAL + path[1:]
    assert result.original_url.endswith(path) and result.original_url.startswith("http://")
    assert parse_persistent_url(result.portal_url).ibi == parse_ibi(ibi)
    # Every note points at characters of the text as given.
    for note in result.notes:
        assert 1 <= note.start <= len(text) and note.end <= len(text)


@pytest.mark.parametrize(("text", "message", "position", "source"), NOT_RECOGNISED, ids=[row[0][:60] for row in NOT_RECOGNISED])
def test_real_strings_that_are_no_ibi_say_what_and_where(text, message, position, source):
    result = classify(text)
    assert result.kind == KIND_UNKNOWN, source
    assert message in result.error.message and result.error.position == position


@pytest.mark.parametrize("text", [")", "]", "}", " ) ", "|)", '"'])
def test_a_text_of_nothing_but_leftovers_is_no_ibi_said_so(text):
    """Taking the leftovers off such a text leaves nothing to read (it once indexed an empty string)."""
    result = classify(text)
    assert result.kind == KIND_UNKNOWN and result.error.message


MALFORMED_NEIGHBOURS = [
    ("IBI: <8JMKD3MGP3W34T/47AF77O>.", "character 'O' is not in the IBIp alphabet", 28),
    ("(sid.inpe.br/mtc-m21d/2022/13.20.15.45-NTC).", "month 13 out of range 01-12", 28),
    # Lower-case letters are no report-number suffix (INPE prints them upper-case): the date is wrong.
    ("(sid.inpe.br/mtc-m21d/2022/07.20.15.45-ntc).", "character '-' in the minute is not a digit", 39),
    ("(sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC", "character '(' is not allowed in a host name", 1),
    ("sid.inpe.br/mtc-m21d/2022/07.20.15.4", "minute '4' must have 2 digits", 36),
    ("sid.inpe.br/mtc-m21d/1969/07.20.15.45", "year 1969 is before 1970", 22),
    # A report-number suffix follows a repository name, never an IBIp.
    ("8JMKD3MGP3W34T/47AF772-TDI", "character '-' is not allowed in an IBIp", 23),
    ("http://urlib.net/ibi/8JMKD3MGP3W34T", "missing '/' between IBIp prefix and suffix", 36),
    ("http://urlib.net/ibi/", "no IBI: a persistent URL names an IBI", 22),
    ("http://urlib.net/ibi/ibi/8JMKD3MGP3W34T/47AF772", "character 'i' is not in the IBIp alphabet", 22),
    ("urlib.net/ibi/8JMKD3MGP3W34T/47AF772!!", "the last edition is asked once", 38),
    ("ibi:8JMKD3MGP3W34R/3UGHFGI", "character 'I' is not in the IBIp alphabet", 26),
    ("ftp://urlib.net/ibi/8JMKD3MGP3W34T/47AF772", "`ftp` is not a scheme of persistent URLs", 1),
    ("http://user@urlib.net/ibi/8JMKD3MGP3W34T/47AF772", "user information (`…@`) is not part of a persistent URL", 12),
    ("http://urlib.net/rep/8JMKD3MGP7W/3FB2RJE?ibiurl.language", "`ibiurl.language` is not a pair", 42),
    ("http://urlib.net/rep/8JMKD3MGP3W34R/3T3PTLP?ibiurl.backgroundlanguage=pt-BR&ibiurl.verblist=GetLast", "`GetLast` is not a verb", 93),
    ("urlib.net/8JMKD3MGP3W/3HDPRRS?ibiurl.language=a=b", "`=` in a value must be percent-encoded", 48),
    ("http://sibgrapi.sid.inpe.br/rep/sid.inpe.br/sibgrapi/2018/09.03.21.36?metadatarepository=a%zz", "`%` must begin a `%hh` escape", 91),
    ("http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2008/03.17.15.17.24/doc/../x", "`..` is not allowed as a path segment", 80),
    ("http://mtc-m21b.sid.inpe.br/col/sid.inpe.br/mtc-m21b/2017/08.10.22.44/doc//publicacao.pdf", "may not begin with `//`", 75),
    # Two IBIs in one text: the reference checker (extract) finds both; one box reads one.
    ("IBI: <8JMKD3MGP3W34T/47AF772> (sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC)", "an IBIp has 2 '/'-separated parts", 43),
]


@pytest.mark.parametrize(("text", "message", "position"), MALFORMED_NEIGHBOURS, ids=[row[0][:60] for row in MALFORMED_NEIGHBOURS])
def test_malformed_neighbours_say_what_and_where_in_the_text_as_given(text, message, position):
    result = classify(text)
    assert result.kind == KIND_UNKNOWN
    assert message in result.error.message, result.error.message
    assert result.error.position == position
    assert result.to_dict()["error"]["field"] == "q"


def test_notes_mark_the_characters_removed():
    text = "IBI: <8JMKD3MGP3W34T/47AF772>."
    recognition = recognise(text)
    assert recognition.reading == "8JMKD3MGP3W34T/47AF772"
    assert [text[note.start - 1 : note.end] for note in recognition.notes] == ["IBI: ", "<", "."]
    url = "urlib.net/rep/sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC"
    recognition = recognise(url)
    assert recognition.reading == "http://urlib.net/sid.inpe.br/mtc-m21d/2022/07.20.15.45"
    assert [url[note.start - 1 : note.end] for note in recognition.notes] == ["urlib.net", "rep/", "-NTC"]


def test_report_suffix_is_dropped_only_after_a_minute_or_second():
    for text, reading in [
        ("sid.inpe.br/mtc-m19/2013/09.04.12.27.57-TDI", "sid.inpe.br/mtc-m19/2013/09.04.12.27.57"),
        ("sid.inpe.br/mtc-m18@80/2009/02.16.17.46-NTC", "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"),
        ("sid.inpe.br/mtc-m18@80/2009/02.16.17.46-RPQ", "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"),
        ("http://urlib.net/rep/sid.inpe.br/mtc-m18@80/2009/02.16.17.46-PUD", "http://urlib.net/sid.inpe.br/mtc-m18@80/2009/02.16.17.46"),
    ]:
        result = recognise(text)
        assert result.reading == reading
        assert any("report-number suffix" in note.message for note in result.notes)
    # The issue's own example converts to the standard's item once the suffix is gone.
    assert classify("sid.inpe.br/mtc-m19/2013/09.04.12.27.57-TDI").ibip == "8JMKD3MGP7W/3EPGUE5"


def test_issue_examples_in_both_forms():
    """The forms of the issue's table, for both forms of the standard's IBI (Example 2)."""
    rep, ibip = "sid.inpe.br/mtc-m18@80/2009/02.16.17.46", "8JMKD3MGP8W/34PGRBS"
    for ibi in (rep, ibip):
        for text in (f"http://urlib.net/ibi/{ibi}", f"http://urlib.net/rep/{ibi}", f"urlib.net/{ibi}", f"urlib.net/ibi/{ibi}??",
                     f"ibi:{ibi}", f"IBI: <{ibi}>.", f"<<http://urlib.net/ibi/{ibi}>>.", f"[text](http://urlib.net/rep/{ibi})",
                     f"http://urlib.net/ibi/{ibi[:12]}\n{ibi[12:]}", f"http://mtc-m16c.sid.inpe.br/ibi/{ibi}?ibiurl.backgroundlanguage=pt-BR"):
            result = classify(text, base=PORTAL)
            assert result.recognised and result.ibi == ibi, (text, result.error)
            assert result.ibip == ibip and equivalent_rep_prefixes(parse_ibi(result.rep).prefix, parse_ibi(rep).prefix)
            assert parse_ibi(result.rep).date == parse_ibi(rep).date
            assert result.notes, text
        assert str(classify(f"urlib.net/ibi/{ibi}??").url.modifier) == ":"  # the legacy `??` is metadata


def test_archive_link_offers_the_persistent_url():
    text = "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/CCSDS%20650.0-B-1.pdf"
    result = classify(text, base=PORTAL)
    assert result.kind == KIND_URL and result.ibi == "sid.inpe.br/mtc-m18@80/2009/07.21.14.43"
    assert result.url.filepath == "/CCSDS 650.0-B-1.pdf"
    assert result.resolver == "http://urlib.net/"  # the Archive's host is no resolver: the item's is
    assert result.persistent_url == "http://urlib.net/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/CCSDS%20650.0-B-1.pdf"
    assert result.portal_url == PORTAL + "sid.inpe.br/mtc-m18@80/2009/07.21.14.43/CCSDS%20650.0-B-1.pdf"
    assert result.original_url == "http://urlib.net/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/CCSDS%20650.0-B-1.pdf"
    assert "not a persistent URL" in result.notes[0].message


def test_urlib_pairs_are_kept_verbatim_and_latin1_escapes_are_not_refused():
    text = ("http://mtc-m21c.sid.inpe.br/ibi/sid.inpe.br/mtc-m21c/2019/05.16.15.18?ibiurl.requiredsite=mtc-m21c.sid.inpe.br+806"
            "&searchinputvalue=num%E9rica&ibiurl.verblist=GetMetadata")
    result = classify(text, base=PORTAL)
    assert result.recognised, result.error
    assert result.url.query == (("ibiurl.requiredsite", "mtc-m21c.sid.inpe.br 806"), ("searchinputvalue", "numérica"))
    assert result.portal_url == (PORTAL + "sid.inpe.br/mtc-m21c/2019/05.16.15.18:"
                                 "?ibiurl.requiredsite=mtc-m21c.sid.inpe.br+806&searchinputvalue=num%E9rica")
    assert result.original_url.startswith("http://mtc-m21c.sid.inpe.br/sid.inpe.br/mtc-m21c/")


def test_a_repository_name_is_never_read_as_a_host():
    assert recognise("dpi.inpe.br/banon/1999/01.09.22.1x").reading == "dpi.inpe.br/banon/1999/01.09.22.1x"
    assert classify("sid.inpe.br/mtc-m18@80/2009/02.16.17.46").kind == "rep"
    assert classify("iconet.com.br/banon/2009/09.09.22.01").ibip == convert("LK47B6W/362SFKH").ibip


def test_resolver_segment_is_taken_off_a_request_path():
    assert without_resolver_segment("/ibi/8JMKD3MGP8W/34PGRBS?a=b") == "/8JMKD3MGP8W/34PGRBS?a=b"
    assert without_resolver_segment("/rep/sid.inpe.br/mtc-m18@80/2009/02.16.17.46") == "/sid.inpe.br/mtc-m18@80/2009/02.16.17.46"
    assert without_resolver_segment("/8JMKD3MGP8W/34PGRBS") == "/8JMKD3MGP8W/34PGRBS"
    assert without_resolver_segment("/ibiza/x") == "/ibiza/x"


@pytest.mark.parametrize(("text", "meant", "said", "source"), LINKS, ids=[row[0][:60] for row in LINKS])
def test_published_links_are_read_as_a_person_reads_them(text, meant, said, source):
    """Direct Archive links and CGI links are the item (with the persistent URL in a note), a
    mirror's page is said to be one, markup and text around a link are set aside and noted."""
    result = classify(text)
    words = " | ".join([note.message for note in result.notes] + ([result.error.message] if result.error else []))
    for fragment in said:
        assert fragment in words, (fragment, words, source)
    if meant is None or meant == MIRROR:
        assert not result.recognised, source
        return
    assert result.recognised, (source, result.error)
    assert result.ibi.casefold() == meant.casefold() and result.published == meant, source
    if any("direct link" in note.message for note in result.notes):
        assert any(f"persistent URL is http://urlib.net/{meant}" in note.message for note in result.notes)


@pytest.mark.parametrize(("text", "meant", "source"), PASSAGES, ids=[row[0][:60] for row in PASSAGES])
def test_passages_give_one_match_per_link(text, meant, source):
    found = [item for item in extract(text).found if not item.broken]
    assert tuple(item.reading.published for item in found) == meant, source
    for item in found:  # each match is the link itself: no markup, no second link inside it
        assert "](" not in item.text and not item.text.endswith(("**", ")", '"'))


def test_a_mirror_page_names_the_mirror_and_where():
    text = "http://sibgrapi.sid.inpe.br/col/sid.inpe.br/banon/2001/03.30.15.38.24/doc/mirror.cgi/About"
    result = classify(text)
    assert result.error.message.startswith("a page of the URLib mirror sid.inpe.br/banon/2001/03.30.15.38.24")
    assert result.error.position == text.index("sid.inpe.br/banon") + 1


def test_a_glued_word_gets_a_hint():
    result = classify("Metadadossid.inpe.br/mtc-m16c/2015/11.26.17.42.49")
    assert result.kind == KIND_UNKNOWN and result.error.position == 1
    assert "`Metadados` is a word glued" in result.error.message
    assert "sid.inpe.br/mtc-m16c/2015/11.26.17.42.49 may be meant" in result.error.message


def test_a_date_broken_by_a_space_is_joined_with_a_warning_at_the_space():
    text = "mtc-m16d.sid.inpe.br/archive.cgi/sid.inpe.br/mtc-m19@80/2010/ 01.20.19.25"
    result = classify(text)
    warning = next(note for note in result.notes if note.message.startswith("warning: a space"))
    assert text[warning.start - 1] == " " and warning.start == warning.end
    assert result.url.filepath is None and result.ibi == "sid.inpe.br/mtc-m19@80/2010/01.20.19.25"


def test_a_repository_name_before_1995_is_an_ibi_without_an_ibip_form():
    """STANDARD.md §7: it resolves as a persistent URL; only the conversion is refused, saying why."""
    result = classify("http://urlib.net/sid.inpe.br/mtc-m21d/1994/07.20.15.45")
    assert result.kind == KIND_URL and result.rep == "sid.inpe.br/mtc-m21d/1994/07.20.15.45" and result.ibip is None
    assert any("no IBIp form" in note.message and "before 1995-08-01" in note.message for note in result.notes)


@pytest.mark.parametrize(("text", "meant", "source"), HELD_OUT, ids=[row[0][:60] for row in HELD_OUT])
def test_strings_collected_after_the_code_are_found(text, meant, source):
    found = {item.reading.ibi.casefold() for item in extract(text).found if not item.broken}
    assert found == {meant.casefold()}, source
