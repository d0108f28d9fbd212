"""Size limits and ZIP bombs are refused at once (security issue 39), over real sockets: a request
declaring a huge Content-Length is answered 413 before its body is sent (the client sends only
the headers and waits for the answer), and a .docx or .odt reference list that would unpack to
far more than the portal reads is refused without being unpacked, whether its ZIP headers say
so or lie about it (a part declared small, its deflated stream endless)."""
from __future__ import annotations

import http.client
import io
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from ibiportal import create_app
from ibiportal.ibi import documents
from ibiportal.config import DEFAULTS
from tests.servers import fresh_sqlite, loopback_server

#: What the portal reads of a document in these tests (its 50 MB would make each bomb slow to
#: build), and what the deflated part unpacks to: ten times that.
MAX_UNPACKED = 2_000_000
BOMB_BYTES = 10 * MAX_UNPACKED
ROOT = Path(__file__).resolve().parent.parent.parent
#: The part each word processor's parser reads first.
MAIN_PART = {".docx": "word/document.xml", ".odt": "content.xml"}


@dataclass
class Portal:
    port: int
    url: str
    token: str
    item: dict


@pytest.fixture(scope="module")
def portal(tmp_path_factory) -> Iterator[Portal]:
    app = create_app({"DATABASE": fresh_sqlite(tmp_path_factory.mktemp("limits") / "portal.sqlite"),
                      "SECRET_KEY": "test", "RATELIMIT_ENABLED": False, "WTF_CSRF_ENABLED": False})
    token = app.test_cli_runner().invoke(args=["api-token", "create", "writer"]).output.strip().splitlines()[-1]
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    item = requests.post(f"{url}/api/v1/mint", json={}).json()
    yield Portal(server.server_port, url, token, item)
    server.shutdown()
    server.server_close()


def headers_only(portal: Portal, method: str, target: str, length: int, **headers) -> tuple[int, bytes, float]:
    """Send the request line and headers declaring ``length`` bytes, none of the body; the
    answer's status, body and how long it took (a server waiting for the body never answers)."""
    connection = http.client.HTTPConnection("127.0.0.1", portal.port, timeout=10)
    try:
        started = time.monotonic()
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in {**headers, "Content-Length": str(length)}.items():
            connection.putheader(name, value)
        connection.endheaders()
        answer = connection.getresponse()
        return answer.status, answer.read(), time.monotonic() - started
    finally:
        connection.close()


HUGE = [10**12, 2**63 - 1, 8 * 1024 * 1024 + 1]
MULTIPART = {"Content-Type": "multipart/form-data; boundary=x"}
TARGETS = [("POST", "/api/v1/mint", {"Content-Type": "application/json"}),
           ("POST", "/api/v1/extract", MULTIPART),
           ("POST", "/api/v1/convert/batch", {"Content-Type": "application/json"}),
           ("POST", "/references", MULTIPART),
           ("POST", "/convert", {"Content-Type": "application/x-www-form-urlencoded"}),
           ("POST", "/admin/login", {"Content-Type": "application/x-www-form-urlencoded"})]


@pytest.mark.parametrize("length", HUGE)
@pytest.mark.parametrize(("method", "target", "headers"), TARGETS, ids=[target for _, target, _ in TARGETS])
def test_a_huge_declared_body_is_a_413_before_it_is_sent(portal, method, target, headers, length):
    status, body, took = headers_only(portal, method, target, length, **headers)
    assert status == 413, body[:300]
    assert took < 5


@pytest.mark.parametrize("length", [10**12, 2**63 - 1, DEFAULTS["MAX_FILE_BYTES"] + 1])
def test_a_file_declared_over_the_cap_is_a_413_before_it_is_sent(portal, length):
    """The upload of a file, which may be larger than a form (IBIPORTAL_MAX_FILE_BYTES)."""
    status, body, took = headers_only(portal, "PUT", f"/api/v1/items/{portal.item['ibip']}/files/big.pdf", length,
                                      Authorization=f"Bearer {portal.token}", **{"Content-Type": "application/pdf"})
    assert status == 413 and b"big.pdf" not in requests.get(f"{portal.url}/api/v1/items/{portal.item['ibip']}/files").content
    assert took < 5


