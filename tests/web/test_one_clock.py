"""One clock: the portal reads the time from the clock ``create_app`` was given, so a test that
moves it sees every time the portal issues or stores follow (a minted IBI's date, its history, a
registration, an API token's creation)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from ibiportal import create_app
from ibiportal.storage.database import Storage
from ibiportal.storage.registry import ArchiveStore
from ibiportal.storage.tokens import TokenStore

SERVICE_IBI = "8JMKD3MGP3W34R/3UGHFGH"


class MovableClock:
    """A wall clock a test sets: it stands still until moved."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def test_moving_the_clock_moves_minted_dates_histories_and_registrations(new_database):
    clock = MovableClock(datetime(2031, 5, 4, 3, 2, 1, tzinfo=timezone.utc))
    database = new_database()
    app = create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False}, clock)
    client = app.test_client()

    first = client.post("/api/v1/mint", json={"title": "Relatório"}).get_json()
    assert first["utc"].startswith("2031-05-04T03:02")  # Algorithm 4 may take a coarser grid: the minute
    clock.at += timedelta(days=400)
    second = client.post("/api/v1/mint", json={"title": "Segunda edição", "previous_edition": first["ibip"]}).get_json()
    assert second["utc"].startswith("2032-06-07T03:02")
    history = client.get(f"/api/v1/items/{first['ibip']}/history").get_json()["history"]
    assert [entry["at"][:19] for entry in history] == ["2031-05-04T03:02:01", "2032-06-07T03:02:01"]  # minted, linked

    clock.at = datetime(2033, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    registered = app.test_cli_runner().invoke(args=["archives", "register", SERVICE_IBI, "--key", "1234567890"])
    assert registered.exit_code == 0, registered.output
    token = app.test_cli_runner().invoke(args=["api-token", "create", "ci"])
    assert token.exit_code == 0, token.output
    storage = Storage(database)
    try:
        assert ArchiveStore(storage).find_archive(SERVICE_IBI).registered_at.startswith("2033-01-02T03:04:05")
        assert [record.created_at[:19] for record in TokenStore(storage).records()] == ["2033-01-02T03:04:05"]
    finally:
        storage.close()
