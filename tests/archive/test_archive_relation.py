"""Relations of Table 9.5 and how a verb list asks for one (Example 9.3)."""
from __future__ import annotations

import pytest

from ibiportal.archive.relation import Element, Kind, Relation
from ibiportal.errors import ParseError
from ibiportal.ibi.modifiers import scan_verb_list

def read_verbs(text: str):
    """The verbs of a verb list as the resolver reads ``ibiurl.verblist`` (Table 8.4)."""
    return tuple(verb for verb, _ in scan_verb_list(text))


EXAMPLE_9_5 = (
    "", ".lastedition", ".translation", ".translation(pt-BR)", ".metadata", ".metadata(oai_dc)",
    ".lastedition.translation", ".lastedition.translation(pt-BR)", ".lastedition.metadata",
    ".lastedition.metadata(oai_dc)", ".translation(pt-BR).lastedition", ".translation(en).metadata",
    ".metadata.translation(en)",
)


@pytest.mark.parametrize("text", EXAMPLE_9_5)
def test_example_9_5_relations_parse_and_print_back(text):
    assert str(Relation.parse(text)) == text


def test_parsed_elements():
    assert Relation.parse(".translation(pt-BR).lastedition").elements == (
        Element(Kind.TRANSLATION, "pt-BR"),
        Element(Kind.LASTEDITION),
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (".metadata.lastedition", "Table 9.5"),
        (".lastedition.lastedition", "Table 9.5"),
        (".translation.translation", "Table 9.5"),
        (".metadata.metadata", "Table 9.5"),
        (".lastedition.translation.lastedition", "Table 9.5"),
        (".translation(PT)", "not a language"),
        (".translation(pt-br)", "not a country"),
        (".metadata(marc)", "neither `oai_dc` nor `BibINPE`"),
        (".lastedition(pt)", "takes no parameter"),
        ("lastedition", "expected .lastedition"),
        (".metadata ", "expected .lastedition"),
    ],
)
def test_text_outside_table_9_5_is_rejected(text, problem):
    with pytest.raises(ParseError, match=problem):
        Relation.parse(text)


@pytest.mark.parametrize(
    ("verbs", "relation"),
    [
        ("", ""),
        ("GetFileList", ""),
        ("GetLastEdition+GetMetadata(oai_dc)", ".lastedition.metadata(oai_dc)"),
        ("GetLastEdition GetFileList GetMetadata", ".lastedition.metadata"),
        ("GetTranslation(pt-BR)+GetLastEdition", ".translation(pt-BR).lastedition"),
    ],
)
def test_verbs_ask_for_a_relation(verbs, relation):
    assert str(Relation.from_verbs(read_verbs(verbs))) == relation


def test_bare_translation_is_answered_by_every_translation():
    wanted = Relation.from_verbs(read_verbs("GetTranslation"))
    assert Relation.parse(".translation(en)").answers(wanted)
    assert Relation.parse(".translation").answers(wanted)
    assert not Relation.parse(".metadata.translation").answers(wanted)
    assert not Relation.parse("").answers(wanted)


def test_translation_with_a_language_is_answered_by_that_language_only():
    wanted = Relation.from_verbs(read_verbs("GetTranslation(pt)"))
    assert Relation.parse(".translation(pt)").answers(wanted)
    assert not Relation.parse(".translation(pt-BR)").answers(wanted)
    assert not Relation.parse(".translation").answers(wanted)


def test_a_relation_hashes_and_pickles_as_its_elements():
    import pickle

    relation = Relation.parse(".lastedition.translation(pt).metadata(oai_dc)")
    same = Relation.parse(".lastedition.translation(pt).metadata(oai_dc)")
    assert relation == same and hash(relation) == hash(same) and {relation: 1}[same] == 1
    assert str(relation) == ".lastedition.translation(pt).metadata(oai_dc)" == relation.text
    assert pickle.loads(pickle.dumps(relation)) == relation  # the hash is worked out again, not carried
    assert hash(Relation()) == hash(Relation(())) and str(Relation()) == ""
