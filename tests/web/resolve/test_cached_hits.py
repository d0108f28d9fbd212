"""A redirect answered before Flask's dispatch (``web/cached_hits.py``), cached or resolved there,
answers what Flask answers: the same requests sent through both paths give the same status,
headers (all but the request id and the trace's), body, metrics, acknowledgment, usage count,
access log line and stored trace; an alert or a failure resolved there is rendered by Flask, and
nothing is resolved twice; and every request the layer is not certain of reaches Flask, whose
edge checks answer it as before."""
from __future__ import annotations

import io
import re
import threading
from contextlib import contextmanager
from datetime import timedelta
from types import SimpleNamespace

import pytest
import requests
from werkzeug.test import EnvironBuilder

from ibiportal import create_app, metrics
from ibiportal.application.resolving import Resolving
from ibiportal.resolver.local_transport import LocalTransport
from ibiportal.web.access_log import access_line
from ibiportal.web.cached_hits import CachedHits
from ibiportal.web.context import APPLICATION
from ibiportal.web.log_format import access_fields
from tests.servers import fresh_sqlite, loopback_server

PDF = b"%PDF-1.4\n" + b"x" * 100


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cached-hits")
    return create_app({"TESTING": True, "DATABASE": fresh_sqlite(folder / "portal.sqlite"), "SECRET_KEY": "test",
                       "WTF_CSRF_ENABLED": False, "INSTANCE_PATH": str(folder)})


@pytest.fixture(scope="module")
def items(app) -> dict[str, str]:
    """Own items: one redirecting elsewhere, one to its landing page (Signposting), by IBIp."""
    token = app.test_cli_runner().invoke(args=["api-token", "create", "tests"]).output.strip().splitlines()[-1]
    auth = {"Authorization": f"Bearer {token}"}
    client = app.test_client()
    elsewhere = client.post("/api/v1/mint", json={"title": "Fora", "target_url": "https://example.org/a?b=c"},
                            headers=auth).get_json()["ibip"]
    landing = client.post("/api/v1/mint", json={"title": "Relatório", "item_type": "report"}, headers=auth).get_json()["ibip"]
    assert client.put(f"/api/v1/items/{landing}/files/docs/relatório.pdf", data=PDF,
                      headers={**auth, "Content-Type": "application/pdf"}).status_code in (200, 201)
    return {"elsewhere": elsewhere, "landing": landing}


def layer(app) -> CachedHits:
    hits = app.wsgi_app.app  # ServicePaths around it
    assert isinstance(hits, CachedHits)
    return hits


@contextmanager
def passed_on(app):
    """A list that gets an entry for each request the layer hands to Flask while the block runs."""
    hits, handed = layer(app), []
    inner = hits.wsgi_app
    hits.wsgi_app = lambda environ, start: handed.append(1) or inner(environ, start)
    try:
        yield handed
    finally:
        hits.wsgi_app = inner


def environ(path: str, *, query: str = "", method: str = "GET", headers: dict | None = None, **extra) -> dict:
    """What gunicorn hands the app (``RAW_URI`` as sent)."""
    built = EnvironBuilder(path=path, query_string=query or None, method=method, headers=headers or {},
                           base_url=extra.pop("base_url", "http://localhost"),
                           environ_base={"REMOTE_ADDR": "192.0.2.7", "SERVER_PROTOCOL": "HTTP/1.1", **extra}).get_environ()
    built["RAW_URI"] = path + (f"?{query}" if query else "")
    return built


def call(wsgi, env: dict) -> tuple[str, list[tuple[str, str]], bytes]:
    """``env`` sent to ``wsgi`` (which may write into it): the status, headers and body."""
    started = {}

    def start_response(status, headers, exc_info=None):
        started.update(status=status, headers=list(headers))

    body = wsgi(env, start_response)
    data = b"".join(body)
    getattr(body, "close", lambda: None)()
    return started["status"], started["headers"], data


def counted() -> dict[tuple, float]:
    """The metrics a resolution moves, by name and labels."""
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for metric in (metrics.RESOLUTIONS, metrics.ACKNOWLEDGMENTS, metrics.NOTICES)
            for family in metric.collect() for sample in family.samples if sample.name.endswith("_total")}


def acknowledgments_sent() -> float:
    return sum(value for (name, _), value in counted().items() if name == "ibiportal_acknowledgments_total")


def moved(before: dict, after: dict) -> dict:
    return {key: value - before.get(key, 0) for key, value in after.items() if value != before.get(key, 0)}


