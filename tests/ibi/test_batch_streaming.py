"""Batch conversion as a stream: a CSV of any length converts in constant memory, row by row, with
the same rows as the Convert page's batch."""
from __future__ import annotations

import io
import itertools
import subprocess
import sys
import tracemalloc
from pathlib import Path

from ibiportal.ibi.batch import convert_rows, iter_conversions, iter_csv_rows, rows_from_csv, to_csv, write_csv
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS

CSV = "\ufeffnote;IBI\r\nfirst;8JMKD3MGP8W/34PGRBS\r\n\r\nsecond;sid.inpe.br/mtc-m19/2013/09.04.12.27.57\r\n" \
      'third;"8JMKD3MGP8W/0"\r\nfourth\r\n'


def test_streamed_rows_and_csv_are_the_batchs():
    streamed = list(iter_csv_rows(io.StringIO(CSV, newline=None)))
    assert streamed == rows_from_csv(CSV)
    assert [row.line for row in streamed] == [2, 4, 5, 6]
    out = io.StringIO(newline="")
    failed = write_csv(iter_conversions(streamed, KNOWN_PREFIX_PAIRS), out)
    assert out.getvalue() == to_csv(convert_rows(streamed, KNOWN_PREFIX_PAIRS))
    assert failed == 2  # the coded date "0", and the row without an identifier


def catalogue(rows: int):
    """A CSV catalogue of ``rows`` identifiers, generated line by line (never held whole)."""
    yield "ibi,title\n"
    for number in range(rows):
        minute = number % 60
        yield f"sid.inpe.br/mtc-m18/2009/02.16.{number // 60 % 24:02d}.{minute:02d},item {number}\n"


class Sink(io.TextIOBase):
    """A text stream that counts what is written to it and keeps nothing."""

    def __init__(self) -> None:
        self.characters = 0

    def write(self, text: str) -> int:
        self.characters += len(text)
        return len(text)


def peak_bytes(rows: int) -> int:
    sink = Sink()
    tracemalloc.start()
    try:
        failed = write_csv(iter_conversions(iter_csv_rows(catalogue(rows)), KNOWN_PREFIX_PAIRS), sink)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert failed == 0 and sink.characters > rows * 60
    return peak


def peaks_in_a_fresh_interpreter(*rows: int) -> list[int]:
    """:func:`peak_bytes` of each count, measured in a Python of their own: tracemalloc counts
    every thread's allocations, and in a test run the threads that earlier tests' apps leave
    running allocate meanwhile, the more the longer the conversion takes (a full run once
    measured 160 kB for 1,000 rows and 438 kB for 6,000; alone, 154 kB for both)."""
    code = f"from tests.ibi.test_batch_streaming import peak_bytes; print(*(peak_bytes(n) for n in {rows!r}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [int(peak) for peak in done.stdout.split()]


def test_memory_stays_flat_however_many_rows():
    small, large = peaks_in_a_fresh_interpreter(1_000, 6_000)
    assert large < small * 1.5 + 64_000, (small, large)  # six times the rows, not six times the memory


def test_the_cli_streams_a_csv_file(runner, tmp_path):
    path = tmp_path / "catalogue.csv"
    path.write_text("".join(itertools.islice(catalogue(300), 301)), encoding="utf-8")
    result = runner.invoke(args=["ibi", "convert", "--csv", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("line,input,repository name,IBIp") and len(lines) == 301
    assert lines[1].startswith("2,sid.inpe.br/mtc-m18/2009/02.16.00.00,sid.inpe.br/mtc-m18/2009/02.16.00.00,8JMKD3MGP8W/")


def test_the_cli_reads_a_csv_from_standard_input_and_fails_on_a_bad_row(runner):
    result = runner.invoke(args=["ibi", "convert", "--csv", "-"], input="8JMKD3MGP8W/34PGRBS\n8JMKD3MGP8W/0\n")
    assert result.exit_code == 1
    assert result.output.splitlines()[1].startswith("1,8JMKD3MGP8W/34PGRBS,sid.inpe.br/mtc-m18@80/2009/02.16.17.46,")
    assert "2,8JMKD3MGP8W/0,,," in result.output


def test_the_cli_refuses_csv_with_identifiers(runner):
    result = runner.invoke(args=["ibi", "convert", "--csv", "-", "8JMKD3MGP8W/34PGRBS"], input="")
    assert result.exit_code == 2 and "--csv takes no identifiers" in result.output
