"""Every error is the portal's: its own page (HTML) or JSON error (by Accept, always under
/api/), with the parser's message and position where there is one; never werkzeug's words."""
from __future__ import annotations

import re

import pytest

WERKZEUG_WORDS = ("If you entered the URL manually", "The method is not allowed", "The requested URL was not found")


def text_of(response) -> str:
    return response.get_data(as_text=True)


def assert_the_portals_page(response, status: int) -> str:
    assert response.status_code == status
    assert response.content_type.startswith("text/html")
    page = text_of(response)
    assert '<header class="site' in page or "<nav" in page  # the portal's layout, not a bare message
    assert not any(words in page for words in WERKZEUG_WORDS)
    return page


def test_a_malformed_persistent_url_gets_the_parsers_message_and_position(client):
    page = assert_the_portals_page(client.get("/8JMKD3MGP8W/34PGRBS!!"), 400)
    assert re.search(r'role="alert">.*?\(at character \d+', page)


def test_a_path_that_is_no_ibi_says_so_with_the_parsers_reason(client):
    page = assert_the_portals_page(client.get("/8JMKD3MGP8W"), 404)
    assert "There is no page /8JMKD3MGP8W on this portal, and it is not a persistent URL:" in page
    assert re.search(r"at character \d+ of <code>path</code>", page)


def test_the_same_as_json_when_the_client_asks_for_json(client):
    response = client.get("/8JMKD3MGP8W", headers={"Accept": "application/json"})
    assert response.status_code == 404
    error = response.get_json()["error"]
    assert error["message"].startswith("There is no page /8JMKD3MGP8W on this portal, and it is not a persistent URL: ")
    assert isinstance(error["position"], int) and 1 <= error["position"] <= len("/8JMKD3MGP8W") + 1


def test_an_unknown_api_endpoint_is_json_naming_it(client):
    response = client.get("/api/v1/nothing")
    assert response.status_code == 404
    assert response.get_json() == {"error": {"message": "There is no API endpoint /api/v1/nothing on this portal.",
                                             "position": None}}


@pytest.mark.parametrize("accept", ["text/html", "application/json"])
def test_405_names_the_method_and_what_the_path_answers(client, accept):
    response = client.delete("/mint", headers={"Accept": accept})
    assert response.status_code == 405
    assert set(response.headers["Allow"].split(", ")) >= {"GET", "POST"}
    if accept == "application/json":
        assert response.get_json()["error"]["message"] == "DELETE is not possible at /mint: it answers GET and POST only."
    else:
        assert "DELETE is not possible at /mint: it answers GET and POST only." in assert_the_portals_page(response, 405)


def test_405_on_the_api_is_json(client):
    response = client.post("/api/v1/classify")
    assert response.status_code == 405
    assert response.get_json()["error"]["message"] == "POST is not possible at /api/v1/classify: it answers GET only."


@pytest.mark.parametrize("accept", ["text/html", "application/json"])
def test_500_is_the_portals_page_or_json_and_no_stack_trace(app, accept):
    app.config["PROPAGATE_EXCEPTIONS"] = False

    @app.get("/_broken")
    def broken():
        raise RuntimeError("secret internals /srv/ibiportal/storage.py line 42")

    response = app.test_client().get("/_broken", headers={"Accept": accept})
    assert response.status_code == 500
    body = text_of(response)
    assert "secret internals" not in body and "Traceback" not in body
    if accept == "application/json":
        assert response.get_json()["error"]["message"]
    else:
        assert "Something broke on our side" in assert_the_portals_page(response, 500)
