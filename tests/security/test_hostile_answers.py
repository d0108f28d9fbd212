"""Hostile Archive answers are shown, never run: markup, quotes, control characters,
non-ASCII bytes and huge answers from a real Archive on a loopback socket reach the alert page,
the trace page and the JSON trace as text, escaped; a huge answer is cut at the size cap, so
memory stays bounded."""
from __future__ import annotations

import json
import re
import tracemalloc

import pytest

from ibiportal import create_app
from ibiportal.resolver.transport import DEFAULT_MAX_ANSWER_BYTES
from ibiportal.storage.traces import STORED_ANSWER_CHARS
from tests.reliability.faulty_archives import RawArchive, by_ibi, endless, include
from tests.servers import fresh_sqlite

XSS_TIMESTAMP = '"><img/src=x/onerror=alert(1)><script>alert(2)</script>'
XSS_URL = "javascript:alert(document.cookie)//<script>alert(3)</script>"
GARBAGE = b"<script>alert(4)</script>\x00\x1b[31m\xe9\xff{\r\nurl x"
HUGE_TITLE = b"t" * (200 * 1024)
ANSWERS = {
    "8JMKD3MGP8W/35MMLL8": f"state Deleted\r\ntimestamp {XSS_TIMESTAMP}\r\n".encode(),
    "8JMKD3MGP8W/34PGRBS": f"url {XSS_URL}\r\n".encode(),
    "D7N2U8HW/3GBBQK2": GARBAGE,
    "D7N2U8HW/39G4TD2": b"title " + HUGE_TITLE + b"\r\n",
}
CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


@pytest.fixture
def hostile(tmp_path):
    """A portal whose only live Archive (besides its own) answers the hostile bodies above."""
    with RawArchive(by_ibi(ANSWERS)) as archive:
        app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "hostile.sqlite"), "SECRET_KEY": "test",
                          "DEMO_ARCHIVES": False, "ALLOW_PRIVATE_ARCHIVES": True})
        include(app.config["DATABASE"], archive.address)
        client = app.test_client()
        client.archive = archive.address
        yield client


def archive_markup(html: str) -> list[str]:
    """``<script>``/``<img>`` tags in a page other than the portal's own script files."""
    return [tag for tag in re.findall(r"<(?:script|img)\b[^>]*>", html, re.I) if 'src="/static/' not in tag]


def trace_of(client, response) -> tuple[dict, str]:
    trace_id = response.headers["X-IBI-Trace"].rsplit("/", 1)[1]
    data = client.get(f"/api/v1/trace/{trace_id}")
    assert data.mimetype == "application/json" and data.headers["X-Content-Type-Options"] == "nosniff"
    return data.get_json(), trace_id


def archive_step(trace: dict, address: str) -> dict:
    return next(step for step in trace["trace"]["steps"] if step["number"] == 3 and step["archive"] == address)


def test_a_deleted_answer_with_markup_in_its_timestamp(hostile):
    response = hostile.get("/8JMKD3MGP8W/35MMLL8", environ_base=CLIENT)
    html = response.get_data(as_text=True)
    assert response.status_code == 410
    assert archive_markup(html) == []
    assert "&#34;&gt;&lt;img/src=x/onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in html
    trace, trace_id = trace_of(hostile, response)
    assert trace["alert"]["timestamp"] == XSS_TIMESTAMP  # the JSON keeps the text exactly
    page = hostile.get(f"/trace/{trace_id}").get_data(as_text=True)
    assert archive_markup(page) == [] and "&lt;img/src=x/onerror=alert(1)&gt;" in page


def test_an_unsafe_url_with_markup(hostile):
    response = hostile.get("/8JMKD3MGP8W/34PGRBS", environ_base=CLIENT)
    html = response.get_data(as_text=True)
    assert response.status_code == 502 and "Location" not in response.headers
    assert archive_markup(html) == []
    assert "javascript:alert(document.cookie)//&lt;script&gt;alert(3)&lt;/script&gt;" in html
    trace, trace_id = trace_of(hostile, response)
    assert XSS_URL in trace["alert"]["message"]
    assert archive_markup(hostile.get(f"/trace/{trace_id}").get_data(as_text=True)) == []


def test_garbage_with_control_characters_and_non_ascii_bytes(hostile):
    response = hostile.get("/D7N2U8HW/3GBBQK2", environ_base=CLIENT, headers={"Accept": "text/html"})
    assert archive_markup(response.get_data(as_text=True)) == []
    trace, trace_id = trace_of(hostile, response)
    step = archive_step(trace, hostile.archive)
    assert step["status"] == "malformed"
    assert step["raw_answer"] == GARBAGE.decode("latin-1")  # as received, byte for byte
    assert step["parse_error"]["position"] == GARBAGE.index(b"\x00") + 1  # the NUL, named by position
    page = hostile.get(f"/trace/{trace_id}").get_data(as_text=True)
    assert archive_markup(page) == []
    assert "\x00" not in page and "\x1b" not in page  # control characters are shown, not sent
    assert "&lt;script&gt;alert(4)&lt;/script&gt;" in page
    json.loads(hostile.get(f"/trace/{trace_id}.json").get_data(as_text=True))  # valid JSON despite NUL and ESC


def test_a_200_kb_value_is_stored_cut_and_clipped_on_the_page(hostile):
    response = hostile.get("/D7N2U8HW/39G4TD2", environ_base=CLIENT, headers={"Accept": "application/json"})
    assert response.status_code == 404
    trace, trace_id = trace_of(hostile, response)
    step = archive_step(trace, hostile.archive)
    title = dict(step["pairs"])["title"]
    assert step["status"] == "answered" and HUGE_TITLE.decode().startswith(title) and len(title) < STORED_ANSWER_CHARS
    assert len(step["raw_answer"]) == STORED_ANSWER_CHARS and "the stored answer is cut" in " ".join(step["notes"])
    assert len(response.get_data()) < 4000  # the alert itself does not carry the answer


def test_an_endless_answer_is_cut_at_the_cap_with_bounded_memory(tmp_path):
    """A 200 text/plain answer that never ends: read up to the cap, then the socket is closed."""
    with RawArchive(endless) as archive:
        app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "huge.sqlite"), "SECRET_KEY": "test",
                          "DEMO_ARCHIVES": False, "ALLOW_PRIVATE_ARCHIVES": True})
        include(app.config["DATABASE"], archive.address)
        client = app.test_client()
        tracemalloc.start()
        try:
            response = client.get("/8JMKD3MGP8W/35MMLL8", environ_base=CLIENT, headers={"Accept": "application/json"})
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    trace, _ = trace_of(client, response)
    step = archive_step(trace, archive.address)
    assert step["status"] == "transport-error" and "longer than the cap" in step["error"]
    assert "the stored answer is cut at 16,384 of its 262,144 characters" in step["notes"]
    assert len(step["raw_answer"]) == STORED_ANSWER_CHARS
    assert peak < 12 * DEFAULT_MAX_ANSWER_BYTES  # a few copies of the capped answer, not the stream
