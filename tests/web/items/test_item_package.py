"""``GET /api/v1/items/<ibi>/package`` and ``flask items import PACKAGE.zip`` (issue 34 point 5):
an item moves to another portal with its IBI, files and history; the last test moves one between
two portals on loopback sockets while a reader keeps asking for its persistent URL."""
from __future__ import annotations

import io
import json
import threading
import time
import zipfile
from decimal import Decimal

import pytest
import requests

from ibiportal import create_app
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.web.context import application
from tests.servers import Reader, include_archive, loopback_server

SUCCESSOR_IBI = "8JMKD3MGPCW/3ER446E"


def mint(client, **fields) -> dict:
    response = client.post("/api/v1/mint", json=fields)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def portal_config(database: str, **more) -> dict:
    """A second portal minting as another server (no demo items the first mints at the same dates)."""
    return {"TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "ARCHIVE_SERVICE_IBI": SUCCESSOR_IBI,
            "MINT_HOST": "successor.example", "MINT_IP": "192.0.2.2", **more}


def test_the_package_needs_a_token_and_an_item(client, auth):
    item = mint(client, target_url="https://example.org/here")
    refused = client.get(f"/api/v1/items/{item['ibip']}/package")
    assert refused.status_code == 401 and refused.get_json()["error"]["field"] == "Authorization"
    missing = client.get("/api/v1/items/8JMKD3MGP8W/34PGRBS/package", headers=auth)
    assert missing.status_code == 404 and missing.get_json()["error"]["field"] == "ibi"


def test_the_package_holds_metadata_relations_files_and_history(client, packaged):
    item, data = packaged
    package = zipfile.ZipFile(io.BytesIO(data))
    assert set(package.namelist()) == {"package.json", "item.json", "relations.json", "history.jsonl",
                                       "files/doc/report.pdf"}
    assert json.loads(package.read("item.json")) == client.get(f"/api/v1/items/{item['ibip']}").get_json()
    manifest = json.loads(package.read("package.json"))
    assert (manifest["rep"], manifest["ibip"], manifest["utc"]) == (item["rep"], item["ibip"], item["utc"])
    assert json.loads(package.read("relations.json"))["translations"] == []
    assert package.read("files/doc/report.pdf") == b"%PDF-1.4 report"
    history = [json.loads(line) for line in package.read("history.jsonl").decode().splitlines()]
    assert [entry["action"] for entry in history] == ["minted", "file added", "edited"]
    assert history[1]["actor"] == {"kind": "token", "name": "tests"}


def test_a_package_is_imported_once_with_its_ibi_files_and_history(packaged, new_database, tmp_path):
    item, data = packaged
    path = tmp_path / "item.zip"
    path.write_bytes(data)
    other = create_app(portal_config(new_database("other.sqlite")))
    runner, client = other.test_cli_runner(), other.test_client()

    done = runner.invoke(args=["items", "import", str(path)])

    assert done.exit_code == 0, done.output
    assert done.output.startswith("created\titem.zip\t" + f"{item['rep']} = {item['ibip']}")
    held = client.get(f"/api/v1/items/{item['rep']}").get_json()
    assert (held["ibip"], held["state"], held["metadata"]["title"], held["metadata"]["language"]) == (
        item["ibip"], "Original", "Relatório", "pt")
    assert [file["path"] for file in held["files"]] == ["doc/report.pdf"]
    assert client.get(f"/{item['rep']}/doc/report.pdf", follow_redirects=True).data == b"%PDF-1.4 report"
    history = client.get(f"/api/v1/items/{item['ibip']}/history").get_json()["history"]
    assert [entry["action"] for entry in history] == ["minted", "file added", "edited", "imported", "file added"]
    assert history[3]["actor"]["kind"] == "import"
    rep_prefix = item["rep"].rsplit("/", 2)[0]
    storage = Storage(other.config["DATABASE"])
    pairs = IdentifierStore(storage).prefix_pairs()
    storage.close()
    assert (rep_prefix, item["ibip"].split("/")[0]) in pairs

    again = runner.invoke(args=["items", "import", str(path)])

    assert again.exit_code == 0 and again.output.startswith("unchanged\t"), again.output
    assert len(client.get(f"/api/v1/items/{item['ibip']}/history").get_json()["history"]) == 5


