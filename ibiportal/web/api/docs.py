"""The API's contract, served: ``GET /api/v1/openapi.json`` and ``/api/docs``, its readable page.

The page is drawn on the server from the same document, so it needs no script and nothing from
outside the portal (the Content-Security-Policy allows neither a CDN nor inline script).
"""
from __future__ import annotations

import json
import re

from flask import Blueprint, jsonify, render_template
from markupsafe import Markup, escape

from .openapi import openapi_document
from .views import bp

#: The page is not under ``/api/v1/`` (it is HTML, not part of the versioned API).
docs_bp = Blueprint("api_docs", __name__)

_METHODS = ("get", "post", "put", "patch", "delete")


@bp.get("/openapi.json")
def openapi_json():
    """The OpenAPI 3.1 document of every ``/api/v1/`` route."""
    return jsonify(openapi_document())


@docs_bp.get("/api/docs")
def docs_page():
    """Every operation with its parameters, body and answers, and the schemas they use."""
    document = openapi_document()
    operations = [
        (path, method.upper(), operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in _METHODS
    ]
    return render_template("api/docs.html", document=document, operations=operations,
                           as_json=schema_markup, prose=prose_markup)


_REFERENCE = re.compile(r"&#34;#/components/schemas/(\w+)&#34;")
_CODE_SPAN = re.compile(r"`([^`]+)`")


def schema_markup(schema: object) -> Markup:
    """A schema as indented JSON, each ``$ref`` a link to the schema it names on the page."""
    text = str(escape(json.dumps(schema, indent=2, ensure_ascii=False)))
    return Markup(_REFERENCE.sub(r'<a href="#schema-\1">"#/components/schemas/\1"</a>', text))


def prose_markup(text: str | None) -> Markup:
    """A description with its Markdown code spans (`x`) as ``<code>``; everything else escaped."""
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", str(escape(text or ""))))
