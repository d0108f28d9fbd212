"""``flask items update FILE.csv`` (issue 34 point 4): many items changed at once, previewed
first, each change in its history, every bad row reported at its line and column while the others
go on, and the resolver answering the new URLs at once."""
from __future__ import annotations

import pytest

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


def mint(client, **fields) -> dict:
    response = client.post("/api/v1/mint", json=fields)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def item(client, ibi: str) -> dict:
    return client.get(f"/api/v1/items/{ibi}").get_json()


@pytest.fixture
def minted(client) -> list[dict]:
    return [mint(client, title="Relatório", target_url="https://example.org/a", creators=["Banon, Gerald"]),
            mint(client, title="Tese", target_url="https://example.org/b", item_type="doctoral thesis")]


def write(tmp_path, text: str) -> str:
    path = tmp_path / "changes.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_dry_run_shows_the_changes_and_changes_nothing(tmp_path, client, runner, minted):
    first, second = minted
    csv = write(tmp_path, f"ibi,target_url,title,creators\n{first['rep']},https://example.org/a2,,\"Banon, G.; Silva, A.\"\n"
                          f"{second['ibip']},https://example.org/b,Tese,\n")
    result = runner.invoke(args=["items", "update", csv, "--dry-run"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:4] == [f"line 2: {first['ibip']}", '  target_url: "https://example.org/a" → "https://example.org/a2"',
                         '  creators: "Banon, Gerald" → "Banon, G.; Silva, A."', f"line 3: {second['ibip']}: no change"]
    assert lines[-1] == "2 rows: 1 item to change, 1 unchanged, 0 refused (dry run: nothing changed)"
    assert item(client, first["ibip"])["target_url"] == "https://example.org/a"


def test_the_changes_are_made_recorded_and_resolved_at_once_bad_rows_aside(tmp_path, client, runner, minted):
    first, second = minted
    assert client.get("/" + first["ibip"], environ_base=CLIENT).headers["Location"] == "https://example.org/a"  # cached
    csv = write(tmp_path, "ibi,title,target_url,degree\n"
                          f"{first['ibip']},Relatório final,https://example.org/a2,\n"
                          f"{second['ibip']},,ftp://example.org/b,\n"  # not http(s): column 3
                          f"{second['ibip']},,,Doutorado\n"  # the second row of the same item
                          "8JMKD3MGP8W/34PGRBS,x,,\n"  # not an item here
                          "not-an-ibi,x,,\n"
                          f"{first['rep']},x\n")  # too few cells
    result = runner.invoke(args=["items", "update", csv, "--yes"])
    assert result.exit_code == 1, result.output
    output = result.output
    assert "line 3, column 3 (target_url): error: target_url must be an absolute http:// or https:// URL" in output
    assert f"line 4: {second['ibip']}" in output and '  degree: (none) → "Doutorado"' in output
    assert "line 5, column 1 (ibi): error: 8JMKD3MGP8W/34PGRBS is not an item of this portal's Archive" in output
    assert "line 6, column 1 (ibi): error:" in output
    assert "line 7, column 3: error: 2 cells where the header has 4" in output
    assert output.splitlines()[-1] == "6 rows: 2 items changed, 0 unchanged, 4 refused"

    changed = item(client, first["ibip"])
    assert (changed["metadata"]["title"], changed["target_url"]) == ("Relatório final", "https://example.org/a2")
    assert item(client, second["ibip"])["metadata"]["degree"] == "Doutorado"
    assert item(client, second["ibip"])["target_url"] == "https://example.org/b"
    assert client.get("/" + first["ibip"], environ_base=CLIENT).headers["Location"] == "https://example.org/a2"
    history = client.get(f"/api/v1/items/{first['ibip']}/history").get_json()["history"]
    assert history[-1]["action"] == "edited" and history[-1]["actor"]["kind"] == "command"
    assert history[-1]["details"]["changes"] == [
        {"field": "target_url", "old": "https://example.org/a", "new": "https://example.org/a2"},
        {"field": "title", "old": "Relatório", "new": "Relatório final"}]


def test_the_same_item_twice_is_refused_the_second_time(tmp_path, client, runner, minted):
    first, _ = minted
    csv = write(tmp_path, f"ibi,title\n{first['ibip']},One\n{first['rep']},Two\n")
    result = runner.invoke(args=["items", "update", csv, "--yes"])
    assert "line 3, column 1 (ibi): error:" in result.output and "by line 2 already" in result.output
    assert item(client, first["ibip"])["metadata"]["title"] == "One"


def test_without_a_terminal_or_yes_nothing_changes(tmp_path, client, runner, minted):
    first, _ = minted
    result = runner.invoke(args=["items", "update", write(tmp_path, f"ibi,title\n{first['ibip']},New\n")])
    assert result.exit_code == 1 and "--yes" in result.output
    assert result.output.splitlines()[-1] == "1 row: 1 item to change, 0 unchanged, 0 refused: nothing changed"
    assert item(client, first["ibip"])["metadata"]["title"] == "Relatório"


@pytest.mark.parametrize(("text", "words"), [
    ("title,target_url\nx,y\n", "no ibi column"),
    ("ibi,colour\nx,y\n", "line 1, column 2 (colour): not a field this command changes"),
    ("ibi,previous_edition\nx,y\n", "line 1, column 2 (previous_edition): not a field"),
    ("ibi,title,title\nx,y,z\n", "line 1, column 3 (title): given twice"),
    ("ibi\nx\n", "only the ibi column"),
])
def test_a_bad_header_changes_nothing(tmp_path, client, runner, minted, text, words):
    result = runner.invoke(args=["items", "update", write(tmp_path, text), "--yes"])
    assert result.exit_code == 2 and words in result.output and "Traceback" not in result.output
