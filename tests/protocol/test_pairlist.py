"""Pair lists (file 003, §6.2, Table 6.2): Example 6.2, the status answers, malformed bodies."""
from __future__ import annotations

import pytest

from ibiportal.errors import ParseError
from ibiportal.protocol.status import carries_notice
from ibiportal.resolver.reading import ibi_forms
from ibiportal.protocol import (
    ACKNOWLEDGMENT_NOTICE,
    CONFIRMATION,
    EXCLUDED,
    INCLUDED_CONFIRMED,
    INCLUDED_UNCONFIRMED,
    Pair,
    PairList,
    UnreadableAnswer,
    included,
    parse_pair_list,
    read_answer,
    refused,
)

URL_6_2 = "http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/Relat%f3rio%20Final.pdf"


def test_example_6_2_parses(vectors):
    answer = parse_pair_list(vectors["pair_list_example_6_2"])
    assert answer.names() == (
        "archiveaddress", "contenttype", "ibi", "ibi.archiveservice", "ibi.platformsoftware",
        "state", "timestamp", "url", "urlkey",
    )
    assert answer.get("archiveaddress") == "mtc-m16d.sid.inpe.br"
    assert answer.get("ibi") == "rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 ibip 8JMKD3MGP7W/3EPGUE5"
    assert answer.get("url") == URL_6_2
    assert answer.text("url").endswith("/doc/Relatório Final.pdf")
    assert answer.get("urlkey") == "1426203276-5985125171467764"
    assert answer.get("missing") is None and answer.text("missing", "-") == "-"
    assert answer.to_dict()["state"] == "Original"
    assert list(answer)[1] == ("contenttype", "Data")


def test_example_6_2_serializes_byte_for_byte(vectors):
    text = vectors["pair_list_example_6_2"]
    answer = PairList(
        [
            Pair("archiveaddress", "mtc-m16d.sid.inpe.br"),
            Pair("contenttype", "Data"),
            Pair("ibi", "rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 ibip 8JMKD3MGP7W/3EPGUE5"),
            Pair("ibi.archiveservice", "rep sid.inpe.br/mtc-m19@80/2009/08.21.17.02"),
            Pair("ibi.platformsoftware", "rep dpi.inpe.br/banon/1998/08.02.08.56"),
            Pair("state", "Original"),
            Pair("timestamp", "2013-10-04T14:32:14Z"),
            Pair("url", URL_6_2),
            Pair("urlkey", "1426203276-5985125171467764"),
        ]
    )
    # The standard prints one pair per line; Table 6.2 puts nothing after the last pair.
    assert answer.serialize() == text.rstrip("\n")
    assert answer.serialize().encode("ascii") == text.rstrip("\n").encode("ascii")
    assert parse_pair_list(text) == answer
    assert parse_pair_list(text.encode("ascii")) == answer


def test_example_6_2_crlf_and_space_forms(vectors):
    answer = parse_pair_list(vectors["pair_list_example_6_2"])
    crlf = answer.serialize("\r\n")
    assert crlf == vectors["pair_list_example_6_2"].rstrip("\n").replace("\n", "\r\n")
    one_line = answer.serialize(" ")
    assert one_line.startswith("archiveaddress mtc-m16d.sid.inpe.br contenttype Data ibi {rep ")
    assert "\n" not in one_line and not one_line.endswith(" ")
    assert parse_pair_list(crlf) == parse_pair_list(one_line) == answer
    with pytest.raises(ValueError, match="separator"):
        answer.serialize("\t")  # type: ignore[arg-type]


@pytest.mark.parametrize("separator", ["\n", "\r\n", " "])
def test_nothing_follows_the_last_pair(separator):
    """Table 6.2: ``lista-de-pares = par *(espaço par)`` – separators between pairs, none after."""
    answer = PairList.from_pairs([("confirmation", "yes")])
    assert answer.serialize(separator) == "confirmation yes"
    two = PairList.from_pairs([("a", "1"), ("b", "2 3")])
    assert two.serialize(separator) == f"a 1{separator}b {{2 3}}"
    assert PairList().serialize(separator) == ""


def test_reading_still_accepts_a_line_break_after_the_last_pair():
    assert parse_pair_list("confirmation yes\r\n") == parse_pair_list("confirmation yes\n") == PairList.from_pairs(
        [("confirmation", "yes")])


