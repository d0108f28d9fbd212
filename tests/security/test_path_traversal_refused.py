"""Path traversal in every encoding is refused (security issue 39), over real sockets: the request
target is sent byte for byte as written here (``http.client``, nothing normalised on the way),
to the upload of a file (``PUT /api/v1/items/<ibi>/files/<path>``; the administrator's upload
pages store through the same ``ItemFiles.put``) and to the own Archive's direct links
(``/col/<rep>/doc/<path>``).

A path is refused as every reader of it may read it: decoded once more (a proxy, a client that
decodes twice), with ``\\`` as a folder separator (Windows, where an item may be copied), and in
NFKC (Windows' best-fit mapping reads ``．`` as ``.``)."""
from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import requests

from ibiportal import create_app
from tests.servers import fresh_sqlite, loopback_server

SECRET = b"%PDF-1.4 the other item's file"

#: Request-target tails, exactly as sent: dot segments plain and percent-encoded (once, twice, in
#: either case, half and half), backslashes plain and encoded, overlong UTF-8 of "." and "/", NUL,
#: fullwidth dots and slashes.
TRAVERSALS = [
    "../x", "a/../../x", "./x", "%2e/x", "..%2fx", "..%2Fx", "%2e%2e/x", "%2E%2E%2Fx", ".%2e/x", "%2e./x",
    "a/%2e%2e/%2e%2e/x", "%252e%252e/x", "%252e%252e%252fx", "a/%252e%252e/x", "..%252fx", "%25252e%25252e/x",
    "..\\x", "..\\..\\x", "a\\..\\..\\x", "..%5cx", "..%5Cx", "a%5c..%5c..%5cx", "..%255cx", "%2e%2e%5cx",
    "%c0%ae%c0%ae/x", "%c0%2e%c0%2e/x", "..%c0%afx", "%c0%afx", "%e0%80%ae%e0%80%ae/x", "..%c1%9cx",
    "a%00.pdf", "..%00/x", "x.pdf%00.html",
    "%ef%bc%8e%ef%bc%8e/x", "..%ef%bc%8fx", "..%ef%bc%bcx", "a/%ef%bc%8e%ef%bc%8e",
]


@dataclass
class Portal:
    port: int
    url: str
    token: str
    #: An item whose file the traversals aim at, and an item they are sent to.
    target: dict
    sender: dict


@pytest.fixture(scope="module")
def portal(tmp_path_factory) -> Iterator[Portal]:
    app = create_app({"DATABASE": fresh_sqlite(tmp_path_factory.mktemp("traversal") / "portal.sqlite"),
                      "SECRET_KEY": "test", "RATELIMIT_ENABLED": False})
    token = app.test_cli_runner().invoke(args=["api-token", "create", "writer"]).output.strip().splitlines()[-1]
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    target, sender = (requests.post(f"{url}/api/v1/mint", json={"title": title}).json() for title in ("target", "sender"))
    stored = requests.put(f"{url}/api/v1/items/{target['ibip']}/files/secret.pdf", data=SECRET,
                          headers={"Authorization": f"Bearer {token}", "Content-Type": "application/pdf"})
    assert stored.status_code == 201
    yield Portal(server.server_port, url, token, target, sender)
    server.shutdown()
    server.server_close()


def send(portal: Portal, method: str, target: str, body: bytes | None = None, **headers) -> tuple[int, bytes]:
    """``method target`` with the target exactly as given; the status and body of the answer."""
    connection = http.client.HTTPConnection("127.0.0.1", portal.port, timeout=10)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in {**headers, **({"Content-Length": str(len(body))} if body is not None else {})}.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def files_of(portal: Portal, item: dict) -> list[str]:
    return [entry["path"] for entry in requests.get(f"{portal.url}/api/v1/items/{item['ibip']}/files").json()["files"]]


@pytest.mark.parametrize("tail", TRAVERSALS)
def test_an_upload_to_a_traversing_path_is_refused_and_nothing_is_stored(portal, tail):
    status, body = send(portal, "PUT", f"/api/v1/items/{portal.sender['ibip']}/files/{tail}", b"%PDF-1.4 x",
                        Authorization=f"Bearer {portal.token}", **{"Content-Type": "application/pdf"})
    assert status == 400, body
    assert b'"field":"path"' in body
    assert files_of(portal, portal.sender) == [] and files_of(portal, portal.target) == ["secret.pdf"]


@pytest.mark.parametrize("tail", TRAVERSALS)
def test_a_removal_at_a_traversing_path_is_refused(portal, tail):
    status, body = send(portal, "DELETE", f"/api/v1/items/{portal.sender['ibip']}/files/{tail}",
                        Authorization=f"Bearer {portal.token}")
    assert status in (400, 404), body
    assert files_of(portal, portal.target) == ["secret.pdf"]


@pytest.mark.parametrize("tail", TRAVERSALS)
def test_a_direct_link_never_climbs_to_another_items_file(portal, tail):
    """From the sender's folder up to the target's file: never the file, never a 5xx."""
    aimed = tail.replace("x", f"{portal.target['rep']}/doc/secret.pdf") if "x" in tail else tail
    status, body = send(portal, "GET", f"/col/{portal.sender['rep']}/doc/{aimed}")
    assert status in (400, 404) and SECRET not in body, (status, body[:200])


@pytest.mark.parametrize("tail", ["x/../secret.pdf", "x/%2e%2e/secret.pdf", "%2e/secret.pdf", "./secret.pdf",
                                  "x%5c..%5csecret.pdf", "x/%252e%252e/secret.pdf", "secret.pdf%00"])
def test_a_direct_link_with_dot_segments_is_not_the_file(portal, tail):
    """Only the path as stored names a file: no dot segment is resolved on the way to it."""
    status, body = send(portal, "GET", f"/col/{portal.target['rep']}/doc/{tail}")
    assert status in (400, 404) and SECRET not in body
    assert send(portal, "GET", f"/col/{portal.target['rep']}/doc/secret.pdf") == (200, SECRET)


@pytest.mark.parametrize("tail", ["%E6%97%A5.pdf", "%ef%bc%8e%ef%bc%8e/x", "a/%E2%80%AEfdp.exe"])
def test_a_file_path_beyond_iso_8859_1_is_asked_for_never_a_5xx(portal, tail):
    """Such a character goes into a resolution's pair list as its UTF-8 bytes (docs/standard-decisions.md:
    one rule for %hh): the persistent URL, and the direct link the rescue reads as one, are
    resolved (no such file here: the alert), never a 500 (they were), and traced."""
    for target in (f"/{portal.sender['ibip']}/{tail}", f"/col/{portal.sender['rep']}/doc/{tail}"):
        status, body = send(portal, "GET", target, Accept="application/json")
        assert status in (302, 400, 404), (target, status)
        assert SECRET not in body
    traced = requests.post(f"{portal.url}/api/v1/trace", json={"url": f"{portal.url}/{portal.sender['ibip']}/{tail}"})
    assert traced.status_code == 201, traced.text
