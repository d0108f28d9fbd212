"""URLib's forms as published today (STANDARD.md §6 and §8), read from a corpus of real strings.

``tests/data/published_forms.json`` keeps each string with its source (a stored public page's
address, or the index id of a public file); ``published_forms_fresh.json`` is the sample collected
afterwards to judge it, read by the same tests. Its ``strings`` are read whole, as the home box and
classify read them: the IBI meant with its file path, modifier and ``upn:`` ResolverID, or the
words the refusal must hold (a compact ``upn:`` local part, a host name after a resolver). Its
``passages`` are read by extract: the IBIs found in order, and the broken entries' messages.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ibiportal.errors import ParseError
from ibiportal.ibi.classify import classify, ibi_of, read_url
from ibiportal.ibi.extract import extract
from ibiportal.ibi.identifier import parse_ibi

DATA = Path(__file__).parents[1] / "data"
CORPUS = json.loads((DATA / "published_forms.json").read_text(encoding="utf-8"))
FRESH = json.loads((DATA / "published_forms_fresh.json").read_text(encoding="utf-8"))
STRINGS = CORPUS["strings"] + FRESH["strings"]
PASSAGES = CORPUS["passages"] + FRESH["passages"]


def cases(entries: list[dict]) -> list:
    """Each entry a test; one the portal still reads otherwise is expected to fail, and says why."""
    return [pytest.param(entry, id=entry["text"][:70],
                         marks=[pytest.mark.xfail(strict=True, reason=entry["miss"])] if "miss" in entry else [])
            for entry in entries]


def test_the_corpus_names_a_source_for_every_string():
    assert len(CORPUS["strings"]) + len(CORPUS["passages"]) >= 70 and len(FRESH["strings"]) >= 20
    assert all(entry["source"] for entry in STRINGS + PASSAGES)
    assert len({entry["text"] for entry in STRINGS}) == len(STRINGS), "no string twice"


@pytest.mark.parametrize("entry", cases(STRINGS))
def test_each_published_string_reads_as_meant(entry):
    result = classify(entry["text"])
    said = " | ".join(note.message for note in result.notes)
    if "ibi" in entry:
        assert result.recognised, (entry["source"], result.error)
        assert parse_ibi(result.ibi) == parse_ibi(entry["ibi"])
        assert result.url.filepath == entry.get("filepath")
        assert str(result.url.modifier) == entry.get("modifier", "")
        for fragment in entry.get("notes", ()):
            assert fragment in said, (fragment, said)
    else:
        assert not result.recognised, result.ibi
        assert entry["unknown"] in result.error.message, result.error.message
    assert result.upn_resolver == entry.get("resolver_id")
    if result.recognised:  # nothing of the text around it ends up in the URLs offered
        for leftover in ("|", "[", "]", "<", ">", '"', "\\", "{", "}", "%7C", "%5B", "%3C", "%22"):
            assert leftover not in (result.url.filepath or ""), result.url.filepath
            assert leftover not in result.persistent_url.split("?")[0], result.persistent_url
        assert ")" not in (result.url.filepath or "")


@pytest.mark.parametrize("entry", cases(PASSAGES))
def test_each_published_passage_gives_its_ibis(entry):
    found = extract(entry["text"]).found
    assert [item.reading.ibi for item in found if not item.broken] == entry["ibis"]
    broken = [item.reading.error.message for item in found if item.broken]
    assert len(broken) == len(entry["broken"]), broken
    for message, fragment in zip(broken, entry["broken"]):
        assert fragment in message, message


# -- Defects found against a live portal, each with strings made from the real ones above ----------

LINK = "http://mtc-m21c.sid.inpe.br/col/sid.inpe.br/mtc-m21c/2020/10.02.15.11/doc/publicacao.pdf"
IBIP_URL = "http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772"


@pytest.mark.parametrize("text", [
    f"{LINK})", f"{LINK})|", f"{LINK}) |", f"{LINK}).", f"{LINK}[](", f'{LINK}">PDF</a>', f"{LINK}</a>",
    f"| [PDF]({LINK}) |", f"|[PDF]({LINK})|", f"(see {LINK}).", f"[![badge](https://img.shields.io/b.svg)]({LINK})",
    f"[]({LINK})", f'url = \\"{LINK}\\"");',
])
def test_markdown_and_html_leftovers_stay_out_of_the_url_and_file_path(text):
    result = classify(text)
    assert result.recognised, result.error
    assert result.url.filepath == "/publicacao.pdf"
    assert result.persistent_url == "http://urlib.net/sid.inpe.br/mtc-m21c/2020/10.02.15.11/publicacao.pdf"
    assert any("Markdown, HTML or code" in note.message or "Markdown link" in note.message or "HTML link" in note.message
               or "punctuation" in note.message for note in result.notes), result.notes


@pytest.mark.parametrize("text", [f"{IBIP_URL}).", "8JMKD3MGP3W34T/47AF772).", "see 8JMKD3MGP3W34T/47AF772).",
                                  f"({IBIP_URL}).", "http://urlib.net/en.wikipedia.org/wiki/Foo_(bar)"][:-1])
def test_a_trailing_parenthesis_and_full_stop_are_not_part_of_the_ibi(text):
    result = classify(text)
    assert result.ibi == "8JMKD3MGP3W34T/47AF772" and result.url.filepath is None
    assert [found.reading.ibi for found in extract(text).found] == ["8JMKD3MGP3W34T/47AF772"]


def test_a_bracket_the_link_opened_stays_in_it():
    result = classify("http://urlib.net/8JMKD3MGP3W34T/47AF772/Foo_(bar).pdf")
    assert result.url.filepath == "/Foo_(bar).pdf"


@pytest.mark.parametrize("broken", ["http:\n//", "http:/\n/", "http://\n", "https:\r\n//"])
def test_a_url_broken_by_a_line_break_after_its_scheme_is_read(broken):
    text = f"Available from: {broken}urlib.net/ibi/8JMKD3MGP3W34T/47AF772. Accessed 2024."
    found = extract(text).found
    assert [item.reading.ibi for item in found] == ["8JMKD3MGP3W34T/47AF772"]
    assert classify(f"{broken}urlib.net/ibi/8JMKD3MGP3W34T/47AF772").ibi == "8JMKD3MGP3W34T/47AF772"


def test_a_reference_pasted_over_two_lines_is_read_as_words_not_one_glued_link():
    text = ("UBA, D. M. TATHU - Software para rastreio. INPE, 2022.\n"
            "Disponível em: <http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772>.")
    result = classify(text)
    assert result.ibi == "8JMKD3MGP3W34T/47AF772"
    assert any("line break between words" in note.message for note in result.notes)
    assert not any("URL broken over two lines" in note.message for note in result.notes)


@pytest.mark.parametrize("text", ["https://urlib.net/sid.inpe.br", "http://urlib.net/www.inpe.br/", "urlib.net/sid.inpe.br"])
def test_a_resolver_host_then_a_host_name_is_no_ibi(text):
    assert not extract(f"The repository ({text}) lists theses.").found
    result = classify(text)
    assert not result.recognised and "host name, not an IBI" in result.error.message


def test_a_second_repository_in_the_query_is_not_a_second_ibi():
    link = ("http://sibgrapi.sid.inpe.br/rep/sid.inpe.br/sibgrapi/2013/07.05.14.27?mirror=sid.inpe.br/banon/2001/03.30.15.38.24"
            "&metadatarepository=sid.inpe.br/sibgrapi/2013/07.05.14.27.43&ibiurl.clientinformation.citingitem="
            "sid.inpe.br/sibgrapi/2013/04.05.14.47")
    for text in (link, link.replace("&metadatarepository", " &metadatarepository"), link.replace("?mirror", "\n?mirror")):
        found = extract(text).found
        assert [item.reading.ibi for item in found] == ["sid.inpe.br/sibgrapi/2013/07.05.14.27"], text


@pytest.mark.parametrize(("text", "glue"), [
    ("IBI: <8JMKD3MGP8W/35MML!8>", "!8"), ("see 8JMKD3MGP8W/35MML!8 and more", "!8"),
    ("8JMKD3MGP8W/35MML+x.", "+x"), ("sid.inpe.br/mtc-m18@80/2009/07.21.13.23!x", "!x"),
])
def test_characters_glued_right_after_an_ibi_are_said_not_dropped(text, glue):
    found = extract(text).found
    assert len(found) == 1 and found[0].broken, [item.reading.ibi for item in found]
    assert found[0].text.endswith(glue)
    message = found[0].reading.error.message
    assert f"`{glue}`" in message and "glued" in message


@pytest.mark.parametrize(("text", "ibi", "modifier"), [
    ("see 8JMKD3MGP8W/35MMLL8!:(oai_dc) for its metadata", "8JMKD3MGP8W/35MMLL8", "!:(oai_dc)"),
    ("8JMKD3MGP8W/35MMLL8+(pt).", "8JMKD3MGP8W/35MMLL8", "+(pt)"),
    ("Is it 8JMKD3MGP8W/35MMLL8?", "8JMKD3MGP8W/35MMLL8", ""),
])
def test_a_modifier_right_after_a_bare_ibi_is_read_with_it(text, ibi, modifier):
    found = extract(text).found
    assert [(item.reading.ibi, str(item.reading.url.modifier)) for item in found] == [(ibi, modifier)]


@pytest.mark.parametrize("text", ["URI: <upn:K28A8B:6qtX3pFwXQZGivnK2Y/TLEBM>.",
                                  "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2008/03.17.15.17.24/doc/mirrorget.cgi"])
def test_convert_compose_cite_and_trace_refuse_what_names_no_readable_item_plainly(text):
    """The entry points that take one IBI (``ibi_of``, ``read_url``) give the recogniser's refusal,
    not the parser's complaint about the reading."""
    for read in (lambda: ibi_of(text, "ibi"), lambda: read_url(text, "url")):
        with pytest.raises(ParseError) as caught:
            read()
        assert "cannot read" in caught.value.message or "mirror" in caught.value.message
        assert "alphabet" not in caught.value.message


def test_convert_compose_cite_and_trace_read_a_upn_uri_as_its_ibi():
    assert ibi_of("URI: <upn:S4T6RL:3ERPFQRTBW/34RQDB8>.")[0] == "3ERPFQRTBW/34RQDB8"
    assert str(read_url("http://urlib.net/upn:LNRMAL:/sid.inpe.br/mtc-m17@80/2007/08.10.18.20:(BibINPE)")[0].ibi) == (
        "sid.inpe.br/mtc-m17@80/2007/08.10.18.20")
