"""Formatted citations as rich text: runs of plain, italic and bold text.

Styles emphasise parts of a reference (APA's italic title, NBR 6023's bold title), and a
word processor keeps that emphasis only if it is pasted as HTML. A :class:`Rich` text is
written once by a style and read two ways — :meth:`Rich.plain` for the API, downloads and the
clipboard's text, :meth:`Rich.html` for the pages and the clipboard's HTML — so the two can
never say different things.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape

PLAIN, ITALIC, BOLD = "", "i", "b"


@dataclass(frozen=True)
class Run:
    """A piece of text and its emphasis (:data:`PLAIN`, :data:`ITALIC` or :data:`BOLD`)."""

    text: str
    emphasis: str = PLAIN


@dataclass(frozen=True)
class Rich:
    """A formatted text: its runs in order."""

    runs: tuple[Run, ...] = ()

    def plain(self) -> str:
        return "".join(run.text for run in self.runs)

    def html(self) -> str:
        """Escaped HTML with ``<i>`` and ``<b>``: the markup word processors read on paste."""
        parts = []
        for run in self.runs:
            text = escape(run.text, quote=False)
            parts.append(f"<{run.emphasis}>{text}</{run.emphasis}>" if run.emphasis and text else text)
        return "".join(parts)


class RichBuilder:
    """Appends runs, merging neighbours of the same emphasis."""

    def __init__(self) -> None:
        self._runs: list[Run] = []

    def add(self, text: str, emphasis: str = PLAIN) -> RichBuilder:
        if not text:
            return self
        if self._runs and self._runs[-1].emphasis == emphasis:
            self._runs[-1] = Run(self._runs[-1].text + text, emphasis)
        else:
            self._runs.append(Run(text, emphasis))
        return self

    def ends_with(self, characters: str) -> bool:
        return bool(self._runs) and self._runs[-1].text.endswith(tuple(characters))

    def build(self) -> Rich:
        return Rich(tuple(self._runs))
