"""Changes that empty resolution caches reach every worker of the node through its signal file,
and every other node through Redis; Redis down delays the other nodes, never the change."""
from __future__ import annotations

import logging
import time

from ibiportal.storage.database import Storage
from ibiportal.storage.signal import (
    GenerationSignal,
    RedisChanges,
    bump_resolution_generation,
    read_resolution_generation,
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
    signal = GenerationSignal(str(tmp_path / "node-b"), lambda: read_resolution_generation(reader), other_node)
    wait_until(lambda: other_node.heard > 0, 5)  # listening
    assert signal.current() == 0

    this_node = RedisChanges(redis_server.url)

    def announce(generation: int) -> None:  # what the web layer wires in: node A's own file, then Redis
        write_signal_file(str(tmp_path / "node-a"), generation)
        this_node.publish(generation)

    writer = Storage(database_setting, announce=announce)
    with writer.write_transaction() as conn:
        bump_resolution_generation(writer, conn)
    assert wait_until(lambda: signal.current() == 1, 1.0) < 1.0
    writer.close()
    reader.close()


def test_redis_down_is_logged_and_changes_nothing_else(database_setting, tmp_path, caplog):
    down = RedisChanges(f"redis://127.0.0.1:{free_port()}/0")
    assert "refused" in down.reachable().lower() or "connect" in down.reachable().lower()
    writer = Storage(database_setting, announce=down.publish)
    with caplog.at_level(logging.WARNING, logger="ibiportal.storage.signal"):
        with writer.write_transaction() as conn:
            bump_resolution_generation(writer, conn)
    assert read_resolution_generation(writer) == 1  # committed all the same
    assert "Redis unreachable, other nodes learn of resolution generation 1 late" in caplog.text
    writer.close()


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
    assert announced == [1] and read_resolution_generation(writer) == 1
    writer.close()
