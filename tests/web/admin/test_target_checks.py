"""Dead targets found before readers find them, as an operator sees it: ``flask items
check-targets`` asks a real target server on loopback; the server is killed, and its item turns
"failing" on the item page and in the admin list only after the third failed check; the report
lists it (admin download and CLI); a run within the recheck interval asks nothing again."""
from __future__ import annotations

import csv
import io
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ibiportal import create_app
from ibiportal.ibi.target_check import TargetOutcome, TargetProbe
from ibiportal.storage.database import Storage
from ibiportal.storage.targets import TargetStore
from tests.admin_session import log_in_as


class Target(BaseHTTPRequestHandler):
    """An item's target: a PDF that answers HEAD."""

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("Content-Type", "application/pdf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def target_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Target)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def portal(database: str, **settings):
    """The portal over ``database``, checking every target on each run unless ``settings`` say otherwise."""
    return create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                       "ALLOW_PRIVATE_ARCHIVES": True,  # the target is on loopback
                       "TARGET_RECHECK_HOURS": 0.0, "GRANULARITY": "0.001", **settings})


@pytest.fixture
def app(new_database):
    return portal(new_database())


def mint(client, **fields) -> dict:
    answer = client.post("/api/v1/mint", json=fields)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def check(runner, *args: str) -> str:
    result = runner.invoke(args=["items", "check-targets", *args])
    assert result.exit_code == 0, result.output
    return result.output


def target_cell(client, ibip: str) -> str:
    page = client.get(f"/archive/items/{ibip}").get_data(as_text=True)
    return page.split('<dd class="target">', 1)[1].split("</dd>", 1)[0]


def listed(client, state: str) -> str:
    return client.get(f"/admin/items/?target={state}").get_data(as_text=True)


def test_a_killed_target_turns_failing_after_the_third_check(app, client, runner, target_server):
    log_in_as(client, "ada")
    url = f"http://127.0.0.1:{target_server.server_port}/paper.pdf"
    item = mint(client, title="A paper", creators=["Banon, Gerald"], target_url=url)
    landing = mint(client, title="Its own page")  # no target: nothing to check

    assert check(runner).splitlines() == [f"{item['ibip']} {url}: working (HTTP 200)",
                                          "1 target checked: 1 working; 0 items failing"]
    assert "Working" in target_cell(client, item["ibip"])
    assert '<dd class="target">' not in client.get(f"/archive/items/{landing['ibip']}").get_data(as_text=True)

    target_server.shutdown()
    target_server.server_close()  # the target's host is gone: connections are refused
    for streak in (1, 2):
        output = check(runner)
        assert f"failed ({streak} in a row): connection failed" in output and "0 items failing" in output
        cell = target_cell(client, item["ibip"])
        assert "Working" in cell and "Failing" not in cell
        assert f"{streak} failed check" in cell
        assert f"<code>{item['ibip']}</code>" not in listed(client, "failing")
        assert f"<code>{item['ibip']}</code>" in listed(client, "working")

    assert "failed (3 in a row)" in check(runner).splitlines()[0]
    cell = target_cell(client, item["ibip"])
    assert "Failing" in cell and "since" in cell and "connection failed" in cell
    assert f"<code>{item['ibip']}</code>" in listed(client, "failing")
    assert f"<code>{item['ibip']}</code>" not in listed(client, "working")
    checks = client.get(f"/admin/items/{item['ibip']}").get_data(as_text=True).split('<table class="data checks">')[1]
    assert checks.split("</table>")[0].count("<tr>") == 5  # the header, then every check kept, newest first
    assert checks.index("connection failed") < checks.index("<td>200</td>")

    report = list(csv.DictReader(io.StringIO(client.get("/admin/items/targets.csv?creator=banon").get_data(as_text=True))))
    assert [(row["ibip"], row["state"], row["failures"], row["target_url"]) for row in report] == [
        (item["ibip"], "failing", "3", url)]
    assert report[0]["owner"] == "administrator ada"
    assert client.get("/admin/items/targets.csv?creator=nobody").get_data(as_text=True).count("\n") == 1  # the header

    daily = portal(app.config["DATABASE"], TARGET_RECHECK_HOURS=24.0)  # the same portal, rechecking once a day
    result = daily.test_cli_runner().invoke(args=["items", "check-targets", "--report", "-", "--owner", "ada"])
    assert result.exit_code == 0
    assert "0 targets checked; 1 item failing" in result.stderr  # within the recheck interval: none asked again
    assert "targets checked" not in result.stdout  # standard output is the report alone
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [(row["ibip"], row["state"]) for row in rows] == [(item["ibip"], "failing")]

    client.patch(f"/api/v1/items/{item['ibip']}", json={"target_url": url + "?v=2"},
                 headers={"Authorization": "Bearer " + runner.invoke(args=["api-token", "create", "t"]).output.split()[-1]})
    assert "Not checked yet" in target_cell(client, item["ibip"])  # a new target starts afresh


