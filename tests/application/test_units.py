"""A unit of work's storage: opened on first use, shared within the unit, closed when it ends,
one per thread; and the application create_app builds from the typed settings."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from ibiportal import create_app
from ibiportal.application.units import StorageScope, UnitExecutor
from ibiportal.config import Settings
from ibiportal.web.context import application


class FakeStorage:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_a_unit_opens_its_storage_once_and_closing_ends_it():
    opened: list[FakeStorage] = []
    scope = StorageScope(lambda: opened.append(FakeStorage()) or opened[-1])
    first = scope()
    assert scope() is first and len(opened) == 1
    scope.close()
    assert first.closed
    assert scope() is not first and len(opened) == 2


def test_each_thread_has_its_own_unit_and_a_pool_job_closes_what_it_opened():
    opened: list[FakeStorage] = []
    lock = threading.Lock()

    def open_storage() -> FakeStorage:
        with lock:
            opened.append(FakeStorage())
            return opened[-1]

    scope = StorageScope(open_storage)
    mine = scope()
    with ThreadPoolExecutor(1) as pool:
        executor = UnitExecutor(pool, scope)
        theirs = [executor.submit(scope).result() for _ in range(2)]
    assert mine not in theirs and theirs[0] is not theirs[1]
    assert all(storage.closed for storage in theirs) and not mine.closed


def test_create_app_builds_the_application_from_the_typed_settings(tmp_path):
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "DATABASE": str(tmp_path / "x.sqlite"),
                      "TRUSTED_PROXIES": ["192.0.2.9"]})
    with app.app_context():
        settings = application().settings
        assert isinstance(settings, Settings)
        assert settings.database == str(tmp_path / "x.sqlite") and settings.trusted_proxies == ("192.0.2.9",)
        assert settings.instance == app.instance_path
