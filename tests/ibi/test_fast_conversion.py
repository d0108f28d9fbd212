"""The fast path of conversion agrees with the diagnostic path: same result wherever the fast path
reads the input, and the diagnostic path's result or error wherever it does not."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ibiportal.errors import ParseError
from ibiportal.ibi.conversion import convert, convert_precisely
from ibiportal.ibi.fast import read_fast
from ibiportal.ibi.ibip import ibip_prefix, ibip_suffix
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS
from ibiportal.ibi.repository import rep_prefix, rep_suffix
from tests.ibi.test_identifier_properties import dates, hosts, ips, ports, random_case

PAIRS = (*KNOWN_PREFIX_PAIRS, ("dpi.inpe.br/banon", "J8LNKAN8PW"), ("dpi.inpe.br/banon.8080", "J8LNKAN8PW"))


def outcome(convert_function, text: str, pairs=PAIRS):
    """The conversion, or the error's message, position and field."""
    try:
        return convert_function(text, pairs)
    except ParseError as error:
        return ("error", error.message, error.position, error.field)


@pytest.mark.parametrize("text", [
    "sid.inpe.br/mtc-m18@80/2009/02.16.17.46", "8JMKD3MGP8W/34PGRBS", "sid.inpe.br/mtc-m19/2013/09.04.12.27.57",
    "LK47B6W/362SFKH", "iconet.com.br/banon/2009/09.09.22.01", "8jmkd3mgp8w/35mme4e", "SID.INPE.BR/MTC-M18/2012/07.12.18.08",
    "dpi.inpe.br/banon/1999/01.09.22.14", "sid.inpe.br/iris@1912/2005/07.20.00.37.33", "J8LNKAN8PW/3FUQHC5",
    "2001:252:0:1::2008:6", "7URMDHLL9SSN2D89MX/34PGRBS", "sid.inpe.br/mtc-m18/2010/10.20.15.21.55.3462",
])
def test_the_standards_identifiers_take_the_fast_path_with_the_same_result(text):
    fast = read_fast(text)
    assert fast is not None or text == "2001:252:0:1::2008:6"
    assert outcome(convert, text) == outcome(convert_precisely, text)


@pytest.mark.parametrize("text", [
    "sid.inpe.br/mtc-m18/2009/02.16.17.46.00",  # seconds Algorithm 2 does not write: a round-trip warning
    "sid.inpe.br/mtc-m18/2009/02.16.17.46.22.05",  # a fraction with a leading zero: a warning
    "sid.inpe.br/mtc-m18/2009/02.30.17.46", "sid.inpe.br/mtc-m18/1995/07.31.23.59", "sid.inpe.br/mtc-m18/2009/02.16.24.00",
    "sid.inpe.br/-mtc/2009/02.16.17.46", "sid.inpe.br/mtc-m18@080/2009/02.16.17.46", "sid.inpe.br/mtc@70000/2009/02.16.17.46",
    "br/inpe/2009/09.09.22.01", "2w/inpe/2009/09.09.22.01", "sid.inpe.9/mtc/2009/02.16.17.46",
    "28JMKD3MGP8W/34PGRBS", "8JMKD3MGP8WU3/34PGRBS", "8JMKD3MGP8W/234PGRBS", "8JMKD3MGP8W/34PGRBSW2",
    "8JMKD3MGP8W/34PGRBSW27", "UUUUUUUUUUUUUUUUW/34PGRBS", "8JMKD3MGP8W/UUUUUUUUUU", "8JMKD3MGP8W/34PGRBS ", "", "ſJ/2",
])
def test_unusual_or_malformed_text_gets_the_diagnostic_paths_answer(text):
    assert outcome(convert, text) == outcome(convert_precisely, text)


@given(host=hosts, port=ports, date=dates, flips=st.lists(st.booleans(), max_size=60))
def test_generated_repository_names_convert_alike_on_the_fast_path(host, port, date, flips):
    text = random_case(flips, f"{rep_prefix(host, port)}/{rep_suffix(date)}")
    assert read_fast(text) is not None or not any(character in ".-" for character in text.split("/")[0])
    assert outcome(convert, text) == outcome(convert_precisely, text)


@given(ip=ips, port=ports, date=dates, lower=st.booleans())
def test_generated_ibips_convert_alike_on_the_fast_path(ip, port, date, lower):
    text = f"{ibip_prefix(ip, port)}/{ibip_suffix(date)}"
    text = text.lower() if lower else text
    assert read_fast(text) is not None
    assert outcome(convert, text) == outcome(convert_precisely, text)


@given(text=st.text(alphabet="0123456789./@-2WXUabJ8LK", max_size=45))
def test_any_text_converts_alike(text):
    assert outcome(convert, text) == outcome(convert_precisely, text)


def test_a_changed_table_is_a_new_table():
    text = "dpi.inpe.br/banon/1999/01.09.22.14"
    assert convert(text, KNOWN_PREFIX_PAIRS).prefix.ibip is None
    assert convert(text, PAIRS).prefix.ibip == "J8LNKAN8PW"
    table = [list(pair) for pair in KNOWN_PREFIX_PAIRS]
    assert convert(text, table).prefix.ibip is None
    table.append(["dpi.inpe.br/banon", "J8LNKAN8PW"])  # an administrator adds a pair to the same list
    assert convert(text, table) == convert_precisely(text, table) and convert(text, table).prefix.ibip == "J8LNKAN8PW"
