"""What is particular to ``CurlTransport`` – one libcurl multi handle driven by one thread per
process – on real loopback Archives: batches, threads submitting at once, closing, forking
(gunicorn forks its workers), the size cap, the exchange deadline and kept-alive connections.

The proofs it shares with ``HttpTransport`` (address policy, faults, HTTPS) run on both clients
in ``tests/security/test_ssrf.py``, ``tests/reliability/test_archive_faults.py`` and
``tests/resolver/test_http_transport.py``.
"""
from __future__ import annotations

import gc
import os
import pickle
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ibiportal.resolver.curl_transport import CurlTransport, _Loop
from ibiportal.resolver.transport import Exchange, Failure, Timeouts
from tests.reliability.faulty_archives import (
    RawArchive,
    answers,
    endless,
    garbage,
    keeps_alive,
    says_nothing,
    trickles,
)

TIMEOUTS = Timeouts(connect=1.0, read=1.0, total=2.0)
#: For a test of which answer reaches which request, not of timing: 40 exchanges at once, each
#: answered at once on loopback, once ran past the 1 s of :data:`TIMEOUTS` while the full suite
#: loaded the 2 cores (an answer of None, the failure not shown).
ROUTING_TIMEOUTS = Timeouts(connect=10.0, read=10.0, total=20.0)
#: Room for thread scheduling on a loaded 2-core machine, as in the fault tests.
MARGIN = 0.75
LOOP_THREAD = "ibi-curl-fan-out"


def echoes(connection: socket.socket, head: bytes) -> None:
    """Answers the Archive's own port and the request line: who answered what."""
    body = f"{connection.getsockname()[1]} {head.split(b' ')[1].decode()}".encode()
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                       + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)


@pytest.fixture
def transport():
    curl = CurlTransport(allow_private=True)
    yield curl
    curl.close()


@pytest.fixture(scope="module")
def fifty():
    """50 Archives on loopback, each answering with its own port."""
    archives = [RawArchive(echoes) for _ in range(50)]
    yield archives
    for archive in archives:
        archive.close()


def loop_threads() -> int:
    return sum(thread.name == LOOP_THREAD for thread in threading.enumerate())


def test_a_batch_of_50_submitted_at_once_all_complete(transport, fifty):
    started = time.monotonic()
    futures = transport.submit([(f"http://{archive.address}/a?n={index}", TIMEOUTS)
                                for index, archive in enumerate(fifty)])
    exchanges = [future.result(timeout=5) for future in futures]
    assert time.monotonic() - started < 2.0
    assert [exchange.body.decode() for exchange in exchanges] == [
        f"{archive.port} /a?n={index}" for index, archive in enumerate(fifty)]


def test_a_handle_used_again_asks_only_its_own_transfer(fifty):
    """Finished transfers leave their handles for the next ones, which set their own URL, pin,
    timeouts and cap: a later round to other Archives gets their answers, whole, and a smaller
    cap still cuts."""
    transport = CurlTransport(allow_private=True, max_answer_bytes=1024)
    try:
        first = [future.result(timeout=5) for future in transport.submit(
            [(f"http://{archive.address}/first", TIMEOUTS) for archive in fifty[:10]])]
        loop = transport._running_loop()
        assert len(loop._idle) == 10
        second = [future.result(timeout=5) for future in transport.submit(
            [(f"http://{archive.address}/second?n={index}", TIMEOUTS) for index, archive in enumerate(fifty[10:20])])]
        assert len(loop._idle) == 10  # the same ten handles, used again
        assert [exchange.body.decode() for exchange in first] == [f"{archive.port} /first" for archive in fifty[:10]]
        assert [exchange.body.decode() for exchange in second] == [
            f"{archive.port} /second?n={index}" for index, archive in enumerate(fifty[10:20])]
        transport.max_answer_bytes = 8
        (cut,) = transport.submit([(f"http://{fifty[0].address}/third", TIMEOUTS)])
        assert cut.result(timeout=5).failure is Failure.TOO_LARGE
    finally:
        transport.close()


