"""No open redirect: ``GET /<persistent URL>`` redirects only to an absolute http or
https URL with a host and no credentials, exactly as the Archive answered it. Anything else an
Archive answers is a bad answer: an ``unsafe-url`` alert (502) whose trace says why.

The Archive is a live registered one, scripted on a loopback port under its host name.
"""
from __future__ import annotations

import pytest

from ibiportal import create_app
from tests.reliability.faulty_archives import include
from tests.scripted_archive import Answer
from tests.standard_examples import SECTION_10_1_ANSWER, SECTION_10_1_URL
from tests.servers import fresh_sqlite

ARCHIVE = "mtc-m16c.sid.inpe.br"
SERVICE = "sid.inpe.br/mtc-m18@80/2008/03.17.15.17"
PERSISTENT = "/8JMKD3MGP8W/35MMLL8"
CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


@pytest.fixture
def answering(tmp_path, dns, scripted_archive, loopback_fan_out):
    """``answering(URL)``: a portal with mtc-m16c included, which answers §10.1's URL list with
    ``URL`` in place of its url and acknowledges anything."""

    def start(url_value: str):
        answer = SECTION_10_1_ANSWER.replace(f"url {SECTION_10_1_URL}", f"url {url_value}")

        def reply(request) -> Answer | str:
            if request.subject == "acknowledgment":
                return "notice {acknowledgment received}\r\n"
            return answer.replace("\n", "\r\n")

        archive = scripted_archive(reply)
        dns[ARCHIVE] = ["127.0.0.1"]
        app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "redirect.sqlite"),
                          "SECRET_KEY": "test", "DEMO_ARCHIVES": False})
        include(app.config["DATABASE"], f"{ARCHIVE}:{archive.port}", SERVICE)
        return app

    return start


def resolve(app):
    client = app.test_client()
    response = client.get(PERSISTENT, environ_base=CLIENT, headers={"Accept": "application/json"})
    trace = client.get(response.headers["X-IBI-Trace"].replace("http://localhost", "")).get_json()
    return response, trace


@pytest.mark.parametrize(("value", "why"), [
    ("javascript:alert(document.domain)", "javascript: is not http or https"),
    ("JaVaScRiPt:alert(1)", "is not http or https"),
    ("data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "data: is not http or https"),
    ("file:///etc/passwd", "file: is not http or https"),
    ("ftp://ftp.inpe.br/item.pdf", "ftp: is not http or https"),
    ("//evil.example/item", "a relative URL is not http or https"),
    ("/relative/item", "a relative URL is not http or https"),
    ("relative/item", "a relative URL is not http or https"),
    ("http:evil.example", "no host"),
    ("http:///evil.example/", "no host"),
    ("http://user:password@evil.example/", "user name or password"),
    ("http://www.inpe.br@evil.example/", "user name or password"),
    ("http://www.inpe.br\\@evil.example/", "the character '\\\\' at position 19"),
    ("{http://evil.example/ Set-Cookie:x=1}", "the character ' ' at position 21"),
    ("https://[::1/", "does not parse"),
    ("http://evil.example:99999/", "does not parse"),
])
def test_an_unsafe_url_is_never_redirected_to(answering, value, why):
    response, trace = resolve(answering(value))
    assert response.status_code == 502 and "Location" not in response.headers
    alert = response.get_json()["alert"]
    assert alert["reason"] == "unsafe-url"
    assert why in alert["message"] and "not redirecting" in alert["message"]
    outcome = trace["trace"]["steps"][-1]
    assert outcome["number"] == 7 and why in outcome["decision"]
    assert not [step for step in trace["trace"]["steps"] if step["number"] == 5]  # no acknowledgment sent


@pytest.mark.parametrize("value", [
    "http://evil.example/item\r\nSet-Cookie: x=1",  # a CRLF inside the value
    "http://evil.example/item\rLocation: http://other.example/",  # a lone CR
    "{http://evil.example/item\r\nSet-Cookie: x=1}",  # a CRLF inside a braced value
    "http://evil.example/\x00item",
])
def test_control_characters_make_the_answer_malformed(answering, value):
    response, trace = resolve(answering(value))
    assert "Location" not in response.headers and response.status_code == 404  # not found, by the own Archive
    (step,) = [step for step in trace["trace"]["steps"] if step["number"] == 3 and step["archive"].startswith(f"{ARCHIVE}:")]
    assert step["status"] == "malformed" and step["parse_error"]["position"]
    assert "Set-Cookie" not in str(dict(response.headers))


@pytest.mark.parametrize("value", [
    SECTION_10_1_URL,
    "https://mtc-m16c.sid.inpe.br/col/item.pdf",
    "http://mtc-m16c.sid.inpe.br/col/%0d%0aSet-Cookie:%20x=1",  # escaped: stays escaped
    "http://[2001:db8::1]:8080/col/Relat%f3rio%20Final.pdf",
])
def test_an_http_url_is_redirected_to_exactly_as_answered(answering, value):
    response, _trace = resolve(answering(value))
    assert response.status_code == 302
    assert response.headers["Location"] == value
    assert "Set-Cookie" not in response.headers
