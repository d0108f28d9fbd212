"""Minting through the service, the JSON API, the CLI and the page (issue 2)."""
from __future__ import annotations

import json
from decimal import Decimal

import pytest

from ibiportal.ibi.dates import split_date
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.minting import Minter, MintRequest, Subsystem
from ibiportal.storage import Storage


def make_minter(tmp_path, clock, sleeps, granularity="1"):
    subsystem = Subsystem(
        host="mtc-m18.sid.inpe.br", port=80, ip="150.163.34.243", ibip_port=800,
        granularity=Decimal(granularity),
    )
    return Minter(Storage(str(tmp_path / "m.sqlite")), subsystem, clock=clock, sleep=sleeps.append)


def test_mint_gives_both_forms_of_the_same_date(tmp_path):
    sleeps: list[float] = []
    minter = make_minter(tmp_path, lambda: Decimal("1234806360.25"), sleeps)  # 2009-02-16T17:46:00.25Z
    item = minter.mint()
    # The first identifier of a subsystem is shortened to the minute (Algorithm 4 lines 8-16).
    assert item.rep == "sid.inpe.br/mtc-m18/2009/02.16.17.46"
    assert item.ibip == "8JMKD3MGP8W/34PGRBS"
    assert item.utc == "2009-02-16T17:46:00Z"
    assert parse_ibi(item.rep).date == parse_ibi(item.ibip).date == item.date
    assert sleeps == []


def test_minted_items_are_stored_before_being_returned(tmp_path):
    minter = make_minter(tmp_path, lambda: Decimal("1287588115.3462"), [])
    items = minter.mint_many(3, MintRequest(title="A title", target_url="https://example.org/x"))
    stored = minter.storage.minted_items()
    assert [s.ibip for s in stored] == [i.ibip for i in items]
    assert stored[0].title == "A title" and stored[0].target_url == "https://example.org/x"


def test_requests_arriving_together_queue_for_their_slots(tmp_path):
    sleeps: list[float] = []
    # Three requests at the same instant (as from three workers): each reserves the next
    # one-second slot and waits for it (Algorithm 4 line 7), the third twice as long.
    minter = make_minter(tmp_path, lambda: Decimal("1287588115.3462"), sleeps)
    dates = [minter.mint().date for _ in range(3)]
    assert dates == [Decimal(1287588115), Decimal(1287588116), Decimal(1287588117)]
    assert sleeps == [0.6538, 1.6538]


class FakeClock:
    """A clock that sleeping moves forward, like the real one."""

    def __init__(self, start: str):
        self.now = Decimal(start)
        self.sleeps: list[float] = []

    def __call__(self) -> Decimal:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += Decimal(str(seconds))


def test_clock_set_back_an_hour_still_gives_later_dates_without_hanging(tmp_path):
    clock = FakeClock("1700000000.5")
    subsystem = Subsystem("mtc-m18.sid.inpe.br", 80, "150.163.34.243", 800, Decimal("0.01"))
    storage = Storage(str(tmp_path / "m.sqlite"))
    first = [Minter(storage, subsystem, clock, clock.sleep).mint() for _ in range(3)][-1]
    clock.now -= 3600
    # A restart after the step: the offset is persisted, not kept in the process.
    later = [Minter(Storage(storage.path), subsystem, clock, clock.sleep).mint() for _ in range(50)]
    dates = [first.date] + [item.date for item in later]
    assert dates == sorted(set(dates))
    # No request waits out the hour. The longest wait is at the turn of a second, where the
    # slots S.01-S.09 are skipped (their IBIp would repeat S.1's), plus one slot.
    assert max(clock.sleeps) <= 0.11


def test_a_restart_continues_after_the_last_date(tmp_path):
    clock = lambda: Decimal("1700000000.5")  # noqa: E731
    first = make_minter(tmp_path, clock, []).mint()
    second = make_minter(tmp_path, clock, []).mint()  # a new process: new Storage, same file
    assert second.date > first.date


