"""The faulty demo Archives (slow, garbled) teach the Trace page; readers following a link never
wait for them: ``GET /<persistent URL>`` leaves them out, a trace includes them when asked."""
from __future__ import annotations

import re

from ibiportal.archive.demo import load_demo_archives

UNKNOWN = "http://urlib.net/8JMKD3MGP8W/34PGRBS"  # an IBI no demo Archive holds
SLOW_ITEM = "http://urlib.net/D7N2U8HW/3P82998"  # held only by the slow Archive


def asked(trace: dict) -> set[str]:
    """The Archives a stored or returned trace sent a urlRequest (3) to."""
    return {step["receiver"] for step in trace["trace"]["steps"] if step["number"] == 3}


def test_faulty_means_a_behaviour_that_misbehaves():
    archives = load_demo_archives()
    assert {name for name, archive in archives.items() if archive.faulty} == {"slow", "garbled"}


def test_a_reader_following_a_link_never_asks_the_faulty_archives(client):
    response = client.get("/8JMKD3MGP8W/34PGRBS")
    assert response.status_code == 404
    trace = client.get(response.headers["X-IBI-Trace"]).get_json()
    names = asked(trace)
    assert "slow" not in names and "garbled" not in names
    assert {"mtc-m16c", "mtc-m16d", "origin", "tombstone"} <= names
    assert trace["request"]["include_faulty"] is False


def test_the_trace_api_includes_them_when_asked(client):
    response = client.post("/api/v1/trace", json={"url": SLOW_ITEM, "archives": "demo", "include_faulty": True})
    assert response.status_code == 201
    body = response.get_json()
    assert {"slow", "garbled"} <= asked(body)
    slow = next(s for s in body["trace"]["steps"] if s["number"] == 3 and s["receiver"] == "slow")
    assert slow["status"] == "timeout"
    stored = client.get(body["permalink"]).get_json()
    assert stored["request"]["include_faulty"] is True


def test_the_trace_api_leaves_them_out_by_default(client):
    body = client.post("/api/v1/trace", json={"url": UNKNOWN, "archives": "all"}).get_json()
    assert not {"slow", "garbled"} & asked(body)


def test_include_faulty_must_be_a_boolean(client):
    response = client.post("/api/v1/trace", json={"url": UNKNOWN, "include_faulty": "yes"})
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert "`include_faulty` must be `true` or `false`" in error["message"]


def test_the_trace_form_checkbox_includes_them_and_trace_again_keeps_it(client):
    response = client.post("/trace", data={"url": SLOW_ITEM, "archives": "demo", "include_faulty": "y"})
    assert response.status_code == 303
    trace_id = response.headers["Location"].rsplit("/", 1)[1]
    assert {"slow", "garbled"} <= asked(client.get(f"/api/v1/trace/{trace_id}").get_json())
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert re.search(r"Faulty demo Archives</dt>\s*<dd[^>]*>included", page)
    assert '<input type="hidden" name="include_faulty" value="y">' in page


def test_the_trace_form_without_the_checkbox_leaves_them_out(client):
    response = client.post("/trace", data={"url": UNKNOWN, "archives": "demo"})
    trace_id = response.headers["Location"].rsplit("/", 1)[1]
    assert not {"slow", "garbled"} & asked(client.get(f"/api/v1/trace/{trace_id}").get_json())
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert re.search(r"Faulty demo Archives</dt>\s*<dd[^>]*>left out", page)


def test_the_form_offers_the_checkbox_and_the_examples_that_need_it(client):
    page = client.get("/trace").get_data(as_text=True)
    assert re.search(r'<input[^>]*id="include_faulty"[^>]*type="checkbox"|<input[^>]*type="checkbox"[^>]*id="include_faulty"', page)
    assert "Include the faulty demo Archives" in page
    assert "include_faulty=y" in page  # the worked examples of a timeout and of garbage
