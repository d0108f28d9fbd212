"""Accuracy of reading published IBIs: how many real strings classify and extract read as a person does.

The sample is the strings collected from public texts in ``tests/ibi/data/wild_ibis.py`` and
``tests/ibi/data/wild_links.py`` (and, apart, its ``HELD_OUT`` strings, collected after the code was
written), each with the IBI a person reads in it (or none, or "a mirror
page"). Classify is right when it gives that IBI (compared without case) or, for a string with
none, recognises nothing; extract is right when the IBIs it finds in the string (or passage) are
exactly those, in order (an entry it flags as meant but broken, with its error, is no IBI found).

Run: ``.venv/bin/python benchmarks/recognition.py``; prints one line per measure and every miss.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ibiportal.ibi.classify import classify  # noqa: E402
from ibiportal.ibi.extract import extract  # noqa: E402
from tests.ibi.data.wild_ibis import NOT_RECOGNISED, RECOGNISED  # noqa: E402
from tests.ibi.data.wild_links import HELD_OUT, LINKS, MIRROR, PASSAGES  # noqa: E402


def sample() -> list[tuple[str, str | None]]:
    """Every string with the IBI meant (None: no item)."""
    return (
        [(text, ibi) for text, ibi, *_ in RECOGNISED]
        + [(text, None) for text, *_ in NOT_RECOGNISED]
        + [(text, None if meant == MIRROR else meant) for text, meant, *_ in LINKS]
    )


def classify_right(text: str, meant: str | None) -> bool:
    reading = classify(text)
    if meant is None:
        return not reading.recognised
    return reading.recognised and (reading.ibi or "").casefold() == meant.casefold()


def extract_right(text: str, meant: tuple[str, ...], distinct: bool = False) -> bool:
    """The IBIs found are those meant, in order (``distinct``: each item once, for a string that
    names one item twice, as ``[url](url)`` does)."""
    found = tuple((found.reading.ibi or "").casefold() for found in extract(text).found if found.reading.recognised)
    return (tuple(dict.fromkeys(found)) if distinct else found) == tuple(ibi.casefold() for ibi in meant)


def main() -> None:
    strings = sample()
    classified = [(text, meant) for text, meant in strings if not classify_right(text, meant)]
    passages = [(text, () if meant is None else (meant,), True) for text, meant in strings]
    passages += [(text, meant, False) for text, meant, _ in PASSAGES]
    extracted = [(text, meant) for text, meant, distinct in passages if not extract_right(text, meant, distinct)]
    print(f"classify: {len(strings) - len(classified)} of {len(strings)} strings read as meant")
    print(f"extract:  {len(passages) - len(extracted)} of {len(passages)} strings and passages read as meant")
    held = [(text, meant) for text, meant, _ in HELD_OUT]
    classified_held = [(text, meant) for text, meant in held if not classify_right(text, meant)]
    extracted_held = [(text, meant) for text, meant in held if not extract_right(text, (meant,), True)]
    print(f"held out: classify {len(held) - len(classified_held)} of {len(held)}, "
          f"extract {len(held) - len(extracted_held)} of {len(held)}")
    classified += classified_held
    extracted += extracted_held
    for name, misses in (("classify", classified), ("extract", extracted)):
        for text, meant in misses:
            print(f"  {name} missed: {text[:110]!r} -> {meant}")


if __name__ == "__main__":
    main()
