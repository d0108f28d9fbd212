"""The JSON API's contract: ``GET /api/v1/openapi.json`` describes every ``/api/v1/`` route of the
app, ``/api/docs`` shows it without script, and schemathesis calls every operation with
generated input: never a 5xx, every answer (refusals included) matching the document."""
from __future__ import annotations

import re

import pytest

from tests.web.api.contract import answer_as_documented, api_schema, operations  # noqa: F401 - api_schema: a fixture

_RULE_VARIABLE = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")
_IGNORED_METHODS = {"HEAD", "OPTIONS"}


def api_routes(app) -> set[tuple[str, str]]:
    """``(path, method)`` of every ``/api/v1/`` rule, variables written as OpenAPI writes them."""
    return {
        (_RULE_VARIABLE.sub(r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/v1/")
        for method in rule.methods - _IGNORED_METHODS
    }


def test_the_document_lists_every_api_route_of_the_app_and_no_other(client, app):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    document = response.get_json()
    assert document["openapi"].startswith("3.1")
    documented = {(path, method) for path, item in document["paths"].items() for method in item}
    assert documented == api_routes(app)
    assert ("/api/v1/trace/{trace_id}", "get") in documented  # path variables are compared too


def test_every_operation_documents_the_error_shape(client):
    document = client.get("/api/v1/openapi.json").get_json()
    error = document["components"]["schemas"]["Error"]
    assert error["required"] == ["error"]
    assert set(error["properties"]["error"]["required"]) == {"message", "position"}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            refusal = operation["responses"]["4XX"]["content"]["application/json"]["schema"]
            assert refusal == {"$ref": "#/components/schemas/Error"}, (method, path)


def test_a_change_documents_that_other_fields_are_refused(client):
    """The server refuses an item change's unknown field with a 400 naming it (tests/web/
    test_items_api.py); the document says so, or schemathesis (run against a portal) calls the
    refusal of a valid request a fault."""
    schema = client.get("/api/v1/openapi.json").get_json()["components"]["schemas"]["ItemChange"]
    assert schema["additionalProperties"] is False and "colour" not in schema["properties"]


def test_the_docs_page_shows_every_operation_without_script(client):
    response = client.get("/api/docs")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    document = client.get("/api/v1/openapi.json").get_json()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert f'id="{operation["operationId"]}"' in html
            assert f'<code class="path">{path}</code>' in html
    shared = re.sub(r'<script src="/static/js/(portal|busy)\.js" defer>', "", html)  # every page's own files
    assert "<script>" not in html and "<script " not in shared
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert 'href="/api/v1/openapi.json"' in html


def test_the_footer_of_every_page_links_the_docs(client):
    assert 'href="/api/docs"' in client.get("/").get_data(as_text=True)


# -- schemathesis: every operation without a request body (those with one: test_openapi_bodies.py)

@pytest.mark.parametrize("operation", operations(with_body=False))
def test_every_operation_answers_as_documented(api_schema, operation):
    """Every check of schemathesis (``--checks all``): no 5xx for any input; every status, content
    type, header and body as the document says; every call the document allows answered (not
    refused as bad input), every call it does not allow refused. 3 examples per operation, and
    schemathesis's boundary cases (most of the time: the slowest tests of the suite);
    `schemathesis run` against a live portal goes further (docs/api.md, The contract)."""
    answer_as_documented(api_schema, operation)


def test_a_get_of_a_post_only_api_path_is_a_405_naming_the_method(client):
    response = client.get("/api/v1/mint")
    assert response.status_code == 405
    assert "POST" in response.headers["Allow"] and "GET" not in response.headers["Allow"]
    assert response.get_json()["error"]["message"] == "GET is not possible at /api/v1/mint: it answers POST only."
    unknown = client.get("/api/v1/nothing")
    assert unknown.status_code == 404 and "no API endpoint /api/v1/nothing" in unknown.get_json()["error"]["message"]
