"""How much of a text one extraction reads (``ibiportal.ibi.extract.Bounds``, issue 39 finding 3):
it stops at the IBI over the limit, naming where it starts, and at its deadline, without reading
the rest; and no text makes its reading grow faster than its length.

What was read is counted as the recogniser's calls: each candidate is read by one (a link ending
a line by two, joined), so a reading that stopped early made few."""
from __future__ import annotations

import itertools
import time

import pytest

from ibiportal.ibi.contradictions import MAX_REFERENCE_ENTRIES
from ibiportal.ibi.extract import Bounds, ParsingTooLong, TooManyIBIs, extract

BASE = "http://portal.test/"
#: One reference a line, each of another kind, so that the IBIs' order mixes every pattern.
LINES = (
    "A. IBI: <8JMKD3MGP3W34T/47AF772>. Tese.",
    "B. Disponível em: http://urlib.net/ibi/8JMKD3MGP8W/34PGRBS.",
    "C. (sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC) and ibi:8JMKD3MGP3W34R/3UGHFGH",
    "D. {rep sid.inpe.br/mtc-m21c/2019/12.04.15.16 ibip 8JMKD3MGP3W34R/3UGHFGH} see also http://example.com/x",
    "E. <http://urlib.net/8JMKD3MGP8W/ZZZZZZZ> (broken, still an entry)",
)


def test_the_ibi_over_the_limit_stops_the_reading_at_its_start(readings):
    text = "\n".join(LINES * 40)
    whole = extract(text, base=BASE).found
    assert len(whole) == 6 * 40  # line C holds two
    readings.clear()
    with pytest.raises(TooManyIBIs) as refused:
        extract(text, base=BASE, bounds=Bounds(max_found=13))
    fourteenth = whole[13]
    assert refused.value.position == fourteenth.start + 1 and refused.value.field == "text"
    message = str(refused.value.message)
    assert "more than 13 IBIs" in message and f"line {fourteenth.line}" in message
    assert f"character {fourteenth.start + 1:,}" in message
    # Read up to the 14th IBI, not the 240 of the text: 14 readings, and two for each of the two
    # links of example.com before it (alone, then joined with the next line's first word).
    assert len(readings) == 14 + 2 * 2
    assert readings[-1] == fourteenth.text


def test_the_order_is_the_text_s_whatever_the_pattern_and_a_text_at_the_limit_is_read_whole():
    text = "\n".join(LINES * 3)
    whole = extract(text, base=BASE)
    starts = [found.start for found in whole.found]
    assert starts == sorted(starts)
    assert [found.text for found in whole.found[:6]] == [
        "8JMKD3MGP3W34T/47AF772", "http://urlib.net/ibi/8JMKD3MGP8W/34PGRBS",
        "sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC", "ibi:8JMKD3MGP3W34R/3UGHFGH",
        "{rep sid.inpe.br/mtc-m21c/2019/12.04.15.16 ibip 8JMKD3MGP3W34R/3UGHFGH}",
        "http://urlib.net/8JMKD3MGP8W/ZZZZZZZ",
    ]
    assert extract(text, base=BASE, bounds=Bounds(max_found=len(whole.found))).to_dict() == whole.to_dict()


def test_the_deadline_stops_the_reading_where_it_got_to(readings):
    """A clock that moves one second a look: a deadline of 5 s lets five candidates be read."""
    ticks = itertools.count()
    text = "\n".join(f"http://urlib.net/ibi/8JMKD3MGP8W/34PGRBS line {number}" for number in range(1, 101))
    with pytest.raises(ParsingTooLong) as stopped:
        extract(text, base=BASE, bounds=Bounds(seconds=5, clock=lambda: float(next(ticks))))
    line = 6
    offset = text.index("\nhttp", text.index("line 5")) + 1
    assert stopped.value.position == offset + 1 and stopped.value.field == "text"
    message = str(stopped.value.message)
    assert "more than 5 s" in message and f"line {line}" in message
    assert len(readings) == 5
    # A clock that does not move lets every candidate be read.
    assert len(extract(text, base=BASE, bounds=Bounds(seconds=5, clock=lambda: 0.0)).found) == 100


def test_the_thread_s_cpu_clock_still_stops_a_reading_it_reads_only_near_its_deadline():
    """The default clock is read only once the monotonic clock says the deadline may have passed
    (the CPU clock never runs faster): a reading that takes longer than its deadline still stops."""
    text = "\n".join(LINES * 400)
    with pytest.raises(ParsingTooLong) as stopped:
        extract(text, base=BASE, bounds=Bounds(seconds=0.002))
    assert 1 < stopped.value.position < len(text)


def test_the_deadline_also_bounds_the_comparison_of_one_reference_s_entries():
    """Entries of one reference are compared pairwise (contradictions): the deadline covers it."""
    text = " ".join(["8JMKD3MGP3W34T/47AF772 sid.inpe.br/mtc-m21d/2022/07.20.15.46"] * 20)  # one line
    assert all(found.contradictions for found in extract(text, base=BASE).found)
    moves = iter(range(10**6))
    looks = 0

    def clock() -> float:
        nonlocal looks
        looks += 1
        return 0.0 if looks <= 41 else float(next(moves))  # still at 0 after every candidate

    with pytest.raises(ParsingTooLong):
        extract(text, base=BASE, bounds=Bounds(seconds=5, clock=clock))


def test_a_reference_of_more_entries_than_any_reference_has_is_not_compared():
    """A line of thousands of entries is no reference but a list the text does not mark: its
    entries were compared each with all (2,000 took 12 s, and as many warnings each)."""
    one = "8JMKD3MGP3W34T/47AF772 sid.inpe.br/mtc-m21d/2022/07.20.15.46"
    found = extract(" ".join([one] * (MAX_REFERENCE_ENTRIES // 2 + 1)), base=BASE).found
    assert len(found) > MAX_REFERENCE_ENTRIES and not any(entry.contradictions for entry in found)
    small, large = _cpu(lambda n: " ".join([one] * n), 250), _cpu(lambda n: " ".join([one] * n), 1000)
    assert large / max(small, 1e-4) < 8, (small, large)


def _cpu(make, size: int) -> float:
    """The least CPU time of three readings of ``make(size)``."""
    text = make(size)
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        extract(text, base=BASE)
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize("make, size", [
    (lambda n: "IBI:" * n + "<", 2000),  # a label whose value never ends: was read again from every label
    (lambda n: "http://urlib.net/a" + ")" * n, 10000),  # closing brackets set aside one at a time
], ids=["labels", "brackets"])
def test_reading_grows_with_the_text_not_with_its_square(make, size):
    """Four times the text takes about four times as long (measured as a ratio, not a time): each
    of these took sixteen times as long before, a 1 MB text of them minutes or hours of CPU."""
    small, large = _cpu(make, size), _cpu(make, 4 * size)
    assert large / max(small, 1e-4) < 8, (small, large)


def test_showing_every_entry_in_its_line_grows_with_the_list_not_with_its_square():
    """The Check references page shows each entry in its line: finding the line's start once
    summed every line before it (5,000 entries, 1.1 s)."""
    def show(count: int) -> float:
        result = extract("8JMKD3MGP3W34T/47AF772\n" * count, base=BASE)
        started = time.process_time()
        shown = [result.in_line(found) for found in result.found]
        assert shown[-1] == ("", "8JMKD3MGP3W34T/47AF772", "")
        return time.process_time() - started

    small, large = min(show(500) for _ in range(3)), min(show(2000) for _ in range(3))
    assert large / max(small, 1e-4) < 8, (small, large)
