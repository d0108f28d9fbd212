"""What an anonymous request that reads a text may cost (issue 39, finding 3): the reading stops at
the 5,001st IBI, a 400 naming where it starts; it stops at its deadline (``IBIPORTAL_PARSE_SECONDS``,
an injected clock here), a 413 naming where it got to; and ``RATELIMIT_TEXT`` charges each request
its size, so a few large texts spend the budget that many small ones do not.

How much was read is counted as the recogniser's calls (one per IBI here): the finding's 1 MB text
of 18,000 IBIs was read whole, all 18,000, before its 400."""
from __future__ import annotations

import itertools

import pytest

from ibiportal import create_app
from ibiportal.ibi.batch import MAX_BYTES, MAX_ROWS
from ibiportal.web.context import APPLICATION

#: One IBI a line, 54 characters: 18,000 of them make the finding's 1 MB text.
LINE = "See http://urlib.net/ibi/8JMKD3MGP3W34T/47AF772 here.\n"


def test_a_1_mb_text_of_18000_ibis_is_refused_at_the_5001st_having_read_no_further(client, readings):
    text = LINE * 18_000
    assert 950_000 < len(text.encode()) <= MAX_BYTES and MAX_ROWS == 5000
    response = client.post("/api/v1/extract", json={"text": text})
    assert response.status_code == 400
    error = response.get_json()["error"]
    start = 5000 * len(LINE) + LINE.index("http")  # where the 5,001st IBI starts, 0-based
    assert error["position"] == start + 1 and error["field"] == "text"
    assert error["message"] == (
        "the text holds more than 5,000 IBIs; at most 5,000 are checked at once: "
        f"split it before IBI 5,001, on line 5,001 at character {start + 1:,}"
    )
    assert len(readings) == 5001  # not 18,000


@pytest.mark.settings(PARSE_SECONDS=3)
def test_a_reading_past_its_deadline_is_a_413_naming_where_it_stopped(app, client, readings):
    """A clock that moves one second a look and a deadline of 3 s: three IBIs are read."""
    ticks = itertools.count()
    app.extensions[APPLICATION].timer = lambda: float(next(ticks))
    text = LINE * 10
    response = client.post("/api/v1/extract", json={"text": text})
    assert response.status_code == 413
    error = response.get_json()["error"]
    start = 3 * len(LINE) + LINE.index("http")
    assert error["position"] == start + 1 and error["field"] == "text"
    assert error["message"].startswith(
        f"reading the text took more than 3 s of processing, the most one request may take; it stopped on line 4 "
        f"at character {start + 1}"
    )
    assert len(readings) == 3
    portuguese = client.post("/api/v1/extract", json={"text": text}, headers={"Accept-Language": "pt-BR"})
    assert portuguese.status_code == 413
    assert portuguese.get_json()["error"]["message"].startswith("a leitura do texto levou mais de 3 s")
    page = client.post("/references", data={"text": text})
    assert page.status_code == 413 and "reading the text took more than 3 s of processing" in page.get_data(as_text=True)


def test_text_is_charged_by_its_size_so_a_few_large_texts_spend_what_many_small_ones_do_not(new_database):
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                      "RATELIMIT_API": "1000/minute", "RATELIMIT_TEXT": "3000/minute"})
    client = app.test_client()
    small = {"text": "IBI: <8JMKD3MGP3W34T/47AF772>."}
    for _ in range(60):  # 60 KiB at most
        assert client.post("/api/v1/extract", json=small).status_code == 200
    assert client.get("/api/v1/classify", query_string={"q": "8JMKD3MGP8W/34PGRBS"}).status_code == 200
    large = {"text": "words " * 150_000}  # 900 kB, no IBI: cheap to read, charged 879 KiB
    answers = [client.post("/api/v1/extract", json=large) for _ in range(4)]
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    refusal = answers[3].get_json()["error"]["message"]
    assert refusal.startswith("too many KiB of text to read from your address: at most 3000/minute")
    # One budget for every reader of texts, pages too; what reads no text is not charged.
    assert client.post("/api/v1/extract", json=small).status_code == 429
    assert client.post("/api/v1/convert/batch", json={"identifiers": ["8JMKD3MGP8W/34PGRBS"]}).status_code == 429
    assert client.post("/references", data={"text": small["text"]}).status_code == 429
    assert client.get("/api/v1/convert", query_string={"ibi": "8JMKD3MGP8W/34PGRBS"}).status_code == 200


def test_a_text_budget_smaller_than_one_large_text_stops_the_start_up(new_database):
    with pytest.raises(ValueError, match="IBIPORTAL_RATELIMIT_TEXT .* must be at least 1024, not '500/minute'"):
        create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "RATELIMIT_TEXT": "500/minute"})
