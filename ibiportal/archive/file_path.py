"""The path of a file inside an item, as the own Archive keeps it and serves it.

URLib serves an item's files below its directory, ``/col/<repository name>/doc/<path>``, and
the resolver passes such a path on as ``parsedibiurl.filepath`` (file 003 Table 8.9, Example
9.11). The standard names no rule for the path itself; these are the rules of a Unix file name
below a directory, which is what URLib's paths are:

* relative: no leading ``/``; segments separated by ``/``, none empty, none ``.`` or ``..``
  (a path never leaves its item);
* as every reader may read it: no ``\\``, a folder separator on Windows,
  where an item may be copied; and no segment that reads as ``.``, ``..``, ``/``, ``\\`` or a
  control character once percent-decoded again (a proxy or a client that decodes twice) or
  folded to NFKC (Windows' best-fit mapping reads the fullwidth ``．`` as ``.``);
* text: UTF-8, no control characters (the U+FFFD a decoder puts for bytes that were not UTF-8
  is refused as such);
* each segment at most :data:`MAX_SEGMENT_BYTES` bytes of UTF-8 (``NAME_MAX`` of ext4 and most
  file systems), the whole at most :data:`MAX_PATH_BYTES` (``PATH_MAX``), so that an item
  copied to disk keeps every file name;
* Unicode NFC: ``café.pdf`` typed on one system and on another is one file.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from urllib.parse import unquote

from ..errors import ParseError
from ..i18n import N_

#: Bytes of UTF-8 in one segment of a file path (NAME_MAX).
MAX_SEGMENT_BYTES = 255

#: Bytes of UTF-8 in a whole file path (PATH_MAX).
MAX_PATH_BYTES = 4096

_FIELD = "path"


def parse_file_path(text: str) -> str:
    """``text`` as a file path of an item (module docstring), in NFC.

    Raises :class:`ParseError` naming what is wrong, with the 1-based character where it is.
    """
    if not text:
        raise ParseError(N_("the file path is empty: name the file, e.g. report.pdf"), 1, _FIELD)
    for index, character in enumerate(text):
        if character == "\ufffd":
            raise ParseError(N_("the file path is not UTF-8 (a byte that is not UTF-8 was sent)"), index + 1, _FIELD)
        if unicodedata.category(character) == "Cc":
            raise ParseError(N_("the file path has the control character U+%(value)04X", value=ord(character)), index + 1, _FIELD)
    if text.startswith("/"):
        raise ParseError(N_("the file path must be relative to the item: it may not begin with /"), 1, _FIELD)
    # Positions are counted in the text as sent; "/" never composes, so each segment is
    # normalized on its own and the path is their NFC forms joined.
    segments = []
    start = 0
    for given in text.split("/"):
        segment = unicodedata.normalize("NFC", given)
        if segment == "":  # a trailing "/" is the character named
            raise ParseError(N_("the file path has an empty segment (// or a / at the end)"),
                             min(start + 1, len(text)), _FIELD)
        if segment in (".", ".."):
            raise ParseError(N_("the file path may not have a %(segment)s segment: it stays inside the item", segment=segment),
                             start + 1, _FIELD)
        if "\\" in given:
            raise ParseError(N_("the file path may not have a backslash (\\): folders are separated by /"),
                             start + given.index("\\") + 1, _FIELD)
        _check_readings(segment, start + 1)
        size = len(segment.encode("utf-8"))
        if size > MAX_SEGMENT_BYTES:
            raise ParseError(
                N_("a segment of the file path has %(size)s bytes of UTF-8; at most %(max_segment_bytes)s are allowed", size=size, max_segment_bytes=MAX_SEGMENT_BYTES),
                start + 1, _FIELD,
            )
        segments.append(segment)
        start += len(given) + 1
    path = "/".join(segments)
    size = len(path.encode("utf-8"))
    if size > MAX_PATH_BYTES:
        raise ParseError(N_("the file path has %(size)s bytes of UTF-8; at most %(max_path_bytes)s are allowed", size=size, max_path_bytes=MAX_PATH_BYTES), 1, _FIELD)
    return path


def _check_readings(segment: str, position: int) -> None:
    """Refuse ``segment`` when a reader decoding it again or folding it reads a way out of the
    item in it (module docstring); ``position``: where the segment starts."""
    for reading in _readings(segment):
        if reading in (".", ".."):
            shown = reading
        elif "/" in reading or "\\" in reading:
            shown = "/" if "/" in reading else "\\"
        else:
            control = next((char for char in reading if unicodedata.category(char) == "Cc"), None)
            if control is None:
                continue
            raise ParseError(N_("the file path has a segment that reads as the control character U+%(value)04X once "
                                "decoded again", value=ord(control)), position, _FIELD)
        raise ParseError(N_("the file path may not have a segment that reads as %(reading)s once decoded again or "
                            "folded (NFKC): it stays inside the item", reading=shown), position, _FIELD)


def _readings(segment: str) -> Iterator[str]:
    """``segment`` percent-decoded again and again until it no longer changes (each decoding
    shortens it), each of these also in NFKC."""
    reading = segment
    while True:
        yield unicodedata.normalize("NFKC", reading)
        decoded = unquote(reading)
        if decoded == reading:
            return
        yield decoded
        reading = decoded
