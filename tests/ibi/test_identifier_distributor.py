"""The temporal distributor, Algorithm 4: Table 6.2 exactly, and its invariants."""
from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ibiportal.errors import ParseError
from ibiportal.ibi.distributor import GRANULARITIES, DistributorStep, next_date, validate_granularity
from ibiportal.ibi.repository import rep_suffix

#: Table 6.2's t'(i): the first element of each pair in column t'(i), the creation dates.
TABLE_6_2_CREATION = [1287587646, 1287588012, 1287588115, 1287588115, 1287588116, 1287588117, 1287588539]
#: Table 6.2's t(i), the dates written in the suffixes.
TABLE_6_2_ISSUED = [1287587646, 1287588000, 1287588060, 1287588115, 1287588116, 1287588117, 1287588480]


def run(requests: list[Decimal], r: Decimal, last: Decimal | None = None) -> list[DistributorStep]:
    steps = []
    for current in requests:
        step = next_date(current, last, r)
        last = step.date_for_suffix
        steps.append(step)
    return steps


def test_table_6_2(vectors):
    table = vectors["temporal_distributor"]
    requests = [Decimal(t) for t, _ in table["requests"]]
    steps = run(requests, Decimal(table["r"]))
    assert len(steps) == 7
    assert [rep_suffix(step.date_for_suffix) for step in steps] == [suffix for _, suffix in table["requests"]]
    assert [step.creation_date for step in steps] == TABLE_6_2_CREATION
    assert [step.date_for_suffix for step in steps] == TABLE_6_2_ISSUED
    # Items g and f came within a second already served: they wait for their slot (line 7).
    assert [step.delay for step in steps] == [0, 0, 0, 0, Decimal("0.00377"), Decimal("0.28"), 0]


def test_first_request_gets_its_own_rounded_date():
    step = next_date(Decimal("1287587646.394023"), None, Decimal("0.01"))
    assert step == DistributorStep(Decimal("1287587646.39"), Decimal("1287587646.39"), Decimal(0))
    assert rep_suffix(step.date_for_suffix) == "2010/10.20.15.14.06.39"


def test_fine_grid_dates_are_shortened_and_written_without_trailing_zeros():
    steps = run([Decimal("1287588115.041"), Decimal("1287588115.0412"), Decimal("1287588115.2"), Decimal("1287588200.5")], Decimal("0.01"), last=Decimal("1287588115.04"))
    assert [rep_suffix(step.date_for_suffix) for step in steps] == [
        "2010/10.20.15.21.55.05",
        "2010/10.20.15.21.55.06",
        "2010/10.20.15.21.55.2",
        "2010/10.20.15.23",
    ]
    assert steps[0].delay == Decimal("0.009")


def test_minute_granularity():
    steps = run([Decimal("1287588012.293"), Decimal("1287588013")], Decimal(60))
    assert [step.date_for_suffix for step in steps] == [1287588000, 1287588060]
    assert steps[1].delay == Decimal(47)


def test_changing_granularity_puts_last_on_the_new_grid():
    step = next_date(Decimal("1287588115.3"), Decimal("1287588115.25"), Decimal(1))
    assert (step.creation_date, step.date_for_suffix, step.delay) == (1287588116, 1287588116, Decimal("0.7"))


def test_clock_stepped_back_gives_a_later_date_and_a_longer_delay():
    step = next_date(Decimal(1287588000), Decimal(1287588117), Decimal(1))
    assert step.date_for_suffix == 1287588118 and step.delay == 118


@pytest.mark.parametrize("r", [Decimal("0.5"), Decimal(10), Decimal("0.0000001"), 1, "1", 0.1])
def test_unsupported_granularity_is_refused(r):
    with pytest.raises(ValueError, match="granularity"):
        next_date(Decimal(1287588000), None, r)  # type: ignore[arg-type]


def test_validate_granularity_returns_the_value():
    assert validate_granularity(Decimal("0.10")) == Decimal("0.1")


@pytest.mark.parametrize("current", [1287588000.5, Decimal(807235199), Decimal("Infinity")])
def test_bad_request_dates_are_refused(current):
    with pytest.raises(ParseError):
        next_date(current, None, Decimal(1))  # type: ignore[arg-type]


@given(
    r=st.sampled_from(GRANULARITIES),
    start=st.integers(min_value=807235200, max_value=4_000_000_000),
    gaps=st.lists(st.integers(min_value=0, max_value=200_000_000), min_size=1, max_size=25),
)
def test_dates_strictly_increase_stay_on_the_grid_and_never_precede_last(r, start, gaps):
    current = Decimal(start)
    last = None
    for gap in gaps:
        current += Decimal(gap).scaleb(-6)
        step = next_date(current, last, r)
        assert step.delay == max(Decimal(0), step.creation_date - current)
        assert step.date_for_suffix <= step.creation_date
        assert (step.date_for_suffix / r) == (step.date_for_suffix / r).to_integral_value()
        if last is not None:
            assert step.date_for_suffix > last
        assert format(step.date_for_suffix, "f").partition(".")[2][-1:] != "0"
        last = step.date_for_suffix
        current = max(current, step.creation_date)  # the caller waited