def test_ibi_forms_in_a_braced_value(vectors):
    answer = parse_pair_list(vectors["pair_list_example_6_2"])
    assert ibi_forms(answer.get("ibi")) == ("sid.inpe.br/mtc-m19/2013/09.04.12.27.57", "8JMKD3MGP7W/3EPGUE5")
    assert ibi_forms(answer.get("ibi.archiveservice")) == ("sid.inpe.br/mtc-m19@80/2009/08.21.17.02",)


def test_empty_value_and_empty_answer():
    assert parse_pair_list("") == PairList() == parse_pair_list(b"") == parse_pair_list("\r\n \n")
    assert not parse_pair_list("")
    answer = parse_pair_list("ibi.platformsoftware {}")
    assert answer.get("ibi.platformsoftware") == ""
    assert answer.serialize(" ") == "ibi.platformsoftware {}"
    assert read_answer(b"") == PairList()


def test_table_6_2_example_and_lenient_separators():
    assert list(parse_pair_list("a1 {a2 a3} a4 a5")) == [("a1", "a2 a3"), ("a4", "a5")]
    assert list(parse_pair_list("  a1   b\r\n\r\n\na4 {x  y}\n")) == [("a1", "b"), ("a4", "x  y")]


def test_duplicates_are_kept_in_order():
    answer = parse_pair_list("url a url b state Copy")
    assert answer.get("url") == "a" and [pair.value for pair in answer.pairs if pair.name == "url"] == ["a", "b"]
    assert answer.to_dict() == {"url": "a", "state": "Copy"}
    assert "url" in answer and "ibi" not in answer and len(answer) == 3


def test_several_pairs_on_one_line_read_as_one_pair_per_line():
    """Table 6.2's espaço is SP or CRLF, and JUNTAR joins pairs with a space (Example 9.7): an
    answer on one line is the same pair list as one pair per line, braced values whole."""
    one_line = "ibi {rep sid.inpe.br/mtc-m18/2009/02.16.17.46 ibip 8JMKD3MGP8W/34PGRBS} state Original url http://e.example/f"
    per_line = one_line.replace("} state", "}\r\nstate").replace(" url", "\r\nurl")
    assert parse_pair_list(one_line) == parse_pair_list(per_line)
    assert parse_pair_list(one_line).names() == ("ibi", "state", "url")
    assert ibi_forms(parse_pair_list(one_line).get("ibi"))[1] == "8JMKD3MGP8W/34PGRBS"


def test_positions_are_kept_but_not_compared():
    answer = parse_pair_list("a b\ncc {d e}")
    assert [pair.position for pair in answer.pairs] == [3, 9]
    assert answer == PairList([Pair("a", "b"), Pair("cc", "d e")])


def test_text_values_are_escaped_and_decoded():
    pair = Pair.from_text("title", "Relatório Final {v2} 100%")
    assert pair.value == "Relat%f3rio Final %7bv2%7d 100%25"
    assert pair.serialize() == "title {Relat%f3rio Final %7bv2%7d 100%25}"
    assert pair.text == "Relatório Final {v2} 100%"
    assert Pair.from_text("a", " x  y ").value == "%20x%20%20y%20"
    assert Pair.from_text("a", "x y").value == "x y"
    assert Pair.from_text("a", "tab\there").value == "tab%09here"
    assert Pair.from_text("price", "10 €").value == "10 %e2%82%ac"  # UTF-8 beyond ISO-8859-1


def test_a_lone_percent_is_an_ordinary_character():
    assert parse_pair_list("a 100%").text("a") == "100%"
    assert parse_pair_list("a %zz%4").text("a") == "%zz%4"
    assert parse_pair_list("a %41%42").text("a") == "AB"


def test_status_messages(vectors):
    status = vectors["status_messages"]
    assert INCLUDED_CONFIRMED.serialize(" ") == status["included_confirmed"]
    assert INCLUDED_UNCONFIRMED.serialize(" ") == status["included_unconfirmed"]
    assert EXCLUDED.serialize(" ") == status["excluded"]
    assert CONFIRMATION.serialize(" ") == status["confirmation"]
    assert ACKNOWLEDGMENT_NOTICE.serialize(" ") == status["ack_notice"]
    assert included(True) is INCLUDED_CONFIRMED and included(False) is INCLUDED_UNCONFIRMED
    for key in ("included_confirmed", "included_unconfirmed", "excluded", "confirmation", "ack_notice"):
        assert parse_pair_list(status[key]).serialize(" ") == status[key]
    assert ACKNOWLEDGMENT_NOTICE.text("notice") == "acknowledgment received"


