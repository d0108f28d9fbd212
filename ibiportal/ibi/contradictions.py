"""Contradictions inside one reference: an IBIp and a repository name that name two items.

INPE prints a reference's item in both forms, ``IBI: <8JMKD3MGP3W34T/47AF772>.
(sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC)``; a copy-and-paste slip leaves one form of another
item, and the reference then points two ways. Both forms of one item always share their date
(file 004: the suffix converts exactly both ways, §1.4 of STANDARD.md), and where the prefix
table knows both prefixes their IBIp must be equal too; so two entries of different forms in one
reference disagree when their dates differ, or when both IBIps are known and differ. Where a
prefix is unknown and the dates agree nothing can be said, and nothing is.

Where one reference ends (:func:`reference_starts`): at a blank line; at a line that begins a
record (BibTeX ``@type{``, RIS ``TY  -``, a number ``[12]`` or ``12.``, or an author in capitals
``SILVA, M.`` as ABNT lists print them). A text with none of these (a plain list of IBIs) is one
reference per line, so that two lines are never taken for one reference.

A "reference" of more than :data:`MAX_REFERENCE_ENTRIES` entries is none (a list whose records
the text does not mark, a paragraph of identifiers): its entries are not compared. Each entry is
compared with every other of its reference, so such a list cost the square of its length (2,000
entries on one line took 12 s) and gave each entry as many warnings as the list had items.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from typing import Protocol

from ibiportal.i18n import N_, Message
from ibiportal.ibi.classify import Classification

_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")
_RECORD_START = re.compile(
    r"^[ \t]*(?:@[A-Za-z]+[ \t]*[{(]|TY  - |\[\d{1,4}\]|\d{1,4}[.)][ \t]|"
    r"[A-ZÀ-Þ][A-ZÀ-Þ'’-]+(?:[ \t][A-ZÀ-Þ][A-ZÀ-Þ'’-]+)*,[ \t])",
    re.MULTILINE,
)


#: The most entries one reference has whose forms are compared (a reference names one item,
#: in a few forms and links; see the module docstring).
MAX_REFERENCE_ENTRIES = 50


class Entry(Protocol):
    """What is compared of an entry found: where it starts, its text and line, its reading."""

    start: int
    text: str
    line: int
    reading: Classification


def reference_starts(text: str) -> list[int]:
    """The offsets where the references of ``text`` begin (the first is 0), in order."""
    starts = {0}
    starts.update(match.end() for match in _BLANK_LINE.finditer(text))
    records = [match.start() for match in _RECORD_START.finditer(text)]
    if len(starts) == 1 and not records:
        starts.update(match.end() for match in re.finditer(r"\n", text))
    starts.update(records)
    return sorted(starts)


def contradictions(
    text: str, entries: Sequence[Entry], check: Callable[[int], None] = lambda offset: None
) -> dict[int, tuple[str, ...]]:
    """For each entry (by its index in ``entries``) that disagrees with an entry of the other
    form in its reference, one warning per such entry, naming both items. ``check(start)`` is
    called before each entry is compared with the rest of its reference (a reading's deadline,
    ``extract.Bounds``)."""
    starts = reference_starts(text)
    by_reference: dict[int, list[int]] = {}
    for index, entry in enumerate(entries):
        if entry.reading.recognised and entry.reading.conversion is not None:
            by_reference.setdefault(bisect.bisect_right(starts, entry.start), []).append(index)
    warnings: dict[int, list[str]] = {}
    for indices in by_reference.values():
        if len(indices) > MAX_REFERENCE_ENTRIES:
            continue
        for position, one in enumerate(indices):
            check(entries[one].start)
            for other in indices[position + 1:]:
                if _disagreement(entries[one].reading, entries[other].reading) is None:
                    continue
                warnings.setdefault(one, []).append(_warning(entries[one], entries[other]))
                warnings.setdefault(other, []).append(_warning(entries[other], entries[one]))
    return {index: tuple(found) for index, found in warnings.items()}


def _disagreement(one: Classification, other: Classification) -> Message | None:
    """Why two readings of different forms name two items, or ``None`` (same item, same form,
    or nothing known that tells them apart)."""
    if one.form == other.form:
        return None
    first, second = one.conversion, other.conversion
    if first.utc != second.utc:
        return N_("their dates differ (%(first)s and %(second)s)", first=first.utc, second=second.utc)
    if first.ibip and second.ibip and first.ibip.casefold() != second.ibip.casefold():
        return N_("their servers differ (%(first)s and %(second)s)", first=first.ibip, second=second.ibip)
    return None


def _warning(this: Entry, other: Entry) -> Message:
    """The warning on ``this``: the other entry, where it is, both items, and why they differ."""
    return N_("this reference names two items: %(this)s here and %(other)s (\"%(text)s\", line %(line)s); %(why)s",
              this=this.reading.ibi, other=other.reading.ibi, text=" ".join(other.text.split()), line=other.line,
              why=_disagreement(this.reading, other.reading))
