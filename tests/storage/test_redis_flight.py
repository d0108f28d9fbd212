"""RedisFlight against a real throwaway Redis: one leader across processes, its outcome (a redirect
or an alert) reaching the followers whole, a killed leader's lock expiring, and Redis going away
mid-flight failing open with one WARNING."""
from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ibiportal.archive.demo import load_demo_archives
from ibiportal.resolver.cache import cached_outcome
from ibiportal.resolver.diagnosis import diagnose
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver, joined
from ibiportal.resolver.local_transport import LocalTransport
from ibiportal.storage.redis_flight import Published, RedisFlight
from ibiportal.storage.signal import REDIS_TIMEOUT_SECONDS, RedisChanges
from ibiportal.application.resolving import StoredResolution, from_published, published
from tests.servers import RedisServer
from tests.standard_examples import SECTION_10_1_URL

CLIENT = ClientInfo(("172.16.44.200", "150.163.68.1"), "pt-BR,en;q=0.5")


@pytest.fixture
def redis_client(redis_server):
    redis_server.flush()
    return RedisChanges(redis_server.url).client


def worker(client, **settings) -> RedisFlight:
    """One worker's flight (each gunicorn worker builds its own): short lock and wait by default."""
    return RedisFlight(client, **{"lock_seconds": 3.0, "wait_seconds": 2.0, **settings})


def said(result: object) -> dict:
    """The outcome published for ``result``."""
    return {"said": result}


def test_one_caller_leads_and_callers_in_other_workers_receive_its_outcome(redis_client):
    started, release, calls = threading.Event(), threading.Event(), []

    def lead() -> str:
        calls.append("leader")
        started.set()
        release.wait(5)
        return "the result"

    with ThreadPoolExecutor(4) as pool:
        leader = pool.submit(worker(redis_client).run, "key", lead, said)
        assert started.wait(5)
        followers = [pool.submit(worker(redis_client).run, "key", lambda: calls.append("follower"), said)
                     for _ in range(3)]
        time.sleep(0.2)  # they are waiting
        release.set()
        assert leader.result(5) == "the result"
        assert [follower.result(5) for follower in followers] == [Published({"said": "the result"})] * 3
    assert calls == ["leader"]
    assert redis_client.keys("ibiportal:flight:*:lock") == []  # released at once, not left to expire
    assert worker(redis_client).run("key", lambda: "fresh", said) == "fresh"  # a later caller leads again


def test_a_caller_arriving_just_after_the_outcome_was_published_still_receives_it(redis_client):
    """The outcome stays readable a moment: a follower that found the lock taken but subscribed
    only after the PUBLISH reads it from the result key."""
    flight = worker(redis_client)
    names = [flight.run("key", lambda: "led", said)]
    (result_key,) = redis_client.keys("ibiportal:flight:*:result")
    redis_client.set(result_key.decode().replace(":result", ":lock"), "another leader", px=3000)
    names.append(worker(redis_client).run("key", lambda: "not called", said))
    assert names == ["led", Published({"said": "led"})]


def resolved(url: str) -> StoredResolution:
    archives = load_demo_archives(portal_url="http://portal.example")
    transport = LocalTransport(archive for name, archive in archives.items() if name not in ("slow", "garbled"))
    resolver = Resolver(transport.endpoints(), {"local": transport})
    try:
        resolution = resolver.resolve(Asked.parse(url), CLIENT)
    finally:
        resolver.close()
    return StoredResolution("leader-trace-id", resolution, diagnosis=diagnose(resolution, []))


@pytest.mark.parametrize("path, expected", [
    ("/8JMKD3MGP8W/35MMLL8", "found"),  # §10.1: a redirect, acknowledged
    ("/D7N2U8HW/3GBBQK2", "deleted"),  # 410: a stable alert
    ("/8JMKD3MGP8W/34PGRBS", "not-found"),  # 404 with its diagnosis
])
def test_a_redirect_or_an_alert_reaches_a_follower_in_another_worker_as_the_leader_had_it(redis_client, path, expected):
    leader = resolved("http://portal.example" + path)
    assert ("found" if leader.resolution.found else leader.resolution.alert.reason.value) == expected
    started, release = threading.Event(), threading.Event()

    def lead() -> StoredResolution:
        started.set()
        release.wait(5)
        return leader

    with ThreadPoolExecutor(2) as pool:
        leading = pool.submit(worker(redis_client).run, path, lead, published)
        assert started.wait(5)
        following = pool.submit(worker(redis_client).run, path, lambda: pytest.fail("the follower resolved"), published)
        time.sleep(0.2)
        release.set()
        assert leading.result(5) is leader
        shared = following.result(5)
    follower = from_published(shared.outcome)
    original = leader.resolution
    assert (follower.trace_id, follower.joined, follower.diagnosis) == ("leader-trace-id", True, leader.diagnosis)
    assert (follower.resolution.url, follower.resolution.alert, follower.resolution.archive) == (
        original.url, original.alert, original.archive)
    assert follower.resolution.acknowledgment == original.acknowledgment  # the Archive to acknowledge again
    assert (original.acknowledgment is not None) == (expected == "found")
    link = "http://portal.example/api/v1/trace/leader-trace-id"
    assert joined(follower.resolution, link, 5.0) == joined(original, link, 5.0)  # the follower's own trace
    kept, kept_by_leader = cached_outcome(follower.resolution, link), cached_outcome(original, link)
    assert kept is not None and type(kept) is type(kept_by_leader)  # its worker keeps it as the leader's does
    if expected == "found":
        assert kept == kept_by_leader
    assert diagnose(follower.resolution, []) == leader.diagnosis  # a later cache hit explains it alike
    if expected == "found":
        assert original.url == SECTION_10_1_URL
    steps = json.loads(redis_client.get(redis_client.keys("ibiportal:flight:*:result")[0]))["resolution"]["trace"]["steps"]
    assert {step["number"] for step in steps} == {2, 3, 4, 7}  # (2) names the IBI asked, (4) the IBIs the loop followed
    assert all(step["raw_answer"] is None and step["pairs"] is None for step in steps)  # answers stay in the database


