"""Converting many identifiers at once: the Convert page's batch, its CSV download, the batch API.

Input comes three ways, each read into numbered :class:`InputRow` s before anything converts:

* pasted text, one identifier per line (:func:`rows_from_lines`);
* a CSV file (:func:`rows_from_csv`, after :func:`decode_upload`): the identifier is the first
  column, or the column named ``ibi`` or ``identifier`` when the first row is such a header;
* a list, from the JSON API (:func:`rows_from_list`).

Limits (:data:`MAX_ROWS` identifiers, :data:`MAX_BYTES` of text) are checked on the whole input
first, so an input over them is refused as a whole, never converted in part. Then every row
converts on its own (:func:`convert_rows`, each by :func:`~ibiportal.ibi.conversion.convert`,
STANDARD.md §1.4): a bad row gets its error and position, and the good rows still convert.

:func:`to_csv` writes the result for spreadsheets, with cells that a spreadsheet would run as a
formula (OWASP "CSV injection") neutralised by a leading ``'``.

The same steps also stream, one row at a time, for inputs with no limit (a library's whole
catalogue through ``flask ibi convert --csv``): :func:`iter_csv_rows` reads records as they come,
:func:`iter_conversions` converts each, :func:`write_csv` writes each at once. Memory stays flat
whatever the number of rows; the web page and API keep their limits and collect their rows.
"""
from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO
from dataclasses import dataclass, replace

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Recorded, number
from ibiportal.ibi.classify import ibi_of, notes_as_warnings
from ibiportal.ibi.conversion import Conversion, convert

#: At most this many identifiers in one batch (blank lines and a header row not counted).
MAX_ROWS = 5000
#: At most this much text in one batch, in bytes of UTF-8 (1 MB).
MAX_BYTES = 1_000_000
#: Header names that mark the identifier column of a CSV file (compared case-insensitively).
HEADER_NAMES = ("ibi", "identifier")
#: Delimiters a CSV file may use; no IBI contains any of them (Tables 6.1 and 7.1).
DELIMITERS = (",", ";", "\t")
#: Characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: From this many rows on, a warning they share is shown once above the table (BatchResult.common_warnings).
COMMON_WARNING_ROWS = 3
#: Columns of the CSV download, the same as the page's table.
CSV_COLUMNS = ("line", "input", "repository name", "IBIp", "UTC date", "error", "error position", "warnings")
_BOM = "\ufeff"


@dataclass(frozen=True)
class InputRow:
    """One identifier to convert and the line of the input it came from (1-based).

    From a CSV file also its whole ``record`` and the file's ``columns`` (the header's names,
    or ``column 1``…), so the download keeps the user's own columns; and ``problem`` when the
    record itself could not be read (a stray quote): that row fails, the others convert.
    """

    line: int
    text: str
    record: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    problem: ParseError | None = None


@dataclass(frozen=True)
class BatchRow:
    """One converted row: its conversion, or the error that stopped it (never both)."""

    line: int
    input: str
    conversion: Conversion | None
    error: ParseError | None
    record: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """The API's row: ``{"line", "input", "rep", "ibip", "utc", "warnings", "error"}``."""
        done = self.conversion
        return {
            "line": self.line,
            "input": self.input,
            "rep": done.rep if done else None,
            "ibip": done.ibip if done else None,
            "utc": done.utc if done else None,
            "warnings": list(done.warnings) if done else [],
            "error": {"message": self.error.message, "position": self.error.position} if self.error else None,
        }


@dataclass(frozen=True)
class BatchResult:
    """Every row of a batch, in input order, with the counts the page shows."""

    rows: tuple[BatchRow, ...]

    @property
    def converted(self) -> int:
        return sum(1 for row in self.rows if row.conversion is not None)

    @property
    def failed(self) -> int:
        return sum(1 for row in self.rows if row.error is not None)

    @property
    def with_warnings(self) -> int:
        """Converted rows whose result is less than a fact (unknown prefix, ...): see their warnings."""
        return sum(1 for row in self.rows if row.conversion is not None and row.conversion.warnings)

    def common_warnings(self) -> tuple[str, ...]:
        """Warnings that :data:`COMMON_WARNING_ROWS` or more rows share word for word (such as the
        known spellings of one prefix): said once above the table instead of on every row."""
        counts: dict[str, int] = {}
        for row in self.rows:
            for warning in dict.fromkeys(row.conversion.warnings if row.conversion else ()):
                counts[warning] = counts.get(warning, 0) + 1
        return tuple(warning for warning, count in counts.items() if count >= COMMON_WARNING_ROWS)


