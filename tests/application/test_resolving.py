"""The resolve use case without Flask: a parsed persistent URL in, a stored trace and facts out."""
from __future__ import annotations

import ast
import functools
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ibiportal import config
from ibiportal.application import Application, Transports
from ibiportal.application.resolving import ArchiveGroup, ArchiveSet, Caller, Received, Site, TraceBudget
from ibiportal.ibi.url import PersistentUrl
from ibiportal.resolver.engine import Asked, ClientInfo
from ibiportal.resolver.http_transport import HttpTransport
from ibiportal.resolver.trace import AlertReason
from ibiportal.storage.database import Storage
from ibiportal.storage.traces import TraceStore
from tests.standard_examples import SECTION_10_1_URL

PACKAGE = Path(__file__).resolve().parents[2] / "ibiportal"
TRACED_AT = datetime(2026, 11, 24, 8, 30, 5, tzinfo=timezone.utc)
SITE = Site("http://portal.test", "http://portal.test/", "http://urlib.net/")
CLIENT = ClientInfo(("172.16.44.200", "150.163.68.1"), "pt-BR")


@pytest.fixture
def application(database_setting, tmp_path):
    settings = config.Settings(database=database_setting, trusted_proxies=("192.0.2.9",), instance=str(tmp_path))
    transports = Transports(http=HttpTransport, fan_out=HttpTransport, target_check=HttpTransport)
    built = Application(settings, functools.partial(Storage, database_setting), transports, clock=lambda: TRACED_AT,
                        testing=True)
    storage = built.storage()  # the test is one unit of work: the use cases share this connection
    yield built, storage
    built.close_storage()