@pytest.fixture
def acknowledgments(monkeypatch) -> list[str]:
    """The acknowledgments (5) the own Archive received, as URLs."""
    sent: list[str] = []
    fetch = LocalTransport.fetch

    def recording(self, url, timeouts):
        if "servicesubject=acknowledgment" in url:
            sent.append(url)
        return fetch(self, url, timeouts)

    monkeypatch.setattr(LocalTransport, "fetch", recording)
    return sent


def served(app, wsgi, env: dict, sent: list[str]) -> dict:
    """One request through ``wsgi``: its answer and what it moved."""
    usage = app.extensions[APPLICATION].usage
    usage.tally.take()
    before, sent_before, env = counted(), len(sent), dict(env)
    status, headers, body = call(wsgi, env)
    response = SimpleNamespace(status=status, headers=headers, sent=len(body))
    request_headers = [(name[5:].replace("_", "-"), value) for name, value in env.items() if name.startswith("HTTP_")]
    line = access_line(response, request_headers, env, timedelta(0))
    return {"status": status, "headers": [(n, v) for n, v in headers if n != "X-Request-ID"],
            "request_ids": [v for n, v in headers if n == "X-Request-ID"], "body": body,
            "metrics": moved(before, counted()), "acknowledgments": sent[sent_before:],
            "usage": sorted(usage.tally.take().values()), "log": re.sub(r"\[[^]]*\]", "[time]", line),
            "json_log": access_fields(response, env, timedelta(0))}


HITS = {
    "elsewhere": dict(item="elsewhere"),
    "landing page": dict(item="landing"),
    "query": dict(item="elsewhere", query="a=b&c=d/e"),
    "https": dict(item="landing", base_url="https://localhost", **{"wsgi.url_scheme": "https"}),
    "proxied": dict(item="elsewhere", headers={"X-Forwarded-For": "198.51.100.4", "Accept-Language": "pt-BR",
                                               "User-Agent": "curl/8", "X-Request-ID": "abc-123"}),
    "ibi segment": dict(item="landing", segment="/ibi"),
}


@pytest.mark.parametrize("case", HITS, ids=list(HITS))
def test_a_cached_hit_is_answered_as_flask_answers_it(app, items, acknowledgments, case):
    options = dict(HITS[case])
    item = options.pop("item")
    path = options.pop("segment", "") + "/" + items[item]
    env = environ(path, **options)
    hits = layer(app)
    first = call(app.wsgi_app, dict(env))  # a miss, resolved through Flask, fills the cache
    assert first[0] == "302 FOUND" and dict(first[1])["X-IBI-Cache"] in ("miss", "hit")
    with passed_on(app) as handed:
        fast = served(app, app.wsgi_app, env, acknowledgments)
    through_flask = served(app, hits.wsgi_app, env, acknowledgments)
    assert not handed, "the layer answered the hit itself"
    assert fast["status"] == "302 FOUND" and dict(fast["headers"])["X-IBI-Cache"] == "hit"
    for part in ("status", "headers", "body", "metrics", "acknowledgments", "usage", "log"):
        assert fast[part] == through_flask[part], part
    assert fast["metrics"] == {("ibiportal_resolutions_total", (("cache", "hit"), ("outcome", "found"))): 1,
                               ("ibiportal_acknowledgments_total", (("outcome", "sent"),)): 1,
                               ("ibiportal_notices_total", (("outcome", "notice"),)): 1}
    assert len(fast["acknowledgments"]) == 1 and fast["usage"] == [1]
    assert "cache=hit" in fast["log"]
    assert len(fast["request_ids"]) == len(through_flask["request_ids"]) == 1
    if "X-Request-ID" in options.get("headers", {}):
        assert fast["request_ids"] == through_flask["request_ids"] == ["abc-123"]
        assert fast["json_log"] == through_flask["json_log"]
    links = [value for name, value in fast["headers"] if name == "Link"]
    assert len(links) == (2 if item == "landing" else 1)
    assert ("Strict-Transport-Security" in dict(fast["headers"])) == (case == "https")


PASSED_ON = {
    "cookie": (dict(headers={"Cookie": "session=x"}), 302),
    "citation asked": (dict(headers={"Accept": "application/x-bibtex"}), 200),
    "citation mentioned": (dict(headers={"Accept": "text/html, application/x-bibtex;q=0.1"}), 302),
    "escaped query": (dict(query="a=%41"), 302),
    "control character in the query": (dict(query="a=%01"), 400),
    "untrusted host": (dict(base_url="http://evil.example"), 400),
    "body": (dict(data=b"x" * 10), 302),
    "post": (dict(method="POST"), 405),
    "script name": (dict(base_url="http://localhost/portal"), 302),
}


