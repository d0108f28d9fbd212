"""The own Archive's files through the JSON API, served at ``/col/<rep>/doc/<path>`` as URLib
serves them, and reached through the resolver (``GET /<ibi>/<path>``, ``GetFileList``)."""
from __future__ import annotations

import hashlib
import io
from urllib.parse import urlsplit

import pytest

from ibiportal import create_app
from ibiportal.storage.database import Storage
from ibiportal.storage.schema import item_file, item_file_chunk
from sqlalchemy import func, select
from werkzeug.test import EnvironBuilder, run_wsgi_app
from tests.settings_marker import marked_settings

PDF = b"%PDF-1.4\n" + bytes(range(256)) * 20


@pytest.fixture
def app(new_database, request):
    return create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test",
                       "WTF_CSRF_ENABLED": False, "MAX_FILE_BYTES": 10_000, "GRANULARITY": "0.001",
                       **marked_settings(request)})


@pytest.fixture
def client(app, api_token):
    """A client that sends the API token with every request."""
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {api_token}"
    return client


@pytest.fixture
def item(client) -> dict:
    """An item minted here, without files."""
    return client.post("/api/v1/mint", json={"title": "Relatório técnico"}).get_json()


def put(client, ibi: str, path: str, data: bytes, content_type: str | None = "application/pdf", **headers):
    if content_type is not None:
        headers["Content-Type"] = content_type
    return client.put(f"/api/v1/items/{ibi}/files/{path}", data=data, headers=headers)


def test_writes_need_a_token_and_change_nothing_without_one(app, client, item):
    anonymous = app.test_client()
    refused = anonymous.put(f"/api/v1/items/{item['ibip']}/files/a.pdf", data=PDF)
    assert refused.status_code == 401 and "Bearer" in refused.headers["WWW-Authenticate"]
    wrong = anonymous.put(f"/api/v1/items/{item['ibip']}/files/a.pdf", data=PDF,
                          headers={"Authorization": "Bearer not-a-token"})
    assert wrong.status_code == 401
    assert stored_rows(app) == (0, 0)
    put(client, item["ibip"], "a.pdf", PDF)
    assert anonymous.delete(f"/api/v1/items/{item['ibip']}/files/a.pdf").status_code == 401
    assert anonymous.get(f"/api/v1/items/{item['ibip']}/files").status_code == 200  # reading is open
    assert stored_rows(app) == (1, 1)


def test_a_deleted_item_keeps_no_file_reachable_and_takes_no_new_one(client, item, app):
    url = local(put(client, item["ibip"], "a.pdf", PDF).get_json()["url"])
    assert client.delete(f"/api/v1/items/{item['ibip']}").status_code == 200
    assert client.get(url).status_code == 410  # the rescue resolves it: the item is deleted
    assert client.get(f"/{item['ibip']}/a.pdf").status_code == 410
    refused = put(client, item["ibip"], "b.pdf", PDF)
    assert refused.status_code == 410 and "its files can no longer change" in refused.get_json()["error"]["message"]
    assert stored_rows(app) == (1, 1)


