"""A reader is redirected once the acknowledgment (5) is sent, not once the Archive's notice (6)
came (STANDARD.md §7): through the real routes, to a registered Archive on a loopback port that
takes its time over the notice; the stored trace says "acknowledgment pending" until the notice
comes, then records it."""
from __future__ import annotations

import time

from tests.web.resolve.test_resolution_cache import ITEM, USER, include, live  # noqa: F401 - live is a fixture

#: How long the Archive takes over the notice.
NOTICE_SECONDS = 2.0

#: The redirect must come within a quarter of that (0.5 s): many times a resolution over
#: loopback even on a loaded machine, far from waiting for the notice.
REDIRECT_WITHIN = NOTICE_SECONDS / 4


def stored_notice(client, trace_id: str) -> dict:
    (step,) = [step for step in client.get(f"/api/v1/trace/{trace_id}").get_json()["trace"]["steps"] if step["number"] == 6]
    return step


def test_the_redirect_does_not_wait_for_the_notice_and_the_trace_records_it_when_it_comes(live):  # noqa: F811
    app, archive, _ = live
    client = app.test_client()
    include(client, archive)
    client.get("/8JMKD3MGP8W/34PGRBS", environ_base=USER)  # the worker's services built: only the redirect is timed
    archive.answer.notice_seconds = NOTICE_SECONDS
    started = time.monotonic()
    response = client.get(f"/{ITEM}", environ_base=USER)
    elapsed = time.monotonic() - started
    assert response.status_code == 302 and elapsed < REDIRECT_WITHIN, f"the redirect took {elapsed:.2f} s"
    assert archive.wait_for("acknowledgment", 1) == 1
    trace_id = response.headers["X-IBI-Trace"].rsplit("/", 1)[1]
    assert stored_notice(client, trace_id)["acknowledgment"] == "pending"
    assert "Acknowledgment pending" in client.get(f"/trace/{trace_id}").get_data(as_text=True)

    deadline = time.monotonic() + NOTICE_SECONDS * 3
    while stored_notice(client, trace_id)["acknowledgment"] == "pending" and time.monotonic() < deadline:
        time.sleep(0.05)
    notice = stored_notice(client, trace_id)
    assert notice["acknowledgment"] == "notice" and notice["pairs"] == [["notice", "acknowledgment received"]]
    assert notice["elapsed_ms"] >= NOTICE_SECONDS * 1000
    page = client.get(f"/trace/{trace_id}").get_data(as_text=True)
    assert "Acknowledgment pending" not in page and "answered notice {acknowledgment received}" in page
