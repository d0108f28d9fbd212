"""The Trace page: the form and its errors, the permalink, the JSON download, running
again and comparing, and hostile Archive content shown escaped."""
from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from ibiportal import create_app
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver
from ibiportal.resolver.trace import Alert, AlertReason, Resolution, Trace, TraceStep, StepKind
from ibiportal.resolver.transport import ArchiveEndpoint, Exchange, Timeouts
from ibiportal.application.resolving import Resolving
from ibiportal.web.trace.display import clip, marked, visible, visible_text
from ibiportal.web.trace.forms import accept_language_problem
from ibiportal.web.trace.report import build_report
from tests.standard_examples import SECTION_10_1_URL, SECTION_10_2_URL
from tests.servers import fresh_sqlite

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}
SECTION_10_2 = "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"


def trace(client, **fields):
    """POST the Trace form; return the response (a 303 to the permalink when it ran)."""
    return client.post("/trace", data={"archives": "demo", **fields}, environ_base=CLIENT)


def permalink_id(response) -> str:
    assert response.status_code == 303
    match = re.fullmatch(r"/trace/([A-Za-z0-9_-]+)(\?compare=[A-Za-z0-9_-]+)?", response.headers["Location"])
    assert match, response.headers["Location"]
    return match[1]


def page_of(client, response) -> str:
    page = client.get(response.headers["Location"])
    assert page.status_code == 200
    return page.get_data(as_text=True)


def control(html: str, field: str) -> str:
    """The ``<input>`` tag of a field."""
    match = re.search(rf'<input [^>]*id="{field}"[^>]*>', html)
    assert match, f"no control {field}"
    return match[0]


def error_of(html: str, field: str) -> str:
    match = re.search(rf'<div class="error" id="{field}-error">(.*?)</div>', html, re.S)
    assert match, f"no error next to {field}"
    return match[1]


# -- the form --------------------------------------------------------------------------------

def test_the_form_is_prefilled_from_the_query_string_and_never_resolves(client, monkeypatch):
    monkeypatch.setattr(Resolving, "trace", lambda *args: pytest.fail("GET /trace resolved something"))
    response = client.get("/trace?url=http://urlib.net/8JMKD3MGP8W/35MMLL8&archives=live&accept_language=pt-BR"
                          "&client_ip=150.163.2.175&require_original=y")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'value="http://urlib.net/8JMKD3MGP8W/35MMLL8"' in control(html, "url")
    assert '<option selected value="live">' in html
    assert 'value="pt-BR"' in control(html, "accept_language")
    assert 'value="150.163.2.175"' in control(html, "client_ip")
    assert " checked " in control(html, "require_original")


def test_the_empty_form_asks_the_default_archives_and_offers_the_worked_examples(client):
    html = client.get("/trace").get_data(as_text=True)
    assert '<option selected value="all">' in html  # demo Archives on: every Archive
    assert 'href="/trace?url=http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)"' in html
    assert 'href="/trace?url=http://urlib.net/D7N2U8HW/3MP9QLE&amp;require_original=y"' in html


def test_a_trace_redirects_to_its_permalink(client):
    response = trace(client, url="http://urlib.net/8JMKD3MGP8W/35MMLL8", client_ip="172.16.44.200 150.163.68.1",
                     accept_language="pt-BR,fr;q=0.8")
    trace_id = permalink_id(response)
    html = page_of(client, response)
    assert f'href="{SECTION_10_1_URL}"' in html
    assert "302 Found" in html and "Redirected" in html
    body = client.get(f"/api/v1/trace/{trace_id}").get_json()
    assert body["request"]["archives"] == "demo"
    assert body["request"]["client_ip"] == "172.16.44.200 150.163.68.1"
    assert body["request"]["accept_language"] == "pt-BR,fr;q=0.8"
    request = next(s for s in body["trace"]["steps"] if s["number"] == 3 and s["request_url"])
    assert "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&" in request["request_url"]