def check_size(byte_count: int, what: str | None = None) -> None:
    """Refuse an input over :data:`MAX_BYTES` as a whole (``what``: a message naming it; the input)."""
    if byte_count > MAX_BYTES:
        what = what or N_("the input")
        raise ParseError(
            N_("%(what)s is %(byte_count)s bytes; at most %(max_bytes)s bytes (1 MB) convert at once: split it into smaller batches", what=what, byte_count=number(byte_count), max_bytes=number(MAX_BYTES))
        )


def _check_count(rows: Sequence[InputRow]) -> None:
    if len(rows) > MAX_ROWS:
        raise ParseError(
            N_("the input has %(length)s identifiers; at most %(max_rows)s convert at once (the first over the limit is on line %(line)s): split it into smaller batches", length=number(len(rows)), max_rows=number(MAX_ROWS), line=number(rows[MAX_ROWS].line))
        )


def decode_upload(data: bytes) -> str:
    """An uploaded file as text: UTF-8, with or without a byte-order mark, at most MAX_BYTES."""
    check_size(len(data), N_("the file"))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(
            N_("the file is not UTF-8 text (byte %(value)s cannot be read): save it as CSV UTF-8", value=number(exc.start + 1)),
            position=exc.start + 1,
        ) from exc


def rows_from_lines(text: str) -> list[InputRow]:
    """One identifier per line, spaces around it ignored; blank lines skipped but counted."""
    text = _normalise_newlines(text.removeprefix(_BOM))
    check_size(len(text.encode("utf-8")))
    rows = [
        InputRow(number, line.strip()) for number, line in enumerate(text.split("\n"), start=1) if line.strip()
    ]
    _check_count(rows)
    return rows


def rows_from_csv(text: str) -> list[InputRow]:
    """Rows of a CSV text: the identifier column, and the line each record starts on.

    The delimiter is whichever of ``,`` ``;`` tab comes first in the first non-blank line (no
    IBI contains any of them, so it ends the first cell), else ``,``. A first record with a cell named ``ibi`` or
    ``identifier`` is a header naming the identifier column; otherwise the identifier is the
    first column and every record is data. Blank records are skipped; a record without a value
    in the identifier column is a row with an empty identifier (an error of its own).
    """
    text = _normalise_newlines(text.removeprefix(_BOM))
    check_size(len(text.encode("utf-8")))
    rows = list(iter_csv_rows(io.StringIO(text, newline="")))
    _check_count(rows)
    return rows


def iter_csv_rows(lines: Iterable[str]) -> Iterator[InputRow]:
    """The rows of :func:`rows_from_csv`, read from ``lines`` (a file opened with universal
    newlines, or a text's lines) one record at a time, without limits: each is yielded as soon
    as its record has been read. Only the lines up to the first non-blank one are held, to find
    the delimiter."""
    lines = iter(lines)
    head: list[str] = []
    for line in lines:
        head.append(line.removeprefix(_BOM) if not head else line)
        if head[-1].strip():
            break
    first_line = head[-1] if head else ""
    delimiter = next((character for character in first_line if character in DELIMITERS), ",")
    reader = csv.reader(itertools.chain(head, lines), delimiter=delimiter, strict=True)
    column: int | None = None
    columns: tuple[str, ...] = ()
    start = 1
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # this record only: the reader goes on with the next line
            problem = ParseError(N_("this CSV record cannot be read: %(exc)s (in the record starting on line %(start)s)", exc=Recorded(str(exc)), start=number(start)),
                                 field="csv")
            yield InputRow(start, "", (), columns, problem)
            start = reader.line_num + 1
            continue
        if any(cell.strip() for cell in record):
            if column is None:  # the first record: a header, or the first row of data
                names = [cell.strip().lower() for cell in record]
                header = next((index for index, name in enumerate(names) if name in HEADER_NAMES), None)
                column = 0 if header is None else header
                if header is not None:
                    columns = tuple(cell.strip() for cell in record)
                    start = reader.line_num + 1
                    continue
                columns = tuple(N_("column %(number)s", number=number) for number in range(1, len(record) + 1))
            text = record[column].strip() if column < len(record) else ""
            yield InputRow(start, text, tuple(record), columns)
        start = reader.line_num + 1