@pytest.mark.parametrize("case", PASSED_ON, ids=list(PASSED_ON))
def test_a_request_the_layer_is_not_sure_of_is_flasks(app, items, case):
    options, status = PASSED_ON[case]
    options = dict(options)
    path = "/" + items["elsewhere"]
    data = options.pop("data", None)
    call(app.wsgi_app, environ(path, **{**options, "method": "GET"}))  # the same request's answer cached, if it has one
    env = environ(path, **options)
    if data is not None:
        env["CONTENT_LENGTH"], env["wsgi.input"] = str(len(data)), io.BytesIO(data)
    with passed_on(app) as handed:
        answered = call(app.wsgi_app, env)
    assert handed == [1]
    assert int(answered[0].split()[0]) == status


@pytest.mark.parametrize("path", ["/identifiers", "/api/v1/mint", "/32G4GKPW/4GR3P92", "/32g4gkpw/4gr3p92",
                                  "/ZZZ-not-minted/1"])
def test_a_page_a_service_or_an_alert_is_flasks(app, items, path):
    """Paths other rules answer (a page, an API route, the own Archive's service in any case), and
    a cached alert: Flask renders them, and an alert's hit is counted once."""
    call(app.wsgi_app, environ(path))
    before = counted()
    with passed_on(app) as handed:
        status, headers, _ = call(app.wsgi_app, environ(path))
    assert handed == [1] and not status.startswith("302")
    hit = moved(before, counted())
    assert sum(value for (name, labels), value in hit.items() if name == "ibiportal_resolutions_total") <= 1


_TRACE_ID = re.compile(r"api/v1/trace/[A-Za-z0-9_-]+")
_ELAPSED = re.compile(r"\(\d+ ms\)")
#: An answer's ``urlkey`` (Table 8.8), which each answer makes anew.
_URL_KEY = re.compile(r"\b\d+-\d{12,}\b")


def _without_trace_ids(text):
    """``text`` without what differs between two resolutions of one request: the trace's id and the time taken."""
    return _ELAPSED.sub("(… ms)", _TRACE_ID.sub("api/v1/trace/<id>", text))


def _stored_steps(app, headers, client: str) -> list[str]:
    """The stored trace behind ``X-IBI-Trace``: each step's message, Archive, status, answer,
    pairs and acknowledgment, the client's address written ``<client>`` and each answer's key ``<urlkey>``."""
    trace_id = dict(headers)["X-IBI-Trace"].rsplit("/", 1)[-1]
    body = app.test_client().get(f"/api/v1/trace/{trace_id}").get_json()
    steps = [(step["number"], step["archive"], step["status"], step["raw_answer"], step["pairs"], step["acknowledgment"])
             for step in body["trace"]["steps"]]
    return [_URL_KEY.sub("<urlkey>", repr(step).replace(client, "<client>")) for step in steps]


@pytest.mark.parametrize("case", HITS, ids=list(HITS))
def test_an_uncached_redirect_is_resolved_and_answered_as_flask_answers_it(app, items, acknowledgments, case):
    """A miss (each request from an address of its own, so nothing is cached for it) resolved by
    the layer and one resolved through Flask: the same answer, acknowledgment, counts, log line
    and stored trace."""
    options = dict(HITS[case])
    item = options.pop("item")
    path = options.pop("segment", "") + "/" + items[item]
    number = list(HITS).index(case)
    hits = layer(app)
    with passed_on(app) as handed:
        fast = served(app, app.wsgi_app, environ(path, REMOTE_ADDR=f"192.0.2.{20 + number}", **options), acknowledgments)
    through_flask = served(app, hits.wsgi_app, environ(path, REMOTE_ADDR=f"192.0.2.{60 + number}", **options),
                           acknowledgments)  # another client: not the outcome the first one cached
    assert not handed, "the layer resolved and answered the miss itself"
    assert dict(fast["headers"])["X-IBI-Cache"] == "miss"
    assert fast["status"] == through_flask["status"] == "302 FOUND"
    for part in ("metrics", "usage"):
        assert fast[part] == through_flask[part], part
    assert fast["body"] == through_flask["body"]
    assert ([(name, _without_trace_ids(value)) for name, value in fast["headers"]]
            == [(name, _without_trace_ids(value)) for name, value in through_flask["headers"]])
    assert (_without_trace_ids(fast["log"]).replace(f"192.0.2.{20 + number}", "<client>")
            == _without_trace_ids(through_flask["log"]).replace(f"192.0.2.{60 + number}", "<client>"))
    assert fast["metrics"] == {("ibiportal_resolutions_total", (("cache", "miss"), ("outcome", "found"))): 1,
                               ("ibiportal_acknowledgments_total", (("outcome", "sent"),)): 1,
                               ("ibiportal_notices_total", (("outcome", "notice"),)): 1}
    assert len(fast["acknowledgments"]) == len(through_flask["acknowledgments"]) == 1
    assert (_stored_steps(app, fast["headers"], f"192.0.2.{20 + number}")
            == _stored_steps(app, through_flask["headers"], f"192.0.2.{60 + number}"))