def test_the_contract_of_the_trace_this_buttons_url_only(client):
    """Home, Compose and Parse post only ``url`` (and the CSRF token): the default Archives are asked."""
    response = client.post("/trace", data={"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8"}, environ_base=CLIENT)
    trace_id = permalink_id(response)
    body = client.get(f"/api/v1/trace/{trace_id}").get_json()
    assert body["request"]["archives"] == "all" and body["url"] == SECTION_10_1_URL
    assert body["request"]["client_ip"] == "172.16.44.200"  # the requester's own address


def test_require_original_asks_for_the_original(client):
    response = trace(client, url="http://urlib.net/D7N2U8HW/3MP9QLE", require_original="y")
    html = page_of(client, response)
    assert "ibiurl.requireditemstatus=Original" in html
    assert "409 Conflict" in html and "under suspicion" in html
    offers = re.search(r'<table class="data offers">(.*?)</table>', html, re.S)[1]
    assert offers.count("<td>Original</td>") == 2 and "rival-a" in offers and "rival-b" in offers
    assert "chosen" not in offers


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8!!"}, "url", "(at character 38)"),
        ({"url": "  http://urlib.net/8JMKD3MGP8W/35MMLL8!!"}, "url", "(at character 40)"),
        ({"url": ""}, "url", "Enter the persistent URL"),
        ({"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8", "client_ip": "172.16.44.200 me"}, "client_ip",
         "&#39;me&#39; is not an IP address (at character 15)"),
        ({"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8", "accept_language": "pt-BR, en;q=2"}, "accept_language",
         "(at character 8)"),
        ({"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8", "archives": "some"}, "archives", "Not a valid choice"),
    ],
)
def test_errors_are_next_to_their_fields_and_nothing_runs(client, monkeypatch, fields, field, words):
    monkeypatch.setattr(Resolving, "trace", lambda *args: pytest.fail("resolved despite an error"))
    response = trace(client, **fields)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert words in error_of(html, field)
    assert f'aria-describedby="{field}-help {field}-error"' in html or f'aria-describedby="{field}-error"' in html


def test_a_bad_url_is_shown_with_its_character_marked(client):
    html = trace(client, url="http://urlib.net/8JMKD3MGP8W/35MMLL8!!").get_data(as_text=True)
    assert "<code>http://urlib.net/8JMKD3MGP8W/35MMLL8!<mark>!</mark></code>" in html


def test_every_error_shows_at_once(client):
    response = trace(client, url="http://urlib.net/8JMKD3MGP8W/35MMLL8::", client_ip="nobody", accept_language="é")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    for field in ("url", "client_ip", "accept_language"):
        assert "at character" in error_of(html, field)


@pytest.mark.parametrize(
    ("header", "problem"),
    [
        ("pt-BR,fr;q=0.8,en;q=0.5,pt;q=0.3", None),  # §10.1's
        ("*", None),
        ("en-US;Q=1.000", None),
        ("pt-BR;q=1.5", 1),
        ("fr, en_GB", 5),
        ("fr,,en", 4),
        ("en;q=0.1234", 1),
    ],
)
def test_accept_language_values(header, problem):
    found = accept_language_problem(header)
    assert (found[1] if found else None) == problem


# -- CSRF --------------------------------------------------------------------------------------

@pytest.fixture
def csrf_client(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "csrf.sqlite"), "SECRET_KEY": "csrf-test"})
    assert app.config.get("WTF_CSRF_ENABLED", True)
    return app.test_client()


def test_without_its_csrf_token_a_trace_is_refused(csrf_client, monkeypatch):
    monkeypatch.setattr(Resolving, "trace", lambda *args: pytest.fail("resolved without a CSRF token"))
    response = csrf_client.post("/trace", data={"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8"}, environ_base=CLIENT)
    assert response.status_code == 400
    assert "The CSRF token is missing." in response.get_data(as_text=True)