#: A form of 8 MB (the most any form may weigh) made of nearly three million empty fields: werkzeug
#: split it into pairs before any view, about 5 s of CPU for an anonymous request, on every route
#: (a 405 too), the rate limits counting it as one request.
MANY_FIELDS = b"a=&" * (8 * 1024 * 1024 // 3 - 1)
FORM_TARGETS = ["/oai", "/trace", "/references", "/convert", "/admin/login", "/J8LNKB5R7W/3FUQHC5"]


@pytest.mark.parametrize("target", FORM_TARGETS)
def test_a_form_of_millions_of_fields_is_a_413_without_being_split(portal, target):
    spent = time.process_time()  # the server is a thread of this process
    answer = requests.post(portal.url + target, data=MANY_FIELDS, timeout=60,
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
    spent = time.process_time() - spent
    assert answer.status_code == 413, answer.text[:300]
    assert "2,796,202 fields" in answer.text and "1,000" in answer.text
    assert spent < 1.0, f"{spent:.2f} s of CPU"


def test_a_form_of_a_thousand_fields_is_read(portal):
    fields = "&".join(["verb=Identify"] + [f"x{number}=" for number in range(999)])
    answer = requests.post(portal.url + "/oai", data=fields, timeout=60,
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert answer.status_code == 200 and b"badArgument" in answer.content  # read, then refused by OAI-PMH

def bomb(kind: str, lie: bool) -> bytes:
    """A ZIP package whose main part deflates ``BOMB_BYTES`` of spaces (about 20 kB on the wire);
    with ``lie``, both of its headers (local and central) declare the part 1,000 bytes long."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as package:
        if kind == ".odt":
            package.writestr("mimetype", "application/vnd.oasis.opendocument.text", zipfile.ZIP_STORED)
        package.writestr(MAIN_PART[kind], b" " * BOMB_BYTES)
        local = package.getinfo(MAIN_PART[kind]).header_offset
    data = bytearray(out.getvalue())
    if lie:
        small = (1000).to_bytes(4, "little")
        data[local + 22:local + 26] = small  # the local file header's uncompressed size
        central = data.index(b"PK\x01\x02")  # the central directory: to the record of the part
        while data[central + 46:central + 46 + len(MAIN_PART[kind])] != MAIN_PART[kind].encode():
            central = data.index(b"PK\x01\x02", central + 4)
        data[central + 24:central + 28] = small
        assert zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(MAIN_PART[kind]).file_size == 1000
    return bytes(data)


@pytest.fixture(scope="module", params=[".docx", ".odt"])
def kind(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def bombs(kind) -> dict[bool, bytes]:
    return {lie: bomb(kind, lie) for lie in (False, True)}


@pytest.mark.parametrize("lie", [False, True], ids=["honest headers", "lying headers"])
def test_a_zip_bomb_is_refused_at_once_on_the_page_and_the_api(portal, kind, bombs, lie, monkeypatch, tmp_path):
    monkeypatch.setattr(documents, "MAX_UNPACKED", MAX_UNPACKED)
    data = bombs[lie]
    assert len(data) < 100_000
    for url in (f"{portal.url}/api/v1/extract", f"{portal.url}/references"):
        started = time.monotonic()
        answer = requests.post(url, files={"file": (f"refs{kind}", data)}, headers={"Accept": "application/json"})
        assert answer.status_code in (400, 413), answer.text[:300]
        assert time.monotonic() - started < 5
    assert peak_reading_memory(kind, data, tmp_path) < BOMB_BYTES // 4  # never what the part unpacks to


#: Reads the bomb in a process of its own, so that the peak traced is this reading's alone: in the
#: suite's worker, threads left by earlier tests (live servers, pools) allocate meanwhile, and
#: tracemalloc counts every thread (a run measured 10 MB that were not the reading's).
MEASURE = """
import sys, tracemalloc
from ibiportal.ibi import documents
documents.MAX_UNPACKED = int(sys.argv[2])
data = open(sys.argv[1], "rb").read()
try:  # once before the measure: first imports and locale data loaded are not what a bomb costs
    documents.text_of("refs" + sys.argv[3], data)
except documents.ParseError:
    pass
tracemalloc.start()
try:
    documents.text_of("refs" + sys.argv[3], data)
except documents.ParseError:
    print(tracemalloc.get_traced_memory()[1])
"""


def peak_reading_memory(kind: str, data: bytes, folder) -> int:
    """The most memory reading ``data`` as a ``kind`` document took, refusing it (ParseError)."""
    path = folder / f"bomb{kind}"
    path.write_bytes(data)
    measured = subprocess.run([sys.executable, "-c", MEASURE, str(path), str(MAX_UNPACKED), kind],
                              capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert measured.returncode == 0 and measured.stdout.strip().isdigit(), measured.stdout + measured.stderr
    return int(measured.stdout)
