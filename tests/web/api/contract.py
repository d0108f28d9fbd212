"""schemathesis over the JSON API's document, shared by the two contract files: the operations
with a request body (test_openapi_bodies.py) and those without (test_openapi.py), so that
pytest-xdist (``--dist loadfile``) runs them on both workers at once.

schemathesis builds an operation's test – its boundary cases (the coverage phase) generated as it
builds – when ``@schema.parametrize()`` is collected: in every pytest-xdist worker, a minute of
CPU each for tests only one of them runs; and under xdist and pytest 9 its items shared one test
id, so only one operation ran. Here each operation is a test of its own, built as it runs, by
the builder ``@schema.parametrize()`` calls (schemathesis's own ``from_fixture`` does the same,
but cannot name its subtests under pytest 9): the same cases and checks, built once.
One app for every generated call of a file. Rate limits off: the generated calls are many more
than a client's budget; the 429 itself is tested in tests/security/test_rate_limits.py.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import load_all_checks
from schemathesis.config import SchemathesisConfig
from schemathesis.generation.feedback import FeedbackSources
from schemathesis.generation.meta import TestPhase
from schemathesis.pytest._test_builder import build_operation_test
from schemathesis.python._constants.orchestrator import make_constants_value_source

import tests.web.api.openapi_formats  # noqa: F401 - the document's formats, registered for schemathesis
from ibiportal import create_app
from ibiportal.web.api.openapi import openapi_document
from tests.servers import fresh_sqlite


def operations(*, with_body: bool) -> list[str]:
    """The document's operations, ``METHOD /path`` in its order: those with a request body, or
    those without."""
    return [f"{method.upper()} {path}" for path, item in openapi_document()["paths"].items()
            for method, operation in item.items() if ("requestBody" in operation) == with_body]


# The repository's schemathesis.toml, as `schemathesis run … --checks all` reads it there: the
# generators of the document's formats (tests/web/api/openapi_formats.py) and the refusals no schema
# can say (a mint naming an item this portal does not hold, a 414 from gunicorn).
_CONFIG = SchemathesisConfig.from_path(Path(__file__).resolve().parents[3] / "schemathesis.toml")


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory):
    """The document as schemathesis reads it from one app, and the feedback (the document's
    constants) its tests share, as ``@schema.parametrize()`` makes them."""
    api_app = create_app({
        "TESTING": True,
        "DATABASE": fresh_sqlite(tmp_path_factory.mktemp("openapi") / "test.sqlite"),
        "SECRET_KEY": "test",
        "RATELIMIT_ENABLED": False,
        "GRANULARITY": "0.000001",  # a mint of 100 waits 100 µs for its dates, not 100 s
    })

    def from_a_client(environ, start_response):
        """The app as a server calls it: schemathesis's WSGI calls carry no REMOTE_ADDR, without
        which a resolution cannot send Table 8.9's client IP (cite answered 400 for that alone)."""
        environ.setdefault("REMOTE_ADDR", "192.0.2.10")
        return api_app(environ, start_response)

    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", from_a_client, config=_CONFIG)
    load_all_checks()
    return schema, FeedbackSources(constants_value_source=make_constants_value_source(schema))


def _refused_value(case) -> tuple | None:
    """The one parameter a boundary case makes wrong, and its wrong value: ``None`` for any other case.

    The coverage phase sends each wrong value of an optional parameter twice: beside every other
    parameter (``Array with invalid item at index 1: …``), and again beside the required ones only
    (``verb -> Array with invalid item at index 1: …``). Both ask the one rule – this value of this
    parameter is refused – of requests that are otherwise valid, so the second is not sent."""
    data = case.meta.phase.data
    if case.meta.phase.name != TestPhase.COVERAGE or not data.parameter or data.parameter_location is None:
        return None
    if not case.meta.is_negative_at(data.parameter_location):
        return None
    container = getattr(case, data.parameter_location.container_name, None) or {}
    if data.parameter not in container:
        return None
    return data.parameter_location.name, data.parameter, json.dumps(container[data.parameter], sort_keys=True, default=repr)


def answer_as_documented(api_schema, operation: str) -> None:
    """Every check of schemathesis (``--checks all``) on every generated call of ``operation``."""
    schema, feedback = api_schema
    found = schema.find_operation_by_label(operation)
    assert found is not None, f"schemathesis does not read {operation} in the document"
    refused: set[tuple] = set()

    @settings(max_examples=3, suppress_health_check=list(HealthCheck), deadline=None)
    def answers_as_documented(case):
        rule = _refused_value(case)
        if rule is not None:
            if rule in refused:
                return
            refused.add(rule)
        case.call_and_validate()

    build_operation_test(config=schema.config, operation=found, test_func=answers_as_documented,
                         given_kwargs={}, feedback=feedback)()