def test_with_its_csrf_token_a_trace_runs(csrf_client):
    form = csrf_client.get("/trace").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', form)[1]
    response = csrf_client.post("/trace", data={"csrf_token": token, "url": "http://urlib.net/8JMKD3MGP8W/35MMLL8"},
                                environ_base=CLIENT)
    trace_id = permalink_id(response)
    html = csrf_client.get(f"/trace/{trace_id}").get_data(as_text=True)
    again = re.search(r'<form method="post" action="/trace" class="again"[^>]*>(.*?)</form>', html, re.S)[1]
    assert 'name="csrf_token"' in again  # "Trace again" carries its own token
    fields = dict(re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">', again))
    assert permalink_id(csrf_client.post("/trace", data=fields, environ_base=CLIENT))


# -- the permalink ----------------------------------------------------------------------------

def test_the_permalink_shows_outcome_diagram_archives_and_decisions_in_that_order(client):
    html = page_of(client, trace(client, url=SECTION_10_2))
    positions = [html.index(f'id="{section}"') for section in ("summary", "diagram", "archives", "decisions", "share")]
    assert positions == sorted(positions)
    assert SECTION_10_2_URL.replace("&", "&amp;") in html
    # Messages 1-10 in the diagram, in Figure 8.1 order (3 and 4 once per round).
    numbers = [int(n) for n in re.findall(r'<span class="num"><span class="visually-hidden">Message </span>(\d+)</span>', html)]
    assert numbers[:3] == [1, 2, 3] and numbers[-6:] == [5, 6, 7, 8, 9, 10] and numbers.count(3) == 2
    assert 'id="hop-1"' in html and 'id="hop-2"' in html
    assert "Round 2: about <code>sid.inpe.br/mtc-m18/2012/07.12.18.08</code>" in html
    # The pair that made the decision is marked.
    assert re.search(r"<code>ibi\.nextedition</code> <span class=\"badge good\">leads on: asked next", html)
    assert re.search(r"<code>url\.lastedition\.metadata\(oai_dc\)</code> <span class=\"badge good\">the URL asked for", html)
    assert html.count('<span class="badge good chosen">chosen</span>') == 2  # one answer chosen per round
    assert ("leads on through ibi.nextedition sid.inpe.br/mtc-m18/2012/07.12.18.08: every Archive is asked about it "
            "in round 2.") in html


@pytest.mark.parametrize(
    ("url", "original", "status"),
    [
        ("http://urlib.net/8JMKD3MGP8W/35MMLL8", "", 302),
        ("http://urlib.net/8JMKD3MGP8W/34PGRBS", "", 404),
        ("http://urlib.net/D7N2U8HW/3GBBQK2", "", 410),
        ("http://urlib.net/D7N2U8HW/3MP9QLE", "y", 409),
    ],
)
def test_the_status_shown_is_what_the_resolver_answers(client, url, original, status):
    html = page_of(client, trace(client, url=url, require_original=original))
    assert f'<span class="status-code">{status}</span>' in html
    path = urlsplit(url).path + ("?ibiurl.requireditemstatus=Original" if original else "")
    assert client.get(path, environ_base=CLIENT, headers={"Accept": "application/json"}).status_code == status


@pytest.mark.settings(TRACE_RETENTION=7)
def test_an_unknown_trace_may_have_expired(client):
    response = client.get("/trace/NoSuchTrace")
    assert response.status_code == 404
    html = response.get_data(as_text=True)
    assert "expired" in html and "the last 7 traces" in html  # (trans blocks join lines with one space)
    assert client.get("/trace/not%20an%20id").status_code == 404


def test_the_json_download_is_the_api_json(client):
    trace_id = permalink_id(trace(client, url=SECTION_10_2))
    download = client.get(f"/trace/{trace_id}.json")
    assert download.status_code == 200 and download.mimetype == "application/json"
    assert download.headers["Content-Disposition"] == f'attachment; filename="ibi-trace-{trace_id}.json"'
    assert download.get_json() == client.get(f"/api/v1/trace/{trace_id}").get_json()
    assert download.get_json()["url"] == SECTION_10_2_URL
    missing = client.get("/trace/NoSuchTrace.json")
    assert missing.status_code == 404 and "older than the last" in missing.get_json()["error"]["message"]


def test_trace_again_compares_with_the_earlier_run(client):
    first = permalink_id(trace(client, url="http://urlib.net/8JMKD3MGP8W/35MMLL8"))
    again = trace(client, url="http://urlib.net/8JMKD3MGP8W/35MMLL8", previous=first)
    assert again.headers["Location"].endswith(f"?compare={first}")
    html = page_of(client, again)
    assert "Compared with the earlier run" in html and f'href="/trace/{first}"' in html
    assert f"Same outcome: redirect to {SECTION_10_1_URL}." in html
    expired = client.get(f"/trace/{permalink_id(again)}?compare=GoneLongAgo").get_data(as_text=True)
    assert "is no longer kept" in expired


def test_a_bad_previous_id_is_dropped(client):
    response = trace(client, url="http://urlib.net/8JMKD3MGP8W/35MMLL8", previous="../../etc")
    assert "compare" not in response.headers["Location"]


# -- hostile Archives --------------------------------------------------------------------------

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
HUGE = "A" * 100_000
EVIL_URL = 'http://evil.example/"><script>alert(3)</script>'
EVIL_NAME = "evil<svg/onload=alert(4)>"
GARBAGE = b"archiveaddress garbage.example\x07\x1b[31m <script>alert(2)</script>\r\nnote caf\xe9 \xe2\x80\xae\r\n{unclosed"


class HostileArchives:
    """Two Archives that answer what a stranger might: markup, a 100 KB value, controls, non-ASCII."""

    def fetch(self, url: str, timeouts: Timeouts) -> Exchange:
        query = dict(parse_qsl(urlsplit(url).query))
        if query["servicesubject"] == "acknowledgment":
            return Exchange(200, "text/plain", b"notice {acknowledgment received}\r\n")
        if urlsplit(url).netloc == "garbage.example":
            return Exchange(200, "text/html; charset=<b>", GARBAGE)
        answer = (f"archiveaddress evil.example\r\nnote {SCRIPT}\r\ntitle {{{IMG}}}\r\nstate Original\r\n"
                  f"huge {HUGE}\r\nurl {EVIL_URL}\r\n")
        return Exchange(200, "text/plain", answer.encode("ascii"))


def hostile_trace() -> dict:
    """A real resolution (the engine asking both hostile Archives, the original required so both are
    waited for), as ``Resolving.trace`` stores it."""
    endpoints = [ArchiveEndpoint("evil.example", "evil.example/svc/2020/01.01.00.00", EVIL_NAME, "hostile"),
                 ArchiveEndpoint("garbage.example", "garbage.example/svc/2020/01.01.00.00", "garbage", "hostile")]
    resolver = Resolver(endpoints, {"hostile": HostileArchives()})
    try:
        resolution = resolver.resolve(Asked.parse("http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.requireditemstatus=Original"),
                                      ClientInfo(("172.16.44.200",), "pt-BR"))
    finally:
        resolver.close()
    answered = {step.receiver: step.status.value for step in resolution.trace.steps if step.number == 3}
    assert answered == {EVIL_NAME: "answered", "garbage": "malformed"}
    return {**resolution.to_dict(), "request": {"archives": "live", "client_ip": "172.16.44.200",
                                                "accept_language": "pt-BR", "traced_at": "2026-01-01T00:00:00Z"}}


def store(app, trace_id: str, body: dict) -> None:
    with app.app_context():
        from ibiportal.storage.traces import TraceStore
        from ibiportal.web.context import application

        TraceStore(application().storage()).save_trace(trace_id, body["persistent_url"], "found", body, 100, 10**7)


def test_hostile_archive_content_is_shown_escaped_never_as_markup(app, client):
    store(app, "Hostile1", hostile_trace())
    response = client.get("/trace/Hostile1")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    for attack in ("<script>alert", "<img", "<svg/onload", "onerror=alert(1)>", 'href="http://evil.example/">'):
        assert attack not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert "evil&lt;svg/onload=alert(4)&gt;" in html
    # The 100 KB value: cut, with a "show all"; the raw answer likewise.
    assert "Show all 100,000 characters" in html
    # Controls and invisible characters made visible; non-ASCII marked.
    assert '<span class="ctl" title="control character 0x07">\\x07</span>' in html
    assert '<span class="ctl" title="control character 0x1B">\\x1b</span>' in html
    assert '<span class="ctl" title="line end CR LF">\\r\\n</span>' in html
    assert 'title="not ASCII: U+00E9">é</span>' in html
    assert "text/html; charset=&lt;b&gt;" in html


def test_only_http_urls_become_links(app, client):
    steps = (TraceStep(7, StepKind.OUTCOME, "resolver", "browser", "redirect"),)
    body = Resolution("http://urlib.net/X", Trace(steps), url="javascript:alert(5)").to_dict()
    store(app, "Crafted1", body)
    html = client.get("/trace/Crafted1").get_data(as_text=True)
    assert 'href="javascript:' not in html and "<code>javascript:alert(5)</code>" in html


def test_a_stored_alert_renders_without_request_options(app, client):
    """Traces stored before the options were kept still render (no ``request`` key)."""
    steps = (TraceStep(2, StepKind.CAPTURE, "browser", "resolver", "captured"),
             TraceStep(7, StepKind.OUTCOME, "resolver", "browser", "alert"))
    alert = Alert(AlertReason.NO_ARCHIVES, "no Archive is included in the resolution system")
    store(app, "Old1", Resolution("http://urlib.net/8JMKD3MGP8W/35MMLL8", Trace(steps), alert=alert).to_dict())
    html = client.get("/trace/Old1").get_data(as_text=True)
    assert "No Archives to ask" in html and "503 Service Unavailable" in html


# -- display helpers ---------------------------------------------------------------------------

def test_visible_escapes_and_shows_what_cannot_be_seen():
    shown = str(visible('<b>"x"</b>\x00\t\u202e\u200b\x85é'))
    assert shown.startswith("&lt;b&gt;&#34;x&#34;&lt;/b&gt;")
    for escape in ("\\x00", "\\t", "\\u202e", "\\u200b", "\\u0085"):
        assert f">{escape}</span>" in shown
    assert "\u202e" not in shown and "\u200b" not in shown
    assert 'class="nonascii"' in shown
    assert 'class="nonascii"' not in str(visible("a → b", mark_non_ascii=False))
    assert str(visible("a\r\nb")).endswith("</span>\nb")  # the line break is kept after \n
    assert visible_text("<b>\x07\u202e é") == "<b>\\x07\\u202e é"  # for attributes: escaped by Jinja later


def test_clip_and_marked():
    assert clip("abc", 2).head == "ab" and clip("abc", 2).cut and clip("abc", 3).cut is False
    assert clip(None).length == 0
    assert marked("abcdef", 3) == ("ab", "c", "def")
    assert marked("abc", 4) == ("abc", "", "")
    assert marked("abc", None) == ("abc", "", "")


def test_the_report_of_a_stored_trace(client):
    trace_id = permalink_id(trace(client, url=SECTION_10_2, accept_language="pt-BR"))
    body = client.get(f"/api/v1/trace/{trace_id}").get_json()
    report = build_report(trace_id, body)
    assert report.status_text == "302 Found" and report.headline == "Redirected"
    assert [r.number for r in report.rounds] == [1, 2]
    assert all(sum(1 for x in r.exchanges if x.chosen) == 1 for r in report.rounds)
    texts = [d.text for d in report.decisions]
    assert texts[0].startswith(f"Received {SECTION_10_2}")
    assert texts[-1] == f"Redirect the browser to {SECTION_10_2_URL}."
    kinds = [d.kind for d in report.decisions]
    assert "analysis" in kinds and kinds[-1] == "message"
    assert all(d.number is not None for d in report.decisions if d.kind == "message")
    assert [(o.archive, o.url, o.state, o.chosen) for o in report.offers] == [
        ("mtc-m16c", SECTION_10_2_URL, "Original", True)]
    assert report.options() == {"url": SECTION_10_2, "archives": "demo", "accept_language": "pt-BR",
                                "client_ip": "172.16.44.200"}
