"""The administrator's pages of the own Archive's items, and the public item page: list and
search, edit, upload (raw PUT with the page's CSRF token, or a multipart form), removal and
deletion after a confirmation page, each change seen at once by the resolver."""
from __future__ import annotations

import io
import re

import pytest

from werkzeug.datastructures import FileStorage
from werkzeug.test import stream_encode_multipart

from ibiportal import create_app
from tests.admin_session import log_in_as
from tests.settings_marker import marked_settings

PDF = b"%PDF-1.4\n" + b"x" * 3000


@pytest.fixture
def app(new_database, request):
    return create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test",  # CSRF on, as in production
                       "MAX_FILE_BYTES": 10_000, "GRANULARITY": "0.001", **marked_settings(request)})


@pytest.fixture
def admin(client):
    log_in_as(client, "ada")
    return client


def csrf_token(client, path: str) -> str:
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', client.get(path).get_data(as_text=True))[1]


def mint(client, **fields) -> dict:
    return client.post("/api/v1/mint", json=fields).get_json()


def test_the_pages_need_an_administrator(client):
    item = mint(client, title="A")
    for path in ("/admin/items/", f"/admin/items/{item['ibip']}", f"/admin/items/{item['ibip']}/delete"):
        answer = client.get(path)
        assert answer.status_code == 302 and "/admin/login" in answer.headers["Location"]
    put = client.put(f"/admin/items/{item['ibip']}/files/a.pdf", data=PDF)
    assert put.status_code == 302  # to the login page: nothing stored
    assert client.get(f"/api/v1/items/{item['ibip']}/files").get_json()["files"] == []


def test_the_list_searches_by_title_creator_and_ibi(admin):
    first = mint(admin, title="Relatório de atividades", creators=["Banon, Gerald"])
    second = mint(admin, title="Ocean colour atlas")
    page = admin.get("/admin/items/").get_data(as_text=True)
    # whole codes: an IBIp minted in the same second as another may extend it (Algorithm 6)
    assert page.index(f"<code>{second['ibip']}</code>") < page.index(f"<code>{first['ibip']}</code>")  # newest first
    for query, shown, hidden in (("relat", first, second), ("banon", first, second), ("atlas", second, first)):
        found = admin.get("/admin/items/", query_string={"q": query}).get_data(as_text=True)
        assert f"<code>{shown['ibip']}</code>" in found and f"<code>{hidden['ibip']}</code>" not in found
    by_ibi = admin.get("/admin/items/", query_string={"q": second["rep"]}).get_data(as_text=True)
    assert f"<code>{second['ibip']}</code>" in by_ibi
    none = admin.get("/admin/items/", query_string={"q": "nothing like it"}).get_data(as_text=True)
    assert "No item" in none and "nothing like it" in none


def test_an_upload_with_the_pages_token_is_stored_and_shown(admin):
    item = mint(admin, title="With files")
    edit = f"/admin/items/{item['ibip']}"
    refused = admin.put(f"{edit}/files/docs/a.pdf", data=PDF, headers={"Content-Type": "application/pdf"})
    assert refused.status_code == 400 and "security token" in refused.get_data(as_text=True)
    token = csrf_token(admin, edit)
    stored = admin.put(f"{edit}/files/docs/a.pdf", data=PDF,
                       headers={"Content-Type": "application/pdf", "X-CSRFToken": token, "Accept": "application/json"})
    assert stored.status_code == 201 and stored.get_json()["size"] == len(PDF)
    page = admin.get(edit).get_data(as_text=True)
    assert "Stored docs/a.pdf (3,009 bytes, application/pdf)." in page
    assert f"/col/{item['rep']}/doc/docs/a.pdf" in page
    too_big = admin.put(f"{edit}/files/big.bin", data=b"x" * 10_001,
                        headers={"X-CSRFToken": token, "Accept": "application/json"})
    assert too_big.status_code == 413 and "10,000 bytes" in too_big.get_json()["error"]["message"]


