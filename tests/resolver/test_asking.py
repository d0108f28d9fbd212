"""Asking the Archives (``ibiportal.resolver.asking``): which thread asks each Archive of a round."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from queue import SimpleQueue

from ibiportal.protocol.messages import UrlRequest, service_url
from ibiportal.resolver.asking import Sender


def test_in_process_archives_answering_at_once_are_asked_on_the_sending_thread(demo_transport):
    """The own and demo Archives are answered on the resolution's thread (a pool thread's
    hand-over cost more than their answer); one with a delay of its own (the slow demo
    Archive) still waits on a thread of the pool, so the round's other replies are not held up."""
    endpoints = demo_transport.endpoints(connect_timeout=0.3, read_timeout=0.3)
    slow = {endpoint.name for endpoint in endpoints if not demo_transport.answers_at_once(f"http://{endpoint.address}/")}
    assert slow == {"slow"}
    query = UrlRequest(("172.16.44.200",), "8JMKD3MGP8W/35MMLL8", None, ()).to_query(sort=True)
    messages = [(endpoint, f"{service_url(endpoint.address, endpoint.service_ibi)}?{query}") for endpoint in endpoints]
    arrived: SimpleQueue = SimpleQueue()
    sending = threading.current_thread()

    def deliver(arrivals) -> None:
        for arrival in arrivals:
            arrived.put((arrival, threading.current_thread()))

    with ThreadPoolExecutor(max_workers=2) as pool:
        sender = Sender({"local": demo_transport}, time.monotonic, time.monotonic() + 3.0)
        sender.send_all(pool, messages, deliver)
        delivered = {}
        while len(delivered) < len(messages):
            (index, reply), thread = arrived.get(timeout=3)
            delivered[messages[index][0].name] = (reply, thread)
    assert all(thread is sending for name, (_, thread) in delivered.items() if name not in slow)
    assert delivered["slow"][1] is not sending and delivered["slow"][0].exchange.failure is not None  # its timeout
    assert delivered["mtc-m16c"][0].exchange.status == 200 and b"url " in delivered["mtc-m16c"][0].exchange.body
