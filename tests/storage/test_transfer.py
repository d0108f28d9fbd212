"""db export / db import: everything a portal holds moves SQLite -> PostgreSQL -> SQLite unchanged,
minting goes on without reusing an IBI, every table of the schema is moved, and a file that is
not a whole export, or a database that is not empty, is refused with nothing imported."""
from __future__ import annotations

import json
import os
import stat
import threading
from datetime import datetime, timezone

import pytest
import requests
from sqlalchemy import inspect

from ibiportal import create_app
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.protocol.registry import KeyHash
from ibiportal.storage.database import Storage
from ibiportal.storage.registry import ArchiveStore
from ibiportal.storage.schema import metadata
from ibiportal.storage.transfer import TransferRefused, export_lines, import_lines
from tests.servers import loopback_server


def portal(database: str):
    return create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                       "RATELIMIT_ENABLED": False, "GRANULARITY": "0.01"})


def filled(database: str) -> list[str]:
    """A portal that has minted, linked, stored a file, made a token and an administrator,
    registered an Archive and learnt a prefix pair; the IBIps it minted."""
    app = portal(database)
    runner, client = app.test_cli_runner(), app.test_client()
    token = runner.invoke(args=["api-token", "create", "mover"]).output.strip().splitlines()[-1]
    assert runner.invoke(args=["admin", "set-password", "ada", "--password", "a long enough password"]).exit_code == 0
    first = client.post("/api/v1/mint", json={"title": "Primeiro", "creators": ["Silva, M."]}).get_json()
    second = client.post("/api/v1/mint", json={"title": "Segundo", "previous_edition": first["ibip"]},
                         headers={"Idempotency-Key": "move-1"}).get_json()
    put = client.put(f"/api/v1/items/{first['ibip']}/files/dados.bin", data=bytes(range(256)) * 10,
                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"})
    assert put.status_code == 201, put.get_data(as_text=True)
    storage = Storage(database)
    try:
        ArchiveStore(storage).register_archive("LK47B6W/E6H5HH", KeyHash.of(RegistrationKey("1234567890-0987654321")),
                                               datetime(2026, 11, 24, tzinfo=timezone.utc))
    finally:
        storage.close()
    return [first["ibip"], second["ibip"]]


def exported(database: str) -> list[str]:
    storage = Storage(database)
    try:
        return list(export_lines(storage))
    finally:
        storage.close()


def imported(database: str, lines: list[str]) -> dict[str, int]:
    storage = Storage(database)
    try:
        return import_lines(storage, lines)
    finally:
        storage.close()


def test_sqlite_to_postgresql_and_back_moves_every_row_and_minting_goes_on(new_database, postgres_server):
    source = new_database("source.sqlite")
    minted = filled(source)
    lines = exported(source)
    header = json.loads(lines[0])
    assert header["format"] == "ibiportal-export" and header["version"] == 1
    assert json.loads(lines[-1]) == {"end": True, "rows": len(lines) - 2}

    server = postgres_server.new_database()
    counts = imported(server, lines)
    assert counts["minted_item"] == 2 and counts["item_file_chunk"] >= 1 and counts["api_token"] == 1
    assert counts["item_history"] >= 4  # two mints, the file, the link: each item's history moves with it
    assert exported(server)[1:] == lines[1:]  # row for row, byte for byte
    back = new_database("back.sqlite")
    imported(back, exported(server))
    assert exported(back)[1:] == lines[1:]

    for database in (server, back):
        client = portal(database).test_client()
        again = client.post("/api/v1/mint", json={"title": "Segundo", "previous_edition": minted[0]},
                            headers={"Idempotency-Key": "move-1"}).get_json()
        assert again["ibip"] == minted[1]  # the key moved with its item
        new = client.post("/api/v1/mint", json={"title": "Terceiro"}).get_json()
        assert new["ibip"] not in minted
        # Compared as instants: a time is printed to the precision its IBI needs ("…14Z", "…14.7Z").
        assert datetime.fromisoformat(new["utc"]) > datetime.fromisoformat(again["utc"])
        assert client.get(f"/api/v1/items/{minted[0]}").get_json()["relations"]["next_edition"] == minted[1]
        file = client.get(f"/api/v1/items/{minted[0]}/files").get_json()["files"][0]
        assert client.get(file["url"].split("localhost", 1)[1]).data == bytes(range(256)) * 10


def test_every_table_of_the_schema_is_exported(new_database):
    """Fails when a migration adds a table the export does not walk (the walk is the schema's)."""
    database = new_database()
    filled(database)
    lines = exported(database)
    storage = Storage(database)
    try:
        in_database = set(inspect(storage.connection).get_table_names()) - {"alembic_version"}
    finally:
        storage.close()
    assert set(json.loads(lines[0])["tables"]) == in_database == set(metadata.tables)
    with_rows = {json.loads(line)["table"] for line in lines[1:-1]}
    assert {"minted_item", "item_link", "item_file", "item_file_chunk", "subsystem_clock", "archive",
            "admin_account", "api_token", "mint_key"} <= with_rows


def test_refusals_import_nothing(new_database):
    source = new_database("source.sqlite")
    filled(source)
    lines = exported(source)
    target = new_database("target.sqlite")
    with pytest.raises(TransferRefused, match="ends early"):
        imported(target, lines[:-3])
    with pytest.raises(TransferRefused, match="format version 2"):
        imported(target, [json.dumps({**json.loads(lines[0]), "version": 2}), *lines[1:]])
    with pytest.raises(TransferRefused, match="line 2: table minted_item has no column colour"):
        imported(target, [lines[0], '{"table": "minted_item", "row": {"colour": "red"}}', lines[-1]])
    with pytest.raises(TransferRefused, match="line 1 is not JSON"):
        imported(target, ["hello"])
    with pytest.raises(TransferRefused, match="not an ibiportal-export file"):
        imported(target, ['{"rows": 1}'])
    assert [json.loads(line)["table"] for line in exported(target)[1:-1]] == ["resolution_generation"]  # as made
    imported(target, lines)
    with pytest.raises(TransferRefused, match="not empty"):
        imported(target, lines)


def test_the_cli_exports_and_imports_files(new_database, tmp_path):
    source = new_database("source.sqlite")
    filled(source)
    path = tmp_path / "portal.jsonl"
    result = portal(source).test_cli_runner().invoke(args=["db", "export", str(path)])
    assert result.exit_code == 0 and f"to {path}" in result.output
    target = new_database("target.sqlite")
    result = portal(target).test_cli_runner().invoke(args=["db", "import", str(path)])
    assert result.exit_code == 0 and "minted_item 2" in result.output
    again = portal(target).test_cli_runner().invoke(args=["db", "import", str(path)])
    assert again.exit_code == 1 and "nothing was imported: the database is not empty" in again.output


def test_the_export_is_readable_by_its_user_alone(new_database, tmp_path):
    """It holds what the database does (password hash, token hashes, traces): 0600 as the database
    is, under the usual umask, also over an export left 0644 before."""
    source = new_database("source.sqlite")
    filled(source)
    previous = os.umask(0o022)
    try:
        for path in (tmp_path / "new.jsonl", tmp_path / "old.jsonl"):
            if path.name == "old.jsonl":
                path.write_text("")
                path.chmod(0o644)
            result = portal(source).test_cli_runner().invoke(args=["db", "export", str(path)])
            assert result.exit_code == 0, result.output
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    finally:
        os.umask(previous)


#: Types an export may carry that no upload could: the import keeps each file as a bare
#: ``type/subtype`` like every other file (its parameters, and whatever follows a comma, dropped),
#: or as ``application/octet-stream`` where none can be read.
IMPORTED_TYPES = {
    'application/pdf; a="\\"; b=",text/html;c="': "application/pdf",
    "application/pdf,text/html": "application/octet-stream",
    "application/pdf, text/html": "application/octet-stream",
    " Application/PDF ;x=y": "application/pdf",
    "text/plain\\,text/html": "application/octet-stream",
    "application/pdf\x00text/html": "application/octet-stream",
    "application/pdf\ttext/html": "application/octet-stream",
    "": "application/octet-stream",
    "TEXT/HTML": "text/html",
}


def test_imported_files_are_kept_and_served_as_bare_types(new_database):
    """Over a real socket: what is stored, listed and served is one bare type (security review);
    a row that could only come from an export made by hand once answered a 500 (a NUL byte) or
    was served as ``application/pdf,text/html`` (HTML to Chromium)."""
    source = new_database("source.sqlite")
    first, _ = filled(source)
    lines = exported(source)
    row = next(json.loads(line) for line in lines if '"table": "item_file"' in line)
    crafted = []
    for number, declared in enumerate(IMPORTED_TYPES):
        copy = {**row["row"], "id": 100 + number, "path": f"page{number}", "content_type": declared}
        crafted.append(json.dumps({"table": "item_file", "row": copy}))
        for line in lines:
            chunk = json.loads(line)
            if chunk.get("table") == "item_file_chunk" and chunk["row"]["file_id"] == row["row"]["id"]:
                crafted.append(json.dumps({"table": "item_file_chunk", "row": {**chunk["row"], "file_id": 100 + number}}))
    end = json.loads(lines[-1])
    lines = lines[:-1] + crafted + [json.dumps({"end": True, "rows": end["rows"] + len(crafted)})]
    target = new_database("target.sqlite")
    imported(target, lines)
    server = loopback_server(portal(target))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        listed = {entry["path"]: entry for entry in requests.get(f"{base}/api/v1/items/{first}/files", timeout=10).json()["files"]}
        for number, (declared, bare) in enumerate(IMPORTED_TYPES.items()):
            entry = listed[f"page{number}"]
            assert entry["content_type"] == bare, declared
            served = requests.get(entry["url"], timeout=10)
            assert served.status_code == 200 and served.headers["Content-Type"] == bare, declared
            assert served.headers["X-Content-Type-Options"] == "nosniff"
            if bare != "application/pdf":
                assert served.headers["Content-Security-Policy"].startswith("sandbox"), declared
    finally:
        server.shutdown()
        server.server_close()