@pytest.fixture
def answers(monkeypatch) -> list[str]:
    """The URLs ``Resolving.answer`` was called for."""
    called: list[str] = []
    answer = Resolving.answer

    def counting(self, received, *args, **kwargs):
        called.append(received.url)
        return answer(self, received, *args, **kwargs)

    monkeypatch.setattr(Resolving, "answer", counting)
    return called


@pytest.mark.parametrize("path", ["/ZZZ-not-minted/2", "/LK47B6W/362SFKH:(", "/favicon.ico"])
def test_an_alert_or_a_refusal_resolved_by_the_layer_is_rendered_by_flask_once(app, items, answers, path):
    """An uncached alert, or a path that is no persistent URL: resolved once, before Flask, and
    rendered by the resolve view as if it had resolved it (the same page as through Flask)."""
    hits = layer(app)
    before = counted()
    with passed_on(app) as handed:
        fast = call(app.wsgi_app, environ(path, REMOTE_ADDR="192.0.2.40"))
    assert handed == [1] and len(answers) == 1
    assert sum(value for (name, _), value in moved(before, counted()).items() if name == "ibiportal_resolutions_total") <= 1
    through_flask = call(hits.wsgi_app, environ(path, REMOTE_ADDR="192.0.2.41"))
    assert fast[0] == through_flask[0] and not fast[0].startswith("302")
    assert _without_trace_ids(fast[2].decode()) == _without_trace_ids(through_flask[2].decode())


def test_a_failure_of_the_resolution_is_flasks_error_page_without_a_second_resolution(app, items, monkeypatch):
    """What ``Resolving.answer`` raises in the layer is raised by the view: Flask's error page, as
    when the view itself called it, and the request is not resolved again."""
    called = []

    def failing(self, received, *args, **kwargs):
        called.append(received.url)
        raise RuntimeError("the database went away")

    monkeypatch.setattr(Resolving, "answer", failing)
    path = "/" + items["elsewhere"]
    hits = layer(app)
    with passed_on(app) as handed:
        fast = call(app.wsgi_app, environ(path, REMOTE_ADDR="192.0.2.50"))
    assert handed == [1] and len(called) == 1
    through_flask = call(hits.wsgi_app, environ(path, REMOTE_ADDR="192.0.2.51"))
    assert fast[0] == through_flask[0] == "500 INTERNAL SERVER ERROR"
    assert fast[2] == through_flask[2]


def test_a_failure_in_the_layer_leaves_the_request_to_flask(app, items, monkeypatch, caplog):
    path = "/" + items["elsewhere"]
    call(app.wsgi_app, environ(path))

    def broken(*args):
        raise RuntimeError("broken")

    monkeypatch.setattr(CachedHits, "_response", broken)
    acknowledged = acknowledgments_sent()
    status, headers, _ = call(app.wsgi_app, environ(path))
    assert status == "302 FOUND" and dict(headers)["X-IBI-Cache"] == "hit"
    assert "could not be answered before Flask" in caplog.text
    assert acknowledgments_sent() - acknowledged == 1, "the answer made before Flask is the one rendered"


def test_over_a_socket_a_hit_is_answered_by_the_layer(app, items):
    """Over a real socket (werkzeug's server on loopback): the second request is a hit the layer
    answers, with the trace, security and request-id headers, and a Host the portal does not
    serve is still Flask's 400."""
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/{items['landing']}"
    try:
        first = requests.get(url, allow_redirects=False, timeout=10)
        with passed_on(app) as handed:
            second = requests.get(url, allow_redirects=False, timeout=10)
            refused = requests.get(url, allow_redirects=False, timeout=10, headers={"Host": "evil.example"})
    finally:
        server.shutdown()
    assert first.headers["X-IBI-Cache"] == "miss" and second.headers["X-IBI-Cache"] == "hit"
    assert handed == [1] and refused.status_code == 400
    assert second.status_code == 302 and second.headers["Location"] == first.headers["Location"]
    assert second.headers["X-IBI-Trace"] == first.headers["X-IBI-Trace"]
    assert second.headers["X-Frame-Options"] == "DENY" and second.headers["X-Request-ID"]
    assert len(second.raw.headers.getlist("Link")) == 2