def test_refusal():
    assert refused("wrong registration key").serialize(" ") == (
        "status.archive refused status.reason {wrong registration key}"
    )
    assert refused("endereço privado").serialize(" ") == "status.archive refused status.reason {endere%e7o privado}"
    with pytest.raises(ValueError, match="reason"):
        refused("")


def test_pair_constructor_validates():
    with pytest.raises(ParseError, match="cannot be empty"):
        Pair("", "x")
    with pytest.raises(ParseError) as caught:
        Pair("na me", "x")
    assert caught.value.position == 3
    with pytest.raises(ParseError) as caught:
        Pair("url", "http://x/ó")
    assert caught.value.position == 10 and caught.value.field == "url"
    assert "Pair.from_text" in caught.value.message


MALFORMED = [
    # (body, position, words the message must contain)
    ("a {b c", 3, "unbalanced '{': no '}' closes it"),
    ("a b}", 4, "unbalanced '}': no '{' is open"),
    ("a }", 3, "unbalanced '}'"),
    ("}", 1, "unbalanced '}'"),
    ("a {b {c} d}", 6, "nested '{' inside the value opened at character 3"),
    ("name", 1, "name 'name' has no value"),
    ("a b name", 5, "name 'name' has no value"),
    ("a b\nname\nc d", 5, "name 'name' has no value"),
    ("a   \n", 1, "name 'a' has no value"),
    ("{a} b", 1, "a name cannot be braced"),
    ("a{b c}", 2, "'{' inside name 'a'"),
    ("a b{c}", 4, "'{' inside the value of 'a'"),
    ("a {b c}d", 8, "'d' after the braced value of 'a'"),
    ("a {b}}", 6, "unbalanced '}'"),
    ("a {b\nc}", 5, "line break inside the braced value opened at character 3"),
    ("a b\rc d", 4, "CR not followed by LF"),
    ("a b\r", 4, "CR not followed by LF"),
    ("a\tb", 2, "control character TAB"),
    ("a b\x00", 4, "control character NUL"),
    ("a {b\x7f}", 5, "control character DEL"),
    ("a b\tc d", 4, "control character TAB"),
    ("título x", 2, "non-ASCII character 'í' (U+00ED; write it %ed"),
    ("a Relatório", 8, "non-ASCII character 'ó' (U+00F3; write it %f3"),
    ("a {x €}", 6, "non-ASCII character '€' (U+20AC; not in ISO-8859-1)"),
]


@pytest.mark.parametrize(("body", "position", "words"), MALFORMED)
def test_malformed_pair_lists(body, position, words):
    with pytest.raises(ParseError) as caught:
        parse_pair_list(body)
    assert words in caught.value.message
    assert caught.value.position == position


def test_non_ascii_byte_position():
    body = "archiveaddress x\nurl http://x/Relat\xf3rio.pdf\n".encode("latin-1")
    with pytest.raises(ParseError) as caught:
        parse_pair_list(body)
    assert caught.value.message == "non-ASCII byte 0xF3 (write it %f3, §6.2) inside the value of 'url'"
    assert caught.value.position == body.index(b"\xf3") + 1


def test_utf8_body_is_refused_at_its_first_byte():
    body = "a Relatório".encode()
    with pytest.raises(ParseError) as caught:
        parse_pair_list(body)
    assert caught.value.message.startswith("non-ASCII byte 0xC3")
    assert caught.value.position == 8


def test_read_answer_never_raises():
    error = read_answer(b"a {b")
    assert error == UnreadableAnswer("unbalanced '{': no '}' closes it", 3)
    assert str(error) == "unbalanced '{': no '}' closes it (at character 3)"
    assert error.to_dict() == {"message": "unbalanced '{': no '}' closes it", "position": 3}
    assert read_answer(b"confirmation yes") == CONFIRMATION


@pytest.mark.parametrize("body, notice", [
    ("notice {acknowledgment received}", True),
    ("archiveaddress a.b notice {acknowledgment received}", True),
    ("notice {acknowledgment refused}", False),
    ("notice acknowledgment", False),
])
def test_the_notice_is_recognised_by_its_one_spelling(body, notice):
    assert carries_notice(parse_pair_list(body)) is notice