KILLED_LEADER = textwrap.dedent("""
    import sys, time
    from ibiportal.storage.redis_flight import RedisFlight
    from ibiportal.storage.signal import REDIS_TIMEOUT_SECONDS, RedisChanges
    flight = RedisFlight(RedisChanges(sys.argv[1]).client, lock_seconds=1.5, wait_seconds=1.0)
    flight.run("key", lambda: print("leading", flush=True) or time.sleep(60), dict)
""")


def test_a_killed_leader_blocks_followers_no_longer_than_its_lock(redis_server, redis_client):
    leader = subprocess.Popen([sys.executable, "-c", KILLED_LEADER, redis_server.url], stdout=subprocess.PIPE, text=True)
    try:
        assert leader.stdout.readline() == "leading\n"
        locked_at = time.monotonic()
    finally:
        leader.kill()
        leader.wait()
        leader.stdout.close()
    begun = time.monotonic()
    assert worker(redis_client, wait_seconds=0.3).run("key", lambda: "by itself", said) == "by itself"
    assert 0.3 <= time.monotonic() - begun < 1.0  # waited its bound for an outcome that never came
    time.sleep(max(0.0, locked_at + 1.6 - time.monotonic()))  # the lock has expired
    begun = time.monotonic()
    assert worker(redis_client).run("key", lambda: "new leader", said) == "new leader"
    assert time.monotonic() - begun < 0.3  # led at once


def test_a_leader_that_fails_releases_its_followers_at_once(redis_client):
    started = threading.Event()

    def failing() -> str:
        started.set()
        time.sleep(0.2)
        raise RuntimeError("a fault of the leader's process")

    with ThreadPoolExecutor(2) as pool:
        leading = pool.submit(worker(redis_client, wait_seconds=5.0).run, "key", failing, said)
        assert started.wait(5)
        begun = time.monotonic()
        following = pool.submit(worker(redis_client, wait_seconds=5.0).run, "key", lambda: "by itself", said)
        assert following.result(5) == "by itself" and time.monotonic() - begun < 2.0
        with pytest.raises(RuntimeError):
            leading.result(5)


def test_redis_going_away_mid_flight_fails_open_with_one_warning(caplog):
    server = RedisServer.start()  # a Redis of its own, to stop
    client = RedisChanges(server.url).client
    started, release = threading.Event(), threading.Event()

    def lead() -> str:
        started.set()
        release.wait(5)
        return "leader's"

    caplog.set_level(logging.WARNING, logger="ibiportal.storage.redis_flight")
    try:
        with ThreadPoolExecutor(2) as pool:
            leading = pool.submit(worker(client, wait_seconds=5.0).run, "key", lead, said)
            assert started.wait(5)
            follower = worker(client, wait_seconds=5.0)
            following = pool.submit(follower.run, "key", lambda: "follower's own", said)
            time.sleep(0.2)
            server.stop()  # while one leads and the other waits
            begun = time.monotonic()
            assert following.result(5) == "follower's own" and time.monotonic() - begun < 1.0
            release.set()
            assert leading.result(5) == "leader's"
    finally:
        if server.process.poll() is None:
            server.stop()
    begun = time.monotonic()
    assert [follower.run("key", lambda: n, said) for n in range(20)] == list(range(20))  # per worker now
    assert time.monotonic() - begun < 1.0
    warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert len([w for w in warnings if "single flight is per worker" in w.getMessage()]) == 2  # once per worker
    assert all(record.exc_info is None for record in caplog.records)


def test_a_stalled_redis_costs_one_request_its_timeout_then_is_left_alone(caplog):
    server = RedisServer.start()
    client = RedisChanges(server.url).client
    flight = worker(client)
    caplog.set_level(logging.WARNING, logger="ibiportal.storage.redis_flight")
    os.kill(server.process.pid, signal.SIGSTOP)  # accepts connections, answers nothing
    try:
        begun = time.monotonic()
        assert flight.run("key", lambda: "by itself", said) == "by itself"
        assert time.monotonic() - begun < REDIS_TIMEOUT_SECONDS + 0.5  # the client's timeout, not the deadline
        begun = time.monotonic()
        assert [flight.run("key", lambda: n, said) for n in range(20)] == list(range(20))
        assert time.monotonic() - begun < 0.2  # Redis left alone meanwhile
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
        client.close()
        server.stop()
    assert [record.getMessage().split(":")[0] for record in caplog.records] == [
        "Redis unreachable, single flight is per worker until it is back"]
