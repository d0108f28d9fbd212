"""Modifier grammar (Tables 8.1, 8.2), verbs (Tables 8.4, 8.5) and Appendix B codes."""
from __future__ import annotations

from itertools import product

import pytest

from ibiportal.errors import ParseError
from ibiportal.ibi.languages import COUNTRIES, LANGUAGES, country_name, language_name
from ibiportal.ibi.modifiers import (
    COMPOSITIONS,
    MDF_SHAPE,
    Modifier,
    Verb,
    check_composition,
    scan_modifier,
    scan_verb_list,
    union_verbs,
)

#: Table 8.2, column "Modificador", in the table's order.
TABLE_8_2 = (":", ":+", "!", "!+", "!:", "!+:", "!:+", "!+:+", "+", "+!", "+:", "+!:", "+:+", "+!:+")


def test_grammar_generates_exactly_the_14_compositions_of_table_8_2():
    assert len(TABLE_8_2) == 14
    assert COMPOSITIONS == frozenset(TABLE_8_2)


def test_grammar_has_no_longer_words_and_the_scanner_accepts_exactly_table_8_2():
    words = ["".join(letters) for length in range(7) for letters in product("!+:", repeat=length)]
    by_regex = {word for word in words if MDF_SHAPE.fullmatch(word)}
    accepted = set()
    for word in words:
        try:
            Modifier.parse(word)
        except ParseError:
            continue
        accepted.add(word)
    assert by_regex == accepted == set(TABLE_8_2) | {""}


def test_compositions_are_prefix_closed():
    """The scanner checks each symbol against prefixes only; that is sound because every prefix is a composition."""
    assert all(word[:end] in COMPOSITIONS for word in COMPOSITIONS for end in range(1, len(word)))


def test_vectors_modifiers_valid(vectors):
    for text in vectors["modifiers_valid"]["items"]:
        modifier = Modifier.parse(text)
        assert str(modifier) == text
        assert modifier.shape in COMPOSITIONS


#: Items of the seed vectors' ``modifiers_invalid`` that differ from a valid modifier only in case.
#: Table 8.1 takes ``idioma`` and ``país`` from Table B.1, whose codes are quoted literals, and
#: quoted ABNF literals are case-insensitive (RFC 5234 §2.3): these are read, in Table B.1's spelling.
CASE_ONLY = {"+(PT)": "+(pt)", "+(pt-br)": "+(pt-BR)"}


def test_vectors_modifiers_invalid(vectors):
    for text in vectors["modifiers_invalid"]["items"]:
        if text in CASE_ONLY:
            assert str(Modifier.parse(text)) == CASE_ONLY[text]
            continue
        with pytest.raises(ParseError) as caught:
            Modifier.parse(text)
        assert caught.value.position is not None and 1 <= caught.value.position <= len(text)


