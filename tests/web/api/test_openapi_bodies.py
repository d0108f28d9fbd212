"""The JSON API's contract, the operations with a request body (mint, trace, an item's change…):
schemathesis calls each with generated input and bodies, as test_openapi.py calls the others, so
that the two halves run on both pytest-xdist workers at once (tests/web/api/contract.py)."""
from __future__ import annotations

import pytest

from ibiportal.web.api.openapi import openapi_document
from tests.web.api.contract import answer_as_documented, api_schema, operations  # noqa: F401 - api_schema: a fixture


@pytest.mark.parametrize("operation", operations(with_body=True))
def test_every_operation_with_a_body_answers_as_documented(api_schema, operation):
    """Every check of schemathesis (``--checks all``), as in test_openapi.py: no 5xx for any body;
    every answer as the document says; every body it allows answered, every other refused."""
    answer_as_documented(api_schema, operation)


def test_the_two_files_call_every_operation_once():
    document = {f"{method.upper()} {path}" for path, item in openapi_document()["paths"].items() for method in item}
    with_body, without = operations(with_body=True), operations(with_body=False)
    assert sorted(with_body + without) == sorted(document) and with_body and without
