"""Batch conversion core: reading lines and CSV, limits, per-row errors, the CSV written."""
from __future__ import annotations

import csv
import io

import pytest

from ibiportal.errors import ParseError
from ibiportal.ibi import batch, prefixes
from ibiportal.ibi.batch import InputRow
from ibiportal.ibi.ibip import ibip_prefix
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS

IBIP = "8JMKD3MGP8W/34PGRBS"
REP = "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"
BAD = "8JMKD3MGP8W/34PGRBV"  # 'V' at character 19 (Table 7.1)


def test_lines_skip_blank_ones_but_keep_their_numbers():
    text = f"\ufeff{IBIP}\r\n\r\n   \n  {REP}  \rLK47B6W/362SFKH"
    assert batch.rows_from_lines(text) == [
        InputRow(1, IBIP),
        InputRow(4, REP),
        InputRow(5, "LK47B6W/362SFKH"),
    ]


def test_lines_of_nothing_are_no_rows():
    assert batch.rows_from_lines("\n \n\t\n") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"{IBIP}\n{REP}\n", [InputRow(1, IBIP), InputRow(2, REP)]),  # no header: first column
        (f"ibi\n{IBIP}\n", [InputRow(2, IBIP)]),
        (f"Title,IDENTIFIER\nA,{IBIP}\n", [InputRow(2, IBIP)]),  # header names are case-insensitive
        (f" title ; ibi \nA;{IBIP}\n", [InputRow(2, IBIP)]),  # semicolons, as pt-BR spreadsheets save
        (f"title\tibi\nA\t{IBIP}\n", [InputRow(2, IBIP)]),
        (f'ibi,title\n{IBIP},"One, two"\n"{REP}","three\nlines\nlong"\nLK47B6W/362SFKH,x\n',
         [InputRow(2, IBIP), InputRow(3, REP), InputRow(6, "LK47B6W/362SFKH")]),  # quoted, multi-line cells
        (f"\n\n{IBIP},x\n,\n  ,  \n{REP}\n", [InputRow(3, IBIP), InputRow(6, REP)]),  # blank records skipped
        (f"title,ibi\nA\nB,{IBIP}\n", [InputRow(2, ""), InputRow(3, IBIP)]),  # a short record: empty identifier
    ],
)
def test_csv_rows(text, expected):
    assert [(row.line, row.text) for row in batch.rows_from_csv(text)] == [(row.line, row.text) for row in expected]


def test_csv_with_byte_order_mark_and_crlf():
    data = b"\xef\xbb\xbfibi,title\r\n" + IBIP.encode() + b",caf\xc3\xa9\r\n"
    (row,) = batch.rows_from_csv(batch.decode_upload(data))
    assert (row.line, row.text, row.record, row.columns) == (2, IBIP, (IBIP, "café"), ("ibi", "title"))


def test_upload_that_is_not_utf8_names_the_byte():
    with pytest.raises(ParseError) as caught:
        batch.decode_upload(b"ibi\ncaf\xe9\n")
    assert "not UTF-8" in caught.value.message and caught.value.position == 8


def test_a_malformed_csv_record_is_an_error_of_its_own_row_and_the_rest_converts():
    rows = batch.rows_from_csv(f'ibi,title\n{IBIP},ok\n"{REP}"x,bad\nLK47B6W/362SFKH,good\n')
    assert [(row.line, row.text, row.problem is None) for row in rows] == [
        (2, IBIP, True), (3, "", False), (4, "LK47B6W/362SFKH", True)]
    assert "this CSV record cannot be read" in rows[1].problem.message and "line 3" in rows[1].problem.message
    result = batch.convert_rows(rows, KNOWN_PREFIX_PAIRS)
    assert (result.converted, result.failed) == (2, 1)
    assert result.rows[1].error is rows[1].problem


def test_an_unclosed_quote_is_the_error_of_the_record_it_opens():
    (first, broken) = batch.rows_from_csv(f'{IBIP}\n{REP},"unclosed\nmore\n')
    assert (first.line, first.problem) == (1, None)
    assert broken.line == 2 and "cannot be read" in broken.problem.message


def test_the_download_keeps_the_users_columns():
    rows = batch.rows_from_csv(f'title;ibi;shelf\nReport;{IBIP};=A1\nBroken;x;B2\n')
    text = batch.to_csv(batch.convert_rows(rows, KNOWN_PREFIX_PAIRS))
    lines = text.split("\r\n")
    assert lines[0] == ",".join(batch.CSV_COLUMNS) + ",title,ibi,shelf"
    assert lines[1].startswith(f"2,{IBIP},sid.inpe.br/mtc-m18@80/2009/02.16.17.46,") and lines[1].endswith(f",Report,{IBIP},'=A1")
    assert lines[2].endswith(",Broken,x,B2")


def test_without_a_header_the_users_columns_are_numbered():
    text = batch.to_csv(batch.convert_rows(batch.rows_from_csv(f"{IBIP},Report\n"), KNOWN_PREFIX_PAIRS))
    assert text.split("\r\n")[0].endswith(",column 1,column 2")