@pytest.mark.parametrize(
    ("text", "verbs", "relation"),
    [
        (":", ["GetMetadata"], ".metadata"),
        (":(oai_dc)", ["GetMetadata(oai_dc)"], ".metadata(oai_dc)"),
        ("!", ["GetLastEdition"], ".lastedition"),
        ("+", ["GetTranslation"], ".translation"),
        ("+(pt)", ["GetTranslation(pt)"], ".translation(pt)"),
        ("+(pt-BR)", ["GetTranslation(pt-BR)"], ".translation(pt-BR)"),
        ("!:(oai_dc)", ["GetLastEdition", "GetMetadata(oai_dc)"], ".lastedition.metadata(oai_dc)"),
        ("+(pt-BR)!", ["GetTranslation(pt-BR)", "GetLastEdition"], ".translation(pt-BR).lastedition"),
        ("+(en):", ["GetTranslation(en)", "GetMetadata"], ".translation(en).metadata"),
        (":+(en)", ["GetMetadata", "GetTranslation(en)"], ".metadata.translation(en)"),
        ("+!:+", ["GetTranslation", "GetLastEdition", "GetMetadata", "GetTranslation"], ".translation.lastedition.metadata.translation"),
        ("!+(wa):(oai_dc)+(fr-CA)", ["GetLastEdition", "GetTranslation(wa)", "GetMetadata(oai_dc)", "GetTranslation(fr-CA)"],
         ".lastedition.translation(wa).metadata(oai_dc).translation(fr-CA)"),
        ("", [], ""),
    ],
)
def test_modifier_parse_table(text, verbs, relation):
    modifier = Modifier.parse(text)
    assert [str(verb) for verb in modifier.verbs] == verbs
    assert "".join(verb.relation for verb in modifier.verbs) == relation
    assert str(modifier) == text
    assert Modifier.parse(str(modifier)) == modifier


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("::", 2, "`:` may not follow `:` — metadata is asked once (Table 8.1)"),
        ("!!", 2, "`!` may not follow `!` — the last edition is asked once (Table 8.1)"),
        (":!", 2, "`!` may not follow `:` — the last edition is asked before the metadata (Table 8.1)"),
        ("!:!", 3, "`!` may not follow `!:` — the last edition is asked once (Table 8.1)"),
        ("+:!", 3, "`!` may not follow `+:` — the last edition is asked before the metadata"),
        ("++", 2, "`+` may not follow `+` — a translation is not translated again (Table 8.1)"),
        ("+(pt)+", 6, "`+` may not follow `+(pt)` — a translation is not translated again"),
        ("+!+", 3, "`+` may not follow `+!` — a second translation may only follow `:`"),
        ("!+!", 3, "`!` may not follow `!+` — the last edition is asked once"),
        (":+:", 3, "`:` may not follow `:+` — metadata is asked once"),
        (":++", 3, "a translation is not translated again"),
        ("+(xx)", 3, "`xx` is not a language: languages are lower-case ISO 639-1 codes (Appendix B)"),
        ("+(por)", 3, "`por` is not a language"),
        ("+()", 3, "a language is expected"),
        ("+(pt-XX)", 6, "`XX` is not a country"),
        ("+(pt-)", 6, "a country is expected after `-`"),
        ("+(pt", 2, "`(` is not closed by `)`"),
        (":(marc)", 3, "only `(oai_dc)` (Table 8.1) and URLib's `(BibINPE)` (STANDARD.md §8) are metadata formats"),
        (":()", 3, "only `(oai_dc)` (Table 8.1) and URLib's `(BibINPE)`"),
        ("!(x)", 2, "`!` takes no parameter"),
        ("!x", 2, "`x` is not a modifier: expected `!`, `+` or `:` (Table 8.1)"),
    ],
)
def test_modifier_errors(text, position, message):
    with pytest.raises(ParseError) as caught:
        Modifier.parse(text)
    assert message in caught.value.message
    assert caught.value.position == position


def test_scan_modifier_stops_at_first_other_character_and_reports_given_positions():
    modifier, end = scan_modifier("!:(oai_dc)/reference.bib")
    assert (str(modifier), end) == ("!:(oai_dc)", 10)
    with pytest.raises(ParseError) as caught:
        scan_modifier("x::", 1, [10, 20, 30, 40])
    assert caught.value.position == 30


@pytest.mark.parametrize(
    ("text", "verbs"),
    [
        ("GetLastEdition+GetMetadata(oai_dc)", ["GetLastEdition", "GetMetadata(oai_dc)"]),
        ("GetLastEdition GetMetadata(oai_dc)", ["GetLastEdition", "GetMetadata(oai_dc)"]),
        ("GetTranslation(pt-BR)+GetFileList", ["GetTranslation(pt-BR)", "GetFileList"]),
        ("GetFileList", ["GetFileList"]),
        ("", []),
    ],
)
def test_verb_list_table_8_4(text, verbs):
    assert [str(verb) for verb, _ in scan_verb_list(text)] == verbs


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("GetLastEdition+Foo(x)", 16, "`Foo` is not a verb"),
        ("GetLastEdition++GetMetadata", 16, "a verb is expected"),
        ("+GetMetadata", 1, "a verb is expected"),
        ("GetMetadata+", 13, "a verb is expected"),
        ("GetLastEdition(x)", 15, "`GetLastEdition` takes no parameter"),
        ("GetFileList(x)", 12, "`GetFileList` takes no parameter"),
        ("GetMetadata(marc)", 13, "only `(oai_dc)` (Table 8.1) and URLib's `(BibINPE)`"),
        ("GetMetadata,GetLastEdition", 12, "unexpected `,` after `GetMetadata`"),
        ("!", 1, "`!` is not a verb"),
    ],
)
def test_verb_list_errors(text, position, message):
    with pytest.raises(ParseError) as caught:
        scan_verb_list(text)
    assert message in caught.value.message
    assert caught.value.position == position