@pytest.mark.settings(MAX_FILE_BYTES=12 * 1024 * 1024)  # forms stop at MAX_CONTENT_LENGTH, 8 MB
def test_an_upload_larger_than_the_limit_of_forms_goes_through_both_ways(admin, app):
    item = mint(admin, title="Large")
    edit = f"/admin/items/{item['ibip']}"
    token = csrf_token(admin, edit)
    data = b"z" * (9 * 1024 * 1024)
    assert admin.put(f"{edit}/files/raw.bin", data=data, headers={"X-CSRFToken": token}).status_code == 201
    # encoded in memory: the test client would spool a body this large to a file it never closes
    stream, _, boundary = stream_encode_multipart(
        {"csrf_token": token, "file": FileStorage(io.BytesIO(data), filename="form.bin")}, use_tempfile=False)
    posted = admin.post(f"{edit}/files", data=stream.getvalue(), content_type=f"multipart/form-data; boundary={boundary}")
    assert posted.status_code == 303
    sizes = {entry["path"]: entry["size"] for entry in admin.get(f"/api/v1/items/{item['ibip']}/files").get_json()["files"]}
    assert sizes == {"raw.bin": len(data), "form.bin": len(data)}


def test_an_upload_without_script_posts_the_file_as_a_form(admin):
    item = mint(admin, title="No script")
    edit = f"/admin/items/{item['ibip']}"
    token = csrf_token(admin, edit)
    answer = admin.post(f"{edit}/files", data={"csrf_token": token, "path": "",
                                               "file": (io.BytesIO(PDF), "relatório.pdf", "application/pdf")})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("#files")
    assert "Stored relatório.pdf" in admin.get(edit).get_data(as_text=True)
    assert admin.get(f"/{item['ibip']}/relat%C3%B3rio.pdf").status_code == 302
    bad = admin.post(f"{edit}/files", data={"csrf_token": token, "path": "../x",
                                            "file": (io.BytesIO(PDF), "x.pdf", "application/pdf")})
    assert bad.status_code == 303
    assert "Nothing was stored: the file path may not have a .. segment" in admin.get(edit).get_data(as_text=True)
    large = admin.post(f"{edit}/files", data={"csrf_token": token, "file": (io.BytesIO(b"x" * 80_000), "big.bin")})
    assert large.status_code == 303
    assert "this portal keeps files of at most 10,000 bytes" in admin.get(edit).get_data(as_text=True)


def test_a_file_is_removed_after_its_confirmation_page(admin):
    item = mint(admin, title="Removal")
    edit = f"/admin/items/{item['ibip']}"
    admin.put(f"{edit}/files/a.pdf", data=PDF, headers={"X-CSRFToken": csrf_token(admin, edit)})
    confirm = admin.get(f"{edit}/files/delete", query_string={"path": "a.pdf"})
    assert confirm.status_code == 200 and "Remove this file?" in confirm.get_data(as_text=True)
    assert admin.get(f"/{item['ibip']}/a.pdf").status_code == 302  # still there until confirmed
    token = csrf_token(admin, f"{edit}/files/delete?path=a.pdf")
    removed = admin.post(f"{edit}/files/delete", data={"csrf_token": token, "path": "a.pdf"})
    assert removed.status_code == 303
    assert admin.get(f"/{item['ibip']}/a.pdf").status_code == 404
    assert admin.get(f"{edit}/files/delete", query_string={"path": "a.pdf"}).status_code == 404


