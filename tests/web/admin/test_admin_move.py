"""The administrator's Move page: an own item goes to a successor Archive. The page first asks the
successor for the item (the release's own check: a urlRequest over the guarded transport) and shows
what it answered; only then is the release offered. The successor is mocked with ``responses``."""
from __future__ import annotations

import io
import re
import zipfile

import pytest
import responses

from ibiportal import create_app
from tests.admin_session import log_in_as

SUCCESSOR_IBI = "8JMKD3MGPCW/3ER446E"
SUCCESSOR_BASE = f"http://150.163.34.243:8080/{SUCCESSOR_IBI}"  # an IP: no DNS in tests
MOVED_URL = "https://successor.example/col/moved/doc/report.pdf"
RELEASE_BUTTON = 'name="release"'  # the release is offered


@pytest.fixture
def app(new_database):
    return create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test"})  # CSRF on


@pytest.fixture
def item(app) -> dict:
    response = app.test_client().post("/api/v1/mint", json={"title": "Relatório", "target_url": "https://example.org/r"})
    assert response.status_code == 201
    return response.get_json()


@pytest.fixture
def admin(client):
    return log_in_as(client, "ada")


def token_of(html: str) -> str:
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html)[1]


def successor_answers(item: dict, state: str = "Original", url: str = MOVED_URL) -> None:
    responses.get(SUCCESSOR_BASE, content_type="text/plain",
                  body=f"ibi {{rep {item['rep']} ibip {item['ibip']}}}\r\nstate {state}\r\nurl {url}\r\n")


def check(admin, item: dict, successor: str = SUCCESSOR_BASE, language: str = "en", service_ibi: str = ""):
    page = admin.get(f"/admin/items/{item['ibip']}/move?lang={language}").get_data(as_text=True)
    return admin.post(f"/admin/items/{item['ibip']}/move", data={
        "csrf_token": token_of(page), "successor": successor, "successor_service_ibi": service_ibi})


def release(admin, item: dict, page: str):
    """Press the release button of a check's page."""
    return admin.post(f"/admin/items/{item['ibip']}/move", data={
        "csrf_token": token_of(page), "successor": SUCCESSOR_BASE, "successor_service_ibi": "", "release": "1"})


def state_of(client, item: dict) -> str:
    return client.get(f"/api/v1/items/{item['ibip']}").get_json()["state"]


def test_the_page_needs_an_administrator_and_the_item_page_links_it(client, item):
    assert client.get(f"/admin/items/{item['ibip']}/move").status_code in (302, 303)
    log_in_as(client, "ada")
    page = client.get(f"/admin/items/{item['ibip']}").get_data(as_text=True)
    assert f'href="/admin/items/{item["ibip"]}/move"' in page and "Move to another Archive" in page
    form = client.get(f"/admin/items/{item['ibip']}/move").get_data(as_text=True)
    assert "Check the successor" in form and RELEASE_BUTTON not in form
    assert f'href="/admin/items/{item["ibip"]}/package"' in form  # to import it there first
    with client.get(f"/admin/items/{item['ibip']}/package") as package:
        assert package.status_code == 200 and package.mimetype == "application/zip"
        assert "package.json" in zipfile.ZipFile(io.BytesIO(package.data)).namelist()


@responses.activate
def test_the_check_shows_the_successors_answer_then_the_release_moves_the_item(admin, item):
    successor_answers(item)

    checked = check(admin, item)

    page = checked.get_data(as_text=True)
    assert checked.status_code == 200
    assert "state</th><td><code>Original</code>" in page and MOVED_URL in page
    assert "The successor holds the item as its Original" in page
    assert RELEASE_BUTTON in page
    assert len(responses.calls) == 1 and state_of(admin, item) == "Original"  # asked; nothing changed yet
    assert "parsedibiurl.ibi=" + item["ibip"] in responses.calls[0].request.url

    released = release(admin, item, page)

    assert released.status_code == 303 and released.headers["Location"].endswith(f"/admin/items/{item['ibip']}")
    assert len(responses.calls) == 2  # asked again: the release never trusts an earlier answer
    assert state_of(admin, item) == "Released"
    history = admin.get(f"/api/v1/items/{item['ibip']}/history").get_json()["history"]
    assert (history[-1]["action"], history[-1]["actor"]["kind"]) == ("released", "administrator")
    after = admin.get(released.headers["Location"]).get_data(as_text=True)
    assert "Released to the Archive at" in after and SUCCESSOR_BASE in after
    assert f'href="/admin/items/{item["ibip"]}/move"' not in after  # a released item moves no more
    assert admin.get(f"/admin/items/{item['ibip']}/move").status_code == 303


@responses.activate
@pytest.mark.parametrize(("language", "words"), [("en", "not Original"), ("pt-BR", "não Original")])
def test_a_successor_that_does_not_hold_it_is_shown_and_no_release_offered(admin, item, language, words):
    successor_answers(item, state="Copy", url="https://successor.example/copy")
    page = check(admin, item, language=language).get_data(as_text=True)
    assert "state</th><td><code>Copy</code>" in page and "https://successor.example/copy" in page
    assert words in page and RELEASE_BUTTON not in page
    assert state_of(admin, item) == "Original"


@responses.activate
def test_a_release_refused_after_a_good_check_is_a_409_and_changes_nothing(admin, item):
    successor_answers(item)
    page = check(admin, item).get_data(as_text=True)
    responses.replace(responses.GET, SUCCESSOR_BASE, body="", content_type="text/plain")  # it let the item go since

    refused = release(admin, item, page)

    assert refused.status_code == 409
    text = refused.get_data(as_text=True)
    assert "Nothing changed" in text and "answered nothing" in text and RELEASE_BUTTON not in text
    assert state_of(admin, item) == "Original"
    history = admin.get(f"/api/v1/items/{item['ibip']}/history").get_json()["history"]
    assert [entry["action"] for entry in history] == ["minted"]


@responses.activate
def test_a_successor_given_as_an_address_and_its_service_ibi(admin, item):
    successor_answers(item)
    page = check(admin, item, successor="150.163.34.243:8080", service_ibi=SUCCESSOR_IBI).get_data(as_text=True)
    assert "The successor holds the item as its Original" in page and SUCCESSOR_BASE in page


@pytest.mark.parametrize(("successor", "service_ibi", "words"), [
    ("", "", "give the successor Archive"),
    ("https://150.163.34.243/" + SUCCESSOR_IBI, "", "over http://"),
    ("150.163.34.243", "", "service IBI too"),
])
@responses.activate
def test_a_successor_that_cannot_be_read_is_said_at_its_field(admin, item, successor, service_ibi, words):
    answer = check(admin, item, successor=successor, service_ibi=service_ibi)
    assert answer.status_code == 400 and words in answer.get_data(as_text=True)
    assert len(responses.calls) == 0


def test_a_deleted_item_is_not_moved(admin, item, auth):
    assert admin.delete(f"/api/v1/items/{item['ibip']}", headers=auth).status_code == 200
    assert admin.get(f"/admin/items/{item['ibip']}/move").status_code == 303
    page = admin.get(f"/admin/items/{item['ibip']}").get_data(as_text=True)
    assert "/move" not in page
