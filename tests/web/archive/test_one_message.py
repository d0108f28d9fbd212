"""One bad input, one message: every entry point that reads a persistent URL names the same fault
at the same character (the recogniser and the parsers are shared; no page words its own)."""
from __future__ import annotations

import html
import re

import pytest

BAD = "http://urlib.net/8JMKD3MGP8W/ZZZZZZZ"
MESSAGE = "character 'Z' is not in the IBIp alphabet (0 1 I O V Y Z are excluded, Table 7.1)"
CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


def page_errors(response) -> list[str]:
    text = html.unescape(response.get_data(as_text=True))
    return [re.sub(r"<[^>]+>", "", error).strip() for error in re.findall(r'class="error"[^>]*>(.*?)</div>', text, re.S)]


@pytest.mark.parametrize(("method", "path", "data"), [
    ("get", "/", {"q": BAD}),
    ("get", "/parse", {"url": BAD}),
    ("post", "/trace", {"url": BAD}),
    ("get", "/convert", {"ibi": BAD}),
])
def test_pages_name_the_same_fault_at_the_same_character(client, method, path, data):
    if method == "get":
        response = client.get(path, query_string=data, environ_base=CLIENT)
    else:
        response = client.post(path, data=data, environ_base=CLIENT)
    assert response.status_code == 400
    assert page_errors(response) == [f"{MESSAGE} (at character 30)"]


@pytest.mark.parametrize(("path", "field"), [("/api/v1/classify", "q"), ("/api/v1/parse", "url"), ("/api/v1/convert", "ibi")])
def test_the_api_names_the_same_fault(client, path, field):
    response = client.get(path, query_string={field: BAD})
    error = response.get_json()["error"]
    assert (error["message"], error["position"]) == (MESSAGE, 30)


def test_the_resolver_names_the_same_fault(client):
    response = client.get("/8JMKD3MGP8W/ZZZZZZZ", environ_base=CLIENT, headers={"Accept": "application/json"})
    assert response.status_code == 404
    error = response.get_json()["error"]
    assert error["message"].endswith(MESSAGE) and error["position"] == len("/8JMKD3MGP8W/") + 1


def test_a_whole_url_pasted_after_the_portal_names_the_same_fault_or_resolves(client):
    """GET /<URL>: a persistent URL pasted after the portal's address is read as its path."""
    response = client.get("/" + BAD, environ_base=CLIENT, headers={"Accept": "application/json"})
    assert response.status_code == 404
    error = response.get_json()["error"]
    assert error["message"].endswith(MESSAGE) and error["position"] == len("/" + BAD) - 6  # the first Z, in the path
    for pasted in ("/http://urlib.net/8JMKD3MGP8W/35MME4E", "/http:/urlib.net/8JMKD3MGP8W/35MME4E"):
        found = client.get(pasted, environ_base=CLIENT)
        assert found.status_code == 302 and found.headers["Location"] == client.get(
            "/8JMKD3MGP8W/35MME4E", environ_base=CLIENT).headers["Location"]
