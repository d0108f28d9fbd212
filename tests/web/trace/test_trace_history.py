"""The trace history: filtered by IBI (either form), outcome and day, paginated, and two traces
compared by ticking them (no ``?compare=`` typed by hand)."""
from __future__ import annotations

import re

import pytest

from ibiportal.storage.database import Storage
from ibiportal.storage.traces import TraceStore
from ibiportal.web.trace.history import PER_PAGE

FOUND = "http://urlib.net/8JMKD3MGP8W/35MMLL8"
MISSING_IBIP = "8JMKD3MGP8W/34PGRBS"
MISSING_REP = "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"  # the same item, repository-name form


def trace(client, url: str, **fields) -> str:
    response = client.post("/trace", data={"url": url, "archives": "demo", **fields})
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[1].split("?")[0]


def listed(client, query: str = "") -> list[str]:
    response = client.get(f"/trace/history{query}")
    assert response.status_code == 200
    return re.findall(r'name="compare" value="([^"]+)"', response.get_data(as_text=True))


@pytest.fixture
def three(client):
    """A found trace, then the missing item in its two forms (newest last)."""
    return [trace(client, FOUND), trace(client, MISSING_IBIP), trace(client, MISSING_REP)]


def test_newest_first(client, three):
    assert listed(client) == three[::-1]


@pytest.mark.parametrize("typed", [MISSING_IBIP, MISSING_REP, f"http://urlib.net/{MISSING_IBIP}", MISSING_IBIP.lower()])
def test_an_ibi_in_either_form_finds_the_traces_of_both(client, three, typed):
    assert listed(client, f"?ibi={typed}") == three[:0:-1]


def test_by_outcome(client, three):
    assert listed(client, "?outcome=found") == three[:1]
    assert listed(client, "?outcome=not-found") == three[:0:-1]


def test_by_day(app, client, three):
    storage = Storage(app.config["DATABASE"])
    storage.connection.exec_driver_sql(f"UPDATE trace SET created_at = '2026-01-15T23:59:59.000000Z' WHERE id = '{three[0]}'")
    storage.close()
    assert listed(client, "?since=2026-01-15&until=2026-01-15") == three[:1]
    assert listed(client, "?until=2026-01-14") == []
    assert three[0] not in listed(client, "?since=2026-01-16")


def test_bad_filters_are_told_next_to_their_fields(client):
    page = client.get("/trace/history?ibi=8JMKD3MGP8W/35MM!LL8&since=2026-12-01&until=2026-11-01")
    assert page.status_code == 400
    html = page.get_data(as_text=True)
    assert re.search(r'id="ibi-error"><p><code>L</code> may not follow the modifier <code>!</code>.*?\(at character 18\)', html)
    assert "The last day comes before the first: swap them." in html


def test_pages_of_the_history_keep_the_filters(app, client):
    """A page and a bit of found traces: copies of one, stored as the portal stores them."""
    first = trace(client, FOUND)
    body = client.get(f"/trace/{first}.json").get_json()
    storage = Storage(app.config["DATABASE"])
    ids = [f"copy{number:02d}" for number in range(PER_PAGE + 1)]
    for trace_id in ids:
        TraceStore(storage).save_trace(trace_id, FOUND, "found", body, keep=1000, budget_bytes=10**9, ibi="8JMKD3MGP8W/35MMLL8")
    storage.close()
    ids = [first, *ids]
    first = client.get("/trace/history?outcome=found").get_data(as_text=True)
    assert "Page 1 of 2" in first and len(re.findall(r'name="compare"', first)) == PER_PAGE
    older = re.search(r'<a href="([^"]+)" rel="next">', first)[1].replace("&amp;", "&")
    assert "outcome=found" in older
    assert listed(client, older.removeprefix("/trace/history")) == ids[1::-1]
    assert listed(client, "?outcome=found&page=99") == ids[1::-1]  # past the end: the last page


def test_two_ticked_open_the_newer_compared_with_the_older(client, three):
    response = client.get(f"/trace/history/compare?compare={three[2]}&compare={three[0]}&outcome=")
    assert response.status_code == 303
    assert response.headers["Location"] == f"/trace/{three[2]}?compare={three[0]}#compare"
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Compared with the earlier run" in page and "The outcome changed" in page


@pytest.mark.parametrize("ticked", [1, 3])
def test_other_than_two_ticked_go_back_saying_so(client, three, ticked):
    query = "&".join(f"compare={trace_id}" for trace_id in three[::-1][:ticked])
    response = client.get(f"/trace/history/compare?{query}&outcome=not-found")
    assert response.status_code == 303
    back = client.get(response.headers["Location"])
    assert back.status_code == 400
    html = back.get_data(as_text=True)
    assert f"Tick exactly two traces to compare them ({ticked} ticked)." in html
    assert '<option selected value="not-found">' in html  # the filter kept
    assert len(re.findall(r'name="compare" value="[^"]+" id="[^"]+"\s+checked', html)) == min(ticked, 2)  # what stays listed stays ticked


def test_a_row_says_how_its_trace_was_asked(app, client):
    """Two traces of one URL, asked differently, read differently in the list (kept in
    ``trace.options``, so the list reads no trace body); a trace kept before says nothing."""
    plain = trace(client, FOUND)
    asked = trace(client, FOUND, include_faulty="y", accept_language="pt-BR", client_ip="203.0.113.7")
    storage = Storage(app.config["DATABASE"])
    storage.connection.exec_driver_sql(f"UPDATE trace SET options = NULL WHERE id = '{plain}'")
    storage.close()
    rows = dict(re.findall(r'value="([^"]+)" id="pick-.*?<td class="url">(.*?)</td>',
                           client.get("/trace/history").get_data(as_text=True), re.S))
    assert "options" not in rows[plain]
    assert ("the demo Archives · faulty demo Archives included · client 203.0.113.7 · Accept-Language: pt-BR"
            in rows[asked])
    portuguese = client.get("/trace/history", headers={"Accept-Language": "pt-BR"}).get_data(as_text=True)
    assert ("os Arquivos de demonstração · Arquivos de demonstração defeituosos incluídos · cliente 203.0.113.7 · "
            "Accept-Language: pt-BR") in portuguese
