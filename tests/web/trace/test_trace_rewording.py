"""The engine's sentences are for people only: reword every one (through a patched renderer) and
the Trace page, the facts of its JSON and its sequence diagram stay exactly the same."""
from __future__ import annotations

import itertools
import re
from concurrent.futures import Executor, Future
from datetime import datetime, timezone

import pytest

from ibiportal import create_app
from ibiportal.archive.demo import load_demo_archives
from ibiportal.resolver import wording
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver, ResolverSettings
from ibiportal.resolver.trace import Resolution
from ibiportal.resolver.local_transport import LocalTransport
from ibiportal.web.context import application
from ibiportal.web.trace.diagram import diagram_of
from ibiportal.web.trace.sequence import sequence_of
from ibiportal.storage.traces import TraceStore
from tests.servers import fresh_sqlite

CLIENT = ClientInfo(("172.16.44.200", "150.163.68.1"), "pt-BR,fr;q=0.8,en;q=0.5")

#: One of each outcome and of each kind of answer: found (§10.1), found after a second round
#: (§10.2), an edition chain, not found, deleted, two originals.
#: The garbled demo Archive answers malformed pair lists in every one.
URLS = (
    "http://urlib.net/8JMKD3MGP8W/35MMLL8",
    "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
    "http://urlib.net/D7N2U8HW/39G4TD2!",
    "http://urlib.net/8JMKD3MGP8W/34PGRBS",
    "http://urlib.net/D7N2U8HW/3GBBQK2",
    "http://urlib.net/D7N2U8HW/3MP9QLE?ibiurl.requireditemstatus=Original",
)


class InlineExecutor(Executor):
    """Runs each exchange at once: arrival order is the order of asking, so two runs are alike."""

    def submit(self, fn, /, *args, **kwargs):
        future: Future = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def resolve_all() -> list[dict]:
    """Every URL resolved against the demo Archives that answer at once, on clocks that tick the
    same in every run (one millisecond per reading) and with the same urlkey, so that two runs
    differ only in what the renderer says."""
    archives = load_demo_archives(clock=lambda: datetime(2026, 1, 1, tzinfo=timezone.utc),
                                  urlkey=lambda: "1767225600-12345678901234567890")
    transport = LocalTransport(archive for name, archive in archives.items() if name != "slow")
    ticks = itertools.count()
    resolver = Resolver(transport.endpoints(), {"local": transport}, settings=ResolverSettings(),
                        executor=InlineExecutor(), clock=lambda: next(ticks) / 1000)
    return [resolver.resolve(Asked.parse(url), CLIENT).to_dict() for url in URLS]


def reworded(step, *, alert=None, url=None) -> str:
    return "Reworded: " + ORIGINAL(step, alert=alert, url=url)[::-1]


ORIGINAL = wording.decision


CSRF_TOKEN = re.compile(r'(?<=name="csrf_token" type="hidden" value=")[^"]*|(?<=name="csrf_token" value=")[^"]*')


def without_sentences(body: dict) -> dict:
    return {**body, "trace": {"steps": [{**step, "decision": None} for step in body["trace"]["steps"]]}}


def pages(tmp_path, name: str, bodies: list[dict]) -> list[tuple[str, dict]]:
    """Each trace stored under a fixed id in a fresh portal: its page and its JSON download."""
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / f"{name}.sqlite"), "SECRET_KEY": "test"})
    client = app.test_client()
    shown = []
    for number, body in enumerate(bodies):
        stored = {**body, "request": {"archives": "demo", "client_ip": "172.16.44.200", "traced_at": "2026-01-01T00:00:00Z"}}
        with app.app_context():
            TraceStore(application().storage()).save_trace(f"T{number}", body["persistent_url"], "x", stored, 100, 10**7)
        page = client.get(f"/trace/T{number}")
        assert page.status_code == 200
        html = CSRF_TOKEN.sub("", page.get_data(as_text=True))  # a fresh one per session
        shown.append((html, client.get(f"/trace/T{number}.json").get_json()))
    return shown


@pytest.fixture
def both(monkeypatch):
    plain = resolve_all()
    monkeypatch.setattr(wording, "decision", reworded)
    return plain, resolve_all()


def test_every_sentence_was_reworded_and_every_fact_is_unchanged(both):
    plain, changed = both
    for before, after in zip(plain, changed):
        sentences = [(a["decision"], b["decision"]) for a, b in zip(before["trace"]["steps"], after["trace"]["steps"])]
        assert sentences and all(b.startswith("Reworded: ") and a != b for a, b in sentences)
        assert without_sentences(before) == without_sentences(after)


def test_the_trace_page_its_json_and_its_diagram_do_not_change(both, tmp_path):
    plain, changed = both
    for (page, body), (page_after, body_after) in zip(pages(tmp_path, "plain", plain), pages(tmp_path, "reworded", changed)):
        assert page == page_after
        assert "Reworded" not in page_after
        assert without_sentences(body) == without_sentences(body_after)
    for before, after in zip(plain, changed):
        first, second = sequence_of(Resolution.from_dict(before)), sequence_of(Resolution.from_dict(after))
        assert first == second and diagram_of(first) == diagram_of(second)