def test_a_trace_resolves_the_parsed_url_and_keeps_its_facts(application):
    built, storage = application
    stored = built.resolving.trace(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8"), ArchiveSet(ArchiveGroup.DEMO), CLIENT, SITE)
    assert stored.resolution.url == SECTION_10_1_URL  # §10.1, answered by the demo mtc-m16c
    assert stored.resolution.request.ibi == PersistentUrl.parse("8JMKD3MGP8W/35MMLL8").ibi
    body = TraceStore(storage).load_trace(stored.trace_id)
    assert body["request"] == {"archives": "demo", "include_faulty": False, "client_ip": "172.16.44.200 150.163.68.1",
                               "accept_language": "pt-BR", "traced_at": "2026-11-24T08:30:05Z"}
    first_round = [step for step in body["trace"]["steps"] if step["kind"] == "urlRequest" and step["hop"] == 1]
    assert first_round and {(step["ibi"], tuple(step["verbs"]), tuple(step["client_ips"])) for step in first_round} == {
        ("8JMKD3MGP8W/35MMLL8", (), CLIENT.ip_addresses)}
    assert SITE.trace_permalink(stored.trace_id) == f"http://portal.test/api/v1/trace/{stored.trace_id}"


def test_requiring_the_original_changes_the_parsed_url_and_the_text_shown(application):
    built, _ = application
    original = Asked.parse("http://urlib.net/D7N2U8HW/3MP9QLE").requiring_original()
    assert original.text == "http://urlib.net/D7N2U8HW/3MP9QLE?ibiurl.requireditemstatus=Original"
    assert original.parsed.required_item_status == "Original"
    stored = built.resolving.trace(original, ArchiveSet(ArchiveGroup.DEMO), CLIENT, SITE)
    assert stored.resolution.alert.reason is AlertReason.CONFLICTING_ORIGINALS  # two demo Archives claim it


def test_a_not_found_is_diagnosed_from_the_traces_facts(application):
    built, _ = application
    stored = built.resolving.trace(Asked.parse("http://urlib.net/8JMKD3MGP8W/34PGRBS"), ArchiveSet(ArchiveGroup.DEMO), CLIENT, SITE)
    assert stored.resolution.alert.reason is AlertReason.NOT_FOUND
    assert stored.diagnosis is not None and stored.diagnosis.subsystem.prefix == "8JMKD3MGP8W"


def test_a_get_is_answered_in_one_call_then_from_the_cache(application):
    built, storage = application
    received, caller = Received.request("/ibi/8JMKD3MGP8W/35MMLL8", "http://portal.test"), Caller("172.16.44.200")
    assert received.url == "http://portal.test/8JMKD3MGP8W/35MMLL8" and received.rescued is None
    first = built.resolving.answer(received, caller, SITE)
    assert (first.url, first.cache, first.refusal) == (SECTION_10_1_URL, "miss", None)
    assert first.trace_url == SITE.trace_permalink(TraceStore(storage).recent_traces(1)[0][0])
    again = built.resolving.answer(received, caller, SITE)
    assert (again.url, again.cache, again.trace_url) == (SECTION_10_1_URL, "hit", first.trace_url)
    alert = built.resolving.answer(Received.request("/8JMKD3MGP8W/34PGRBS", "http://portal.test"), caller, SITE)
    assert alert.url is None and alert.alert.reason is AlertReason.NOT_FOUND and alert.diagnosis is not None
    assert alert.resolution.persistent_url == "http://portal.test/8JMKD3MGP8W/34PGRBS"


@pytest.mark.parametrize("path, status, message", [
    ("/8JMKD3MGP8W", 404, "There is no page /8JMKD3MGP8W on this portal, and it is not a persistent URL: "),
    ("/8JMKD3MGP8W/34PGRBS!!", 400, ""),
])
def test_what_is_no_persistent_url_is_refused_and_nothing_is_resolved(application, path, status, message):
    built, storage = application
    answer = built.resolving.answer(Received.request(path, "http://portal.test"), Caller("172.16.44.200"), SITE)
    assert answer.url is answer.alert is answer.trace_url is None
    assert answer.refusal.status == status and answer.refusal.position is not None
    assert str(answer.refusal.message).startswith(message)
    assert TraceStore(storage).recent_traces(10) == []


def test_a_checks_trace_budget_keeps_what_found_nothing_first():
    budget = TraceBudget(4)
    # Found resolutions take a trace only while more than half of the budget is left.
    assert [budget.take(found=True) for _ in range(3)] == [True, True, False]
    # Those that found nothing take the rest, and then nothing is kept.
    assert [budget.take(found=False) for _ in range(3)] == [True, True, False]
    assert not TraceBudget(0).take(found=False)


def test_a_checks_resolution_beyond_its_budget_keeps_no_trace(application):
    built, storage = application
    batch = built.resolving.batch(SITE)
    assert batch.traces.limit == built.settings.trace_retention // 2
    batch = replace(batch, endpoints=tuple(built.resolving.archive_endpoints(ArchiveSet(ArchiveGroup.DEMO), SITE.portal_url)),
                    traces=TraceBudget(1))
    url = Asked.parse("http://urlib.net/8JMKD3MGP8W/34PGRBS")
    kept = built.resolving.trace(url, ArchiveSet(ArchiveGroup.DEMO), CLIENT, SITE, batch)
    assert TraceStore(storage).load_trace(kept.trace_id)["diagnosis"]["ibi"] == "8JMKD3MGP8W/34PGRBS"
    beyond = built.resolving.trace(url, ArchiveSet(ArchiveGroup.DEMO), CLIENT, SITE, batch)
    assert beyond.resolution.alert.reason is AlertReason.NOT_FOUND  # resolved all the same
    assert beyond.trace_id is None and beyond.diagnosis is None and SITE.trace_link(beyond.trace_id) is None
    assert len(TraceStore(storage).recent_traces(10)) == 1


def test_the_client_is_the_callers_list_with_trusted_proxies_only(application):
    built, _ = application
    trusted = built.resolving.client(Caller("192.0.2.9", "203.0.113.7", "en"))
    assert trusted == ClientInfo(("203.0.113.7", "192.0.2.9"), "en")
    assert built.resolving.client(Caller("198.51.100.3", "203.0.113.7")).ip_addresses == ("198.51.100.3",)


def test_no_module_of_the_application_or_below_imports_flask():
    flask_free = ["application", "resolver", "archive", "protocol", "ibi", "storage", "citation"]
    importers = []
    for package in flask_free:
        for path in (PACKAGE / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(name == "flask" or name.startswith(("flask.", "flask_")) for name in names):
                    importers.append(str(path.relative_to(PACKAGE)))
    assert importers == []