def test_send_hands_every_outcome_over_once_those_ending_together_in_one_call(transport, fifty):
    calls: list[tuple[list, str]] = []
    every = threading.Event()

    def done(outcomes) -> None:
        calls.append((outcomes, threading.current_thread().name))
        if sum(len(each) for each, _ in calls) == 21:
            every.set()

    transport.send([(f"http://{archive.address}/a?n={index}", TIMEOUTS) for index, archive in enumerate(fifty[:20])]
                   + [("file:///etc/passwd", TIMEOUTS)], done)
    assert every.wait(5)
    (refused, thread), *answered = calls  # the refused one before send returned, on the sending thread
    assert refused[0][0] == 20 and refused[0][1].failure is Failure.REFUSED and thread != LOOP_THREAD
    assert all(outcomes and thread == LOOP_THREAD for outcomes, thread in answered)
    bodies = {index: exchange.body.decode() for outcomes, _ in answered for index, exchange in outcomes}
    assert bodies == {index: f"{archive.port} /a?n={index}" for index, archive in enumerate(fifty[:20])}


def test_a_receiver_that_fails_ends_neither_the_loop_nor_the_others(transport, fifty, caplog):
    def broken(outcomes) -> None:
        raise RuntimeError("a defect in the receiver")

    transport.send([(f"http://{fifty[0].address}/broken", TIMEOUTS)], broken)
    loop = transport._running_loop()
    (answered,) = transport.submit([(f"http://{fifty[1].address}/fine", TIMEOUTS)])
    assert answered.result(timeout=5).body.decode() == f"{fifty[1].port} /fine"
    time.sleep(0.2)  # the broken receiver's answer has come by now (loopback)
    (later,) = transport.submit([(f"http://{fifty[2].address}/later", TIMEOUTS)])
    assert later.result(timeout=5).body.decode() == f"{fifty[2].port} /later"
    assert transport._running_loop() is loop and loop.alive  # the same loop: it did not fail
    assert "a fan-out round failed to take its replies" in caplog.text


def test_the_futures_of_refused_urls_are_done_at_once(fifty):
    """The address policy refuses before anything reaches the loop: those futures are complete
    when ``submit`` returns, the others complete when their Archive answers."""
    transport = CurlTransport()  # private Archives refused: the loopback one too
    allowed = CurlTransport(allow_private=True)
    try:
        refused = transport.submit([(f"http://{fifty[0].address}/a", TIMEOUTS), ("file:///etc/passwd", TIMEOUTS)])
        assert all(future.done() for future in refused)
        assert [future.result().failure for future in refused] == [Failure.REFUSED, Failure.REFUSED]
        assert "127.0.0.1 is a loopback address" in refused[0].result().error
        mixed = allowed.submit([("gopher://127.0.0.1/", TIMEOUTS), (f"http://{fifty[1].address}/b", TIMEOUTS)])
        assert mixed[0].done() and mixed[0].result().failure is Failure.REFUSED
        assert mixed[1].result(timeout=5).body == f"{fifty[1].port} /b".encode()
    finally:
        transport.close()
        allowed.close()


def test_many_threads_submitting_at_once_get_their_own_answers(transport, fifty):
    """8 threads each send 5 rounds to their eighth of the 50 Archives, every request with its
    own path: every answer comes from the Archive asked, about the request sent (none lost,
    none crossed)."""

    def rounds(thread: int) -> list[tuple[str, Exchange]]:
        got = []
        for round_ in range(5):
            urls = [f"http://{archive.address}/t{thread}r{round_}" for archive in fifty[thread::8]]
            futures = transport.submit([(url, ROUTING_TIMEOUTS) for url in urls])
            got += [(url, future.result(timeout=30)) for url, future in zip(urls, futures)]
        return got

    with ThreadPoolExecutor(8) as pool:
        results = [item for got in pool.map(rounds, range(8)) for item in got]
    assert len(results) == 5 * len(fifty)
    for url, exchange in results:
        host_port, path = url.removeprefix("http://").split("/", 1)
        assert exchange.body == f"{host_port.rsplit(':', 1)[1]} /{path}".encode(), (url, exchange.failure, exchange.error)


def test_close_ends_the_loop_and_what_it_was_waiting_for(fifty):
    """close() ends the loop thread; an exchange still in flight ends then, saying why; the
    transport starts a new loop if it is used again."""
    transport = CurlTransport(allow_private=True)
    before = loop_threads()
    with RawArchive(says_nothing) as silent:
        pending = transport.submit([(f"http://{silent.address}/a", Timeouts(5, 5, 5))])[0]
        time.sleep(0.1)
        assert loop_threads() == before + 1
        started = time.monotonic()
        transport.close()
        exchange = pending.result(timeout=1)
    assert time.monotonic() - started < 1.0 and loop_threads() == before
    assert exchange.failure is Failure.CONNECTION and exchange.error == "ended by the portal (the transport was closed)"
    again = transport.fetch(f"http://{fifty[0].address}/again", TIMEOUTS)
    transport.close()
    assert again.body == f"{fifty[0].port} /again".encode()