def test_a_warning_many_rows_share_is_common():
    rows = batch.rows_from_lines("\n".join(["8JMKD3MGP8W/34PGRBS", "8JMKD3MGP8W/35MMLL8", "8JMKD3MGP8W/3C9EP6P", "LK47B6W/362SFKH"]))
    result = batch.convert_rows(rows, KNOWN_PREFIX_PAIRS)
    (common,) = result.common_warnings()
    assert common.startswith("8JMKD3MGP8W has 2 known repository-name spellings")
    assert [common in row.conversion.warnings for row in result.rows] == [True, True, True, False]
    two = batch.convert_rows(rows[:2], KNOWN_PREFIX_PAIRS)
    assert two.common_warnings() == ()  # under COMMON_WARNING_ROWS rows it stays on each row


@pytest.mark.parametrize("reader", [batch.rows_from_lines, batch.rows_from_csv])
def test_more_rows_than_the_limit_are_refused_as_a_whole(reader):
    at_limit = "\n".join([IBIP] * batch.MAX_ROWS)
    assert len(reader(at_limit)) == batch.MAX_ROWS
    with pytest.raises(ParseError) as caught:
        reader(at_limit + "\n\n" + IBIP)
    assert "5,001 identifiers; at most 5,000" in caught.value.message
    assert "line 5,002" in caught.value.message  # the blank line is counted


def test_more_bytes_than_the_limit_are_refused_as_a_whole():
    line = IBIP + " " * 80 + "\n"  # spaces count: they are part of the text sent
    text = line * (batch.MAX_BYTES // len(line) + 1)
    with pytest.raises(ParseError) as caught:
        batch.rows_from_lines(text)
    assert "at most 1,000,000 bytes" in caught.value.message
    with pytest.raises(ParseError):
        batch.decode_upload(text.encode())
    with pytest.raises(ParseError):
        batch.rows_from_list([line] * (batch.MAX_BYTES // len(line) + 1))


def test_list_keeps_every_item_as_a_row():
    assert batch.rows_from_list([IBIP, "", f" {REP} "]) == [InputRow(1, IBIP), InputRow(2, ""), InputRow(3, REP)]
    with pytest.raises(ParseError, match="5,001 identifiers"):
        batch.rows_from_list([IBIP] * (batch.MAX_ROWS + 1))


def test_bad_rows_get_their_error_and_position_while_good_rows_convert():
    rows = [InputRow(1, IBIP), InputRow(2, BAD), InputRow(4, ""), InputRow(5, "dpi.inpe.br/banon/1999/01.09.22.14")]
    result = batch.convert_rows(rows, KNOWN_PREFIX_PAIRS)
    first, bad, empty, unknown = result.rows
    assert first.conversion.rep == "sid.inpe.br/mtc-m18@80/2009/02.16.17.46" and first.error is None
    assert bad.conversion is None and bad.line == 2
    assert "'V'" in bad.error.message and bad.error.position == 19
    assert empty.error.message == "empty identifier"
    assert unknown.conversion.ibip is None and unknown.conversion.warnings  # converted, prefix unknown
    assert (result.converted, result.failed, result.with_warnings) == (2, 2, 2)
    assert bad.to_dict() == {
        "line": 2, "input": BAD, "rep": None, "ibip": None, "utc": None, "warnings": [],
        "error": {"message": bad.error.message, "position": 19},
    }


def test_csv_output_has_the_table_columns_and_one_row_per_input():
    result = batch.convert_rows([InputRow(1, REP), InputRow(3, BAD)], KNOWN_PREFIX_PAIRS)
    text = batch.to_csv(result)
    assert text.startswith("line,input,repository name,IBIp,UTC date,error,error position,warnings\r\n")
    good, bad = csv.DictReader(io.StringIO(text, newline=""))
    assert good == {
        "line": "1", "input": REP, "repository name": REP, "IBIp": IBIP, "UTC date": "2009-02-16T17:46:00Z",
        "error": "", "error position": "", "warnings": "",
    }
    assert bad["line"] == "3" and bad["IBIp"] == "" and bad["error position"] == "19" and "'V'" in bad["error"]


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ("=HYPERLINK(\"http://evil\")", "'=HYPERLINK(\"http://evil\")"),
        ("+1", "'+1"),
        ("-1+2", "'-1+2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "'\rcmd"),
        (IBIP, IBIP),
        ("", ""),
        ("a=b", "a=b"),
    ],
)
def test_formula_cells_are_neutralised(cell, written):
    assert batch.neutralise(cell) == written


def test_formula_input_is_neutralised_in_the_download():
    result = batch.convert_rows(batch.rows_from_lines('=HYPERLINK("http://evil.example","x")\n@cmd'), KNOWN_PREFIX_PAIRS)
    rows = list(csv.reader(io.StringIO(batch.to_csv(result), newline="")))
    assert [row[1] for row in rows[1:]] == ["'=HYPERLINK(\"http://evil.example\",\"x\")", "'@cmd"]
    assert all(row[5] for row in rows[1:])  # both are bad rows, with their error


def test_the_prefix_table_is_decoded_once_per_batch_not_once_per_row(monkeypatch):
    """55 pairs decoded for each of 5,000 rows took 15 s; decoded once, the batch takes about 1 s."""
    pairs = list(KNOWN_PREFIX_PAIRS) + [(f"batch{i}.example.org/repo", ibip_prefix(f"198.51.100.{i}")) for i in range(50)]
    decoded = []
    real = prefixes.decode_ibip_prefix
    monkeypatch.setattr(prefixes, "decode_ibip_prefix", lambda text: decoded.append(text) or real(text))
    result = batch.convert_rows(batch.rows_from_lines(f"{IBIP}\n{REP}\n" * 200), pairs)
    assert result.converted == 400
    assert len(decoded) == len(pairs)
