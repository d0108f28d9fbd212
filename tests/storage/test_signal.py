"""Changes to what resolutions answer reach every worker of the node through its signal file,
and every other node through Redis; Redis down delays the other nodes, never the change. An
item's change names its IBIs (both forms), read by each process once, whatever order the
transactions that made them commit in."""
from __future__ import annotations

import logging
import threading
import time

import pytest
from sqlalchemy import insert
from sqlalchemy.exc import OperationalError, ProgrammingError

from ibiportal.storage.signal import Changes
from ibiportal.storage import signal as signal_module
from ibiportal.storage.database import Storage
from ibiportal.storage.schema import minted_item
from ibiportal.storage.signal import (
    GenerationSignal,
    RedisChanges,
    bump_resolution_generation,
    ibis_changed,
    read_changes,
    write_signal_file,
)
from tests.servers import free_port


def wait_until(condition, seconds: float) -> float:
    """Seconds it took ``condition`` to hold (fails the test past ``seconds``)."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < seconds, "not within the time allowed"
        time.sleep(0.005)
    return time.monotonic() - start


def test_a_change_on_one_node_reaches_the_other_through_redis(database_setting, redis_server, tmp_path):
    reader = Storage(database_setting)
    other_node = RedisChanges(redis_server.url)
    signal = GenerationSignal(str(tmp_path / "node-b"), lambda seen: read_changes(reader, seen), other_node)
    wait_until(lambda: other_node.heard > 0, 5)  # listening
    assert signal.current().generation == 0

    this_node = RedisChanges(redis_server.url)

    def announce(generation: int) -> None:  # what the web layer wires in: node A's own file, then Redis
        write_signal_file(str(tmp_path / "node-a"), generation)
        this_node.publish(generation)

    writer = Storage(database_setting, announce=announce)
    with writer.write_transaction() as conn:
        bump_resolution_generation(writer, conn)
    assert wait_until(lambda: signal.current().generation == 1, 1.0) < 1.0
    writer.close()
    reader.close()


def test_redis_down_is_logged_and_changes_nothing_else(database_setting, tmp_path, caplog):
    down = RedisChanges(f"redis://127.0.0.1:{free_port()}/0")
    assert "refused" in down.reachable().lower() or "connect" in down.reachable().lower()
    writer = Storage(database_setting, announce=down.publish)
    with caplog.at_level(logging.WARNING, logger="ibiportal.storage.signal"):
        with writer.write_transaction() as conn:
            bump_resolution_generation(writer, conn)
    assert read_changes(writer, None).generation == 1  # committed all the same
    assert "Redis unreachable, other nodes learn of this node's changes late" in caplog.text
    writer.close()


def test_redis_down_is_one_line_a_minute_however_many_changes(tmp_path, caplog):
    """901 mints with Redis stopped were 901 WARNING lines; now the first, the rest counted."""
    down = RedisChanges(f"redis://127.0.0.1:{free_port()}/0")
    with caplog.at_level(logging.WARNING, logger="ibiportal.storage.signal"):
        for generation in range(1, 21):
            down.publish(generation)
    assert [record.getMessage().split(":")[0] for record in caplog.records] == [
        "Redis unreachable, other nodes learn of this node's changes late"]


def test_a_rolled_back_change_is_never_announced(database_setting):
    announced: list[int] = []
    writer = Storage(database_setting, announce=announced.append)
    try:
        with writer.write_transaction() as conn:
            bump_resolution_generation(writer, conn)
            raise RuntimeError("rolled back")
    except RuntimeError:
        pass
    with writer.write_transaction() as conn:
        bump_resolution_generation(writer, conn)
    assert len(announced) == 1 and read_changes(writer, None).generation == 1  # one commit, one announcement
    writer.close()


def test_an_item_change_reaches_the_other_node_with_both_forms_of_its_ibi(database_setting, redis_server, tmp_path):
    reader = Storage(database_setting)
    other_node = RedisChanges(redis_server.url)
    signal = GenerationSignal(str(tmp_path / "node-b"), lambda seen: read_changes(reader, seen), other_node)
    wait_until(lambda: other_node.heard > 0, 5)
    before = signal.current()
    this_node = RedisChanges(redis_server.url)
    writer = Storage(database_setting, announce=this_node.publish)
    mint(writer, "sid.inpe.br/mtc-m18/2009/02.16.17.46", "8JMKD3MGP8W/34PGRBS")
    with writer.write_transaction() as conn:
        ibis_changed(writer, conn, ["8JMKD3MGP8W/34PGRBS"])  # one form given: the other is found
    wait_until(lambda: signal.current().last > before.last, 1.0)
    after = signal.current()
    assert after.generation == before.generation  # nothing else empties
    assert after.ibis_after(before.last) == {"8jmkd3mgp8w/34pgrbs", "sid.inpe.br/mtc-m18/2009/02.16.17.46"}
    writer.close()
    reader.close()


def test_each_commit_of_either_kind_announces_once_a_number_unlike_the_one_before(database_setting):
    announced: list[int] = []
    writer = Storage(database_setting, announce=announced.append)
    with writer.write_transaction() as conn:
        ibis_changed(writer, conn, ["A/1"])
        ibis_changed(writer, conn, ["A/2"])
    with writer.write_transaction() as conn:
        bump_resolution_generation(writer, conn)
    with writer.write_transaction() as conn:
        ibis_changed(writer, conn, ["A/3"])
    with writer.write_transaction() as conn:
        ibis_changed(writer, conn, [])  # nothing named: nothing committed, nothing announced
    assert len(announced) == 3 and len(set(announced)) == 3
    writer.close()


def test_a_reader_that_missed_changes_no_longer_kept_knows_it(database_setting, monkeypatch):
    monkeypatch.setattr(signal_module, "RETAINED_CHANGES", 3)
    monkeypatch.setattr(signal_module, "PRUNE_EVERY", 1)
    storage = Storage(database_setting)
    seen = read_changes(storage, None)
    for n in range(6):
        with storage.write_transaction() as conn:
            ibis_changed(storage, conn, [f"A/{n}"])
    late = read_changes(storage, seen)
    assert late.last == seen.last + 6 and late.ibis_after(seen.last) is None  # its cache empties
    with storage.write_transaction() as conn:
        ibis_changed(storage, conn, ["B/1"])
    assert read_changes(storage, late).ibis_after(late.last) == {"b/1"}
    storage.close()


def test_a_process_remembers_a_bounded_number_of_changes(database_setting, monkeypatch):
    monkeypatch.setattr(signal_module, "REMEMBERED_CHANGES", 2)
    storage = Storage(database_setting)
    seen = read_changes(storage, None)
    with storage.write_transaction() as conn:
        ibis_changed(storage, conn, ["A/1", "A/2", "A/3"])
    changes = read_changes(storage, seen)
    assert len(changes.recent) == 2 and changes.ibis_after(seen.last) is None
    assert changes.ibis_after(changes.last - 1) == {"a/3"}
    storage.close()


def test_item_changes_wait_for_none_and_a_change_committed_after_a_later_one_is_read(postgres_server):
    """PostgreSQL: the first transaction's change gets the smaller id but commits last; the second
    did not wait for it, a reader read in between, and still reads the first's change, once; the
    two commits announce different numbers (the newest id is the same after both)."""
    setting = postgres_server.new_database()
    announced: list[int] = []
    first, second = Storage(setting, announce=announced.append), Storage(setting, announce=announced.append)
    reader = Storage(setting)
    seen = read_changes(reader, None)
    done = threading.Event()

    def change_from_second() -> None:
        with second.write_transaction() as conn:
            ibis_changed(second, conn, ["B/1"])
        done.set()

    with first.write_transaction() as conn:
        ibis_changed(first, conn, ["A/1"])
        thread = threading.Thread(target=change_from_second)
        thread.start()
        assert done.wait(10)  # not held until the first commits
        between = read_changes(reader, seen)
    thread.join(10)
    assert between.ibis_after(seen.last) == {"b/1"}
    after = read_changes(reader, between)
    assert after.ibis_after(between.last) == {"a/1"}
    assert after.ibis_after(seen.last) == {"a/1", "b/1"}
    assert read_changes(reader, after).last == after.last  # nothing read twice
    assert len(announced) == 2 and announced[0] != announced[1]
    for storage in (first, second, reader):
        storage.close()


def mint(storage: Storage, rep: str, ibip: str) -> None:
    """A minted item as the minting code stores it (only what the lookup of forms reads matters)."""
    with storage.write_transaction() as conn:
        conn.execute(insert(minted_item).values(rep=rep, ibip=ibip, date="1234806360", utc="", subsystem="s",
                                                title="t", created_at="2009-02-16T17:46:00Z"))


STALE = 20  # seconds, as IBIPORTAL_OUTAGE_STALE_SECONDS would set


def test_while_the_database_does_not_answer_the_last_changes_stand_for_a_bounded_time(tmp_path, caplog):
    """Cached redirects outlive a restart: the last changes read are answered, the read tried
    again once a RETRY_SECONDS, for at most stale_seconds (IBIPORTAL_OUTAGE_STALE_SECONDS); then the
    outage is the caller's."""
    path = str(tmp_path / "node")
    now = [100.0]
    reads: list[str] = []
    answers = {"mode": "up"}

    def read(seen):
        reads.append(answers["mode"])
        if answers["mode"] == "down":
            raise OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))
        if answers["mode"] == "bug":
            raise ProgrammingError("SELEC 1", {}, Exception("syntax error"))
        return Changes(len(reads), 0, (), 0)

    signal = GenerationSignal(path, read, clock=lambda: now[0], stale_seconds=STALE)
    first = signal.current()
    answers["mode"] = "down"
    write_signal_file(path, 1)  # something was committed: the next lookup must revalidate
    with caplog.at_level(logging.WARNING, logger="ibiportal.storage.signal"):
        assert signal.current() == first and signal.current() == first
        assert reads == ["up", "down"]  # not one read per lookup
        now[0] += signal_module.RETRY_SECONDS
        assert signal.current() == first and reads == ["up", "down", "down"]
        now[0] += STALE - signal_module.RETRY_SECONDS  # the window is over
        with pytest.raises(OperationalError):
            signal.current()
        answers["mode"] = "up"
        assert signal.current().generation == 5 and reads == ["up", "down", "down", "down", "up"]
    assert [record.getMessage().split(":")[0] for record in caplog.records] == [
        "database unreachable", "database reachable again"]
    answers["mode"] = "bug"
    write_signal_file(path, 2)
    with pytest.raises(ProgrammingError):  # a wrong statement is no outage
        signal.current()


def test_a_stale_window_of_0_serves_nothing_stale(tmp_path):
    """IBIPORTAL_OUTAGE_STALE_SECONDS=0: once something changed, a lookup during an outage is the
    caller's outage (503) at once, not the changes last read."""
    path = str(tmp_path / "node")
    down = []

    def read(seen):
        if down:
            raise OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))
        return Changes(1, 0, (), 0)

    signal = GenerationSignal(path, read, clock=lambda: 100.0, stale_seconds=0)
    signal.current()
    down.append(True)
    write_signal_file(path, 1)
    with pytest.raises(OperationalError):
        signal.current()