def test_a_failing_loop_ends_its_exchanges_and_the_next_submit_gets_a_new_loop(fifty, monkeypatch, caplog):
    """A defect in the loop must not leave a resolution waiting for ever: the exchange in flight
    ends at once, saying so, the failure is logged, and the transport works again."""
    transport = CurlTransport(allow_private=True)
    with RawArchive(says_nothing) as silent:
        pending = transport.submit([(f"http://{silent.address}/a", Timeouts(5, 5, 5))])[0]
        time.sleep(0.1)
        turn = _Loop._turn
        monkeypatch.setattr(_Loop, "_turn", lambda self: 1 / 0)
        transport._loop._wake()  # the loop's next turn fails
        exchange = pending.result(timeout=1)
        monkeypatch.setattr(_Loop, "_turn", turn)
    assert exchange.failure is Failure.CONNECTION
    assert exchange.error == "ended by the portal (the portal's fan-out loop failed, see its log)"
    assert "the fan-out loop failed" in caplog.text
    again = transport.fetch(f"http://{fifty[0].address}/again", TIMEOUTS)
    transport.close()
    assert again.body == f"{fifty[0].port} /again".encode()


def test_a_forked_child_gets_its_own_loop_and_the_parent_keeps_its_own(transport):
    """gunicorn forks its workers from a process that may have used the transport: the child
    has none of the parent's threads, so it must start its own loop; the parent's loop – and
    its kept-alive connection – must not be disturbed by what the child does."""
    with RawArchive(keeps_alive(b"ok")) as archive:
        url = f"http://{archive.address}/a"
        assert transport.fetch(url, TIMEOUTS).body == b"ok"
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # the child: fetch, forget the parent's loop, report, and leave at once
            try:
                outcome = transport.fetch(url, TIMEOUTS)
                gc.collect()
                os.write(write, pickle.dumps((outcome.body, loop_threads())))
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            child_body, child_loops = pickle.loads(pipe.read())
        os.waitpid(child, 0)
        after = [transport.fetch(url, TIMEOUTS).body for _ in range(2)]
    assert (child_body, child_loops) == (b"ok", 1)
    assert after == [b"ok", b"ok"]
    assert archive.accepted == 2  # the parent's connection, kept alive, and the child's own


def test_the_answer_is_capped():
    """At the cap the answer is whole; past it, reading stops there (256 KiB by default); an
    answer announcing more than the cap is not read at all."""
    body = b"a" * 1000
    unannounced = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n" + body + b"b"
    small = CurlTransport(allow_private=True, max_answer_bytes=1000)
    default = CurlTransport(allow_private=True)
    try:
        with (RawArchive(answers(body)) as exact, RawArchive(garbage(unannounced)) as over,
              RawArchive(answers(body + b"b")) as announced, RawArchive(endless) as huge):
            at_cap = small.fetch(f"http://{exact.address}/a", TIMEOUTS)
            past_cap = small.fetch(f"http://{over.address}/a", TIMEOUTS)
            announced_past_cap = small.fetch(f"http://{announced.address}/a", TIMEOUTS)
            endless_answer = default.fetch(f"http://{huge.address}/a", TIMEOUTS)
    finally:
        small.close()
        default.close()
    assert at_cap.failure is None and at_cap.body == body
    assert past_cap.failure is Failure.TOO_LARGE and past_cap.body == body
    assert past_cap.error == "answer longer than the cap of 1000 bytes; stopped reading"
    assert announced_past_cap.failure is Failure.TOO_LARGE and announced_past_cap.body is None
    assert announced_past_cap.error == "answer announces 1001 bytes, more than the cap of 1000"
    assert endless_answer.failure is Failure.TOO_LARGE and len(endless_answer.body) == 256 * 1024


@pytest.mark.parametrize("where", ["headers", "body"])
def test_the_exchange_deadline_ends_a_trickling_archive(transport, where):
    """One byte every 0.1 s never trips a 5 s read timeout: ``CURLOPT_TIMEOUT_MS`` ends the
    exchange at its 0.6 s total, wherever the Archive is in its answer."""
    with RawArchive(trickles(where, every=0.1)) as archive:
        started = time.monotonic()
        exchange = transport.fetch(f"http://{archive.address}/a", Timeouts(1, 5, 0.6))
        took = time.monotonic() - started
    assert exchange.failure is Failure.TIMEOUT
    assert exchange.error.startswith("the exchange deadline (0.6 s) passed (Operation timed out after ")
    assert 0.55 < took < 0.6 + MARGIN