@pytest.mark.parametrize(
    ("fields", "field", "fragment"),
    [
        ({"target_url": "ftp://example.org/x"}, "target_url", "http"),
        ({"target_url": "example.org"}, "target_url", "absolute"),
        ({"title": "x" * 501}, "title", "too long"),
        ({"title": "bad\x07bell"}, "title", "control character"),
        ({"date": "2024-13-01"}, "date", "calendar"),
        ({"date": "yesterday"}, "date", "YYYY"),
        ({"creators": 5}, "creators", "list"),
    ],
)
def test_mint_request_rejects_bad_fields(fields, field, fragment):
    from ibiportal.errors import ParseError

    with pytest.raises(ParseError) as info:
        MintRequest.parse(fields)
    assert info.value.field == field
    assert fragment in info.value.message


def test_api_mint_one(client):
    response = client.post("/api/v1/mint", json={"title": "My report", "target_url": "https://example.org/r"})
    assert response.status_code == 201
    body = response.get_json()
    assert set(body) >= {"rep", "ibip", "utc", "persistent_url"}
    assert parse_ibi(body["rep"]).date == parse_ibi(body["ibip"]).date
    assert body["persistent_url"] == "http://localhost/" + body["ibip"]


def test_api_mint_without_body(client):
    response = client.post("/api/v1/mint")
    assert response.status_code == 201
    assert parse_ibi(response.get_json()["ibip"]).form == "ibip"


def test_api_mint_count_gives_a_list_of_distinct_increasing_identifiers(app, client):
    app.config["GRANULARITY"] = "0.01"
    app.extensions["ibiportal.subsystem"] = Subsystem.from_config(app.config)
    response = client.post("/api/v1/mint", json={"count": 5})
    assert response.status_code == 201
    items = response.get_json()
    assert len(items) == 5
    dates = [parse_ibi(i["ibip"]).date for i in items]
    assert dates == sorted(set(dates))


@pytest.mark.parametrize(
    ("body", "field", "position"),
    [
        ('{"count": 101}', "count", None),
        ('{"count": 0}', "count", None),
        ('{"count": "many"}', "count", None),
        ('{"title": ', "body", 11),
        ("[1, 2]", "body", 1),
        ('{"target_url": "javascript:alert(1)"}', "target_url", 1),
    ],
)
def test_api_mint_bad_input_is_a_400_naming_the_field(client, body, field, position):
    response = client.post("/api/v1/mint", data=body, content_type="application/json")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["field"] == field
    assert error["position"] == position
    assert error["message"]


def test_cli_mint_prints_and_stores(runner, app):
    result = runner.invoke(args=["ibi", "mint", "--count", "2", "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert len(lines) == 2
    with app.app_context():
        from ibiportal.web.context import get_storage

        assert [i.ibip for i in get_storage().minted_items()] == [line["ibip"] for line in lines]


def test_cli_mint_bad_count_exits_non_zero(runner):
    result = runner.invoke(args=["ibi", "mint", "--count", "10001"])
    assert result.exit_code != 0
    assert "count" in result.output


def test_mint_page_shows_result_and_demo_notice(client):
    page = client.get("/mint")
    assert b"demo identification subsystem" in page.data
    response = client.post("/mint", data={"title": "Page item", "count": "1"})
    assert response.status_code == 200
    assert b"Persistent URL" in response.data


def test_mint_page_shows_error_next_to_field(client):
    response = client.post("/mint", data={"target_url": "gopher://x", "count": "1"})
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert 'id="target_url-error"' in html and "http" in html


def test_no_two_dates_share_an_ibip_at_fine_granularity(tmp_path):
    # r = 0.01 would issue S.01 and later S.1, whose IBIp suffixes are equal (Algorithm 6).
    clock = FakeClock("1700000000.005")
    subsystem = Subsystem("mtc-m18.sid.inpe.br", 80, "150.163.34.243", 800, Decimal("0.01"))
    minter = Minter(Storage(str(tmp_path / "m.sqlite")), subsystem, clock, clock.sleep)
    items = [minter.mint() for _ in range(250)]
    assert len({item.ibip for item in items}) == 250
    assert all(parse_ibi(item.ibip).date == item.date for item in items)
    assert not any(split_date(item.date)[1].startswith("0") for item in items)