def test_verb_values_and_their_spellings():
    verb = Verb.parse("GetTranslation(pt-BR)")
    assert verb == Verb("GetTranslation", "pt", "BR")
    assert (verb.symbol, verb.bare, verb.relation, str(verb)) == ("+(pt-BR)", "+", ".translation(pt-BR)", "GetTranslation(pt-BR)")
    file_list = Verb("GetFileList")
    assert (file_list.symbol, file_list.bare, file_list.relation) == ("", "", "")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "GetThing"}, "is not a verb"),
        ({"name": "GetMetadata", "language": "pt"}, "takes no language"),
        ({"name": "GetTranslation", "format": "oai_dc"}, "takes no format"),
        ({"name": "GetTranslation", "language": "PT"}, "is not a language"),
        ({"name": "GetTranslation", "country": "BR"}, "a country needs a language"),
        ({"name": "GetMetadata", "format": "marc"}, "are metadata formats"),
    ],
)
def test_invalid_verb_values(kwargs, message):
    with pytest.raises(ParseError, match=message):
        Verb(**kwargs)


def test_modifier_value_refuses_file_list_and_bad_order():
    with pytest.raises(ParseError, match="has no modifier symbol"):
        Modifier((Verb("GetFileList"),))
    with pytest.raises(ParseError, match="is not a modifier of Table 8.2"):
        Modifier((Verb("GetMetadata"), Verb("GetLastEdition")))


def test_check_composition_file_list_anywhere_once():
    check_composition(tuple(verb for verb, _ in scan_verb_list("GetFileList+GetLastEdition+GetMetadata")))
    with pytest.raises(ParseError) as caught:
        check_composition(tuple(verb for verb, _ in scan_verb_list("GetFileList+GetMetadata+GetFileList")), [5, 6, 7], "verbs")
    assert (caught.value.message, caught.value.position, caught.value.field) == ("`GetFileList` is asked once", 7, "verbs")


def test_union_without_repetition_keeps_order_and_the_compositions_own_repeats():
    translation, metadata = Verb("GetTranslation"), Verb("GetMetadata")
    assert union_verbs((translation,), (metadata,)) == (translation, metadata)
    assert union_verbs((translation, metadata), (translation, metadata)) == (translation, metadata)
    assert union_verbs((), (translation, metadata, translation)) == (translation, metadata, translation)


def test_appendix_b_lists():
    assert len(LANGUAGES) == 184 and len(COUNTRIES) == 249
    assert all(len(code) == 2 and code.islower() for code in LANGUAGES)
    assert all(len(code) == 2 and code.isupper() for code in COUNTRIES)
    assert {"pt", "en", "bh", "wa"} <= LANGUAGES and {"BR", "PT", "SS", "CW"} <= COUNTRIES
    assert "sh" not in LANGUAGES and "AN" not in COUNTRIES and "XK" not in COUNTRIES


def test_names_with_fallback_to_the_code():
    assert (language_name("pt"), language_name("pt", "pt")) == ("Portuguese", "português")
    assert (country_name("BR"), country_name("BR", "pt")) == ("Brazil", "Brasil")
    assert (language_name("ii"), country_name("AQ", "pt")) == ("ii", "AQ")