def test_an_item_of_the_own_subsystem_moves_the_clock_past_its_date(packaged, new_database, tmp_path):
    """A portal minting as the package's subsystem (the same server) never issues the IBI again."""
    item, data = packaged
    path = tmp_path / "item.zip"
    # its date a day ahead of the clock (as a node whose clock runs late sees it): only the import moves it there
    date = Decimal(int(time.time()) + 86400)
    with zipfile.ZipFile(io.BytesIO(data)) as good, zipfile.ZipFile(path, "w") as moved:
        for info in good.infolist():
            manifest = {**json.loads(good.read(info)), "date": str(date)} if info.filename == "package.json" else None
            moved.writestr(info, json.dumps(manifest) if manifest else good.read(info))
    same = create_app({"TESTING": True, "DATABASE": new_database("same.sqlite"), "SECRET_KEY": "test"})
    assert same.test_cli_runner().invoke(args=["items", "import", str(path)]).exit_code == 0
    with same.app_context():
        subsystem = application().subsystem
        storage = Storage(same.config["DATABASE"])
        with storage.write_transaction() as conn:
            clock = IdentifierStore(storage).lock_subsystem_clock(conn, subsystem.key)
        storage.close()
    assert clock is not None and clock.last_date >= date


@pytest.mark.parametrize("name, problem", [("../evil.txt", "leaves the package"), ("/etc/evil", "leaves the package"),
                                           ("files/big.bin", "more than the 1000")])
def test_a_malicious_package_is_refused_whole(packaged, new_database, tmp_path, name, problem):
    item, data = packaged
    path = tmp_path / "bad.zip"
    with zipfile.ZipFile(io.BytesIO(data)) as good, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bad:
        for info in good.infolist():
            bad.writestr(info, good.read(info))
        bad.writestr(name, b"\0" * 2000)
    other = create_app(portal_config(new_database("other.sqlite"), MAX_FILE_BYTES=1000))

    refused = other.test_cli_runner().invoke(args=["items", "import", str(path)])

    assert refused.exit_code == 2 and problem in refused.output and "Traceback" not in refused.output, refused.output
    assert other.test_client().get(f"/api/v1/items/{item['ibip']}").status_code == 404


# -- over real sockets: no gap while the item moves from A to B ----------------------------------

def serve(app):
    server = loopback_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"127.0.0.1:{server.server_port}"


def test_over_loopback_the_persistent_url_never_fails_while_the_item_moves(new_database, tmp_path):
    portal_a = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test",
                           "ALLOW_PRIVATE_ARCHIVES": True})
    portal_b = create_app(portal_config(new_database("b.sqlite")))
    server_a, address_a = serve(portal_a)
    server_b, address_b = serve(portal_b)
    try:
        token = portal_a.test_cli_runner().invoke(args=["api-token", "create", "tests"]).output.strip().splitlines()[-1]
        auth = {"Authorization": f"Bearer {token}"}
        item = requests.post(f"http://{address_a}/api/v1/mint", json={"title": "Relatório"}, timeout=10).json()
        include_archive(portal_a.config["DATABASE"], SUCCESSOR_IBI, address_b)  # B, an Archive A's resolver asks

        with Reader([f"http://{address_a}/{item['ibip']}"], pause=0.1) as reader:
            reader.read_on(4)
            package = requests.get(f"http://{address_a}/api/v1/items/{item['ibip']}/package", headers=auth, timeout=10)
            assert package.status_code == 200
            path = tmp_path / "moving.zip"
            path.write_bytes(package.content)
            imported = portal_b.test_cli_runner().invoke(args=["items", "import", str(path)])
            assert imported.exit_code == 0, imported.output
            reader.read_on(3)
            released = requests.post(f"http://{address_a}/api/v1/items/{item['ibip']}/release", headers=auth,
                                     timeout=10, json={"successor": f"http://{address_b}/{SUCCESSOR_IBI}"})
            assert released.status_code == 200, released.text
            reader.read_on(3)
    finally:
        server_a.shutdown()
        server_b.shutdown()

    answers = [(status, location, followed) for _, status, location, followed in reader.answers]
    page_a = f"http://{address_a}/archive/items/{item['ibip']}"
    page_b = f"http://{address_b}/archive/items/{item['ibip']}"
    assert len(answers) >= 10
    assert {status for status, _, _ in answers} == {302}, answers
    assert {copy for _, _, copy in answers} == {200}, answers
    assert {location for _, location, _ in answers} <= {page_a, page_b}, answers
    assert answers[0][1] == page_a and answers[-1][1] == page_b, answers
