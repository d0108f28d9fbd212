"""Checks every IBI parser shares: the text is a non-empty string of bounded length.

The bound is 255 characters, the example label set of file 004 §5 ("all the strings of a
maximum of 255 alphanumeric characters"); real IBIs are far shorter (about 40 characters),
and the bound keeps the parsers' work small on hostile input.
"""
from __future__ import annotations

from ibiportal.errors import ParseError
from ibiportal.i18n import N_

#: Longest accepted IBI, in characters (file 004 §5).
MAX_LENGTH = 255
#: The separator between prefix and suffix, and inside each in the repository-name form.
SEPARATOR = "/"
#: TCP ports a prefix may name (both forms).
MIN_PORT, MAX_PORT = 1, 65535


def check_text(text: str) -> None:
    """Raise :class:`ParseError` for a non-string, an empty text, or one over MAX_LENGTH."""
    if not isinstance(text, str):
        raise ParseError(N_("an IBI is a string, not %(type)s", type=type(text).__name__))
    if not text:
        raise ParseError(N_("empty identifier"))
    if len(text) > MAX_LENGTH:
        raise ParseError(N_("identifier longer than %(limit)d characters", limit=MAX_LENGTH), position=MAX_LENGTH + 1)


def separator_indexes(text: str) -> list[int]:
    """0-based indexes of every ``/`` in the text."""
    return [index for index, character in enumerate(text) if character == SEPARATOR]


def check_port(port: int) -> None:
    """Raise :class:`ParseError` (field ``port``) unless ``port`` is an int in 1-65535."""
    if isinstance(port, bool) or not isinstance(port, int):
        raise ParseError(N_("port must be an integer, not %(value)r", value=port), field="port")
    if not MIN_PORT <= port <= MAX_PORT:
        raise ParseError(N_("port %(port)d out of range %(low)d-%(high)d", port=port, low=MIN_PORT, high=MAX_PORT), field="port")
