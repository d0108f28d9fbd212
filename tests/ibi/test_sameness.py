"""Whether two IBIs name one item: case-insensitively, legacy prefix spellings alike, and across
the two forms by the date and the known prefix pairs (never a guess)."""
from __future__ import annotations

import pytest

from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS
from ibiportal.ibi.sameness import same_item

REP = "sid.inpe.br/mtc-m19/2013/09.04.12.27.57"  # Example 6.2: both forms of one item
IBIP = "8JMKD3MGP7W/3EPGUE5"


def known():
    return KNOWN_PREFIX_PAIRS


@pytest.mark.parametrize(("first", "second", "same"), [
    (REP, REP.upper(), True),  # case-insensitive
    (REP, "sid.inpe.br/mtc-m19@80/2013/09.04.12.27.57", True),  # the legacy spelling of one prefix
    (REP, "sid.inpe.br/mtc-m19/2013/09.04.12.27.58", False),  # another date
    (REP, "sid.inpe.br/mtc-m18/2013/09.04.12.27.57", False),  # another server
    (IBIP, IBIP.lower(), True),
    (IBIP, "8JMKD3MGP8W/3EPGUE5", False),
    (REP, IBIP, True),  # the table pairs sid.inpe.br/mtc-m19 with 8JMKD3MGP7W
    (REP, "8JMKD3MGP8W/34PGRBS", False),  # the dates differ: no table needed
    (REP, "8JMKD3MGP8W/3EPGUE5", False),  # the same date, but the table pairs each prefix with others
    ("example.org/repo/2013/09.04.12.27.57", "733NF83AW/3EPGUE5", None),  # no pair known: nobody can tell
])
def test_same_item(first, second, same):
    assert same_item(parse_ibi(first), parse_ibi(second), known) is same
    assert same_item(parse_ibi(second), parse_ibi(first), known) is same


def test_the_table_is_read_only_for_two_forms_of_one_date():
    asked = []

    def pairs():
        asked.append(1)
        return KNOWN_PREFIX_PAIRS

    assert same_item(parse_ibi(REP), parse_ibi(REP.upper()), pairs) is True
    assert same_item(parse_ibi(REP), parse_ibi("8JMKD3MGP8W/34PGRBS"), pairs) is False
    assert asked == []
    assert same_item(parse_ibi(REP), parse_ibi(IBIP), pairs) is True and asked == [1]
