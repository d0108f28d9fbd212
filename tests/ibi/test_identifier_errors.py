"""Nonsense in, ParseError out: each names the problem and its 1-based position."""
from __future__ import annotations

import pytest

from ibiportal.errors import ParseError
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.syntax import MAX_LENGTH

REP = "sid.inpe.br/mtc-m18/"  # a valid prefix: the suffix starts at character 21

NONSENSE = [
    # (input, position, words the message must contain)
    ("", None, "empty"),
    ("8JMKD3MGP8W/" + "3" * MAX_LENGTH, MAX_LENGTH + 1, "longer than 255"),
    ("8JMKD3MGP8W", 12, "missing '/'"),
    ("8JMKD3MGP8W/34PGRBS/2", 20, "an IBIp has 2 '/'-separated parts (prefix/suffix), found 3"),
    ("sid.inpe.br/mtc-m18", 20, "4 '/'-separated parts"),
    ("sid.inpe.br/mtc-m18/2009/02.16/17.46", 31, "found 5"),
    ("8JMKD3MGP8W/34PGRBO", 19, "'O' is not in the IBIp alphabet"),
    ("8JMKD3MGP8W/34PGRB0", 19, "'0' is not in the IBIp alphabet"),
    ("8JMKD3MGP8W/1PGRBS", 13, "'1' is not in the IBIp alphabet"),
    ("8JMKD3MGP8W/34IGRBS", 15, "'I' is not in the IBIp alphabet"),
    ("8JMKD3MGP8W/34VGRBS", 15, "'V' is not in the IBIp alphabet"),
    ("8JMKD3MGPYW/34PGRBS", 10, "'Y' is not in the IBIp alphabet"),
    ("8JMKD3MGP8W/34PGRBZ", 19, "'Z' is not in the IBIp alphabet"),
    ("8JMKD3MGP8W/34PG RBS", 17, "' ' is not allowed in an IBIp"),
    ("8JMKD3MGP8W/34PGRBSX", 20, "'X' cannot appear in an IBIp suffix"),
    ("8JMKD3MGP8/34PGRBS", 11, "needs W (IPv4) or X (IPv6)"),
    ("8JMKDWMGP8W/34PGRBS", 11, "only one W or X"),
    ("AW/34PGRBS", 1, "not an IPv4 address"),
    ("AX/34PGRBS", 1, "not an IPv6 address"),
    ("22W/34PGRBS", 1, "zero digit"),
    ("8JMKD3MGP8WUUUU/34PGRBS", 12, "out of range 1-65535"),
    ("8JMKD3MGP8W34K/34PGRBS", 12, "port 800 is written as no port part"),
    ("8JMKD3MGP8W/34PGRBSW2", 21, "zero fraction"),
    ("8JMKD3MGP8W/34PGRBSW3W3", 22, "only one W"),
    ("8JMKD3MGP8W/W3", 13, "coded date missing"),
    (REP + "2009/13.16.17.46", 26, "month 13 out of range 01-12"),
    (REP + "2009/00.16.17.46", 26, "month 00 out of range"),
    (REP + "2009/02.30.17.46", 29, "day 30 out of range 01-28 in 2009-02"),
    (REP + "2008/02.30.17.46", 29, "day 30 out of range 01-29 in 2008-02"),
    (REP + "2009/04.31.17.46", 29, "day 31 out of range 01-30"),
    (REP + "2009/02.16.24.46", 32, "hour 24 out of range 00-23"),
    (REP + "2009/02.16.17.60", 35, "minute 60 out of range 00-59"),
    (REP + "2009/02.16.17.46.60", 38, "second 60 out of range 00-59"),
    (REP + "2009/02.16.17", 34, "minute missing"),
    (REP + "2009/2.16.17.46", 26, "month '2' must have 2 digits"),
    (REP + "2009/02.16.17.4x", 36, "'x' in the minute is not a digit"),
    (REP + "2009/02.16.17.46.05.", 41, "fraction of a second missing"),
    (REP + "2009/02.16.17.46.05.1.2", 42, "nothing may follow"),
    (REP + "09/02.16.17.46", 21, "must have 4 or more digits"),
    (REP + "1969/12.31.23.59", 21, "year 1969 is before 1970"),
    ("sid..br/mtc-m18/2009/02.16.17.46", 5, "empty label"),
    ("sid.inpe.br/mtc_m18/2009/02.16.17.46", 16, "'_' is not allowed in a host name"),
    ("sid.inpe.br/-mtc/2009/02.16.17.46", 13, "starts with '-'"),
    ("sid.inpe.9r/mtc/2009/02.16.17.46", 10, "must start with a letter"),
    ("sid.inpe.br/mtc-m18@/2009/02.16.17.46", 21, "port number missing"),
    ("sid.inpe.br/mtc-m18@0/2009/02.16.17.46", 21, "port 0 out of range"),
    ("sid.inpe.br/mtc-m18@65536/2009/02.16.17.46", 21, "port 65536 out of range 1-65535"),
    ("sid.inpe.br/mtc-m18@080/2009/02.16.17.46", 21, "leading zero"),
    ("sid.inpe.br/mtc-m18@8o/2009/02.16.17.46", 22, "'o' in the port is not a digit"),
]


@pytest.mark.parametrize(("text", "position", "words"), NONSENSE, ids=[case[0][:40] or "empty" for case in NONSENSE])
def test_nonsense_is_refused_with_position_and_reason(text, position, words):
    with pytest.raises(ParseError) as caught:
        parse_ibi(text)
    assert words in caught.value.message
    assert caught.value.position == position
    if position is not None:
        assert f"(at character {position})" in str(caught.value)


def test_errors_chain_the_underlying_exception():
    with pytest.raises(ParseError) as caught:
        parse_ibi("AW/34PGRBS")
    assert caught.value.field == "ip"
    assert isinstance(caught.value.__cause__, ParseError)
    assert isinstance(caught.value.__cause__.__cause__, ValueError)


def test_parse_error_is_a_value_error_for_non_strings():
    with pytest.raises(ValueError, match="is a string"):
        parse_ibi(None)  # type: ignore[arg-type]


def test_longest_accepted_identifier_is_255_characters():
    text = "a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "/" + "d" * 20 + "/2009/02.16.17.46.05."
    text += "1" * (MAX_LENGTH - len(text))
    assert len(text) == MAX_LENGTH
    assert str(parse_ibi(text)) == text
    with pytest.raises(ParseError, match="longer than 255"):
        parse_ibi(text + "1")