def rows_from_list(texts: Sequence[str]) -> list[InputRow]:
    """The API's identifiers, numbered from 1; every item is a row, blank ones included."""
    check_size(sum(len(text.encode("utf-8")) for text in texts))
    rows = [InputRow(number, text.strip()) for number, text in enumerate(texts, start=1)]
    _check_count(rows)
    return rows


def convert_rows(rows: Iterable[InputRow], known_pairs: Iterable[Sequence[str]]) -> BatchResult:
    """Convert each row on its own: a bad row keeps its error, the others still convert."""
    return BatchResult(tuple(iter_conversions(rows, known_pairs)))


def iter_conversions(rows: Iterable[InputRow], known_pairs: Iterable[Sequence[str]]) -> Iterator[BatchRow]:
    """:func:`convert_rows` one row at a time, as the rows come. The pairs become one tuple for
    the whole batch, which the conversion's prefix cache recognises on every row."""
    pairs = tuple(tuple(pair) for pair in known_pairs)
    for row in rows:
        if row.problem is not None:
            yield BatchRow(row.line, row.text, None, row.problem, row.record, row.columns)
            continue
        try:
            converted = BatchRow(row.line, row.text, convert(row.text, pairs), None)
        except ParseError as exc:
            converted = _recognised_row(row, pairs, exc)
        yield replace(converted, record=row.record, columns=row.columns) if row.columns else converted


def _recognised_row(row: InputRow, pairs: Sequence[Sequence[str]], error: ParseError) -> BatchRow:
    """A row that is no bare IBI, read as the home page reads it (``IBI: <…>.``, a URL with
    ``/ibi/``, ``-TDI``, …): converted with the recogniser's notes among its warnings, or the
    row's error. Plain IBIs never come here, so a large batch pays nothing for it."""
    try:
        ibi, notes = ibi_of(row.text)
        if not notes:
            return BatchRow(row.line, row.text, None, error)
        conversion = convert(ibi, pairs)
    except ParseError as exc:
        return BatchRow(row.line, row.text, None, exc)
    warnings = notes_as_warnings(ibi, notes) + conversion.warnings
    return BatchRow(row.line, row.text, replace(conversion, input=row.text, warnings=warnings), None)


def to_csv(result: BatchResult) -> str:
    """The result as CSV text (RFC 4180: CRLF line ends, a header row of :data:`CSV_COLUMNS`)."""
    out = io.StringIO()
    write_csv(result.rows, out)
    return out.getvalue()


def write_csv(rows: Iterable[BatchRow], out: TextIO) -> int:
    """Write :func:`to_csv`'s text to ``out`` row by row as ``rows`` come; the rows that failed.

    After the conversion's columns come the user's own, as their CSV file had them (header
    names, or ``column 1``…): a catalogue's titles and shelf marks stay beside their IBIs.
    """
    writer = csv.writer(out, lineterminator="\r\n")
    failed = 0
    header_written = False
    for row in rows:
        if not header_written:
            writer.writerow([*CSV_COLUMNS, *(neutralise(name) for name in row.columns)])
            header_written = True
        done, error = row.conversion, row.error
        failed += error is not None
        cells = [
            str(row.line),
            row.input,
            (done.rep or "") if done else "",
            (done.ibip or "") if done else "",
            done.utc if done else "",
            error.message if error else "",
            str(error.position) if error and error.position is not None else "",
            " | ".join(done.warnings) if done else "",
            *row.record,
            *[""] * (len(row.columns) - len(row.record)),  # a short or unreadable record: empty cells
        ]
        writer.writerow([neutralise(cell) for cell in cells])
    if not header_written:
        writer.writerow(CSV_COLUMNS)
    return failed


def neutralise(cell: str) -> str:
    """A cell a spreadsheet would run as a formula gets a leading ``'``, so it stays text."""
    return f"'{cell}" if cell.startswith(FORMULA_STARTS) else cell


def _normalise_newlines(text: str) -> str:
    """CRLF (what browsers send from a text area) and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")
