"""The Cite use case (:class:`ibiportal.application.citing.Citing`) called from a request: the
input parsed once, the request's client and site, and the trace's links for the pages."""
from __future__ import annotations

from flask import url_for

from ...application.citing import CiteProblem, CiteRequest, CiteResult
from ...citation import STYLES_BY_KEY
from ...citation.csl import locale_name, style_name
from ..context import application, request_client, request_site, resolver_base

__all__ = ["CiteProblem", "CiteResult", "cite", "cite_or_last_edition", "other_style", "trace_links"]


def cite(text: str | None) -> CiteResult:
    """The citation of the item ``text`` names; a ParseError naming ``ibi``, or a CiteProblem."""
    wanted = CiteRequest.parse(text, resolver_base())
    return application().citing.cite(wanted, request_client(), request_site())


def cite_or_last_edition(text: str | None) -> tuple[CiteResult, CiteProblem | None]:
    """The citation of the item ``text`` names, or its last edition's with the problem that says
    why (:meth:`~ibiportal.application.citing.Citing.cite_or_last_edition`): the Cite page's."""
    wanted = CiteRequest.parse(text, resolver_base())
    return application().citing.cite_or_last_edition(wanted, request_client(), request_site())


def other_style(style: str | None, locale: str | None) -> tuple[str, str] | None:
    """The CSL style asked for besides the six hand-written ones (``style=``, ``locale=``) as
    ``(style, locale)``; None when none is, or one of the six (their language is their own).
    An unknown name is :class:`~ibiportal.citation.csl.UnknownStyle` (or ``UnknownLocale``),
    found before anything is resolved."""
    if not style or not style.strip() or style.strip().lower() in STYLES_BY_KEY:
        return None
    return style_name(style), locale_name(locale)


def trace_links(trace_id: str) -> dict[str, str]:
    """The trace's permalinks: ``api`` (JSON) and ``page`` (the Trace page)."""
    return {"api": request_site().trace_permalink(trace_id), "page": url_for("trace.trace_view", trace_id=trace_id)}
