"""The rule of an item's file paths: relative, inside the item, UTF-8 text, NAME_MAX segments."""
from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, strategies as st

from ibiportal.archive.file_path import MAX_PATH_BYTES, parse_file_path
from ibiportal.errors import ParseError


@pytest.mark.parametrize("text, expected", [
    ("report.pdf", "report.pdf"),
    ("docs/2009/Relatório Final.pdf", "docs/2009/Relatório Final.pdf"),
    ("cafe\u0301.pdf", "café.pdf"),  # NFD as macOS writes it: one file with the NFC name
    ("@target.html", "@target.html"),  # URLib's target files (Example 9.9)
    ("..hidden/.profile", "..hidden/.profile"),  # dots inside names are names
    ("x" * 255, "x" * 255),
    ("é" * 127 + "x", "é" * 127 + "x"),  # 255 bytes of UTF-8
])
def test_paths_kept(text, expected):
    assert parse_file_path(text) == expected
    assert parse_file_path(expected) == expected  # idempotent


@pytest.mark.parametrize("text, message, position", [
    ("", "empty", 1),
    ("/etc/passwd", "must be relative", 1),
    ("..", "a .. segment", 1),
    ("a/../b", "a .. segment", 3),
    ("./a", "a . segment", 1),
    ("a//b", "empty segment", 3),
    ("a/b/", "empty segment", 4),  # the trailing / itself
    ("0/", "empty segment", 2),  # found by the property below
    ("x" * 256, "256 bytes", 1),
    ("a/" + "é" * 128, "256 bytes", 3),
    ("tab\there", "control character U+0009", 4),
    ("new\nline", "control character U+000A", 4),
    ("del\x7f", "control character U+007F", 4),
    ("caf\ufffd.pdf", "not UTF-8", 4),
    ("/".join(["d" * 200] * 21), f"at most {MAX_PATH_BYTES}", 1),
    ("a\\..\\b", "backslash", 2),  # a folder separator where an item may be copied (Windows)
    ("a/%2e%2e/b", "reads as ..", 3),  # decoded again by a proxy or a client
    ("%252e/b", "reads as .", 1),
    ("a/..%2fb", "reads as /", 3),
    ("..%5cb", "reads as \\", 1),
    ("a/x%2500", "control character U+0000 once decoded", 3),
    ("\uff0e\uff0e/b", "reads as ..", 1),  # fullwidth dots: NFKC (Windows' best fit) reads ..
    ("a/\u2025", "reads as ..", 3),
    ("a\uff0fb", "reads as /", 1),
])
def test_paths_refused(text, message, position):
    with pytest.raises(ParseError) as refused:
        parse_file_path(text)
    assert message in refused.value.message
    assert refused.value.position == position and refused.value.field == "path"


@given(st.text(max_size=60))
def test_any_text_is_kept_in_nfc_or_refused_with_a_position(text):
    try:
        path = parse_file_path(text)
    except ParseError as refused:
        assert refused.position is not None and 1 <= refused.position <= max(1, len(text))
        return
    assert path == unicodedata.normalize("NFC", path)
    assert all(segment not in ("", ".", "..") for segment in path.split("/"))
    assert "\\" not in path
