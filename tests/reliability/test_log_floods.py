"""Every warning and error a request or a background loop can repeat is one line per cause per
minute, with the count of those held back (``ibiportal/log_limits.py``): each cause is flooded
here and its lines counted.

Each test puts a fresh LimitedLog with a clock of its own in place of the module's, so that the
minute is the test's (another test's line of the same cause must not hold this one's back)."""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import pytest

from ibiportal import create_app
from ibiportal.application import references, resolving
from ibiportal.application.references import Allowance, ReferenceCheck
from ibiportal.ibi.extract import extract
from ibiportal.log_limits import DEFAULT_INTERVAL_SECONDS, LimitedLog
from ibiportal.resolver import curl_transport, registry_service
from ibiportal.resolver.statuses import ALERT_STATUS, FOUND_STATUS
from ibiportal.resolver.trace import StepKind, TraceStep
from ibiportal.resolver.transport import Timeouts
from ibiportal.storage.files import FileChanged
from ibiportal.web import errors, files
from tests.reliability.faulty_archives import RawArchive, says_nothing
from tests.servers import fresh_sqlite

FLOOD = 50
HELD_BACK = f" ({FLOOD - 1} more like it since the last one logged)"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def limited(monkeypatch):
    """``limited(module, name)``: the module's LimitedLog, fresh, on a clock the test moves."""
    clock = Clock()

    def fresh(module, name: str) -> Clock:
        monkeypatch.setattr(module, name, LimitedLog(getattr(module, name).logger, clock=clock))
        return clock

    return fresh


def lines(caplog, text: str) -> list[logging.LogRecord]:
    return [record for record in caplog.records if text in record.getMessage()]


def flooded(caplog, clock: Clock, text: str, once) -> list[logging.LogRecord]:
    """``once()`` FLOOD times within the minute, then once more after it: the lines of ``text``."""
    with caplog.at_level(logging.WARNING):
        for _ in range(FLOOD):
            once()
        assert len(lines(caplog, text)) == 1, "one line for the whole flood"
        clock.now += DEFAULT_INTERVAL_SECONDS
        once()
    written = lines(caplog, text)
    assert len(written) == 2 and written[1].getMessage().endswith(HELD_BACK)
    return written


def portal(database: str, **settings):
    return create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "RATELIMIT_ENABLED": False,
                       **settings})


def test_refused_archive_registrations(tmp_path, limited, caplog):
    clock = limited(registry_service, "_REFUSALS")
    client = portal(fresh_sqlite(tmp_path / "p.sqlite")).test_client()

    def refused() -> None:
        assert client.get("/J8LNKB5R7W/3FUQHC5?servicesubject=nonsense").status_code == 400

    written = flooded(caplog, clock, "archive registration request refused (400)", refused)
    assert written[0].levelno == logging.WARNING


def test_database_unreachable(tmp_path, limited, caplog):
    clock = limited(errors, "_LOG")
    app = portal(str(tmp_path / "p.sqlite"))
    (tmp_path / "p.sqlite").unlink(missing_ok=True)
    (tmp_path / "p.sqlite").mkdir()  # a folder where the file was: every connection fails
    client = app.test_client()

    def unreachable() -> None:
        assert client.get("/api/v1/items/8JMKD3MGP8W/34PGRBS").status_code == 503

    flooded(caplog, clock, "database unreachable, answering 503", unreachable)


def test_a_database_behind_the_schema(tmp_path, limited, caplog):
    clock = limited(errors, "_LOG")
    empty = tmp_path / "empty.sqlite"
    empty.touch()  # never upgraded: no tables
    client = portal(str(empty)).test_client()

    def not_ready() -> None:
        assert client.get("/api/v1/items/8JMKD3MGP8W/34PGRBS").status_code == 503

    written = flooded(caplog, clock, "run 'flask --app app db upgrade'", not_ready)
    assert written[0].levelno == logging.ERROR


def test_a_defect_every_request_meets(tmp_path, limited, caplog):
    clock = limited(errors, "_LOG")
    app = portal(fresh_sqlite(tmp_path / "p.sqlite"))

    def broken():
        return {}["missing"]

    app.add_url_rule("/broken", "broken", broken)
    client = app.test_client()

    def fails() -> None:
        assert client.get("/broken").status_code == 500

    written = flooded(caplog, clock, "unhandled error on /broken", fails)
    assert all(record.levelno == logging.ERROR and record.exc_info[0] is KeyError for record in written)


def test_downloads_of_a_file_replaced_meanwhile(limited, caplog):
    clock = limited(files, "_ENDED_EARLY")

    class Replaced:
        """An application whose file is replaced while it is read."""

        def file_chunks(self, *args):
            raise FileChanged("report.pdf was replaced while it was read")
            yield b""

    def download() -> None:
        assert list(files._body(Replaced(), None, 0, 10)) == []

    flooded(caplog, clock, "download ended early", download)


def test_notices_that_cannot_be_recorded(tmp_path, limited, caplog):
    clock = limited(resolving, "_NOTICE_LOG")
    notice = TraceStep(6, StepKind.NOTICE, "Archive", "resolver", "the notice came")
    nowhere = str(tmp_path / "no such folder" / "p.sqlite")

    written = flooded(caplog, clock, "could not be recorded",
                      lambda: resolving._record_notice(nowhere, "trace-1", notice))
    assert written[0].exc_info is not None


def test_entries_of_a_reference_list_whose_resolution_fails(limited, caplog):
    clock = limited(references, "_FAILURES")
    text = "\n".join(f"sid.inpe.br/mtc-m18@80/2009/02.16.17.{second:02}" for second in range(10, 10 + FLOOD))
    entries = extract(text).found
    assert len(entries) == FLOOD

    def resolve(entry):
        raise RuntimeError("the resolver broke")

    with ThreadPoolExecutor(max_workers=4) as executor:
        check = ReferenceCheck(resolve, executor, alert_status=ALERT_STATUS, found_status=FOUND_STATUS)
        with caplog.at_level(logging.WARNING):
            outcomes = [item.resolution.status for item in check.run(entries, Allowance)]
        assert outcomes == [500] * FLOOD
        assert len(lines(caplog, "reference check: resolving")) == 1
        clock.now += DEFAULT_INTERVAL_SECONDS
        with caplog.at_level(logging.WARNING):
            list(check.run(entries[:1], Allowance))
    written = lines(caplog, "reference check: resolving")
    assert len(written) == 2 and written[1].getMessage().endswith(HELD_BACK)


def test_fan_out_loops_that_fail(limited, caplog, monkeypatch):
    """Each failure ends a loop and its exchanges; the next exchange starts a new loop."""
    clock = limited(curl_transport, "_LOOP_FAILURES")
    transport = curl_transport.CurlTransport(allow_private=True)
    monkeypatch.setattr(curl_transport._Loop, "_turn", lambda self: 1 / 0)

    def fails() -> None:
        pending = transport.submit([(f"http://{silent.address}/a", Timeouts(5, 5, 5))])[0]
        assert pending.result(timeout=5).failure is not None  # ended, not left waiting

    try:
        with RawArchive(says_nothing) as silent:
            flooded(caplog, clock, "the fan-out loop failed", fails)
    finally:
        transport.close()
