"""A prefix pair is proved by an Archive's value giving both forms of one IBI (file 003, Table 9.4)."""
from __future__ import annotations

import pytest

from ibiportal.ibi.prefixes import pair_proved_by


@pytest.mark.parametrize(("value", "pair"), [
    # file 003, Example 9.2 and the §10.2 trace: an Archive's `ibi` pairs
    ("rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 ibip 8JMKD3MGP7W/3EPGUE5", ("sid.inpe.br/mtc-m19", "8JMKD3MGP7W")),
    ("{rep sid.inpe.br/mtc-m18/2012/07.12.18.08 ibip 8JMKD3MGP8W/3C9EP6P}", ("sid.inpe.br/mtc-m18", "8JMKD3MGP8W")),
    ("rep SID.inpe.br/mtc-m18@80/2009/07.21.13.23 ibip 8jmkd3mgp8w/35mme4e", ("sid.inpe.br/mtc-m18@80", "8JMKD3MGP8W")),
])
def test_both_forms_of_one_date_prove_their_prefixes(value, pair):
    assert pair_proved_by(value) == pair


@pytest.mark.parametrize("value", [
    "rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47",  # one form only
    "rep sid.inpe.br/mtc-m19/2013/09.04.12.28 ibip 8JMKD3MGP7W/3EPGUE5",  # two dates: not one identifier
    "rep 8JMKD3MGP7W/3EPGUE5 ibip sid.inpe.br/mtc-m19/2013/09.04.12.27.57",  # forms swapped
    "rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 ibip 8JMKD3MGP7W/3EPGUEZ",  # not an IBIp
])
def test_anything_else_proves_nothing(value):
    assert pair_proved_by(value) is None
