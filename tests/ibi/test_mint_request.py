"""A mint request read once: every field's error at once, in the form's order, and the IBIs it
links to kept as parsed values."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ibiportal.errors import FieldErrors, ParseError
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.minted import Bibliographic
from ibiportal.ibi import clock, mint_request, minted, subsystem
from ibiportal.ibi.mint_request import MintRequest, parse_mint, parse_target_url

EARLIER = "8JMKD3MGP3W34R/3UGHFGH"


def test_every_field_at_fault_is_named_at_once_in_the_order_of_the_form():
    with pytest.raises(FieldErrors) as info:
        MintRequest.parse({"title": "bad\x07bell", "target_url": "ftp://x", "date": "2024-02-30", "language": "english",
                           "previous_edition": "not an IBI", "item_type": "poem", "extent": "x" * 51})
    errors = info.value.errors
    assert [error.field for error in errors] == ["title", "target_url", "date", "language", "previous_edition",
                                                 "item_type", "extent"]
    assert (info.value.field, info.value.position) == ("title", 4)  # the error reads as its first one
    assert errors[0].position == 4 and errors[-1].position == 51
    assert info.value.to_dict()["errors"][2]["field"] == "date"


def test_a_rule_between_two_fields_is_said_only_when_both_were_read():
    with pytest.raises(FieldErrors) as info:
        MintRequest.parse({"translation_of": EARLIER, "degree": "Doutorado", "item_type": "report"})
    assert [error.field for error in info.value.errors] == ["language", "degree"]
    with pytest.raises(FieldErrors) as info:  # a bad language is said once, not also as missing
        MintRequest.parse({"translation_of": EARLIER, "language": "english"})
    assert [error.field for error in info.value.errors] == ["language"]
    with pytest.raises(FieldErrors) as info:  # a bad item type is said, not a degree that does not fit it
        MintRequest.parse({"degree": "Doutorado", "item_type": "poem"})
    assert [error.field for error in info.value.errors] == ["item_type"]


def test_linked_ibis_stay_parsed_values():
    request = MintRequest.parse({"previous_edition": f" {EARLIER} ", "translation_of": EARLIER.lower(), "language": "pt"})
    assert request.previous_edition == parse_ibi(EARLIER)
    assert request.translation_of == parse_ibi(EARLIER)
    assert not isinstance(request.previous_edition, str)


def test_a_change_reads_only_the_fields_it_gives_and_keeps_the_others():
    held = MintRequest(title="Relatório", language="pt", bibliographic=Bibliographic(item_type="doctoral thesis",
                                                                                     degree="Doutorado"))
    changed = held.with_fields({"title": " Novo ", "extent": "39"})
    assert (changed.title, changed.language, changed.bibliographic.degree, changed.bibliographic.extent) == \
        ("Novo", "pt", "Doutorado", "39")
    with pytest.raises(FieldErrors) as info:  # a translation kept whose language is cleared
        held.with_fields({"language": None}, translated=True)
    assert [error.field for error in info.value.errors] == ["language"]
    with pytest.raises(FieldErrors) as info:  # a degree kept when the kind of item changes
        held.with_fields({"item_type": "report"})
    assert [error.field for error in info.value.errors] == ["degree"]


def test_the_count_and_the_fields_are_refused_together():
    with pytest.raises(FieldErrors) as info:
        parse_mint({"count": "0", "title": 7, "language": "xx"})
    assert [error.field for error in info.value.errors] == ["count", "title", "language"]
    assert parse_mint({"count": "3", "title": "t"}) == (3, MintRequest(title="t"))


def test_a_target_url_alone_is_read_as_a_mint_request_reads_it():
    assert parse_target_url(" https://example.org/x ") == "https://example.org/x"
    assert parse_target_url("") is None
    with pytest.raises(ParseError) as info:
        parse_target_url("https://example.org/a b")
    assert (info.value.field, info.value.position) == ("target_url", 22)
    assert info.value.errors == (info.value,)



@pytest.mark.parametrize("module", [mint_request, subsystem, minted, clock])
def test_the_core_of_minting_is_pure(module):
    """The request, the subsystem, the minted values and the clock import neither Flask, SQL,
    storage nor the application layer."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {name for name in imported if name.split(".")[0] in ("flask", "sqlalchemy")
                or name.startswith(("ibiportal.storage", "ibiportal.application", "ibiportal.web"))}