def local(url: str) -> str:
    """A URL of the portal as the test client asks for it (path and query)."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def stored_rows(app) -> tuple[int, int]:
    """How many files and chunks the database holds."""
    storage = Storage(app.config["DATABASE"])
    try:
        files = storage.connection.execute(select(func.count()).select_from(item_file)).scalar()
        chunks = storage.connection.execute(select(func.count()).select_from(item_file_chunk)).scalar()
        return files, chunks
    finally:
        storage.close()


def test_a_file_is_kept_with_its_type_listed_served_and_removed(client, item):
    created = put(client, item["ibip"], "docs/relatório.pdf", PDF)
    assert created.status_code == 201
    body = created.get_json()
    assert body["path"] == "docs/relatório.pdf" and body["size"] == len(PDF)
    assert body["sha256"] == hashlib.sha256(PDF).hexdigest()
    assert body["url"] == f"http://localhost/col/{item['rep']}/doc/docs/relat%c3%b3rio.pdf"
    assert created.headers["Location"] == body["url"]

    for form in ("ibip", "rep"):  # either form names the item
        listed = client.get(f"/api/v1/items/{item[form]}/files").get_json()
        assert listed["ibi"] == {"rep": item["rep"], "ibip": item["ibip"]}
        assert [entry["path"] for entry in listed["files"]] == ["docs/relatório.pdf"]

    served = client.get(local(body["url"]))
    assert served.status_code == 200 and served.data == PDF
    assert served.headers["Content-Type"] == "application/pdf"
    assert served.headers["ETag"] == f'"{body["sha256"]}"'
    assert served.headers["Last-Modified"].endswith(" GMT")
    assert served.headers["Accept-Ranges"] == "bytes"
    assert served.headers["X-Content-Type-Options"] == "nosniff"
    assert served.headers["Content-Disposition"] == "inline; filename*=UTF-8''relat%C3%B3rio.pdf"

    assert client.get(f"/api/v1/items/{item['rep']}").get_json()["files"] == listed["files"]  # the item lists them

    assert client.delete(f"/api/v1/items/{item['rep']}/files/docs/relatório.pdf").status_code == 204
    assert client.get(f"/api/v1/items/{item['ibip']}/files").get_json()["files"] == []
    assert client.get(local(body["url"])).status_code == 404
    gone = client.delete(f"/api/v1/items/{item['ibip']}/files/docs/relatório.pdf")
    assert gone.status_code == 404 and "has no file docs/relatório.pdf" in gone.get_json()["error"]["message"]


def test_a_file_put_again_replaces_the_old_one(client, item, app):
    assert put(client, item["ibip"], "a.txt", b"first", "text/plain").status_code == 201
    again = put(client, item["ibip"], "a.txt", b"second version", "text/plain; charset=utf-8")
    assert again.status_code == 200
    served = client.get(local(again.get_json()["url"]))
    assert served.data == b"second version" and served.headers["Content-Type"] == "text/plain"
    assert stored_rows(app) == (1, 1)


def test_without_a_content_type_the_name_suggests_one(client, item):
    assert put(client, item["ibip"], "plan.csv", b"a,b\n", None).get_json()["content_type"] == "text/csv"
    assert put(client, item["ibip"], "blob", b"\0\1", None).get_json()["content_type"] == "application/octet-stream"


@pytest.mark.parametrize("path, message, position", [
    ("../etc/passwd", "may not have a .. segment", 1),
    ("docs/../../x", "may not have a .. segment", 6),
    ("a/./b", "may not have a . segment", 3),
    ("a//b", "empty segment", 3),
    ("a/", "empty segment", 2),
    ("x" * 256, "256 bytes of UTF-8; at most 255", 1),
    ("ok/" + "é" * 128, "256 bytes of UTF-8; at most 255", 4),
    ("a\x01b", "control character U+0001", 2),
])
def test_a_bad_path_is_refused_naming_what_and_where_and_nothing_is_written(client, item, app, path, message, position):
    answer = put(client, item["ibip"], path.replace("\x01", "%01"), PDF)
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert message in error["message"] and error["position"] == position and error["field"] == "path"
    assert stored_rows(app) == (0, 0)


def test_a_path_that_is_not_utf8_is_refused(client, item, app):
    answer = put(client, item["ibip"], "caf%E9.pdf", PDF)
    assert answer.status_code == 400 and "not UTF-8" in answer.get_json()["error"]["message"]
    assert stored_rows(app) == (0, 0)


def test_a_file_over_the_cap_is_refused_before_it_is_read(client, item, app):
    answer = put(client, item["ibip"], "big.pdf", b"x" * 10_001)
    assert answer.status_code == 413
    assert "10,001 bytes" in answer.get_json()["error"]["message"]
    assert "10,000 bytes (IBIPORTAL_MAX_FILE_BYTES)" in answer.get_json()["error"]["message"]
    assert stored_rows(app) == (0, 0)
    assert put(client, item["ibip"], "exact.pdf", b"x" * 10_000).status_code == 201


@pytest.mark.settings(MAX_FILE_BYTES=12 * 1024 * 1024)  # forms and JSON stop at MAX_CONTENT_LENGTH, 8 MB
def test_files_larger_than_the_limit_of_forms_go_through(client, item, app, api_token):
    data = bytes(range(256)) * (9 * 4096)  # 9 MiB
    announced = put(client, item["ibip"], "nine.bin", data, "application/octet-stream")
    assert announced.status_code == 201 and announced.get_json()["size"] == len(data)
    status, body = raw_put(app, api_token, f"/api/v1/items/{item['ibip']}/files/chunked.bin", io.BytesIO(data), None)
    assert status.startswith("201"), body
    assert client.get(local(announced.get_json()["url"]), headers={"Range": "bytes=9437000-"}).data == data[9437000:]


class Unannounced(io.RawIOBase):
    """A body without Content-Length (as chunked transfer encoding sends it): ``size`` bytes."""

    def __init__(self, size: int):
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        count = min(len(buffer), self.left, 1000)
        buffer[:count] = b"y" * count
        self.left -= count
        return count


def raw_put(app, token: str, path: str, stream, length: int | None) -> tuple[str, bytes]:
    """A PUT whose body is ``stream`` and whose Content-Length is ``length`` whatever the stream
    holds (``None``: none, as gunicorn passes a chunked body); its status line and body."""
    environ = EnvironBuilder(path=path, method="PUT", headers={"Content-Type": "application/pdf"},
                             environ_base={"HTTP_AUTHORIZATION": f"Bearer {token}"}).get_environ()
    environ.pop("CONTENT_LENGTH", None)
    environ["wsgi.input"] = stream
    if length is None:
        environ["wsgi.input_terminated"] = True
    else:
        environ["CONTENT_LENGTH"] = str(length)
    body, status, _ = run_wsgi_app(app, environ, buffered=True)
    return status, b"".join(body)


def test_a_body_without_length_is_counted_while_read_and_refused_past_the_cap(client, item, app, api_token):
    stream = Unannounced(50_000)
    status, body = raw_put(app, api_token, f"/api/v1/items/{item['ibip']}/files/stream.bin", stream, None)
    assert status.startswith("413") and b"goes on past the limit" in body
    assert stream.left > 30_000  # it stopped reading soon after the cap
    assert stored_rows(app) == (0, 0)


def test_a_body_shorter_than_its_length_is_not_stored(client, item, app, api_token):
    status, _ = raw_put(app, api_token, f"/api/v1/items/{item['ibip']}/files/cut.pdf", io.BytesIO(b"x" * 100), 500)
    assert status.startswith("400")
    assert stored_rows(app) == (0, 0)


def test_a_form_instead_of_the_raw_body_is_refused_with_the_way_to_send_it(client, item, app):
    answer = client.put(f"/api/v1/items/{item['ibip']}/files/a.pdf", data={"file": (io.BytesIO(PDF), "a.pdf")})
    assert answer.status_code == 400
    assert "--data-binary" in answer.get_json()["error"]["message"]
    assert stored_rows(app) == (0, 0)


def test_items_not_minted_here_hold_no_files(client):
    answer = put(client, "8JMKD3MGP8W/34PGRBS", "a.pdf", PDF)
    assert answer.status_code == 404
    assert "8JMKD3MGP8W/34PGRBS is not an item of this portal's Archive" in answer.get_json()["error"]["message"]
    assert client.get("/api/v1/items/8JMKD3MGP8W/34PGRBS/files").status_code == 404
    not_ibi = put(client, "nothing", "a.pdf", PDF)
    assert not_ibi.status_code == 400


def test_ranges_as_pdf_viewers_ask_for_them(client, item):
    url = local(put(client, item["ibip"], "r.pdf", PDF).get_json()["url"])
    part = client.get(url, headers={"Range": "bytes=100-199"})
    assert part.status_code == 206 and part.data == PDF[100:200]
    assert part.headers["Content-Range"] == f"bytes 100-199/{len(PDF)}"
    assert part.headers["Content-Length"] == "100"
    tail = client.get(url, headers={"Range": "bytes=-10"})
    assert tail.status_code == 206 and tail.data == PDF[-10:]
    outside = client.get(url, headers={"Range": f"bytes={len(PDF)}-"})
    assert outside.status_code == 416 and outside.headers["Content-Range"] == f"bytes */{len(PDF)}"
    several = client.get(url, headers={"Range": "bytes=0-1,5-6"})
    assert several.status_code == 200 and several.data == PDF


def test_conditional_requests_and_if_range(client, item):
    served = client.get(local(put(client, item["ibip"], "c.pdf", PDF).get_json()["url"]))
    url, etag = served.request.path, served.headers["ETag"]
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
    assert client.get(url, headers={"If-Modified-Since": served.headers["Last-Modified"]}).status_code == 304
    assert client.get(url, headers={"If-None-Match": '"other"'}).status_code == 200
    fresh = client.get(url, headers={"Range": "bytes=0-3", "If-Range": etag})
    assert fresh.status_code == 206 and fresh.data == PDF[:4]
    stale = client.get(url, headers={"Range": "bytes=0-3", "If-Range": '"older"'})
    assert stale.status_code == 200 and stale.data == PDF


@pytest.mark.parametrize("content_type", ["text/html", "image/svg+xml", "application/xhtml+xml", "text/xml",
                                          "application/javascript", "application/x-unknown"])
def test_active_types_are_downloaded_and_sandboxed(client, item, content_type):
    hostile = b"<html><script>alert(document.cookie)</script><svg onload=alert(1)></svg></html>"
    url = local(put(client, item["ibip"], "page.html", hostile, content_type).get_json()["url"])
    served = client.get(url)
    assert served.data == hostile and served.headers["Content-Type"] == content_type
    assert served.headers["Content-Disposition"].startswith("attachment;")
    assert served.headers["Content-Security-Policy"].startswith("sandbox;")
    assert "script-src" not in served.headers["Content-Security-Policy"]  # default-src 'none' covers it
    assert served.headers["X-Content-Type-Options"] == "nosniff"


#: Content-Types that browsers read differently: parameters, quotes, escapes, commas and case. The
#: first is the one Chromium read as text/html while the part before ``;`` said PDF.
TWO_READINGS = [
    'application/pdf; a="\\"; b=",text/html;c="',
    'application/pdf; a=",text/html"',
    'APPLICATION/PDF; charset="text/html"',
    'image/png; a=",text/html"; b=",image/svg+xml"',
    'text/plain; charset=",text/html"',
    'application/pdf ; q="a;b" ; x=",application/xhtml+xml"',
]


@pytest.mark.parametrize("declared", TWO_READINGS)
def test_a_file_is_kept_and_served_as_its_bare_type_and_judged_by_it(client, item, declared):
    hostile = b"<html><script>alert(document.domain)</script></html>"
    kept = put(client, item["ibip"], "doc.bin", hostile, declared)
    bare = declared.split(";", 1)[0].strip().lower()
    assert kept.status_code == 201 and kept.get_json()["content_type"] == bare
    served = client.get(local(kept.get_json()["url"]))
    assert served.headers["Content-Type"] == bare  # no parameter left for a browser to read otherwise
    policy = served.headers["Content-Security-Policy"]
    assert policy.startswith("sandbox;") or bare == "application/pdf"


@pytest.mark.parametrize("declared", ["application/pdf, text/html", "application/pdf;,text/html",
                                      'application/pdf; a="unclosed', "text/html\\", "application/pdf;a=b,c",
                                      'application/pdf;x="\\",text/html;y="\\"'])
def test_a_content_type_outside_rfc_9110_is_refused(client, item, declared):
    refused = put(client, item["ibip"], "doc.bin", b"x", declared)
    assert refused.status_code == 400 and "is not a media type" in refused.get_json()["error"]["message"]


def test_passive_types_are_shown_inline_and_sandboxed_but_pdf(client, item):
    png = local(put(client, item["ibip"], "p.png", b"\x89PNG....", "image/png").get_json()["url"])
    assert client.get(png).headers["Content-Disposition"].startswith("inline;")
    assert client.get(png).headers["Content-Security-Policy"].startswith("sandbox;")
    pdf = local(put(client, item["ibip"], "p.pdf", PDF).get_json()["url"])
    assert "sandbox" not in client.get(pdf).headers["Content-Security-Policy"]  # Chromium shows no sandboxed PDF


def test_the_resolver_redirects_to_a_file_and_to_the_file_list(client, item):
    body = put(client, item["ibip"], "docs/report.pdf", PDF).get_json()
    for form in ("ibip", "rep"):
        found = client.get(f"/{item[form]}/docs/report.pdf")
        assert found.status_code == 302 and found.headers["Location"] == body["url"]
        assert client.get(local(found.headers["Location"])).data == PDF
    missing = client.get(f"/{item['ibip']}/docs/other.pdf")
    assert missing.status_code == 404
    listed = client.get(f"/{item['ibip']}?ibiurl.verblist=GetFileList")
    assert listed.status_code == 302
    page = client.get(local(listed.headers["Location"]))
    assert page.status_code == 200 and b"docs/report.pdf" in page.data and body["url"].encode() in page.data
    as_json = client.get(local(listed.headers["Location"]), headers={"Accept": "application/json"})
    assert [entry["path"] for entry in as_json.get_json()["files"]] == ["docs/report.pdf"]


def test_a_file_uploaded_after_a_not_found_resolves_at_once(client, item):
    assert client.get(f"/{item['ibip']}/late.pdf").status_code == 404  # a stable alert, cached
    put(client, item["ibip"], "late.pdf", PDF)
    assert client.get(f"/{item['ibip']}/late.pdf").status_code == 302


def test_direct_links_the_own_archive_cannot_serve_are_handed_over_to_the_rescue(client, item):
    mine = client.get(f"/col/{item['rep']}/doc/none.pdf", headers={"Accept": "application/json"})
    assert mine.status_code == 404 and mine.get_json()["rescued_from"] == f"/col/{item['rep']}/doc/none.pdf"
    elsewhere = client.get("/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/Relat%C3%B3rio%20Final.pdf")
    assert elsewhere.status_code == 302  # Example 8.9: held by a demo Archive
    assert client.get("/col/nothing/here").status_code == 404


def test_the_own_archive_service_answers_the_url_of_a_file_and_of_the_file_list(client, item, app):
    body = put(client, item["ibip"], "docs/relatório.pdf", PDF).get_json()
    service = f"/{app.config['ARCHIVE_SERVICE_IBI']}?servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4"
    ibi = item["rep"].replace("/", "%2F")
    # a pair's %hh is one ISO-8859-1 character (file 003 §6.2, Example 6.2's Relat%f3rio)
    file_answer = client.get(f"{service}&parsedibiurl.ibi={ibi}&parsedibiurl.filepath=%2Fdocs%2Frelat%F3rio.pdf")
    pairs = dict(line.split(" ", 1) for line in file_answer.get_data(as_text=True).splitlines())
    assert pairs["url"] == body["url"] and pairs["state"] == "Original"  # Example 9.11, on this portal
    listed = client.get(f"{service}&parsedibiurl.ibi={ibi}&parsedibiurl.verblist=GetFileList")
    pairs = dict(line.split(" ", 1) for line in listed.get_data(as_text=True).splitlines())
    assert pairs["url"] == f"http://localhost/archive/items/{item['ibip']}/files"  # Example 9.12
    missing = client.get(f"{service}&parsedibiurl.ibi={ibi}&parsedibiurl.filepath=%2Fnone.pdf")
    assert "url" not in dict(line.split(" ", 1) for line in missing.get_data(as_text=True).splitlines())
