"""Benchmark of identifiers: conversions per second on the fast path against the diagnostic path
(``convert_precisely``, the parser that names the faulty character, which every conversion went
through before the fast path), a catalogue of 10⁶ CSV rows streamed through ``flask ibi convert
--csv``'s pipeline (time and memory), and mint throughput at r = 0.01 as a fraction of the
temporal distributor's limit of 1/r identifiers per second (Algorithm 4).

Run: ``.venv/bin/python benchmarks/identifiers.py [ROWS]``. Every figure that judges is a ratio
from this one run on this machine: fast / diagnostic conversions per second, alternating the two
in short rounds so that other programs on the shared machine weigh on both alike; the mint figure
is a ratio to 1/r. The report is appended to ``benchmarks/results/identifiers-<date>.txt``.
"""
from __future__ import annotations

import io
import resource
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.serving import write_results  # noqa: E402
from ibiportal.ibi.batch import iter_conversions, iter_csv_rows, write_csv  # noqa: E402
from ibiportal.ibi.conversion import convert, convert_precisely  # noqa: E402
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS  # noqa: E402
from ibiportal.application.minting import Minter  # noqa: E402
from ibiportal.ibi.clock import unix_time, utc_now  # noqa: E402
from ibiportal.ibi.subsystem import Subsystem  # noqa: E402
from ibiportal.storage.database import Storage  # noqa: E402
from ibiportal.storage.identifiers import IdentifierStore  # noqa: E402
from ibiportal.storage.migrations import upgrade  # noqa: E402

SAMPLES = [
    "sid.inpe.br/mtc-m18@80/2009/02.16.17.46",
    "8JMKD3MGP8W/34PGRBS",
    "sid.inpe.br/mtc-m19/2013/09.04.12.27.57",
    "LK47B6W/362SFKH",
    "iconet.com.br/banon/2009/09.09.22.01",
]


ROUNDS = 20
ROUND_SECONDS = 0.25
CATALOGUE_ROWS = 1_000_000


def conversions_per_second(function, seconds: float) -> float:
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for text in SAMPLES:
            function(text, KNOWN_PREFIX_PAIRS)
        done += len(SAMPLES)
    return done / (time.perf_counter() - start)


def fast_against_diagnostic() -> tuple[float, float, list[float]]:
    """Median rates of both paths over alternating rounds (ABBA), and each round pair's ratio."""
    for text in SAMPLES:
        assert convert(text, KNOWN_PREFIX_PAIRS) == convert_precisely(text, KNOWN_PREFIX_PAIRS)
    fast, diagnostic = [], []
    for index in range(ROUNDS):
        order = (convert, convert_precisely) if index % 2 == 0 else (convert_precisely, convert)
        for function in order:
            (fast if function is convert else diagnostic).append(conversions_per_second(function, ROUND_SECONDS))
    ratios = [f / d for f, d in zip(fast, diagnostic)]
    return statistics.median(fast), statistics.median(diagnostic), ratios


def catalogue(rows: int):
    """A CSV catalogue, one line at a time: an identifier column among others, prefixes repeating."""
    yield "title,ibi,year\n"
    for number in range(rows):
        minute, hour, day = number % 60, number // 60 % 24, number // 1440 % 28 + 1
        ibi = (f"sid.inpe.br/mtc-m{18 + number % 2}/2009/02.{day:02d}.{hour:02d}.{minute:02d}" if number % 3
               else f"8JMKD3MGP8W/{'34PGRBS'[:-1]}{'23456789ABCDEFGHJKLMNPQRSTU'[number % 27]}")
        yield f"item {number},{ibi},2009\n"


class Counting(io.TextIOBase):
    """Where the converted CSV goes: counted, not kept (a file on disk would measure the disk)."""

    characters = 0

    def write(self, text: str) -> int:
        self.characters += len(text)
        return len(text)


def stream_catalogue(rows: int) -> tuple[float, int, int, int]:
    """Seconds, failed rows, output characters and growth of the peak RSS (KiB) over a 10⁶-row run."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = Counting()
    start = time.perf_counter()
    failed = write_csv(iter_conversions(iter_csv_rows(catalogue(rows)), KNOWN_PREFIX_PAIRS), out)
    elapsed = time.perf_counter() - start
    return elapsed, failed, out.characters, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before


def mint_fraction_of_limit(
    count: int = 500, r: Decimal = Decimal("0.01"), database: str | None = None
) -> tuple[float, float]:
    """Identifiers per second minted one after the other, and that as a fraction of 1/r, on
    ``database`` (an ``IBIPORTAL_DATABASE`` at the current schema; default a new SQLite file)."""
    with tempfile.TemporaryDirectory() as folder:
        if database is None:
            database = str(Path(folder) / "bench.sqlite")
            upgrade(database)
        storage = Storage(database)
        subsystem = Subsystem("bench.example.org", 80, "192.0.2.7", 800, r)
        minter = Minter(IdentifierStore(storage), subsystem, lambda: unix_time(utc_now()))
        minter.mint()  # first one: creates the subsystem's clock row
        start = time.perf_counter()
        for _ in range(count):
            minter.mint()
        elapsed = time.perf_counter() - start
        storage.close()
    per_second = count / elapsed
    return per_second, per_second * float(r)


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else CATALOGUE_ROWS
    load_at_start = Path("/proc/loadavg").read_text().split()[0]  # other programs on the machine
    fast, diagnostic, ratios = fast_against_diagnostic()
    stream = stream_catalogue(rows)
    per_second, fraction = mint_fraction_of_limit()
    ratio = statistics.median(ratios)
    lines = [
        f"Identifiers: {ROUNDS} alternating rounds of {ROUND_SECONDS} s per path over the {len(SAMPLES)} samples; "
        f"load average {load_at_start} at the start, {Path('/proc/loadavg').read_text().split()[0]} at the end",
        f"conversions per second, fast path (convert):            {fast:>10,.0f}",
        f"conversions per second, diagnostic path (convert_precisely): {diagnostic:>6,.0f}",
        f"per-round ratios fast/diagnostic: {', '.join(f'{r:.1f}' for r in ratios)}",
        f"RATIO fast/diagnostic: {ratio:.1f}x (median of rounds); goal >= 10x: {'met' if ratio >= 10 else 'NOT met'}",
        f"catalogue of {rows:,} CSV rows streamed (iter_csv_rows -> iter_conversions -> write_csv): "
        f"{stream[0]:.1f} s = {rows / stream[0]:,.0f} rows/s, {stream[1]} failed, {stream[2]:,} characters out, "
        f"peak RSS grew {stream[3] / 1024:.1f} MiB",
        f"mint throughput at r=0.01: {per_second:.1f}/s = {fraction:.3f} of the 1/r limit (100/s)",
    ]
    report = "\n".join(lines) + "\n"
    print(report, end="")
    print(f"written to {write_results('identifiers', report)}")


if __name__ == "__main__":
    main()
