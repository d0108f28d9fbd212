"""The limiter's hooks skip what a blueprint declares unmetered, and only that: such requests are
neither counted nor refused nor given X-RateLimit headers, and the blueprint's other requests
are limited as before. Resolution relies on it (``ibiportal/web/resolve/views.py``)."""
from __future__ import annotations

from flask import Blueprint, request

from ibiportal import create_app
from ibiportal.web import limits


def limited_app(new_database, asked: list[str]):
    """The portal plus one route limited to 2/minute, except with ``?free=1``; ``asked`` gets the
    path of every request the unmetered test is asked about."""
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "RATELIMIT_API": "2/minute"})
    bp = Blueprint("limited_for_test", __name__)

    @bp.get("/_test/limited")
    def limited():
        return "served"

    def free() -> bool:
        asked.append(request.full_path)
        return request.args.get("free") == "1"

    @limits.declare(bp)
    def _limits(rules: limits.Rules) -> None:
        rules.unmetered(free)
        rules.limit(rules.settings.ratelimit_api, "test requests")(bp)

    app.register_blueprint(bp)
    return app


def test_unmetered_requests_are_neither_counted_nor_refused_and_the_others_are(new_database):
    asked: list[str] = []
    client = limited_app(new_database, asked).test_client()
    for _ in range(5):
        free = client.get("/_test/limited?free=1")
        assert free.status_code == 200 and free.get_data(as_text=True) == "served"
        assert not any(name.startswith("X-RateLimit") for name in free.headers.keys())
    metered = [client.get("/_test/limited") for _ in range(3)]
    assert [answer.status_code for answer in metered] == [200, 200, 429]  # the free ones counted nothing
    assert metered[0].headers["X-RateLimit-Remaining"] == "1"
    assert "too many test requests" in metered[2].get_data(as_text=True)
    assert client.get("/_test/limited?free=1").status_code == 200  # still served once the limit is reached
    # asked once per request, whichever of the limiter's three hooks ran first
    assert asked == ["/_test/limited?free=1"] * 5 + ["/_test/limited?"] * 3 + ["/_test/limited?free=1"]


def test_resolutions_are_unmetered_but_citations_asked_in_accept_are_not(new_database):
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "RATELIMIT_TRACE": "1/minute"})
    client = app.test_client()
    for _ in range(3):
        redirect = client.get("/8JMKD3MGP8W/35MMLL8")
        assert redirect.status_code == 302
        assert not any(name.startswith("X-RateLimit") for name in redirect.headers.keys())
    bibtex = {"Accept": "application/x-bibtex"}
    assert client.get("/D7N2U8HW/3J5AC3H", headers=bibtex).headers["X-RateLimit-Remaining"] == "0"
    assert client.get("/D7N2U8HW/3J5AC3H", headers=bibtex).status_code == 429