def test_the_edit_form_changes_the_item_and_shows_errors_next_to_fields(admin):
    first = mint(admin, title="Primeira edição", language="pt")
    item = mint(admin, title="Draft")
    edit = f"/admin/items/{item['ibip']}"
    token = csrf_token(admin, edit)
    bad = admin.post(edit, data={"csrf_token": token, "title": "Draft", "target_url": "ftp://x", "date": "2024-13"})
    assert bad.status_code == 400
    text = bad.get_data(as_text=True)
    assert "Nothing was changed" in text and 'id="target_url-error"' in text and 'id="date-error"' in text
    assert admin.get(f"/api/v1/items/{item['ibip']}").get_json()["metadata"]["title"] == "Draft"
    saved = admin.post(edit, data={"csrf_token": token, "title": "Second edition", "creators": "Banon, Gerald\nSilva, Ana",
                                   "target_url": "https://example.org/second", "previous_edition": first["rep"]})
    assert saved.status_code == 303
    body = admin.get(f"/api/v1/items/{item['ibip']}").get_json()
    assert body["metadata"]["title"] == "Second edition" and body["metadata"]["creators"] == ["Banon, Gerald", "Silva, Ana"]
    assert body["relations"]["previous_edition"] == first["ibip"]
    assert admin.get(f"/{first['ibip']}!").headers["Location"] == "https://example.org/second"


def test_an_item_is_deleted_after_its_confirmation_page(admin):
    item = mint(admin, title="To go")
    edit = f"/admin/items/{item['ibip']}"
    admin.put(f"{edit}/files/a.pdf", data=PDF, headers={"X-CSRFToken": csrf_token(admin, edit)})
    confirm = admin.get(f"{edit}/delete").get_data(as_text=True)
    assert "Delete this item?" in confirm and "410 Gone" in confirm and "a.pdf" in confirm
    token = csrf_token(admin, f"{edit}/delete")
    assert admin.post(f"{edit}/delete", data={"csrf_token": token}).status_code == 303
    assert admin.get(f"/{item['ibip']}").status_code == 410
    page = admin.get(edit).get_data(as_text=True)
    assert "was deleted on" in page and "Upload a file" not in page and "Save changes" not in page


def test_the_item_page_shows_files_editions_translations_and_cite(client):
    original = mint(client, title="Relatório técnico", language="pt")
    english = mint(client, title="Technical report", language="en", translation_of=original["ibip"])
    second = mint(client, title="Relatório técnico, 2ª edição", language="pt", previous_edition=original["ibip"])
    token = client.application.test_cli_runner().invoke(args=["api-token", "create", "t"]).output.strip().splitlines()[-1]
    client.put(f"/api/v1/items/{original['ibip']}/files/relatório.pdf", data=PDF,
               headers={"Authorization": f"Bearer {token}", "Content-Type": "application/pdf"})
    page = client.get(f"/archive/items/{original['ibip']}").get_data(as_text=True)
    assert f"/col/{original['rep']}/doc/relat%c3%b3rio.pdf" in page and "relatório.pdf" in page
    assert "Next edition" in page and "Relatório técnico, 2ª edição" in page and second["ibip"] in page
    assert "Translation (en)" in page and "Technical report" in page and english["ibip"] in page
    assert f'href="/cite?ibi={original["ibip"]}"' in page
    translated = client.get(f"/archive/items/{english['ibip']}").get_data(as_text=True)
    assert "Translation of (en)" in translated and "Relatório técnico" in translated


def test_the_list_shows_the_copies_held(admin, runner):
    assert "The own Archive holds no copies." in admin.get("/admin/items/").get_data(as_text=True)
    token = runner.invoke(args=["api-token", "create", "copies"]).output.strip().splitlines()[-1]
    held = admin.post("/api/v1/copies", json={"ibi": "8JMKD3MGP8W/34PGRBS", "target_url": "https://mirror.example/r"},
                      headers={"Authorization": f"Bearer {token}"})
    assert held.status_code == 201, held.get_json()
    page = admin.get("/admin/items/").get_data(as_text=True)
    assert "8JMKD3MGP8W/34PGRBS" in page and "sid.inpe.br/mtc-m18@80/2009/02.16.17.46" in page
    assert 'href="https://mirror.example/r"' in page