def test_each_exchange_of_a_round_counts_its_own_archives_bytes(transport):
    """One round to a silent Archive and to one trickling for longer than the 0.3 s read
    timeout: the loop's stamps go to the exchange whose connection had bytes, so the silent one
    ends at 0.3 s and the trickling one 0.3 s after its last byte."""
    read = 0.3
    timeouts = Timeouts(connect=1, read=read, total=4)
    trickle = trickles("body", every=0.1, count=8)
    with RawArchive(says_nothing) as silent, RawArchive(trickle) as speaking:
        started = time.monotonic()
        futures = transport.submit([(f"http://{silent.address}/a", timeouts), (f"http://{speaking.address}/a", timeouts)])
        silence = futures[0].result()
        silence_ended = time.monotonic()
        speech = futures[1].result()
        speech_ended = time.monotonic()
    assert silence.error == f"read timeout: the Archive sent no answer within {read} s"
    assert read <= silence_ended - started < read + MARGIN
    assert speech.error == f"read timeout: the Archive's answer stalled, nothing received for {read} s"
    assert len(trickle.sent) == 8 and speech.body == b"url " + b"a" * 8
    assert read <= speech_ended - trickle.sent[-1] < read + MARGIN


def test_a_kept_alive_connection_counts_the_bytes_of_the_exchange_it_carries(transport):
    """The second exchange over a kept-alive connection is heard on it too: a trickle longer
    than the read timeout lives, and ends ``read`` seconds after its last byte."""
    read = 0.3
    trickle = trickles("body", every=0.1, count=6)
    first = keeps_alive(b"ok")

    def answers_then_trickles(connection: socket.socket, head: bytes) -> None:
        (trickle if b" /second " in head else first)(connection, head)

    answers_then_trickles.keeps_alive = True  # type: ignore[attr-defined]
    with RawArchive(answers_then_trickles) as archive:
        answered = transport.fetch(f"http://{archive.address}/first", Timeouts(1, read, 4))
        trickled = transport.fetch(f"http://{archive.address}/second", Timeouts(1, read, 4))
        ended = time.monotonic()
    assert answered.body == b"ok" and archive.accepted == 1
    assert trickled.error == f"read timeout: the Archive's answer stalled, nothing received for {read} s"
    assert len(trickle.sent) == 6 and read <= ended - trickle.sent[-1] < read + MARGIN


def test_a_second_round_to_the_same_archive_reuses_its_connection(transport):
    """Keep-alive: rounds to an Archive after the first travel over the connection it opened."""
    with RawArchive(keeps_alive(b"url http://example.org/\r\n")) as archive:
        bodies = [transport.fetch(f"http://{archive.address}/round{index}", TIMEOUTS).body for index in range(3)]
    assert bodies == [b"url http://example.org/\r\n"] * 3
    assert archive.accepted == 1
    assert [head.split(b" ")[1] for head in archive.requests] == [b"/round0", b"/round1", b"/round2"]


def test_a_hosts_checked_address_serves_its_messages_for_a_while_then_is_checked_again(fifty):
    """A reference check sends thousands of messages to each Archive: its host is looked up and
    checked once per ``address_seconds``, not once per message; a refusal is not kept."""
    archive = fifty[0]
    port = archive.address.rsplit(":", 1)[1]
    lookups: list[str] = []
    now = [100.0]

    def dns(host, port, *args, **kwargs):
        lookups.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", int(port)))]

    transport = CurlTransport(allow_private=True, getaddrinfo=dns, address_seconds=1.0, clock=lambda: now[0])
    refusing = CurlTransport(getaddrinfo=dns, address_seconds=1.0, clock=lambda: now[0])
    try:
        first, second = (transport.fetch(f"http://archive.test:{port}/round{index}", TIMEOUTS) for index in range(2))
        assert (first.body, second.body) == (f"{port} /round0".encode(), f"{port} /round1".encode())
        assert lookups == ["archive.test"]
        now[0] += 1.0
        assert transport.fetch(f"http://archive.test:{port}/round2", TIMEOUTS).status == 200
        assert lookups == ["archive.test"] * 2
        refused = [refusing.fetch(f"http://archive.test:{port}/x", TIMEOUTS) for _ in range(2)]
        assert [exchange.failure for exchange in refused] == [Failure.REFUSED] * 2 and len(lookups) == 4
    finally:
        transport.close()
        refusing.close()
