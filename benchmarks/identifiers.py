"""Benchmark for issue 2: conversions per second, and mint throughput at r = 0.01 as a fraction
of the temporal distributor's limit of 1/r identifiers per second (Algorithm 4).

Run: ``.venv/bin/python benchmarks/identifiers.py``. Both numbers come from one run on the
same machine; the mint figure is a ratio (to 1/r), so it does not depend on the machine's speed.
"""
from __future__ import annotations

import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ibiportal.ibi.conversion import convert  # noqa: E402
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS  # noqa: E402
from ibiportal.minting import Minter, Subsystem  # noqa: E402
from ibiportal.storage import Storage  # noqa: E402

SAMPLES = [
    "sid.inpe.br/mtc-m18@80/2009/02.16.17.46",
    "8JMKD3MGP8W/34PGRBS",
    "sid.inpe.br/mtc-m19/2013/09.04.12.27.57",
    "LK47B6W/362SFKH",
    "iconet.com.br/banon/2009/09.09.22.01",
]


def conversions_per_second(seconds: float = 2.0) -> float:
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for text in SAMPLES:
            convert(text, KNOWN_PREFIX_PAIRS)
        done += len(SAMPLES)
    return done / (time.perf_counter() - start)


def mint_fraction_of_limit(count: int = 500, r: Decimal = Decimal("0.01")) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        storage = Storage(str(Path(folder) / "bench.sqlite"))
        subsystem = Subsystem("bench.example.org", 80, "192.0.2.7", 800, r)
        minter = Minter(storage, subsystem)
        minter.mint()  # first one: creates the subsystem's clock row
        start = time.perf_counter()
        for _ in range(count):
            minter.mint()
        elapsed = time.perf_counter() - start
        storage.close()
    per_second = count / elapsed
    return per_second, per_second * float(r)


def main() -> None:
    rate = conversions_per_second()
    print(f"conversions per second: {rate:,.0f}")
    per_second, fraction = mint_fraction_of_limit()
    print(f"mint throughput at r=0.01: {per_second:.1f}/s = {fraction:.3f} of the 1/r limit (100/s)")


if __name__ == "__main__":
    main()
