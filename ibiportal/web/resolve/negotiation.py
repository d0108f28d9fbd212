"""Content negotiation on ``GET /<IBI>``: the citation instead of the redirect, as doi.org does.

A reference manager or a script that sends ``Accept: application/x-bibtex`` (or RIS, CSL-JSON,
or ``text/x-bibliography; style=…; locale=…``) gets the item's citation, made exactly as the Cite
page makes it (``:(oai_dc)`` resolved, the record read). Browsers send ``text/html`` (and
``*/*``) first, so they, and every client that does not name a citation type above all others,
keep today's redirect. The rules:

* the media ranges of ``Accept`` are taken in order of their q-value (``q=0`` means "not
  this"), ties in the order written;
* the first one that is a citation type we offer wins; a citation type with parameters we do
  not offer (``style=mla``, APA in ``locale=pt-BR``) is passed over;
* any other range met first (``text/html``, ``*/*``, ``application/json``…) means the redirect;
* when every acceptable range is a citation type we do not offer: 406, with the list of what is;
* an item whose own answer has no metadata but whose last edition has (§10.2) answers 404 with
  ``Link: <last edition>; rel="latest-version"`` (RFC 5829), what Cite offers in one click: the
  client chooses to cite that edition; the portal does not cite another item in its place.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from flask import Response

from ...citation import STYLES_BY_KEY
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
)


@dataclass(frozen=True)
class CitationFormat:
    """What to answer: a media type, and for text/x-bibliography the style key."""

    media_type: str
    style: str | None = None


@dataclass(frozen=True)
class NotOffered:
    """Only citation types were acceptable, and none of them is offered: 406."""


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


def _bibliography_style(parameters: dict[str, str]) -> str | None:
    """The style key ``style=…; locale=…`` names, or None if it is not offered."""
    languages = BIBLIOGRAPHY_STYLES.get(parameters.get("style", DEFAULT_STYLE).lower())
    if languages is None:
        return None
    locale = parameters.get("locale")
    if locale is None:
        return next(iter(languages.values()))
    return languages.get(locale.split("-")[0].split("_")[0].lower())


def negotiate(header: str | None) -> CitationFormat | NotOffered | None:
    """The citation ``Accept`` asks for, :class:`NotOffered`, or None for the redirect."""
    if not header or not mentions_citation(header):
        return None  # the common case (browsers, curl, Archives), decided without parsing
    passed_over = False
    for media_range in parse_accept(header):
        if media_range.media_type not in CITATION_TYPES:
            return None
        if media_range.media_type != BIBLIOGRAPHY:
            return CitationFormat(media_range.media_type)
        style = _bibliography_style(media_range.parameters)
        if style is not None:
            return CitationFormat(BIBLIOGRAPHY, style)
        passed_over = True
    return NotOffered() if passed_over else None


def mentions_citation(header: str) -> bool:
    """Whether ``Accept`` names a citation type at all: a cheap test before parsing it, also
    used to count such requests against the citation rate limit."""
    lowered = header.lower()
    return any(media_type in lowered for media_type in CITATION_TYPES)


def citation_response(wanted: CitationFormat | NotOffered, received: str) -> Response:
    """The citation of the persistent URL ``received`` in the negotiated format, or the 406."""
    if isinstance(wanted, NotOffered):
        text = "None of the media types in Accept is offered for this IBI. Offered:\n" + OFFERED
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
    else:
        body = forms.formatted[wanted.style] + "\n"
    headers = {
        "Vary": "Accept",
        "Link": f'<{result.record.persistent_url}>; rel="cite-as"',
        "X-IBI-Trace": trace_links(result.trace_id)["api"],
        "Cache-Control": "no-store",
    }
    if wanted.style is not None:
        headers["Content-Language"] = STYLES_BY_KEY[wanted.style].language
    return Response(body, 200, content_type=f"{wanted.media_type}; charset=utf-8", headers=headers)