def test_a_moved_target_says_where_and_the_admin_list_filters_by_state(app, client):
    log_in_as(client, "ada")
    moved = mint(client, title="Moved", target_url="http://old.example/a")
    working = mint(client, title="Working", target_url="http://repository.example/b")
    unchecked = mint(client, title="Unchecked", target_url="http://repository.example/c")
    with app.app_context():
        store = TargetStore(Storage(app.config["DATABASE"]))
        store.record(moved["ibip"], "http://old.example/a",
                     TargetProbe(TargetOutcome.MOVED, 200, None, "https://new.example/a", 301), "2026-01-02T03:04:05.000000Z")
        store.record(working["ibip"], "http://repository.example/b", TargetProbe(TargetOutcome.WORKING, 200),
                     "2026-01-02T03:04:05.000000Z")
    cell = target_cell(client, moved["ibip"])
    assert "Moved" in cell and "HTTP 301 to" in cell and 'href="https://new.example/a"' in cell
    for state, wanted in (("moved", moved), ("working", working), ("unchecked", unchecked)):
        page = listed(client, state)
        shown = [ibip for ibip in (moved["ibip"], working["ibip"], unchecked["ibip"]) if f"<code>{ibip}</code>" in page]
        assert shown == [wanted["ibip"]]
    report = client.get("/admin/items/targets.csv").get_data(as_text=True)
    assert moved["ibip"] in report and "https://new.example/a" in report and working["ibip"] not in report
    assert client.get("/admin/items/targets.csv?state=all").get_data(as_text=True).count("\r\n") == 4
    portuguese = client.get(f"/archive/items/{moved['ibip']}", headers={"Accept-Language": "pt-BR"})
    assert "Movido" in portuguese.get_data(as_text=True)


def test_what_is_due(app, client, runner):
    token = runner.invoke(args=["api-token", "create", "t"]).output.split()[-1]
    auth = {"Authorization": f"Bearer {token}"}
    checked = mint(client, target_url="http://repository.example/checked")
    changed = mint(client, target_url="http://repository.example/changed")
    fresh = mint(client, target_url="http://repository.example/fresh")
    deleted = mint(client, target_url="http://repository.example/deleted")
    mint(client, title="no target")
    with app.app_context():
        store = TargetStore(Storage(app.config["DATABASE"]))
        for item in (checked, changed):
            store.record(item["ibip"], item["target_url"], TargetProbe(TargetOutcome.WORKING, 200),
                         "2026-01-02T00:00:00.000000Z")
        assert client.patch(f"/api/v1/items/{changed['ibip']}", json={"target_url": "http://repository.example/new"},
                            headers=auth).status_code == 200
        assert client.delete(f"/api/v1/items/{deleted['ibip']}", headers=auth).status_code == 200
        due = store.due("2026-01-02T00:00:00.000000Z")  # checked at or after it: not due
        assert {target.ibi for target in due} == {changed["ibip"], fresh["ibip"]}
        later = store.due("2026-01-03T00:00:00.000000Z")
        assert [target.ibi for target in later][-1] == checked["ibip"]  # never checked (or changed) first
